#ifndef RTPRECV_CSRTP_H
#define RTPRECV_CSRTP_H
#include <srtp2/srtp.h>
#include <stddef.h>

/* libsrtp2 is loaded with dlopen on first use, not linked: it brings NSS in (five libraries, a
   thousand symbols to bind), which cost every run a millisecond at start-up, SRTP or not.
   Returns 0, or -1 with a message in `message`. The functions of srtp.h that rtprecv calls may be
   called only after it succeeded. */
int rtprecv_srtp_load(char *message, size_t size);
#endif
