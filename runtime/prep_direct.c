/* prep_direct.c - compile-time side of the direct family: predicates and the
 * weight re-layouts its rows name (prep_direct.h). Raw weights are
 * [M][C/group][kH][kW] (ONNX Conv). */
#include "runtime/prep.h"

int prep_direct_blocked_applies(const struct rt_conv2d *p, int variant)
{
	const int bs = variant;
	if (!prep_applies_any(p, variant))
		return 0;
	return p->group == 1 || ((p->C / p->group) % bs == 0 && (p->M / p->group) % bs == 0);
}

int prep_direct_one_pass(const struct rt_conv2d *p, int variant)
{
	const int bs = variant, cg = p->C / p->group;
	if (!bs)
		return cg <= rt_dvec_chunk(0, 0, 0);
	const int cblocks = (cg + bs - 1) / bs;
	if (p->group == 1 && p->C % bs && cblocks > 1)
		return 0; /* the partial last block is a chunk of its own */
	/* the smaller of the two chunks (vectors of a whole block, vl = bs),
	 * whichever vector length the generated code runs with */
	return cblocks <= rt_dvec_chunk(bs, bs, (size_t)p->kH * p->kW * bs * bs);
}

size_t prep_direct_blocked_packed(const struct rt_conv2d *p, int variant)
{
	const size_t bs = (size_t)variant;
	const size_t cgb = ((size_t)(p->C / p->group) + bs - 1) / bs;
	const size_t mb = ((size_t)p->M + bs - 1) / bs;
	return mb * cgb * p->kH * p->kW * bs * bs;
}

void prep_direct_blocked_pack(const struct rt_conv2d *p, int variant,
                              const float *w, /* [M][C/group][kH][kW] */
                              float *out)     /* out: [M/bs][Cg/bs][kH][kW][bs ci][bs co] */
{
	const int bs = variant, cg = p->C / p->group, taps = p->kH * p->kW;
	const int cgb = (cg + bs - 1) / bs, mb = (p->M + bs - 1) / bs;
	size_t k = 0;
	for (int ob = 0; ob < mb; ob++)
		for (int cb = 0; cb < cgb; cb++)
			for (int t = 0; t < taps; t++)
				for (int ci = 0; ci < bs; ci++)
					for (int co = 0; co < bs; co++, k++) {
						const int m = ob * bs + co, c = cb * bs + ci;
						out[k] = m < p->M && c < cg ? w[((size_t)m * cg + c) * taps + t] : 0.0f;
					}
}

size_t prep_direct_igemm_packed(const struct rt_conv2d *p, int variant)
{
	const size_t mgp = ((size_t)(p->M / p->group) + 15) / 16 * 16;
	(void)variant;
	return (size_t)p->group * p->kH * p->kW * (p->C / p->group) * mgp;
}

void prep_direct_igemm_pack(const struct rt_conv2d *p, int variant,
                            const float *w, /* [M][C/group][kH][kW] */
                            float *out)     /* out: [group][kH][kW][C/group][mgp] */
{
	const int cg = p->C / p->group, mg = p->M / p->group, taps = p->kH * p->kW;
	const int mgp = (mg + 15) / 16 * 16;
	size_t k = 0;
	(void)variant;
	for (int g = 0; g < p->group; g++)
		for (int t = 0; t < taps; t++)
			for (int c = 0; c < cg; c++)
				for (int m = 0; m < mgp; m++, k++)
					out[k] = m < mg ? w[(((size_t)g * mg + m) * cg + c) * taps + t] : 0.0f;
}

int prep_direct_s2_applies(const struct rt_conv2d *p, int variant)
{
	return prep_applies_any(p, variant) && p->sW == 2;
}

size_t prep_direct_mkkc_packed(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return (size_t)p->M * p->kH * p->kW * (p->C / p->group);
}

void prep_direct_mkkc_pack(const struct rt_conv2d *p, int variant,
                           const float *w, /* [M][C/group][kH][kW] */
                           float *out)     /* out: [M][kH][kW][C/group] */
{
	const int cg = p->C / p->group, taps = p->kH * p->kW;
	(void)variant;
	for (int m = 0; m < p->M; m++)
		for (int t = 0; t < taps; t++)
			for (int c = 0; c < cg; c++)
				out[((size_t)m * taps + t) * cg + c] = w[((size_t)m * cg + c) * taps + t];
}

size_t prep_direct_s2_packed(const struct rt_conv2d *p, int variant)
{
	const size_t mb = ((size_t)(p->M / p->group) + 7) / 8;
	(void)variant;
	return (size_t)p->group * mb * (p->C / p->group) * p->kH * p->kW * 8;
}

void prep_direct_s2_pack(const struct rt_conv2d *p, int variant,
                         const float *w, /* [M][C/group][kH][kW] */
                         float *out)     /* out: [group][ceil(mg/8)][C/group][kH][kW][8] */
{
	const int cg = p->C / p->group, mg = p->M / p->group, taps = p->kH * p->kW;
	const int mb = (mg + 7) / 8;
	size_t k = 0;
	(void)variant;
	for (int g = 0; g < p->group; g++)
		for (int b = 0; b < mb; b++)
			for (int c = 0; c < cg; c++)
				for (int t = 0; t < taps; t++)
					for (int r = 0; r < 8; r++, k++) {
						const int m = b * 8 + r;
						out[k] = m < mg ? w[(((size_t)g * mg + m) * cg + c) * taps + t] : 0.0f;
					}
}

int prep_stem_applies(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return p->group == 1 && p->C >= 1 && p->C <= 4 && p->sH >= 1 && p->sH <= 4 && p->sW >= 1 &&
	       p->sW <= 4;
}

size_t prep_stem_packed(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return (size_t)p->C * p->kH * p->kW * ((p->M + 15) / 16 * 16);
}

void prep_stem_pack(const struct rt_conv2d *p, int variant,
                    const float *w, /* [M][C][kH][kW] */
                    float *out)     /* out: [C][kH][kW][Mp] */
{
	const int taps = p->kH * p->kW, mp = (p->M + 15) / 16 * 16;
	size_t k = 0;
	(void)variant;
	for (int c = 0; c < p->C; c++)
		for (int t = 0; t < taps; t++)
			for (int m = 0; m < mp; m++, k++)
				out[k] = m < p->M ? w[((size_t)m * p->C + c) * taps + t] : 0.0f;
}
