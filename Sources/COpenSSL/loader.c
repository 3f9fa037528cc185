/* Definitions of the OpenSSL functions the TLS module calls, forwarding to the libraries opened
   with dlopen by rtprecv_openssl_load(). The signatures are OpenSSL's own. They stay out of the
   executable's dynamic symbols: a libcrypto that another library loads (libnats does) would
   otherwise call these for its own functions, through pointers not loaded yet. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#pragma GCC visibility push(hidden)
#include "COpenSSL.h"
#pragma GCC visibility pop

#define SSL_FUNCTIONS(X) \
    X(TLS_client_method) X(SSL_CTX_new) X(SSL_CTX_free) X(SSL_CTX_set_default_verify_paths) \
    X(SSL_CTX_load_verify_locations) X(SSL_CTX_set_options) X(SSL_new) X(SSL_free) X(SSL_set_fd) X(SSL_ctrl) \
    X(SSL_set1_host) X(SSL_connect) X(SSL_read) X(SSL_write) X(SSL_get_error) X(SSL_shutdown) \
    X(SSL_get_verify_result) X(SSL_get1_peer_certificate) X(SSL_pending) X(SSL_get_version)

#define CRYPTO_FUNCTIONS(X) \
    X(X509_free) X(X509_digest) X(EVP_sha256) X(X509_verify_cert_error_string) X(ERR_get_error) \
    X(ERR_error_string_n) X(ERR_clear_error) X(X509_get_subject_name) X(X509_NAME_oneline)

#define POINTER(name) static __typeof__(name) *p_##name;
SSL_FUNCTIONS(POINTER)
CRYPTO_FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
    /* OpenSSL 3: soname 3 (Debian 12's libssl3). */
    void *crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    void *ssl = crypto ? dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!crypto || !ssl) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define RESOLVE_IN(library, name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(library, #name)) && !load_error[0]) \
        snprintf(load_error, sizeof load_error, "OpenSSL has no %s", #name);
#define RESOLVE_SSL(name) RESOLVE_IN(ssl, name)
#define RESOLVE_CRYPTO(name) RESOLVE_IN(crypto, name)
    SSL_FUNCTIONS(RESOLVE_SSL)
    CRYPTO_FUNCTIONS(RESOLVE_CRYPTO)
}

int rtprecv_openssl_load(char *message, size_t size) {
    pthread_once(&once, load);
    if (load_error[0]) {
        snprintf(message, size, "%s (install libssl3)", load_error);
        return -1;
    }
    return 0;
}

long rtprecv_ssl_set_sni(SSL *ssl, const char *name) {
    return p_SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)name);
}
long rtprecv_ssl_set_mode(SSL *ssl, long mode) { return p_SSL_ctrl(ssl, SSL_CTRL_MODE, mode, NULL); }

const SSL_METHOD *TLS_client_method(void) { return p_TLS_client_method(); }
SSL_CTX *SSL_CTX_new(const SSL_METHOD *method) { return p_SSL_CTX_new(method); }
void SSL_CTX_free(SSL_CTX *ctx) { p_SSL_CTX_free(ctx); }
int SSL_CTX_set_default_verify_paths(SSL_CTX *ctx) { return p_SSL_CTX_set_default_verify_paths(ctx); }
int SSL_CTX_load_verify_locations(SSL_CTX *ctx, const char *file, const char *path) {
    return p_SSL_CTX_load_verify_locations(ctx, file, path);
}
uint64_t SSL_CTX_set_options(SSL_CTX *ctx, uint64_t op) { return p_SSL_CTX_set_options(ctx, op); }
SSL *SSL_new(SSL_CTX *ctx) { return p_SSL_new(ctx); }
void SSL_free(SSL *ssl) { p_SSL_free(ssl); }
int SSL_set_fd(SSL *s, int fd) { return p_SSL_set_fd(s, fd); }
long SSL_ctrl(SSL *ssl, int cmd, long larg, void *parg) { return p_SSL_ctrl(ssl, cmd, larg, parg); }
int SSL_set1_host(SSL *s, const char *hostname) { return p_SSL_set1_host(s, hostname); }
int SSL_connect(SSL *ssl) { return p_SSL_connect(ssl); }
int SSL_read(SSL *ssl, void *buf, int num) { return p_SSL_read(ssl, buf, num); }
int SSL_write(SSL *ssl, const void *buf, int num) { return p_SSL_write(ssl, buf, num); }
int SSL_get_error(const SSL *s, int ret_code) { return p_SSL_get_error(s, ret_code); }
int SSL_shutdown(SSL *s) { return p_SSL_shutdown(s); }
long SSL_get_verify_result(const SSL *ssl) { return p_SSL_get_verify_result(ssl); }
X509 *SSL_get1_peer_certificate(const SSL *s) { return p_SSL_get1_peer_certificate(s); }
int SSL_pending(const SSL *s) { return p_SSL_pending(s); }
const char *SSL_get_version(const SSL *s) { return p_SSL_get_version(s); }

void X509_free(X509 *a) { p_X509_free(a); }
int X509_digest(const X509 *data, const EVP_MD *type, unsigned char *md, unsigned int *len) {
    return p_X509_digest(data, type, md, len);
}
const EVP_MD *EVP_sha256(void) { return p_EVP_sha256(); }
const char *X509_verify_cert_error_string(long n) { return p_X509_verify_cert_error_string(n); }
unsigned long ERR_get_error(void) { return p_ERR_get_error(); }
void ERR_error_string_n(unsigned long e, char *buf, size_t len) { p_ERR_error_string_n(e, buf, len); }
void ERR_clear_error(void) { p_ERR_clear_error(); }
X509_NAME *X509_get_subject_name(const X509 *a) { return p_X509_get_subject_name(a); }
char *X509_NAME_oneline(const X509_NAME *a, char *buf, int size) { return p_X509_NAME_oneline(a, buf, size); }
