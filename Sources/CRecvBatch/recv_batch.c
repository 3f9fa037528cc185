#define _GNU_SOURCE
#include "recv_batch.h"
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif

int recv_batch(int fd, void *buffers, size_t stride, unsigned count,
               void *names, size_t name_size, uint32_t *lengths, uint8_t *truncated, uint32_t *drops) {
    struct mmsghdr headers[RECV_BATCH_MAX];
    struct iovec vectors[RECV_BATCH_MAX];
    /* Room for the drop counter's control message, per datagram. */
    char control[RECV_BATCH_MAX][CMSG_SPACE(sizeof(uint32_t))];
    if (count > RECV_BATCH_MAX) count = RECV_BATCH_MAX;
    for (unsigned i = 0; i < count; i++) {
        vectors[i].iov_base = (char *)buffers + i * stride;
        vectors[i].iov_len = stride;
        memset(&headers[i], 0, sizeof headers[i]);
        headers[i].msg_hdr.msg_name = (char *)names + i * name_size;
        headers[i].msg_hdr.msg_namelen = (socklen_t)name_size;
        headers[i].msg_hdr.msg_iov = &vectors[i];
        headers[i].msg_hdr.msg_iovlen = 1;
        headers[i].msg_hdr.msg_control = control[i];
        headers[i].msg_hdr.msg_controllen = sizeof control[i];
    }
    int n = recvmmsg(fd, headers, count, MSG_DONTWAIT, NULL);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        lengths[i] = headers[i].msg_len;
        truncated[i] = (headers[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&headers[i].msg_hdr); c; c = CMSG_NXTHDR(&headers[i].msg_hdr, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL)
                memcpy(drops, CMSG_DATA(c), sizeof *drops);
        }
    }
    return n;
}
