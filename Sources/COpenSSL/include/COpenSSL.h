#ifndef RTPRECV_COPENSSL_H
#define RTPRECV_COPENSSL_H
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stddef.h>

/* OpenSSL 3 (libssl and libcrypto) is loaded with dlopen on first use, not linked: only rtsps://
   needs it, and linking it would cost every run its start-up. Returns 0, or -1 with a message in
   `message`. The functions below may be called only after it succeeded. */
int rtprecv_openssl_load(char *message, size_t size);

/* What ssl.h writes as macros over SSL_ctrl, as functions Swift can call. */
long rtprecv_ssl_set_sni(SSL *ssl, const char *name);
long rtprecv_ssl_set_mode(SSL *ssl, long mode);
static const uint64_t rtprecv_ssl_op_ignore_unexpected_eof = SSL_OP_IGNORE_UNEXPECTED_EOF;
#endif
