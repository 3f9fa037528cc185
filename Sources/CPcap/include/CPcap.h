#ifndef RTPRECV_CPCAP_H
#define RTPRECV_CPCAP_H
#include <pcap/pcap.h>
#include <stddef.h>
#include <stdio.h>

/* libpcap is loaded with dlopen on first use, not linked: only captures in formats other than
   pcap and pcapng need it, and it brings D-Bus and systemd in (nine libraries, two thousand
   symbols to bind), which cost every run a millisecond at start-up.
   Returns 0, or -1 with a message in `message`. The functions of pcap.h that rtprecv calls may be
   called only after it succeeded. */
int rtprecv_pcap_load(char *message, size_t size);
#endif
