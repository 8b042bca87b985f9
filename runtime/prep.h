/* prep.h - compile-time side of the primitive library: predicates,
 * workspace sizes and weight packing (never embedded into generated code).
 * Every function takes the layer and the row's variant. Each family's
 * prep_<family>.c implements the functions its rows name. */
#ifndef DNNCC_PREP_H
#define DNNCC_PREP_H

#include "runtime/primitives.h"

/* prep_common.c */
int prep_applies_any(const struct rt_conv2d *p, int variant);
size_t prep_ws_none(const struct rt_conv2d *p, int variant);
/* Shape predicates shared by families (STYLE.md §6: small named functions). */
int prep_is_stride1(const struct rt_conv2d *p);
int prep_is_dilation1(const struct rt_conv2d *p);
int prep_is_group1(const struct rt_conv2d *p);
int prep_is_depthwise(const struct rt_conv2d *p);

/* One header per family for the functions its rows name. */
#include "runtime/prep_direct.h"
#include "runtime/prep_im2.h"
#include "runtime/prep_kn2.h"
#include "runtime/prep_winograd.h"
#include "runtime/prep_fft.h"
#include "runtime/prep_depthwise.h"
#include "runtime/prep_pointwise.h"

#endif
