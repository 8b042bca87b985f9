/* prep_winograd.h - compile-time functions of the winograd family rows (see prep.h).
 *
 * A row's variant encodes its contract (conv_winograd_gemm.c decodes the same):
 *   variant = 1000 * in + 100 * out + 10 * h + w
 * in, out: enum rt_layout of input and output (CHW 0, HCW 1, HWC 2);
 * h, w: the 1-D transform along H and along W, F(m, r) with alpha = m + r - 1:
 *   0 F(1,1) (no transform: the kernel is 1 wide on that axis)
 *   1 F(2,3)   2 F(4,3)   3 F(6,3)   4 F(2,5)   5 F(3,5)   6 F(4,5)
 * e.g. F(4x4, 3x3) CHW -> HWC is 222, F(1x4, 1x3) HWC -> HWC is 2202. */
#ifndef DNNCC_PREP_WINOGRAD_H
#define DNNCC_PREP_WINOGRAD_H

#include "runtime/primitives.h"

/* stride 1, dilation 1, kernel (kH, kW) = (r_h, r_w) of the variant's
 * transforms, any padding, any group but depthwise (the depthwise family's
 * job: its GEMMs would have one column), tensors under 2^31 floats per image */
int prep_winograd_applies(const struct rt_conv2d *p, int variant);
/* floats: transformed input and GEMM output of one block of tiles, a
 * transpose stage, and the GEMM's packing workspace */
size_t prep_winograd_ws(const struct rt_conv2d *p, int variant);
/* floats of U: group x alpha_h*alpha_w matrices [M/group x C/group], each
 * packed for p->isa by rt_sgemm_pack_a */
size_t prep_winograd_packed(const struct rt_conv2d *p, int variant);
/* U[g][xi] = (G_h w G_w^T)[xi] for every (m, c) of group g, computed in
 * double from the exact rational G, rounded to float and packed */
void prep_winograd_pack(const struct rt_conv2d *p, int variant,
                        const float *w, /* [M, C/group, kH, kW] */
                        float *out);    /* out: [group][alpha_h*alpha_w][packed mg x cg] */

/* Checks the 1-D identity of transform id (0..6 above) in exact rational
 * arithmetic: A^T [(G g) . (B^T d)] equals the correlation of d with g on
 * every pair of basis vectors. Returns 1 when it holds. */
int prep_winograd_identity_exact(int id);
/* how many 1-D transforms there are (ids 0 .. n-1) */
int prep_winograd_n_transforms(void);

#endif
