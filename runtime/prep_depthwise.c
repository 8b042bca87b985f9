/* prep_depthwise.c - compile-time side of the depthwise family: the
 * predicates, workspace sizes and weight packing of the rows in
 * fam_depthwise.def (the run units are conv_depthwise_*.c).
 *
 * Two kinds of rows. Depthwise rows need group == C > 1 (one input channel
 * per group) with any channel multiplier M/C; they refuse group == 1, which
 * belongs to the other families. Grouped rows take any group > 1, depthwise
 * included. Every row takes any padding; kernel, stride and dilation as each
 * predicate says. */
#include "runtime/prep.h"
#include "runtime/sgemm.h"

/* The padded window a CHW depthwise plane reads (see conv_depthwise_chw.c):
 * Hp rows by Wp columns. */
static int padded_rows(const struct rt_conv2d *p)
{
	return (p->oH - 1) * p->sH + (p->kH - 1) * p->dH + 1;
}

static int padded_cols(const struct rt_conv2d *p)
{
	return (p->oW - 1) * p->sW + (p->kW - 1) * p->dW + 1;
}

static int is_3x3_d1(const struct rt_conv2d *p)
{
	return p->kH == 3 && p->kW == 3 && prep_is_dilation1(p);
}

static int valid_grouping(const struct rt_conv2d *p)
{
	return p->group > 0 && p->C >= p->group && p->M >= p->group && p->C % p->group == 0 &&
	       p->M % p->group == 0 && p->oH > 0 && p->oW > 0;
}

/* ---- depthwise on CHW ---------------------------------------------------- */

int prep_dw_chw_applies(const struct rt_conv2d *p, int variant)
{
	if (!valid_grouping(p) || !prep_is_depthwise(p))
		return 0;
	switch (variant) {
	case 1: return is_3x3_d1(p) && prep_is_stride1(p);
	case 2: return is_3x3_d1(p) && p->sH == 2 && p->sW == 2;
	default: return 1;
	}
}

size_t prep_dw_chw_ws(const struct rt_conv2d *p, int variant)
{
	const size_t Hp = (size_t)padded_rows(p), Wp = (size_t)padded_cols(p);
	if (variant == 2) /* even and odd column planes and one padded row */
		return 2 * Hp * ((Wp + 1) / 2) + Wp;
	return Hp * Wp;
}

/* ---- channel-vectorised depthwise on HWC and blocked layouts --------------- */

int prep_dw_cvec_applies(const struct rt_conv2d *p, int variant)
{
	if (!valid_grouping(p) || !prep_is_depthwise(p))
		return 0;
	switch (variant) {
	case 1: return is_3x3_d1(p) && prep_is_stride1(p);
	case 8:
	case 16: return p->M == p->C;
	default: return 1;
	}
}

/* [kH*kW][Mp], Mp = M rounded up to 16 */
size_t prep_dw_cvec_packed(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return (size_t)p->kH * p->kW * ((p->M + 15) / 16 * 16);
}

void prep_dw_cvec_pack(const struct rt_conv2d *p, int variant,
                       const float *w, /* [M, 1, kH, kW] */
                       float *out)     /* out: [kH*kW][Mp], zero past M */
{
	const size_t kk = (size_t)p->kH * p->kW, Mp = (size_t)(p->M + 15) / 16 * 16;
	(void)variant;
	for (size_t t = 0; t < kk; t++)
		for (size_t o = 0; o < Mp; o++)
			out[t * Mp + o] = o < (size_t)p->M ? w[o * kk + t] : 0.0f;
}

/* ---- depthwise tiled along the output row (conv_depthwise_rows.c) ------------ */

/* Square 3x3 or 5x5 kernel, equal strides of 1 or 2, dilation 1 (the kernel's
 * constants); HWC (variant 0) any multiplier, blocked (8, 16) multiplier 1.
 * Weights packed as for the cvec rows; no workspace. */
int prep_dw_rows_applies(const struct rt_conv2d *p, int variant)
{
	if (!valid_grouping(p) || !prep_is_depthwise(p) || !prep_is_dilation1(p))
		return 0;
	if (p->kH != p->kW || (p->kH != 3 && p->kH != 5) || p->sH != p->sW ||
	    (p->sH != 1 && p->sH != 2))
		return 0;
	return variant == 0 || p->M == p->C;
}

/* ---- a 1x1 fused with the depthwise after it (conv_pw_dw.c) -------------- */

/* e: a 1x1, stride 1, unpadded, group 1 (conv_pointwise.c's row of the
 * variant); d: a depthwise on its whole output, multiplier 1, that the rows
 * of the same variant take. */
int prep_pw_dw_applies(const struct rt_conv2d *e, const struct rt_conv2d *d, int variant)
{
	return (variant == 0 || variant == 8 || variant == 16) && e->kH == 1 && e->kW == 1 &&
	       e->sH == 1 && e->sW == 1 && e->padT == 0 && e->padL == 0 && e->group == 1 &&
	       e->oH == e->H && e->oW == e->W && e->N == d->N && e->M == d->C && e->oH == d->H &&
	       e->oW == d->W && d->M == d->C && prep_dw_rows_applies(d, variant);
}

/* Must match conv_pw_dw.c: chunks (rt_pwdw_chunks_) buffers of cap rows of
 * e (rt_pwdw_cap_: what 384 KiB holds, at least a band's (R - 1)*S + K rows,
 * R the output rows whose rows of e 192 KiB holds; at most H), a row W
 * pixels of C channels, rounded up to whole blocks when blocked. */
size_t prep_pw_dw_ws(const struct rt_conv2d *d, int variant)
{
	const int B = variant == 8 || variant == 16 ? variant : 0;
	const size_t row = (size_t)d->W * (B ? (d->C + B - 1) / B * B : d->C);
	int r = 1;
	while (r < d->oH && (size_t)(r * d->sH + d->kH) * row <= 49152)
		r++;
	const int band = (r - 1) * d->sH + d->kH, fit = (int)(98304 / row);
	int cap = fit > band ? fit : band;
	cap = cap < d->H ? cap : d->H;
	const int least = (24 * (d->kH - d->sH) + d->sH - 1) / d->sH;
	int chunks = d->oH / (least > 1 ? least : 1);
	if (chunks < 2)
		chunks = d->oH >= 8 ? 2 : 1;
	chunks = chunks < RT_PARALLEL_ITEMS ? chunks : RT_PARALLEL_ITEMS;
	return (size_t)chunks * (size_t)cap * row;
}

/* ---- grouped convolutions -------------------------------------------------- */

int prep_dw_group_applies(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return valid_grouping(p) && p->group > 1;
}

/* A 1x1, stride-1, unpadded layer reads the input as the GEMM operand
 * directly (conv_depthwise_group_gemm_*.c); anything else needs im2col/im2row. */
static int gemm_reads_input(const struct rt_conv2d *p)
{
	return p->kH == 1 && p->kW == 1 && prep_is_stride1(p) && p->padT == 0 && p->padL == 0 &&
	       p->oH == p->H && p->oW == p->W;
}

/* Floats of the im2col / im2row matrix of one group, rounded up to 16 as the
 * run units place the GEMM workspace after it. */
static size_t group_patch_floats(const struct rt_conv2d *p)
{
	const size_t K = (size_t)(p->C / p->group) * p->kH * p->kW;
	return gemm_reads_input(p) ? 0 : (K * p->oH * p->oW + 15) / 16 * 16;
}

size_t prep_dw_ggemm_chw_ws(const struct rt_conv2d *p, int variant)
{
	const int K = p->C / p->group * p->kH * p->kW;
	(void)variant;
	return group_patch_floats(p) +
	       (rt_sgemm_workspace_size(p->isa, p->M / p->group, p->oH * p->oW, K) + 3) / 4;
}

/* Each group's [Mg][K] weight slice packed by rt_sgemm_pack_a, groups in order. */
size_t prep_dw_ggemm_chw_packed(const struct rt_conv2d *p, int variant)
{
	const int K = p->C / p->group * p->kH * p->kW;
	(void)variant;
	return (size_t)p->group * rt_sgemm_pack_a_size(p->isa, p->M / p->group, K);
}

void prep_dw_ggemm_chw_pack(const struct rt_conv2d *p, int variant,
                            const float *w, /* [M, C/group, kH, kW] */
                            float *out)     /* out: [group][packed A_g] */
{
	const int mg = p->M / p->group, K = p->C / p->group * p->kH * p->kW;
	const size_t apg = rt_sgemm_pack_a_size(p->isa, mg, K);
	(void)variant;
	for (int g = 0; g < p->group; g++)
		rt_sgemm_pack_a(p->isa, mg, K, w + (size_t)g * mg * K, (size_t)K, 1, out + g * apg);
}

size_t prep_dw_ggemm_hwc_ws(const struct rt_conv2d *p, int variant)
{
	const int K = p->C / p->group * p->kH * p->kW;
	(void)variant;
	return group_patch_floats(p) +
	       (rt_sgemm_workspace_size(p->isa, p->oH * p->oW, p->M / p->group, K) + 3) / 4;
}

size_t prep_dw_ggemm_hwc_packed(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return (size_t)p->M * (p->C / p->group) * p->kH * p->kW;
}

/* [group][kH][kW][Cg][Mg]: each group's weights as the [K][Mg] GEMM operand
 * with K in the im2row order (u, v, c). */
void prep_dw_ggemm_hwc_pack(const struct rt_conv2d *p, int variant,
                            const float *w, /* [M, Cg, kH, kW] */
                            float *out)     /* out: [group][kH][kW][Cg][Mg] */
{
	const int cg = p->C / p->group, mg = p->M / p->group;
	(void)variant;
	for (int g = 0; g < p->group; g++)
		for (int u = 0; u < p->kH; u++)
			for (int v = 0; v < p->kW; v++)
				for (int c = 0; c < cg; c++)
					for (int o = 0; o < mg; o++)
						*out++ = w[(((size_t)(g * mg + o) * cg + c) * p->kH + u) * p->kW + v];
}

/* Variant 1 (narrow groups): a vector of 16 output channels holds 16/Mg
 * whole groups whose inputs fit one vector. */
int prep_dw_gdirect_hwc_applies(const struct rt_conv2d *p, int variant)
{
	if (!prep_dw_group_applies(p, variant))
		return 0;
	const int cg = p->C / p->group, mg = p->M / p->group;
	return variant == 0 || (mg <= 8 && 16 % mg == 0 && cg <= mg);
}

size_t prep_dw_gdirect_hwc_packed(const struct rt_conv2d *p, int variant)
{
	const size_t cg = (size_t)(p->C / p->group), kk = (size_t)p->kH * p->kW;
	const size_t mgp = (size_t)(p->M / p->group + 15) / 16 * 16;
	if (variant == 1) /* [ceil(M/16)][kH][kW][Cg][16] */
		return (size_t)(p->M + 15) / 16 * kk * cg * 16;
	return (size_t)p->group * kk * cg * mgp;
}

/* Variant 0: [group][kH][kW][Cg][Mgp], Mgp = Mg rounded up to 16, zero past
 * Mg. Variant 1: [ceil(M/16)][kH][kW][Cg][16], lane l of block ob holding
 * output channel 16*ob + l's weight for input channel c of its group. */
void prep_dw_gdirect_hwc_pack(const struct rt_conv2d *p, int variant,
                              const float *w, /* [M, Cg, kH, kW] */
                              float *out)     /* out: as above */
{
	const int cg = p->C / p->group, mg = p->M / p->group, mgp = (mg + 15) / 16 * 16;
	if (variant == 1) {
		for (int ob = 0; ob < (p->M + 15) / 16; ob++)
			for (int u = 0; u < p->kH; u++)
				for (int v = 0; v < p->kW; v++)
					for (int c = 0; c < cg; c++)
						for (int l = 0; l < 16; l++) {
							const size_t o = (size_t)16 * ob + l;
							*out++ = o < (size_t)p->M
								? w[((o * cg + c) * p->kH + u) * p->kW + v] : 0.0f;
						}
		return;
	}
	for (int g = 0; g < p->group; g++)
		for (int u = 0; u < p->kH; u++)
			for (int v = 0; v < p->kW; v++)
				for (int c = 0; c < cg; c++)
					for (int o = 0; o < mgp; o++) {
						const size_t m = (size_t)g * mg + o;
						*out++ = o < mg ? w[((m * cg + c) * p->kH + u) * p->kW + v] : 0.0f;
					}
}
