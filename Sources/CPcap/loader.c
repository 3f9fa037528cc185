/* Definitions of the libpcap functions the PcapInput module calls, forwarding to the library
   opened with dlopen by rtprecv_pcap_load(). The signatures are pcap.h's own. They are hidden from
   the executable's dynamic symbols, as COpenSSL's are, so that no library binds its own calls to them. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/time.h>
#include <sys/socket.h>
#pragma GCC visibility push(hidden)
#include "CPcap.h"
#pragma GCC visibility pop

#define FUNCTIONS(X) \
    X(pcap_open_offline_with_tstamp_precision) X(pcap_datalink) X(pcap_file) X(pcap_next_ex) X(pcap_geterr) \
    X(pcap_close)

#define POINTER(name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
    /* Debian and its kin name libpcap 1.x's soname 0.8; elsewhere it is 1. */
    void *library = dlopen("libpcap.so.0.8", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libpcap.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define RESOLVE(name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(library, #name)) && !load_error[0]) \
        snprintf(load_error, sizeof load_error, "libpcap has no %s", #name);
    FUNCTIONS(RESOLVE)
}

int rtprecv_pcap_load(char *message, size_t size) {
    pthread_once(&once, load);
    if (load_error[0]) {
        snprintf(message, size, "%s (install libpcap0.8)", load_error);
        return -1;
    }
    return 0;
}

pcap_t *pcap_open_offline_with_tstamp_precision(const char *path, u_int precision, char *error) {
    return p_pcap_open_offline_with_tstamp_precision(path, precision, error);
}
int pcap_datalink(pcap_t *p) { return p_pcap_datalink(p); }
FILE *pcap_file(pcap_t *p) { return p_pcap_file(p); }
int pcap_next_ex(pcap_t *p, struct pcap_pkthdr **header, const u_char **data) { return p_pcap_next_ex(p, header, data); }
char *pcap_geterr(pcap_t *p) { return p_pcap_geterr(p); }
void pcap_close(pcap_t *p) { p_pcap_close(p); }
