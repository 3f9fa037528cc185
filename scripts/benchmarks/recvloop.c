/* recvloop: the floor for live reception. Receives with recvmmsg in batches of 64 into an 8 MiB
   socket buffer and only counts, until no datagram came for IDLE seconds.
   usage: recvloop PORT IDLE_SECONDS   (prints: packets, bytes, kernel drops) */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: recvloop PORT IDLE_SECONDS\n"); return 64; }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    int size = 8 << 20, one = 1;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])) };
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("bind"); return 1; }
    printf("listening\n");
    fflush(stdout);
    static char buffers[64][2048];
    static char control[64][64];
    struct mmsghdr msgs[64];
    struct iovec iov[64];
    unsigned long long packets = 0, bytes = 0;
    uint32_t drops = 0;
    int idle_ms = (int)(atof(argv[2]) * 1000), started = 0;
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, started ? idle_ms : 60000) <= 0) break;
        started = 1;
        for (int i = 0; i < 64; i++) {
            iov[i].iov_base = buffers[i]; iov[i].iov_len = sizeof buffers[i];
            memset(&msgs[i], 0, sizeof msgs[i]);
            msgs[i].msg_hdr.msg_iov = &iov[i]; msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_control = control[i]; msgs[i].msg_hdr.msg_controllen = sizeof control[i];
        }
        int n = recvmmsg(fd, msgs, 64, MSG_DONTWAIT, NULL);
        for (int i = 0; i < n; i++) {
            packets++; bytes += msgs[i].msg_len;
            for (struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c; c = CMSG_NXTHDR(&msgs[i].msg_hdr, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) memcpy(&drops, CMSG_DATA(c), 4);
        }
    }
    printf("%llu %llu %u\n", packets, bytes, drops);
    return 0;
}
