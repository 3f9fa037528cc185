/* scripts/svc-picture.h: what scripts/vp9-svc-encode.c and scripts/av1-svc-encode.c share: IVF's
   little-endian fields, and the moving test picture they encode. */
#include <stdio.h>
#include <string.h>

static void le16(FILE *f, unsigned v) { fputc(v & 255, f); fputc(v >> 8 & 255, f); }
static void le32(FILE *f, unsigned v) { le16(f, v & 0xffff); le16(f, v >> 16); }

/* Picture n of a 4:2:0 image (its planes and strides): a gradient with a bright square crossing it. */
static void draw(unsigned char *const planes[3], const int strides[3], int width, int height, int n) {
    for (int plane = 0; plane < 3; plane++) {
        int w = plane ? (width + 1) / 2 : width, h = plane ? (height + 1) / 2 : height;
        for (int y = 0; y < h; y++) {
            unsigned char *row = planes[plane] + y * strides[plane];
            for (int x = 0; x < w; x++) row[x] = (unsigned char)(plane ? 128 + (x - y + n) % 64 : (x + y + 3 * n) & 255);
        }
    }
    int s = 40, x0 = (5 * n) % (width - s), y0 = (3 * n) % (height - s);
    for (int y = y0; y < y0 + s; y++) memset(planes[0] + y * strides[0] + x0, 235, s);
}
