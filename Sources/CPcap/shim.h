#ifndef RTPRECV_CPCAP_SHIM_H
#define RTPRECV_CPCAP_SHIM_H
#include <pcap/pcap.h>
#include <stdio.h>
#endif
