#ifndef RTPRECV_RECV_BATCH_H
#define RTPRECV_RECV_BATCH_H
#include <stddef.h>
#include <stdint.h>

/* The most datagrams one call receives. */
#define RECV_BATCH_MAX 256

/* recvmmsg(2), which Swift's Glibc module does not expose (it needs _GNU_SOURCE), with its message
   headers set up once. Datagram i lands in buffers + i * stride (stride bytes at most) and its sender
   in names + i * name_size (a struct sockaddr_storage). */
struct recv_batch;

/* Returns NULL when out of memory. `count` is capped at RECV_BATCH_MAX. */
struct recv_batch *recv_batch_create(void *buffers, size_t stride, unsigned count, void *names, size_t name_size);
void recv_batch_destroy(struct recv_batch *batch);

/* Waits for the first datagram as long as the socket's SO_RCVTIMEO allows, then takes what else is
   waiting, up to the batch. For each: lengths[i], truncated[i] (MSG_TRUNC) and arrivals[i], when the
   kernel took it in on CLOCK_REALTIME in nanoseconds (SO_TIMESTAMPNS; 0 without one). *drops is set
   from SO_RXQ_OVFL when the kernel reports it. Returns the number received, 0 when the wait timed
   out, or -1 with errno set (EINTR when a signal came). */
int recv_batch_receive(struct recv_batch *batch, int fd, uint32_t *lengths, uint8_t *truncated, uint32_t *drops,
                       int64_t *arrivals);

#endif
