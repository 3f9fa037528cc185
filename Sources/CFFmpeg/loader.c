/* Definitions of the libav* functions the FFmpeg module calls, forwarding to the libraries opened
   with dlopen by rtprecv_ffmpeg_load(). The signatures are the headers' own. */
#include "CFFmpeg.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define STR2(x) #x
#define STR(x) STR2(x)

#define FUNCTIONS(X) \
    X(avcodec, avcodec_find_decoder) X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_free_context) \
    X(avcodec, avcodec_open2) X(avcodec, avcodec_send_packet) X(avcodec, avcodec_receive_frame) \
    X(avcodec, av_packet_alloc) X(avcodec, av_packet_free) \
    X(avutil, av_frame_alloc) X(avutil, av_frame_free) X(avutil, av_frame_get_buffer) X(avutil, av_frame_unref) \
    X(avutil, av_get_pix_fmt) X(avutil, av_get_pix_fmt_name) X(avutil, av_image_copy_to_buffer) \
    X(avutil, av_image_get_buffer_size) X(avutil, av_md5_sum) X(avutil, av_strerror) \
    X(avutil, av_mallocz) X(avutil, av_channel_layout_default) X(avutil, av_channel_layout_uninit) \
    X(swscale, sws_getContext) X(swscale, sws_freeContext) X(swscale, sws_scale)

#define POINTER(lib, name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void *open_library(const char *name) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle && !load_error[0]) snprintf(load_error, sizeof load_error, "%s", dlerror());
    return handle;
}

static void load(void) {
    void *avutil = open_library("libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR));
    void *avcodec = open_library("libavcodec.so." STR(LIBAVCODEC_VERSION_MAJOR));
    void *swscale = open_library("libswscale.so." STR(LIBSWSCALE_VERSION_MAJOR));
    if (!avutil || !avcodec || !swscale) return;
#define RESOLVE(lib, name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(lib, #name)) && !load_error[0]) \
        snprintf(load_error, sizeof load_error, "%s has no %s", "lib" #lib, #name);
    FUNCTIONS(RESOLVE)
}

int rtprecv_ffmpeg_load(char *message, size_t size) {
    pthread_once(&once, load);
    if (load_error[0]) {
        snprintf(message, size, "%s (install libavcodec and libswscale)", load_error);
        return -1;
    }
    return 0;
}

static void ensure(void) {
    char message[600];
    if (rtprecv_ffmpeg_load(message, sizeof message) != 0) {
        fprintf(stderr, "rtprecv: error: %s\n", message);
        abort();
    }
}

const AVCodec *avcodec_find_decoder(enum AVCodecID id) { ensure(); return p_avcodec_find_decoder(id); }
AVCodecContext *avcodec_alloc_context3(const AVCodec *codec) { ensure(); return p_avcodec_alloc_context3(codec); }
void avcodec_free_context(AVCodecContext **c) { ensure(); p_avcodec_free_context(c); }
int avcodec_open2(AVCodecContext *c, const AVCodec *codec, AVDictionary **options) {
    ensure(); return p_avcodec_open2(c, codec, options);
}
int avcodec_send_packet(AVCodecContext *c, const AVPacket *packet) { return p_avcodec_send_packet(c, packet); }
int avcodec_receive_frame(AVCodecContext *c, AVFrame *frame) { return p_avcodec_receive_frame(c, frame); }
AVPacket *av_packet_alloc(void) { ensure(); return p_av_packet_alloc(); }
void av_packet_free(AVPacket **packet) { ensure(); p_av_packet_free(packet); }
AVFrame *av_frame_alloc(void) { ensure(); return p_av_frame_alloc(); }
void av_frame_free(AVFrame **frame) { ensure(); p_av_frame_free(frame); }
int av_frame_get_buffer(AVFrame *frame, int align) { ensure(); return p_av_frame_get_buffer(frame, align); }
void av_frame_unref(AVFrame *frame) { p_av_frame_unref(frame); }
enum AVPixelFormat av_get_pix_fmt(const char *name) { ensure(); return p_av_get_pix_fmt(name); }
const char *av_get_pix_fmt_name(enum AVPixelFormat format) { ensure(); return p_av_get_pix_fmt_name(format); }
int av_image_copy_to_buffer(uint8_t *dst, int dst_size, const uint8_t *const src_data[4], const int src_linesize[4],
                            enum AVPixelFormat format, int width, int height, int align) {
    return p_av_image_copy_to_buffer(dst, dst_size, src_data, src_linesize, format, width, height, align);
}
int av_image_get_buffer_size(enum AVPixelFormat format, int width, int height, int align) {
    ensure(); return p_av_image_get_buffer_size(format, width, height, align);
}
void av_md5_sum(uint8_t *dst, const uint8_t *src, size_t len) { ensure(); p_av_md5_sum(dst, src, len); }
int av_strerror(int error, char *buffer, size_t size) { ensure(); return p_av_strerror(error, buffer, size); }
void *av_mallocz(size_t size) { ensure(); return p_av_mallocz(size); }
void av_channel_layout_default(AVChannelLayout *layout, int channels) { ensure(); p_av_channel_layout_default(layout, channels); }
void av_channel_layout_uninit(AVChannelLayout *layout) { ensure(); p_av_channel_layout_uninit(layout); }
struct SwsContext *sws_getContext(int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH,
                                  enum AVPixelFormat dstFormat, int flags, SwsFilter *srcFilter,
                                  SwsFilter *dstFilter, const double *param) {
    ensure(); return p_sws_getContext(srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param);
}
void sws_freeContext(struct SwsContext *context) { if (context) { ensure(); p_sws_freeContext(context); } }
int sws_scale(struct SwsContext *c, const uint8_t *const src[], const int srcStride[], int y, int h,
              uint8_t *const dst[], const int dstStride[]) {
    return p_sws_scale(c, src, srcStride, y, h, dst, dstStride);
}
