/* prep_pointwise.h - compile-time functions of the pointwise rows
 * (fam_pointwise.def, conv_pointwise.c; see prep.h). Implemented in
 * prep_pointwise.c. */
#ifndef DNNCC_PREP_POINTWISE_H
#define DNNCC_PREP_POINTWISE_H

#include "runtime/primitives.h"

/* 1x1 kernel, group 1, no padding (every output pixel reads one input pixel),
 * any stride. */
int prep_pointwise_applies(const struct rt_conv2d *p, int variant);
/* Weights packed [ceil(M/wb)][C][wb], wb = the variant's block (16 for HWC,
 * variant 0), the channels past M zero. */
size_t prep_pointwise_packed(const struct rt_conv2d *p, int variant);
void prep_pointwise_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);

#endif
