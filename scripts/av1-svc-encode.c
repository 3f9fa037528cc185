/* scripts/av1-svc-encode.c: OUT.ivf [FRAMES]. AV1 with two spatial layers (160x120 and 320x240) and
   two temporal layers each, from libaom's real-time SVC encoder with its own reference structure:
   each temporal unit holds the frames of both spatial layers, every OBU with its extension header
   (temporal_id, spatial_id), written as IVF. No sender in Debian writes AV1 layers over RTP;
   AV1Tests packetizes these units with scripts/av1-rtp-packetize and checks what rtprecv names.
   Built by scripts/make-captures with: cc scripts/av1-svc-encode.c -laom (Debian libaom-dev) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <aom/aom_encoder.h>
#include <aom/aomcx.h>

#include "svc-picture.h"

enum { SPATIAL = 2, TEMPORAL = 2 };

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: av1-svc-encode OUT.ivf [FRAMES]\n"); return 2; }
    int frames = argc > 2 ? atoi(argv[2]) : 60;
    aom_codec_iface_t *iface = aom_codec_av1_cx();
    aom_codec_enc_cfg_t cfg;
    if (aom_codec_enc_config_default(iface, &cfg, AOM_USAGE_REALTIME)) return 1;
    cfg.g_w = 320, cfg.g_h = 240, cfg.g_timebase.num = 1, cfg.g_timebase.den = 30;
    cfg.rc_end_usage = AOM_CBR, cfg.rc_target_bitrate = 500, cfg.g_lag_in_frames = 0, cfg.g_error_resilient = 0;
    cfg.kf_mode = AOM_KF_AUTO, cfg.kf_min_dist = cfg.kf_max_dist = 30;
    aom_codec_ctx_t codec;
    if (aom_codec_enc_init(&codec, iface, &cfg, 0)) { fprintf(stderr, "init: %s\n", aom_codec_error(&codec)); return 1; }
    aom_svc_params_t svc;
    memset(&svc, 0, sizeof svc);
    svc.number_spatial_layers = SPATIAL, svc.number_temporal_layers = TEMPORAL;
    svc.scaling_factor_num[0] = 1, svc.scaling_factor_den[0] = 2, svc.scaling_factor_num[1] = 1, svc.scaling_factor_den[1] = 1;
    svc.framerate_factor[0] = 2, svc.framerate_factor[1] = 1;
    for (int sl = 0; sl < SPATIAL; sl++) {
        for (int tl = 0; tl < TEMPORAL; tl++) {
            int i = sl * TEMPORAL + tl;
            svc.max_quantizers[i] = 56, svc.min_quantizers[i] = 4;
            svc.layer_target_bitrate[i] = (sl ? 300 : 100) + (tl ? 60 : 0);
        }
    }
    aom_codec_control(&codec, AOME_SET_CPUUSED, 9);
    aom_codec_control(&codec, AV1E_SET_SVC_PARAMS, &svc);
    FILE *out = fopen(argv[1], "wb");
    if (!out) { perror(argv[1]); return 1; }
    fwrite("DKIF", 1, 4, out), le16(out, 0), le16(out, 32), fwrite("AV01", 1, 4, out);
    le16(out, 320), le16(out, 240), le32(out, 30), le32(out, 1), le32(out, frames), le32(out, 0);
    aom_image_t *img = aom_img_alloc(NULL, AOM_IMG_FMT_I420, 320, 240, 16);
    static unsigned char unit[1 << 20];
    int written = 0;
    for (int n = 0; n < frames; n++) {
        draw(img->planes, img->stride, (int)img->d_w, (int)img->d_h, n);
        size_t size = 0;
        for (int sl = 0; sl < SPATIAL; sl++) {
            aom_svc_layer_id_t layer = { .spatial_layer_id = sl, .temporal_layer_id = n % TEMPORAL };
            aom_codec_control(&codec, AV1E_SET_SVC_LAYER_ID, &layer);
            if (aom_codec_encode(&codec, img, n, 1, 0)) { fprintf(stderr, "encode: %s\n", aom_codec_error(&codec)); return 1; }
            const aom_codec_cx_pkt_t *pkt;
            aom_codec_iter_t iter = NULL;
            while ((pkt = aom_codec_get_cx_data(&codec, &iter))) {
                if (pkt->kind != AOM_CODEC_CX_FRAME_PKT || size + pkt->data.frame.sz > sizeof unit) continue;
                memcpy(unit + size, pkt->data.frame.buf, pkt->data.frame.sz);
                size += pkt->data.frame.sz;
            }
        }
        if (!size) continue;
        le32(out, (unsigned)size), le32(out, (unsigned)n), le32(out, 0);
        fwrite(unit, 1, size, out);
        written++;
    }
    fclose(out);
    aom_img_free(img);
    aom_codec_destroy(&codec);
    fprintf(stderr, "%d temporal units\n", written);
    return written == frames ? 0 : 1;
}
