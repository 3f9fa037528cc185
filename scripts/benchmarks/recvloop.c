/* recvloop: the floor for live reception. Receives with recvmmsg in batches of 64 into an 8 MiB
   socket buffer until no datagram came for IDLE seconds. Without OUT it only counts. With OUT it is
   the floor for a receiver that writes: it copies each RTP payload (no depacketization) into a frame
   buffer and writes the frame to OUT when the marker bit ends it, timing each write from the arrival
   of the frame's last packet.
   usage: recvloop PORT IDLE_SECONDS [OUT]
   prints: packets bytes kernel_drops [frames written, write latency p50 p99 max in µs] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif

#define MAX_FRAMES (1 << 20)

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) { fprintf(stderr, "usage: recvloop PORT IDLE_SECONDS [OUT]\n"); return 64; }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    int size = 8 << 20, one = 1;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])) };
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("bind"); return 1; }
    int out = -1;
    if (argc == 4 && (out = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) { perror(argv[3]); return 1; }
    static char frame[16 << 20];
    static long long latencies[MAX_FRAMES];
    size_t filled = 0, frames = 0;
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
        long long arrival = out >= 0 ? now_ns() : 0;
        for (int i = 0; i < n; i++) {
            packets++; bytes += msgs[i].msg_len;
            for (struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c; c = CMSG_NXTHDR(&msgs[i].msg_hdr, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) memcpy(&drops, CMSG_DATA(c), 4);
            if (out < 0 || msgs[i].msg_len <= 12) continue;
            size_t payload = msgs[i].msg_len - 12;
            if (filled + payload <= sizeof frame) { memcpy(frame + filled, buffers[i] + 12, payload); filled += payload; }
            if (buffers[i][1] & 0x80) {
                if (write(out, frame, filled) != (ssize_t)filled) { perror("write"); return 1; }
                if (frames < MAX_FRAMES) latencies[frames++] = now_ns() - arrival;
                filled = 0;
            }
        }
    }
    printf("%llu %llu %u", packets, bytes, drops);
    if (frames > 0) {
        qsort(latencies, frames, sizeof latencies[0], by_value);
        printf(" %zu %lld %lld %lld", frames, latencies[frames / 2] / 1000, latencies[frames * 99 / 100] / 1000,
               latencies[frames - 1] / 1000);
    }
    printf("\n");
    return 0;
}
