/* Definitions of the libav* functions the FFmpeg module calls, forwarding to the libraries opened
   with dlopen by rtprecv_ffmpeg_load(). The signatures are the headers' own. They are hidden from
   the executable's dynamic symbols, as COpenSSL's are, so that no library binds its own calls to them. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <errno.h>
#include <time.h>
#pragma GCC visibility push(hidden)
#include "CFFmpeg.h"
#pragma GCC visibility pop

#define STR2(x) #x
#define STR(x) STR2(x)

#define FUNCTIONS(X) \
    X(avcodec, avcodec_find_decoder) X(avcodec, avcodec_find_decoder_by_name) X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_free_context) \
    X(avcodec, avcodec_open2) X(avcodec, avcodec_send_packet) X(avcodec, avcodec_receive_frame) \
    X(avcodec, av_packet_alloc) X(avcodec, av_packet_free) \
    X(avutil, av_frame_alloc) X(avutil, av_frame_free) X(avutil, av_frame_get_buffer) X(avutil, av_frame_unref) \
    X(avutil, av_get_pix_fmt) X(avutil, av_get_pix_fmt_name) X(avutil, av_image_copy_to_buffer) \
    X(avutil, av_image_get_buffer_size) X(avutil, av_md5_sum) X(avutil, av_strerror) \
    X(avutil, av_mallocz) X(avutil, av_channel_layout_default) X(avutil, av_channel_layout_uninit) \
    X(avutil, av_dict_set) X(avutil, av_dict_free) X(avutil, av_malloc) X(avutil, av_free) X(avutil, av_rescale_q_rnd) \
    X(avcodec, avcodec_descriptor_get_by_name) \
    X(avcodec, avcodec_find_encoder) X(avcodec, avcodec_send_frame) X(avcodec, avcodec_receive_packet) \
    X(avcodec, avcodec_flush_buffers) X(avcodec, av_packet_unref) \
    X(swscale, sws_getContext) X(swscale, sws_freeContext) X(swscale, sws_scale) \
    X(swscale, sws_alloc_context) X(swscale, sws_init_context) X(avutil, av_opt_set_int) \
    X(avcodec, avcodec_parameters_copy) X(avcodec, av_packet_rescale_ts) X(avcodec, avcodec_get_name)

/* libavformat, for RTMP output and the recordings' muxers: loaded on its own, when a run needs it. */
#define FORMAT_FUNCTIONS(X) \
    X(avformat, avformat_network_init) X(avformat, avio_open2) X(avformat, avio_write) X(avformat, avio_flush) \
    X(avformat, avio_closep) X(avformat, avio_alloc_context) X(avformat, avio_context_free) \
    X(avformat, avformat_alloc_output_context2) X(avformat, avformat_new_stream) X(avformat, avformat_write_header) \
    X(avformat, av_write_frame) X(avformat, av_interleaved_write_frame) X(avformat, av_write_trailer) \
    X(avformat, avformat_free_context) X(avformat, av_guess_format) X(avformat, avformat_query_codec) \
    X(avformat, avformat_open_input) X(avformat, avformat_find_stream_info) X(avformat, av_read_frame) \
    X(avformat, avformat_close_input)

#define POINTER(lib, name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)
FORMAT_FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void *open_library(const char *name) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle && !load_error[0]) snprintf(load_error, sizeof load_error, "%s", dlerror());
    return handle;
}

static void *avutil_handle;

static void load(void) {
    void *avutil = open_library("libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR));
    avutil_handle = avutil;
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

static pthread_once_t format_once = PTHREAD_ONCE_INIT;
static char format_error[512];

/* The network protocols' own messages (connect failures, the server's errors) are kept for the
   one-line error rtprecv prints, not printed: they are rtprecv's to word, and the stream key must
   not reach the output. Everything else goes to libavutil's default logger as before. */
static char network_error[512];
static void (*p_av_log_set_callback)(void (*)(void *, int, const char *, va_list));
static void (*p_av_log_default_callback)(void *, int, const char *, va_list);

static __thread int log_silenced;

void rtprecv_av_log_silence(int on) { log_silenced = on; }

static void log_callback(void *object, int level, const char *format, va_list arguments) {
    if (log_silenced) return;
    const AVClass *class = object ? *(const AVClass **)object : NULL;
    if (class && class->class_name && (!strcmp(class->class_name, "URLContext") || !strcmp(class->class_name, "AVIOContext"))) {
        if (level <= AV_LOG_ERROR) {
            vsnprintf(network_error, sizeof network_error, format, arguments);
            size_t n = strlen(network_error);
            while (n > 0 && (network_error[n - 1] == '\n' || network_error[n - 1] == '.')) network_error[--n] = 0;
        }
        return;
    }
    /* Warnings and errors only: rtprecv says what it does itself ("Starting second pass" is not for its users). */
    if (level > AV_LOG_WARNING) return;
    p_av_log_default_callback(object, level, format, arguments);
}

const char *rtprecv_avformat_last_error(void) { return network_error; }

void rtprecv_avformat_clear_error(void) { network_error[0] = 0; }

static void load_format(void) {
    char message[600];
    if (rtprecv_ffmpeg_load(message, sizeof message) != 0) {
        snprintf(format_error, sizeof format_error, "%s", message);
        return;
    }
    void *avformat = dlopen("libavformat.so." STR(LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    if (!avformat) {
        snprintf(format_error, sizeof format_error, "%s (install libavformat)", dlerror());
        return;
    }
#define RESOLVE_FORMAT(lib, name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(lib, #name)) && !format_error[0]) \
        snprintf(format_error, sizeof format_error, "%s has no %s", "lib" #lib, #name);
    FORMAT_FUNCTIONS(RESOLVE_FORMAT)
    p_av_log_set_callback = dlsym(avutil_handle, "av_log_set_callback");
    p_av_log_default_callback = dlsym(avutil_handle, "av_log_default_callback");
    if (!format_error[0] && (!p_av_log_set_callback || !p_av_log_default_callback))
        snprintf(format_error, sizeof format_error, "libavutil has no av_log_set_callback");
    if (format_error[0]) return;
    p_av_log_set_callback(log_callback);
    p_avformat_network_init();
}

int rtprecv_avformat_load(char *message, size_t size) {
    pthread_once(&format_once, load_format);
    if (format_error[0]) {
        snprintf(message, size, "%s", format_error);
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
const AVCodec *avcodec_find_decoder_by_name(const char *name) { ensure(); return p_avcodec_find_decoder_by_name(name); }
AVCodecContext *avcodec_alloc_context3(const AVCodec *codec) { ensure(); return p_avcodec_alloc_context3(codec); }
void avcodec_free_context(AVCodecContext **c) { ensure(); p_avcodec_free_context(c); }
int avcodec_open2(AVCodecContext *c, const AVCodec *codec, AVDictionary **options) {
    ensure(); return p_avcodec_open2(c, codec, options);
}
int avcodec_send_packet(AVCodecContext *c, const AVPacket *packet) { return p_avcodec_send_packet(c, packet); }
int avcodec_receive_frame(AVCodecContext *c, AVFrame *frame) { return p_avcodec_receive_frame(c, frame); }
const AVCodec *avcodec_find_encoder(enum AVCodecID id) { ensure(); return p_avcodec_find_encoder(id); }
int avcodec_send_frame(AVCodecContext *c, const AVFrame *frame) { return p_avcodec_send_frame(c, frame); }
int avcodec_receive_packet(AVCodecContext *c, AVPacket *packet) { return p_avcodec_receive_packet(c, packet); }
void avcodec_flush_buffers(AVCodecContext *c) { p_avcodec_flush_buffers(c); }
void av_packet_unref(AVPacket *packet) { p_av_packet_unref(packet); }
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
struct SwsContext *sws_alloc_context(void) { ensure(); return p_sws_alloc_context(); }
int sws_init_context(struct SwsContext *c, SwsFilter *srcFilter, SwsFilter *dstFilter) {
    return p_sws_init_context(c, srcFilter, dstFilter);
}
int av_opt_set_int(void *object, const char *name, int64_t value, int flags) { return p_av_opt_set_int(object, name, value, flags); }
int av_dict_set(AVDictionary **dictionary, const char *key, const char *value, int flags) {
    ensure(); return p_av_dict_set(dictionary, key, value, flags);
}
void av_dict_free(AVDictionary **dictionary) { ensure(); p_av_dict_free(dictionary); }
int avformat_network_init(void) { return p_avformat_network_init(); }
int avio_open2(AVIOContext **context, const char *url, int flags, const AVIOInterruptCB *interrupt, AVDictionary **options) {
    return p_avio_open2(context, url, flags, interrupt, options);
}
void avio_write(AVIOContext *context, const unsigned char *buffer, int size) { p_avio_write(context, buffer, size); }
void avio_flush(AVIOContext *context) { p_avio_flush(context); }
int avio_closep(AVIOContext **context) { return p_avio_closep(context); }
void *av_malloc(size_t size) { ensure(); return p_av_malloc(size); }
void av_free(void *pointer) { ensure(); p_av_free(pointer); }
int64_t av_rescale_q_rnd(int64_t a, AVRational bq, AVRational cq, enum AVRounding rounding) {
    return p_av_rescale_q_rnd(a, bq, cq, rounding);
}
const AVCodecDescriptor *avcodec_descriptor_get_by_name(const char *name) { ensure(); return p_avcodec_descriptor_get_by_name(name); }
AVIOContext *avio_alloc_context(unsigned char *buffer, int buffer_size, int write_flag, void *opaque,
                                int (*read_packet)(void *, uint8_t *, int), int (*write_packet)(void *, uint8_t *, int),
                                int64_t (*seek)(void *, int64_t, int)) {
    return p_avio_alloc_context(buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek);
}
void avio_context_free(AVIOContext **context) { p_avio_context_free(context); }
int avformat_alloc_output_context2(AVFormatContext **context, const AVOutputFormat *format, const char *name, const char *filename) {
    return p_avformat_alloc_output_context2(context, format, name, filename);
}
AVStream *avformat_new_stream(AVFormatContext *context, const AVCodec *codec) { return p_avformat_new_stream(context, codec); }
int avformat_write_header(AVFormatContext *context, AVDictionary **options) { return p_avformat_write_header(context, options); }
int av_write_frame(AVFormatContext *context, AVPacket *packet) { return p_av_write_frame(context, packet); }
int av_interleaved_write_frame(AVFormatContext *context, AVPacket *packet) { return p_av_interleaved_write_frame(context, packet); }
int av_write_trailer(AVFormatContext *context) { return p_av_write_trailer(context); }
void avformat_free_context(AVFormatContext *context) { p_avformat_free_context(context); }
const AVOutputFormat *av_guess_format(const char *name, const char *filename, const char *mime) {
    return p_av_guess_format(name, filename, mime);
}
int avformat_query_codec(const AVOutputFormat *format, enum AVCodecID id, int compliance) {
    return p_avformat_query_codec(format, id, compliance);
}
int avcodec_parameters_copy(AVCodecParameters *to, const AVCodecParameters *from) { ensure(); return p_avcodec_parameters_copy(to, from); }
void av_packet_rescale_ts(AVPacket *packet, AVRational from, AVRational to) { ensure(); p_av_packet_rescale_ts(packet, from, to); }
int avformat_open_input(AVFormatContext **context, const char *url, const AVInputFormat *format, AVDictionary **options) {
    return p_avformat_open_input(context, url, format, options);
}
int avformat_find_stream_info(AVFormatContext *context, AVDictionary **options) { return p_avformat_find_stream_info(context, options); }
int av_read_frame(AVFormatContext *context, AVPacket *packet) { return p_av_read_frame(context, packet); }
void avformat_close_input(AVFormatContext **context) { p_avformat_close_input(context); }
const char *avcodec_get_name(enum AVCodecID id) { ensure(); return p_avcodec_get_name(id); }
