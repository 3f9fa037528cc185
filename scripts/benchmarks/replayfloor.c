/* replayfloor: the floor for replay. Maps a classic pcap (Ethernet, IPv4, UDP, RTP) read-only,
   walks its records in place and writes each RTP payload slice to OUT with writev, 1024 slices at a
   time: no reordering, no depacketization, no check beyond the record lengths.
   usage: replayfloor CAPTURE OUT
   prints: records bytes_written */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define SLICES 1024

static uint32_t u32(const uint8_t *p, int swapped) {
    uint32_t v;
    memcpy(&v, p, 4);
    return swapped ? __builtin_bswap32(v) : v;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: replayfloor CAPTURE OUT\n"); return 64; }
    int fd = open(argv[1], O_RDONLY);
    int out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    struct stat st;
    if (fd < 0 || out < 0 || fstat(fd, &st) != 0 || st.st_size < 24) { perror(argv[1]); return 1; }
    const uint8_t *file = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (file == MAP_FAILED) { perror("mmap"); return 1; }
    madvise((void *)file, st.st_size, MADV_SEQUENTIAL);
    uint32_t magic;
    memcpy(&magic, file, 4);
    int swapped = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
    struct iovec iov[SLICES];
    int n = 0;
    long long records = 0, written = 0;
    size_t at = 24;
    while (at + 16 <= (size_t)st.st_size) {
        uint32_t caplen = u32(file + at + 8, swapped);
        const uint8_t *frame = file + at + 16;
        at += 16 + caplen;
        if (at > (size_t)st.st_size) break;
        records++;
        size_t ip = 14, udp = ip + (frame[ip] & 15) * 4, rtp = udp + 8;
        if (caplen < rtp + 12) continue;
        size_t payload = rtp + 12 + (frame[rtp] & 15) * 4;
        if (payload > caplen) continue;
        iov[n].iov_base = (void *)(frame + payload);
        iov[n].iov_len = caplen - payload;
        written += caplen - payload;
        if (++n == SLICES) { if (writev(out, iov, n) < 0) { perror("writev"); return 1; } n = 0; }
    }
    if (n && writev(out, iov, n) < 0) { perror("writev"); return 1; }
    printf("%lld %lld\n", records, written);
    return 0;
}
