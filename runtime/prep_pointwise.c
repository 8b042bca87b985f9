/* prep_pointwise.c - compile-time side of the pointwise rows
 * (prep_pointwise.h): the predicate and the weight packing. Raw weights are
 * [M][C][1][1] (ONNX Conv). */
#include "runtime/prep.h"

int prep_pointwise_applies(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return p->group == 1 && p->kH == 1 && p->kW == 1 && p->padT == 0 && p->padL == 0 &&
	       (p->oH - 1) * p->sH < p->H && (p->oW - 1) * p->sW < p->W;
}

static int weight_block(int variant) { return variant ? variant : 16; }

/* Blocks of 16 whose last block holds 8 output channels or fewer get that
 * block again, interleaved by input channel pairs, after the blocks (what
 * conv_pointwise.c's rt_pw_half_avx512 reads; rt_pw_pairs_tail is the rule
 * both sides follow). */
static int pairs_tail(const struct rt_conv2d *p, int variant)
{
	return rt_pw_pairs_tail(p->M, variant);
}

size_t prep_pointwise_packed(const struct rt_conv2d *p, int variant)
{
	const size_t wb = (size_t)weight_block(variant);
	return ((size_t)p->M + wb - 1) / wb * wb * (size_t)p->C +
	       (pairs_tail(p, variant) ? ((size_t)p->C + 1) / 2 * 16 : 0);
}

void prep_pointwise_pack(const struct rt_conv2d *p, int variant,
                         const float *w, /* [M][C] */
                         float *out)     /* out: [ceil(M/wb)][C][wb], then for blocks of 16
                                            whose last holds 8 channels or fewer that block's
                                            channel pairs, [ceil(C/2)][16] */
{
	const int wb = weight_block(variant), mb = (p->M + wb - 1) / wb;
	size_t k = 0;
	for (int ob = 0; ob < mb; ob++)
		for (int c = 0; c < p->C; c++)
			for (int l = 0; l < wb; l++, k++) {
				const int m = ob * wb + l;
				out[k] = m < p->M ? w[(size_t)m * p->C + c] : 0.0f;
			}
	if (!pairs_tail(p, variant))
		return;
	/* [ceil(C/2)][16]: lane 2i + e holds w[m0 + i][2k + e], 0 past M or C */
	const int m0 = (mb - 1) * wb;
	for (int c2 = 0; c2 < (p->C + 1) / 2; c2++)
		for (int l = 0; l < 16; l++, k++) {
			const int m = m0 + l / 2, c = 2 * c2 + l % 2;
			out[k] = m < p->M && c < p->C ? w[(size_t)m * p->C + c] : 0.0f;
		}
}
