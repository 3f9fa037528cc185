#ifndef RTPRECV_CFFMPEG_SHIM_H
#define RTPRECV_CFFMPEG_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

/* Function-like macros Swift cannot call. */
static inline int rtprecv_averror(int posix_error) { return AVERROR(posix_error); }
static inline int rtprecv_averror_eof(void) { return AVERROR_EOF; }
static inline int rtprecv_frame_flag_corrupt(void) { return AV_FRAME_FLAG_CORRUPT; }
#endif
