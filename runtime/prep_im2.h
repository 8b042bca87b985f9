/* prep_im2.h - compile-time functions of the im2 family rows (see prep.h).
 * Three runtime units, each with its own APPLIES / WS / PACKED / PACK:
 *   conv_im2_col.c  im2col: patch matrix P [(c,u,v)][(i,j)] from CHW or HCW
 *   conv_im2_row.c  im2row: patch matrix Q [(i,j)][(u,v,c)] from HWC
 *   conv_im2_1x1.c  1x1 kernels: the input itself is the patch matrix
 * The variant bits each unit decodes are documented in fam_im2.def. */
#ifndef DNNCC_PREP_IM2_H
#define DNNCC_PREP_IM2_H

#include "runtime/primitives.h"

/* prep_im2.c: im2col rows (any kernel, stride, padding, dilation, group) */
int prep_im2_col_applies(const struct rt_conv2d *p, int variant);
size_t prep_im2_col_ws(const struct rt_conv2d *p, int variant);
size_t prep_im2_col_packed(const struct rt_conv2d *p, int variant);
void prep_im2_col_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

/* prep_im2.c: im2row rows (any kernel, stride, padding, dilation, group) */
int prep_im2_row_applies(const struct rt_conv2d *p, int variant);
size_t prep_im2_row_ws(const struct rt_conv2d *p, int variant);
size_t prep_im2_row_packed(const struct rt_conv2d *p, int variant);
void prep_im2_row_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

/* prep_im2.c: 1x1 rows (kH = kW = 1, no padding, any stride and group) */
int prep_im2_1x1_applies(const struct rt_conv2d *p, int variant);
size_t prep_im2_1x1_ws(const struct rt_conv2d *p, int variant);
size_t prep_im2_1x1_packed(const struct rt_conv2d *p, int variant);
void prep_im2_1x1_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

#endif
