/* scripts/av1-svc-encode.c: OUT.ivf [FRAMES] [L2T2|L1T3]. AV1 from libaom's real-time SVC encoder,
   every OBU with its extension header (temporal_id, spatial_id), written as IVF:
   - L2T2 (the default): two spatial layers (160x120 and 320x240) of two temporal layers each, with
     the encoder's own reference structure; each temporal unit holds both spatial layers' frames.
   - L1T3: one spatial layer of three temporal layers (T0 T2 T1 T2 ...), keyframes 32 frames apart,
     each frame referring to one slot only, as set here: T0 to the last T0, T1 to the last T0, the
     first T2 of a cycle to its T0 and the second to its T1. scripts/av1-rtp-packetize
     --dependency-descriptor describes exactly that structure.
   No sender in Debian writes AV1 layers over RTP; AV1Tests packetizes these units with
   scripts/av1-rtp-packetize. Built by scripts/make-captures with:
   cc scripts/av1-svc-encode.c -laom (Debian libaom-dev) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <aom/aom_encoder.h>
#include <aom/aomcx.h>

#include "svc-picture.h"

/* L1T3: the temporal layer of frame n, and the one slot it refers to and the one it refreshes (-1: none). */
static const int l1t3_layer[4] = { 0, 2, 1, 2 }, l1t3_refers[4] = { 0, 0, 0, 1 }, l1t3_refreshes[4] = { 0, -1, 1, -1 };

static void set_l1t3_references(aom_codec_ctx_t *codec, int n) {
    aom_svc_ref_frame_config_t config;
    memset(&config, 0, sizeof config);
    /* LAST only. libaom refreshes only slots that some reference maps, so the refreshed slot is
       mapped by the references not used. */
    config.reference[0] = 1;
    int refreshes = l1t3_refreshes[n % 4];
    for (int i = 0; i < 7; i++) config.ref_idx[i] = i > 0 && refreshes >= 0 ? refreshes : l1t3_refers[n % 4];
    if (refreshes >= 0) config.refresh[refreshes] = 1;
    aom_codec_control(codec, AV1E_SET_SVC_REF_FRAME_CONFIG, &config);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: av1-svc-encode OUT.ivf [FRAMES] [L2T2|L1T3]\n"); return 2; }
    int frames = argc > 2 ? atoi(argv[2]) : 60;
    int l1t3 = argc > 3 && !strcmp(argv[3], "L1T3");
    const int SPATIAL = l1t3 ? 1 : 2, TEMPORAL = l1t3 ? 3 : 2;
    aom_codec_iface_t *iface = aom_codec_av1_cx();
    aom_codec_enc_cfg_t cfg;
    if (aom_codec_enc_config_default(iface, &cfg, AOM_USAGE_REALTIME)) return 1;
    cfg.g_w = 320, cfg.g_h = 240, cfg.g_timebase.num = 1, cfg.g_timebase.den = 30;
    cfg.rc_end_usage = AOM_CBR, cfg.rc_target_bitrate = 500, cfg.g_lag_in_frames = 0, cfg.g_error_resilient = 0;
    cfg.kf_mode = AOM_KF_AUTO, cfg.kf_min_dist = cfg.kf_max_dist = l1t3 ? 32 : 30;
    aom_codec_ctx_t codec;
    if (aom_codec_enc_init(&codec, iface, &cfg, 0)) { fprintf(stderr, "init: %s\n", aom_codec_error(&codec)); return 1; }
    aom_svc_params_t svc;
    memset(&svc, 0, sizeof svc);
    svc.number_spatial_layers = SPATIAL, svc.number_temporal_layers = TEMPORAL;
    if (l1t3) {
        svc.scaling_factor_num[0] = svc.scaling_factor_den[0] = 1;
        svc.framerate_factor[0] = 4, svc.framerate_factor[1] = 2, svc.framerate_factor[2] = 1;
    } else {
        svc.scaling_factor_num[0] = 1, svc.scaling_factor_den[0] = 2, svc.scaling_factor_num[1] = 1, svc.scaling_factor_den[1] = 1;
        svc.framerate_factor[0] = 2, svc.framerate_factor[1] = 1;
    }
    for (int sl = 0; sl < SPATIAL; sl++) {
        for (int tl = 0; tl < TEMPORAL; tl++) {
            int i = sl * TEMPORAL + tl;
            svc.max_quantizers[i] = 56, svc.min_quantizers[i] = 4;
            svc.layer_target_bitrate[i] = (sl ? 300 : 100) + 60 * tl;
        }
    }
    aom_codec_control(&codec, AOME_SET_CPUUSED, 9);
    aom_codec_control(&codec, AV1E_SET_SVC_PARAMS, &svc);
    /* Motion field projection reads every slot a frame header maps, used or not: off, so that a
       frame depends on the slots it refers to alone. */
    if (l1t3) aom_codec_control(&codec, AV1E_SET_ENABLE_REF_FRAME_MVS, 0);
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
            aom_svc_layer_id_t layer = { .spatial_layer_id = sl, .temporal_layer_id = l1t3 ? l1t3_layer[n % 4] : n % TEMPORAL };
            aom_codec_control(&codec, AV1E_SET_SVC_LAYER_ID, &layer);
            if (l1t3) set_l1t3_references(&codec, n);
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
