#ifndef RTPRECV_CYAML_H
#define RTPRECV_CYAML_H
#include <stddef.h>
#include <yaml.h>

/* libyaml is loaded with dlopen on first use, not linked: only --config needs it, and a run
   without one should not depend on the library being installed.
   Returns 0, or -1 with a message in `message`. The functions of yaml.h that rtprecv calls may be
   called only after it succeeded. */
int rtprecv_yaml_load(char *message, size_t size);
#endif
