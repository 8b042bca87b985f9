/* prep_fft.h - compile-time functions of the fft family rows (see prep.h).
 * The variant is the tile size S of overlap-save (about S x S input patches
 * per tile), or 0 for one transform of the whole image. */
#ifndef DNNCC_PREP_FFT_H
#define DNNCC_PREP_FFT_H

#include "runtime/primitives.h"

/* dilation 1, any kernel, stride, padding and group; refuses layers whose
 * weight spectra or workspace would pass 2^25 floats (128 MiB) */
int prep_fft_applies(const struct rt_conv2d *p, int variant);
/* floats: two work buffers and the product spectra of a block of tiles,
 * twiddle tables, the GEMM's packing workspace */
size_t prep_fft_ws(const struct rt_conv2d *p, int variant);
/* floats of the weight spectra */
size_t prep_fft_packed(const struct rt_conv2d *p, int variant);
/* the spectra of the kernels zero padded to Nh x Nw (half spectrum, Nw/2 + 1
 * columns), computed in double and scaled by 1/(Nh Nw): variant 0 as
 * [group][F][re, im][C/group][M/group], tiled as [group][F][3][packed
 * M/group x C/group] holding re, im and -im, packed for p->isa */
void prep_fft_pack(const struct rt_conv2d *p, int variant,
                   const float *w, /* [M, C/group, kH, kW] */
                   float *out);

#endif
