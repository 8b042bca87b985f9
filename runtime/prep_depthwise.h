/* prep_depthwise.h - compile-time functions of the depthwise family rows (see prep.h):
 * depthwise convolutions (group == C, channel multiplier M/C >= 1) and general grouped
 * convolutions (group > 1). Implemented in prep_depthwise.c. */
#ifndef DNNCC_PREP_DEPTHWISE_H
#define DNNCC_PREP_DEPTHWISE_H

#include "runtime/primitives.h"

/* Depthwise on CHW (conv_depthwise_chw.c); variant 0: any kernel, stride, dilation;
 * 1: 3x3 stride 1; 2: 3x3 stride 2 (both dilation 1). Workspace: one padded plane. */
int prep_dw_chw_applies(const struct rt_conv2d *p, int variant);
size_t prep_dw_chw_ws(const struct rt_conv2d *p, int variant);

/* Channel-vectorised depthwise (conv_depthwise_cvec.c) on HWC (variant 0: any kernel,
 * stride, dilation; 1: 3x3 stride-1 fast path) and on blocked CHW16c / CHW8c (variant 16 /
 * 8: any kernel, stride, dilation, multiplier 1). Weights packed tap-major, [kH*kW][Mp]. */
int prep_dw_cvec_applies(const struct rt_conv2d *p, int variant);
size_t prep_dw_cvec_packed(const struct rt_conv2d *p, int variant);
void prep_dw_cvec_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

/* Depthwise register-tiled along the output row (conv_depthwise_rows.c): 3x3 or 5x5,
 * stride 1 or 2, dilation 1, any padding; HWC (variant 0, any multiplier), CHW16c / CHW8c
 * (16 / 8, multiplier 1). Weights packed by prep_dw_cvec_pack; no workspace. */
int prep_dw_rows_applies(const struct rt_conv2d *p, int variant);

/* A 1x1 fused with the depthwise that reads its output (conv_pw_dw.c), both on HWC
 * (variant 0) or both on CHW16c / CHW8c (16 / 8): e the 1x1's shapes, d the
 * depthwise's. Weights packed as each layer's own rows pack them (prep_pointwise_pack,
 * prep_dw_cvec_pack, for the variant); workspace prep_pw_dw_ws(d, variant) floats. */
int prep_pw_dw_applies(const struct rt_conv2d *e, const struct rt_conv2d *d, int variant);
size_t prep_pw_dw_ws(const struct rt_conv2d *d, int variant);

/* Grouped convolutions (group > 1, any kernel, stride, padding, dilation). */
int prep_dw_group_applies(const struct rt_conv2d *p, int variant);
/* One GEMM per group on CHW (conv_depthwise_group_gemm_chw.c): weights packed per group with
 * rt_sgemm_pack_a for p->isa; workspace: im2col of one group + the GEMM's. */
size_t prep_dw_ggemm_chw_ws(const struct rt_conv2d *p, int variant);
size_t prep_dw_ggemm_chw_packed(const struct rt_conv2d *p, int variant);
void prep_dw_ggemm_chw_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);
/* One GEMM per group on HWC (conv_depthwise_group_gemm_hwc.c): im2row of one group times the
 * group's [kH*kW*C/group][M/group] weight matrix. */
size_t prep_dw_ggemm_hwc_ws(const struct rt_conv2d *p, int variant);
size_t prep_dw_ggemm_hwc_packed(const struct rt_conv2d *p, int variant);
void prep_dw_ggemm_hwc_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);
/* Direct grouped convolution on HWC (conv_depthwise_group_direct_hwc.c); variant 0: any
 * group > 1, weights [group][kH][kW][C/group][Mgp], Mgp = M/group rounded up to 16;
 * variant 1: narrow groups (M/group <= 8 dividing 16, C/group <= M/group), weights
 * [ceil(M/16)][kH][kW][C/group][16]. */
int prep_dw_gdirect_hwc_applies(const struct rt_conv2d *p, int variant);
size_t prep_dw_gdirect_hwc_packed(const struct rt_conv2d *p, int variant);
void prep_dw_gdirect_hwc_pack(const struct rt_conv2d *p, int variant, const float *w,
                              float *out);

#endif
