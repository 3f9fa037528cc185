#ifndef RTPRECV_CNATS_H
#define RTPRECV_CNATS_H
#include <stddef.h>
#include <nats/nats.h>

/* libnats is loaded with dlopen on first use, not linked: only a config's `nats:` needs it, and a
   run without one should not depend on the library being installed.
   Returns 0, or -1 with a message in `message`. The functions of nats.h that rtprecv calls may be
   called only after it succeeded. */
int rtprecv_nats_load(char *message, size_t size);
#endif
