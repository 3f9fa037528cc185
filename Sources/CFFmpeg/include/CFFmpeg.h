#ifndef RTPRECV_CFFMPEG_H
#define RTPRECV_CFFMPEG_H
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/mathematics.h>
#include <libavcodec/codec_desc.h>
#include <libavutil/md5.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

/* Function-like macros Swift cannot call. */
static inline int rtprecv_averror(int posix_error) { return AVERROR(posix_error); }
static inline int rtprecv_averror_eof(void) { return AVERROR_EOF; }
static inline int64_t rtprecv_nopts(void) { return AV_NOPTS_VALUE; }
static inline int rtprecv_frame_flag_corrupt(void) { return AV_FRAME_FLAG_CORRUPT; }

/* libavcodec, libavutil and libswscale are loaded with dlopen on first use, not linked: binding
   their hundred-odd dependencies at start-up cost every run ~15 ms, decoding or not.
   Returns 0, or -1 with a message in `message`. The functions of the headers above may be called
   only after it succeeded. */
int rtprecv_ffmpeg_load(char *message, size_t size);

/* libavformat as well, for the avio_* functions (RTMP output) and the muxers (recordings); after
   rtprecv_ffmpeg_load, and the same way. */
int rtprecv_avformat_load(char *message, size_t size);

/* The last error the network protocols logged (kept, not printed), and clearing it. */
const char *rtprecv_avformat_last_error(void);
void rtprecv_avformat_clear_error(void);

/* Nothing libav* logs on the calling thread is printed while `on` (reading back a file a crash
   left, whose faults rtprecv words itself). */
void rtprecv_av_log_silence(int on);

/* AVIO_FLAG_WRITE, a macro. */
static inline int rtprecv_avio_flag_write(void) { return AVIO_FLAG_WRITE; }
#endif
