/* prep_direct.h - compile-time functions of the direct family rows (see prep.h):
 * predicates and weight packing for the direct convolutions of fam_direct.def.
 * Implemented in prep_direct.c. */
#ifndef DNNCC_PREP_DIRECT_H
#define DNNCC_PREP_DIRECT_H

#include "runtime/primitives.h"

/* Blocked direct convolution on CHW16c / CHW8c (conv_direct_vec.c, variant = the
 * block, 16 or 8): any kernel, stride, padding, dilation; grouped only when
 * C/group and M/group are multiples of the block. Weights packed
 * [ceil(M/bs)][ceil((C/group)/bs)][kH][kW][bs ci][bs co], padding zero. */
int prep_direct_blocked_applies(const struct rt_conv2d *p, int variant);
size_t prep_direct_blocked_packed(const struct rt_conv2d *p, int variant);
void prep_direct_blocked_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

/* 1 when conv_direct_vec.c runs layer p of variant (16, 8, or 0 for HWC) in
 * one chunk of input channels, so it stores each output once, after reading
 * its fused residual: y may then share the residual's buffer. Cuts as
 * rt_conv_direct_vec does (rt_dvec_chunk), taking the smaller chunk of its
 * two vector lengths. */
int prep_direct_one_pass(const struct rt_conv2d *p, int variant);

/* HWC implicit GEMM (conv_direct_vec.c, variant 0): weights packed
 * [group][kH][kW][C/group][mgp], mgp = M/group rounded up to 16, padding zero. */
size_t prep_direct_igemm_packed(const struct rt_conv2d *p, int variant);
void prep_direct_igemm_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

/* Stride-2 CHW direct convolution (conv_direct_s2_chw.c): horizontal stride 2,
 * anything else. Weights packed [group][ceil((M/group)/8)][C/group][kH][kW][8]. */
int prep_direct_s2_applies(const struct rt_conv2d *p, int variant);
size_t prep_direct_s2_packed(const struct rt_conv2d *p, int variant);
void prep_direct_s2_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

/* HWC loop orders (conv_direct_hwc.c): weights packed [M][kH][kW][C/group], so the
 * innermost loop runs over contiguous channels of input and weights. */
size_t prep_direct_mkkc_packed(const struct rt_conv2d *p, int variant);
void prep_direct_mkkc_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

/* First-layer rows (conv_stem.c, variant = output block 16, 8, or 0 for HWC):
 * C <= 4, no groups, strides up to 4. Weights packed [C][kH][kW][Mp], Mp = M
 * rounded up to 16, padding zero. */
int prep_stem_applies(const struct rt_conv2d *p, int variant);
size_t prep_stem_packed(const struct rt_conv2d *p, int variant);
void prep_stem_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

#endif
