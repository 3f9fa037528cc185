/* blast: sends the RTP packets of a capture over UDP with sendmmsg, repeated with continuing sequence
   numbers and timestamps, at a fixed packet rate or as fast as it can.
   usage: blast CAPTURE.pcap HOST PORT RATE_PPS|max REPEATS [reorder] [streams=N] [stride=S]
   With "reorder", every pair of packets goes out swapped. With "streams=N", each packet goes out N
   times, as N streams: to ports PORT, PORT+S, … (S = 1 unless given; 2 leaves each stream the port
   above for RTCP), with SSRCs the capture's + 0 .. N-1; RATE counts the packets of them all. Waits of over a millisecond sleep, so that receivers have the CPU.
   Reads pcap (either byte order) with Ethernet, raw IP or Linux SLL framing and IPv4/UDP inside.
   Prints the packets and frames (marker bits) sent. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 32

static uint32_t rd32(const uint8_t *p, int swap) {
    uint32_t v; memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

static uint64_t now_ns(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 6 || argc > 9) { fprintf(stderr, "usage: blast CAPTURE HOST PORT RATE|max REPEATS [reorder] [streams=N] [stride=S]\n"); return 64; }
    int reorder = 0, streams = 1, stride = 1;
    for (int a = 6; a < argc; a++) {
        if (strcmp(argv[a], "reorder") == 0) reorder = 1;
        else if (strncmp(argv[a], "streams=", 8) == 0 && atoi(argv[a] + 8) >= 1) streams = atoi(argv[a] + 8);
        else if (strncmp(argv[a], "stride=", 7) == 0 && atoi(argv[a] + 7) >= 1) stride = atoi(argv[a] + 7);
        else { fprintf(stderr, "blast: unknown argument %s\n", argv[a]); return 64; }
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END); long size = ftell(f); fseek(f, 0, SEEK_SET);
    uint8_t *file = malloc(size);
    if (fread(file, 1, size, f) != (size_t)size) { perror("read"); return 1; }
    uint32_t magic; memcpy(&magic, file, 4);
    int swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
    if (!swap && magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) { fprintf(stderr, "%s: not a pcap\n", argv[1]); return 1; }
    uint32_t link = rd32(file + 20, swap);
    size_t link_len = link == 1 ? 14 : link == 113 ? 16 : 0;

    /* Offsets and lengths of every UDP payload. */
    size_t count = 0, cap = 1024;
    uint8_t **payloads = malloc(cap * sizeof *payloads);
    size_t *lengths = malloc(cap * sizeof *lengths);
    for (long off = 24; off + 16 <= size;) {
        uint32_t caplen = rd32(file + off + 8, swap);
        uint8_t *frame = file + off + 16;
        off += 16 + caplen;
        if (caplen < link_len + 28 || (frame[link_len] >> 4) != 4 || frame[link_len + 9] != 17) continue;
        size_t ihl = (frame[link_len] & 15) * 4;
        uint8_t *udp = frame + link_len + ihl;
        size_t udp_len = ((size_t)udp[4] << 8 | udp[5]);
        if (udp_len < 20 || link_len + ihl + udp_len > caplen) continue;
        if (count == cap) { cap *= 2; payloads = realloc(payloads, cap * sizeof *payloads); lengths = realloc(lengths, cap * sizeof *lengths); }
        payloads[count] = udp + 8; lengths[count] = udp_len - 8; count++;
    }
    if (count == 0) { fprintf(stderr, "%s: no UDP packets\n", argv[1]); return 1; }
    uint16_t first_seq = (uint16_t)(payloads[0][2] << 8 | payloads[0][3]);
    uint16_t last_seq = (uint16_t)(payloads[count - 1][2] << 8 | payloads[count - 1][3]);
    uint32_t first_ts = rd32(payloads[0] + 4, 1 - (1 == htonl(1)));
    uint32_t last_ts = rd32(payloads[count - 1] + 4, 1 - (1 == htonl(1)));
    uint16_t seq_span = (uint16_t)(last_seq - first_seq + 1);
    uint32_t ts_span = last_ts - first_ts + 3000;

    struct sockaddr_in *to = calloc(streams, sizeof *to);
    for (int k = 0; k < streams; k++) {
        to[k].sin_family = AF_INET;
        to[k].sin_port = htons((uint16_t)(atoi(argv[3]) + k * stride));
        inet_pton(AF_INET, argv[2], &to[k].sin_addr);
    }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    int sndbuf = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    double rate = strcmp(argv[4], "max") == 0 ? 0 : atof(argv[4]);
    long repeats = atol(argv[5]);

    static uint8_t buffers[BATCH][65536];
    struct mmsghdr msgs[BATCH];
    struct iovec iov[BATCH];
    uint64_t start = now_ns(), sent = 0, frames = 0;
    size_t batch = 0;
    for (long r = 0; r < repeats; r++) {
        for (size_t i = 0; i < count; i++) {
          for (int k = 0; k < streams; k++) {
            uint8_t *b = buffers[batch];
            memcpy(b, payloads[i], lengths[i]);
            uint16_t seq = (uint16_t)((b[2] << 8 | b[3]) + r * seq_span);
            uint32_t ts; memcpy(&ts, b + 4, 4); ts = htonl(ntohl(ts) + (uint32_t)(r * ts_span));
            uint32_t ssrc; memcpy(&ssrc, b + 8, 4); ssrc = htonl(ntohl(ssrc) + (uint32_t)k);
            b[2] = seq >> 8; b[3] = seq & 0xff; memcpy(b + 4, &ts, 4); memcpy(b + 8, &ssrc, 4);
            if ((b[1] & 0x80) && k == 0) frames++;
            iov[batch].iov_base = b; iov[batch].iov_len = lengths[i];
            memset(&msgs[batch], 0, sizeof msgs[batch]);
            msgs[batch].msg_hdr.msg_name = &to[k]; msgs[batch].msg_hdr.msg_namelen = sizeof to[k];
            msgs[batch].msg_hdr.msg_iov = &iov[batch]; msgs[batch].msg_hdr.msg_iovlen = 1;
            if (++batch == BATCH || (r == repeats - 1 && i == count - 1 && k == streams - 1)) {
                if (reorder) {
                    for (size_t k = 0; k + 1 < batch; k += 2) {
                        struct iovec t = iov[k]; iov[k] = iov[k + 1]; iov[k + 1] = t;
                    }
                }
                if (rate > 0) {  /* pace: wait until this batch is due */
                    uint64_t due = start + (uint64_t)((sent + batch) * 1e9 / rate), now;
                    while ((now = now_ns()) < due) {
                        if (due - now > 1000000) {
                            struct timespec nap = { 0, (long)(due - now - 500000) };
                            nanosleep(&nap, NULL);
                        }
                    }
                }
                for (size_t done = 0; done < batch;) {
                    int n = sendmmsg(fd, msgs + done, batch - done, 0);
                    if (n < 0) { perror("sendmmsg"); return 1; }
                    done += n;
                }
                sent += batch; batch = 0;
            }
          }
        }
    }
    double seconds = (now_ns() - start) / 1e9;
    /* frames: those of one stream */
    printf("sent %llu packets, %llu frames in %.3f s (%.0f packets/s)\n",
           (unsigned long long)sent, (unsigned long long)frames, seconds, sent / seconds);
    return 0;
}
