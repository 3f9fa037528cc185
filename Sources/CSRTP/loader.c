/* Definitions of the libsrtp2 functions the SRTP module calls, forwarding to the library opened
   with dlopen by rtprecv_srtp_load(). The signatures are srtp.h's own. They are hidden from
   the executable's dynamic symbols, as COpenSSL's are, so that no library binds its own calls to them. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#pragma GCC visibility push(hidden)
#include "CSRTP.h"
#pragma GCC visibility pop

#define FUNCTIONS(X) \
    X(srtp_init) X(srtp_install_log_handler) X(srtp_create) X(srtp_dealloc) X(srtp_unprotect_mki) \
    X(srtp_unprotect_rtcp_mki) X(srtp_crypto_policy_set_rtp_default) X(srtp_crypto_policy_set_rtcp_default) \
    X(srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32) X(srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32) \
    X(srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80) X(srtp_crypto_policy_set_aes_gcm_128_16_auth) \
    X(srtp_crypto_policy_set_aes_gcm_256_16_auth)

#define POINTER(name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
    /* libsrtp2 2.x: soname 1. */
    void *library = dlopen("libsrtp2.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define RESOLVE(name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(library, #name)) && !load_error[0]) \
        snprintf(load_error, sizeof load_error, "libsrtp2 has no %s", #name);
    FUNCTIONS(RESOLVE)
}

int rtprecv_srtp_load(char *message, size_t size) {
    pthread_once(&once, load);
    if (load_error[0]) {
        snprintf(message, size, "%s (install libsrtp2-1)", load_error);
        return -1;
    }
    return 0;
}

srtp_err_status_t srtp_init(void) { return p_srtp_init(); }
srtp_err_status_t srtp_install_log_handler(srtp_log_handler_func_t func, void *data) {
    return p_srtp_install_log_handler(func, data);
}
srtp_err_status_t srtp_create(srtp_t *session, const srtp_policy_t *policy) { return p_srtp_create(session, policy); }
srtp_err_status_t srtp_dealloc(srtp_t s) { return p_srtp_dealloc(s); }
srtp_err_status_t srtp_unprotect_mki(srtp_t ctx, void *srtp_hdr, int *len_ptr, unsigned int use_mki) {
    return p_srtp_unprotect_mki(ctx, srtp_hdr, len_ptr, use_mki);
}
srtp_err_status_t srtp_unprotect_rtcp_mki(srtp_t ctx, void *srtcp_hdr, int *pkt_octet_len, unsigned int use_mki) {
    return p_srtp_unprotect_rtcp_mki(ctx, srtcp_hdr, pkt_octet_len, use_mki);
}
void srtp_crypto_policy_set_rtp_default(srtp_crypto_policy_t *p) { p_srtp_crypto_policy_set_rtp_default(p); }
void srtp_crypto_policy_set_rtcp_default(srtp_crypto_policy_t *p) { p_srtp_crypto_policy_set_rtcp_default(p); }
void srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(srtp_crypto_policy_t *p) {
    p_srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(p);
}
void srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(srtp_crypto_policy_t *p) {
    p_srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(p);
}
void srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(srtp_crypto_policy_t *p) {
    p_srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(p);
}
void srtp_crypto_policy_set_aes_gcm_128_16_auth(srtp_crypto_policy_t *p) { p_srtp_crypto_policy_set_aes_gcm_128_16_auth(p); }
void srtp_crypto_policy_set_aes_gcm_256_16_auth(srtp_crypto_policy_t *p) { p_srtp_crypto_policy_set_aes_gcm_256_16_auth(p); }
