/* prep_kn2.h - compile-time functions of the kn2 family rows (see prep.h).
 * One predicate for every row (stride 1, dilation 1, group 1, any kernel and
 * padding) and, per runtime unit, the workspace size; the weights are laid
 * out the same way by every unit (see prep_kn2.c). */
#ifndef DNNCC_PREP_KN2_H
#define DNNCC_PREP_KN2_H

#include "runtime/primitives.h"

/* prep_kn2.c */
int prep_kn2_applies(const struct rt_conv2d *p, int variant);
size_t prep_kn2_packed(const struct rt_conv2d *p, int variant);
void prep_kn2_pack(const struct rt_conv2d *p, int variant, const float *w, float *out);
size_t prep_kn2_stack_ws(const struct rt_conv2d *p, int variant); /* conv_kn2_stack.c */
size_t prep_kn2_as_ws(const struct rt_conv2d *p, int variant);    /* conv_kn2_as.c */
size_t prep_kn2_aa_ws(const struct rt_conv2d *p, int variant);    /* conv_kn2_aa.c */

#endif
