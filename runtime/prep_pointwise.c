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

size_t prep_pointwise_packed(const struct rt_conv2d *p, int variant)
{
	const size_t wb = (size_t)weight_block(variant);
	return ((size_t)p->M + wb - 1) / wb * wb * (size_t)p->C;
}

void prep_pointwise_pack(const struct rt_conv2d *p, int variant,
                         const float *w, /* [M][C] */
                         float *out)     /* out: [ceil(M/wb)][C][wb] */
{
	const int wb = weight_block(variant), mb = (p->M + wb - 1) / wb;
	size_t k = 0;
	for (int ob = 0; ob < mb; ob++)
		for (int c = 0; c < p->C; c++)
			for (int l = 0; l < wb; l++, k++) {
				const int m = ob * wb + l;
				out[k] = m < p->M ? w[(size_t)m * p->C + c] : 0.0f;
			}
}
