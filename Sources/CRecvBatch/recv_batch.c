#define _GNU_SOURCE
#include "recv_batch.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif

/* Room for the drop counter's control message and the arrival time's. */
#define CONTROL_BYTES (CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct timespec)))

struct recv_batch {
    unsigned count;
    socklen_t name_size;
    struct mmsghdr headers[RECV_BATCH_MAX];
    struct iovec vectors[RECV_BATCH_MAX];
    char control[RECV_BATCH_MAX][CONTROL_BYTES];
};

struct recv_batch *recv_batch_create(void *buffers, size_t stride, unsigned count, void *names, size_t name_size) {
    struct recv_batch *batch = calloc(1, sizeof *batch);
    if (!batch) return NULL;
    batch->count = count > RECV_BATCH_MAX ? RECV_BATCH_MAX : count;
    batch->name_size = (socklen_t)name_size;
    for (unsigned i = 0; i < batch->count; i++) {
        batch->vectors[i].iov_base = (char *)buffers + i * stride;
        batch->vectors[i].iov_len = stride;
        struct msghdr *h = &batch->headers[i].msg_hdr;
        h->msg_name = (char *)names + i * name_size;
        h->msg_iov = &batch->vectors[i];
        h->msg_iovlen = 1;
        h->msg_control = batch->control[i];
    }
    return batch;
}

void recv_batch_destroy(struct recv_batch *batch) { free(batch); }

int recv_batch_receive(struct recv_batch *batch, int fd, uint32_t *lengths, uint8_t *truncated, uint32_t *drops,
                       int64_t *arrivals) {
    /* The kernel overwrites these two with what it filled in. */
    for (unsigned i = 0; i < batch->count; i++) {
        batch->headers[i].msg_hdr.msg_namelen = batch->name_size;
        batch->headers[i].msg_hdr.msg_controllen = CONTROL_BYTES;
    }
    int n = recvmmsg(fd, batch->headers, batch->count, MSG_WAITFORONE, NULL);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        struct msghdr *h = &batch->headers[i].msg_hdr;
        lengths[i] = batch->headers[i].msg_len;
        truncated[i] = (h->msg_flags & MSG_TRUNC) != 0;
        arrivals[i] = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
            if (c->cmsg_level != SOL_SOCKET) continue;
            if (c->cmsg_type == SO_RXQ_OVFL) memcpy(drops, CMSG_DATA(c), sizeof *drops);
            if (c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec t;
                memcpy(&t, CMSG_DATA(c), sizeof t);
                arrivals[i] = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
            }
        }
    }
    return n;
}
