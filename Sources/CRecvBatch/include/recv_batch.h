#ifndef RTPRECV_RECV_BATCH_H
#define RTPRECV_RECV_BATCH_H
#include <stddef.h>
#include <stdint.h>

/* The most datagrams one call receives. */
#define RECV_BATCH_MAX 256

/* recvmmsg(2), which Swift's Glibc module does not expose (it needs _GNU_SOURCE).
   Receives up to `count` datagrams without waiting, datagram i into buffers + i * stride (stride bytes
   at most). For each: lengths[i], truncated[i] (MSG_TRUNC) and the sender in names + i * name_size
   (a struct sockaddr_storage). *drops is set from SO_RXQ_OVFL when the kernel reports it.
   Returns the number received, 0 when none is waiting, or -1 with errno set. */
int recv_batch(int fd, void *buffers, size_t stride, unsigned count,
               void *names, size_t name_size, uint32_t *lengths, uint8_t *truncated, uint32_t *drops);

#endif
