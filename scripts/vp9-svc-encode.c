/* scripts/vp9-svc-encode.c: OUT.ivf [FRAMES]. VP9 with two spatial layers (160x120 and 320x240, the
   upper predicted from the lower) from libvpx's SVC encoder, each picture a superframe of its layer
   frames, written as IVF. No sender here writes VP9 spatial layers over RTP; VP9Tests packetizes
   these pictures layer by layer and checks that rtprecv puts the superframes back together.
   Built by scripts/make-captures with: cc scripts/vp9-svc-encode.c -lvpx */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vpx/vp8cx.h>
#include <vpx/vpx_encoder.h>

#include "svc-picture.h"

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: vp9-svc-encode OUT.ivf [FRAMES]\n"); return 2; }
    int frames = argc > 2 ? atoi(argv[2]) : 60;
    vpx_codec_iface_t *iface = vpx_codec_vp9_cx();
    vpx_codec_enc_cfg_t cfg;
    if (vpx_codec_enc_config_default(iface, &cfg, 0)) return 1;
    cfg.g_w = 320, cfg.g_h = 240, cfg.g_timebase.num = 1, cfg.g_timebase.den = 30;
    cfg.rc_end_usage = VPX_CBR, cfg.rc_target_bitrate = 500, cfg.g_lag_in_frames = 0;
    cfg.kf_mode = VPX_KF_AUTO, cfg.kf_min_dist = cfg.kf_max_dist = 30;
    cfg.ss_number_layers = 2, cfg.ts_number_layers = 1, cfg.ts_rate_decimator[0] = 1;
    cfg.layer_target_bitrate[0] = 150, cfg.layer_target_bitrate[1] = 500;
    cfg.temporal_layering_mode = 0;
    vpx_codec_ctx_t codec;
    if (vpx_codec_enc_init(&codec, iface, &cfg, 0)) { fprintf(stderr, "init: %s\n", vpx_codec_error(&codec)); return 1; }
    vpx_svc_extra_cfg_t svc;
    memset(&svc, 0, sizeof svc);
    for (int i = 0; i < 2; i++) svc.max_quantizers[i] = 56, svc.min_quantizers[i] = 2, svc.scaling_factor_num[i] = 1;
    svc.scaling_factor_den[0] = 2, svc.scaling_factor_den[1] = 1;
    vpx_codec_control(&codec, VP9E_SET_SVC, 1);
    vpx_codec_control(&codec, VP9E_SET_SVC_PARAMETERS, &svc);
    vpx_codec_control(&codec, VP8E_SET_CPUUSED, 8);
    FILE *out = fopen(argv[1], "wb");
    if (!out) { perror(argv[1]); return 1; }
    fwrite("DKIF", 1, 4, out), le16(out, 0), le16(out, 32), fwrite("VP90", 1, 4, out);
    le16(out, 320), le16(out, 240), le32(out, 30), le32(out, 1), le32(out, frames), le32(out, 0);
    vpx_image_t *img = vpx_img_alloc(NULL, VPX_IMG_FMT_I420, 320, 240, 16);
    int written = 0;
    for (int n = 0; n <= frames; n++) {
        if (n < frames) draw(img->planes, img->stride, (int)img->d_w, (int)img->d_h, n);
        if (vpx_codec_encode(&codec, n < frames ? img : NULL, n, 1, 0, VPX_DL_REALTIME)) {
            fprintf(stderr, "encode: %s\n", vpx_codec_error(&codec));
            return 1;
        }
        const vpx_codec_cx_pkt_t *pkt;
        vpx_codec_iter_t iter = NULL;
        while ((pkt = vpx_codec_get_cx_data(&codec, &iter))) {
            if (pkt->kind != VPX_CODEC_CX_FRAME_PKT) continue;
            le32(out, (unsigned)pkt->data.frame.sz), le32(out, (unsigned)pkt->data.frame.pts), le32(out, 0);
            fwrite(pkt->data.frame.buf, 1, pkt->data.frame.sz, out);
            written++;
        }
    }
    fclose(out);
    vpx_img_free(img);
    vpx_codec_destroy(&codec);
    fprintf(stderr, "%d pictures\n", written);
    return written == frames ? 0 : 1;
}
