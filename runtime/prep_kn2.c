/* prep_kn2.c - compile-time side of the kn2 family (fam_kn2.def).
 *
 * kn2 computes a kH x kW convolution as kH*kW 1x1 convolutions, one per tap
 * t = (u, v), whose results are shifted by (u - padT, v - padL) and added
 * (Vasudevan, Anderson & Gregg, ASAP 2017). The GEMMs read the input as it
 * is, so stride and dilation must be 1 and (one GEMM over all channels)
 * group 1; any kernel size and padding.
 *
 * Weights, by the variant's bit 0:
 *   row rows (weights on the left, output CHW): per tap t the [M][C] matrix
 *     W_t(m, c) = w[m][c][u][v], packed by rt_sgemm_pack_a for p->isa; the
 *     kH*kW packed blocks follow each other, so together they are the packed
 *     [kH*kW*Mp][C] tap stack (Mp = M rounded up to the micro-kernel's MR,
 *     the padding rows zero) that kn2row multiplies in one GEMM.
 *   col rows (input on the left, output HWC): the row-major [C][kH*kW*M]
 *     matrix Wc[c][t*M + m] = w[m][c][u][v], read as operand B (all taps at
 *     once by kn2col, one tap's M columns by the accumulating variants).
 * Workspace (floats): the unit's buffer rounded up to 16 floats, then
 * rt_sgemm's for its largest GEMM; formulas shared with the units. */
#include "runtime/prep.h"
#include "runtime/sgemm.h"

#define KN2_COL 1 /* variant bit 0: input on the left, HWC output */

static size_t sgemm_ws_floats(int isa, int M, int N, int K)
{
	return (rt_sgemm_workspace_size(isa, M, N, K) + sizeof(float) - 1) / sizeof(float);
}

static size_t round16(size_t n) { return (n + 15) / 16 * 16; }

int prep_kn2_applies(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return prep_is_stride1(p) && prep_is_dilation1(p) && prep_is_group1(p) && p->oH > 0 &&
	       p->oW > 0;
}

size_t prep_kn2_packed(const struct rt_conv2d *p, int variant)
{
	const size_t kk = (size_t)p->kH * p->kW;
	if (variant & KN2_COL)
		return kk * p->M * p->C;
	return kk * rt_sgemm_pack_a_size(p->isa, p->M, p->C);
}

void prep_kn2_pack(const struct rt_conv2d *p, int variant, const float *w, float *out)
{
	const int kk = p->kH * p->kW, M = p->M, C = p->C;
	if (variant & KN2_COL) {
		for (int c = 0; c < C; c++)
			for (int t = 0; t < kk; t++)
				for (int m = 0; m < M; m++)
					out[((size_t)c * kk + t) * M + m] = w[((size_t)m * C + c) * kk + t];
		return;
	}
	for (int t = 0; t < kk; t++)
		rt_sgemm_pack_a(p->isa, M, C, w + t, (size_t)C * kk, (size_t)kk,
		                out + (size_t)t * rt_sgemm_pack_a_size(p->isa, M, C));
}

size_t prep_kn2_stack_ws(const struct rt_conv2d *p, int variant)
{
	const int kk = p->kH * p->kW, hw = p->H * p->W;
	if (variant & KN2_COL)
		return round16((size_t)hw * kk * p->M) + sgemm_ws_floats(p->isa, hw, kk * p->M, p->C);
	const int mr = RT_SGEMM_MR(p->isa), mp = (p->M + mr - 1) / mr * mr;
	return round16((size_t)kk * mp * hw) + sgemm_ws_floats(p->isa, kk * mp, hw, p->C);
}

size_t prep_kn2_as_ws(const struct rt_conv2d *p, int variant)
{
	const int hw = p->H * p->W;
	return round16((size_t)p->M * hw) + (variant & KN2_COL ?
	                                             sgemm_ws_floats(p->isa, hw, p->M, p->C) :
	                                             sgemm_ws_floats(p->isa, p->M, hw, p->C));
}

size_t prep_kn2_aa_ws(const struct rt_conv2d *p, int variant)
{
	/* the outputs a flattened shifted GEMM wraps onto: at most kW-1 per row */
	const int hw = p->H * p->W;
	return round16((size_t)p->M * (p->kW - 1) * p->H) +
	       (variant & KN2_COL ? sgemm_ws_floats(p->isa, hw, p->M, p->C) :
	                            sgemm_ws_floats(p->isa, p->M, hw, p->C));
}
