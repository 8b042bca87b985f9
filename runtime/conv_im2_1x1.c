/* conv_im2_1x1.c - 1x1 convolution as a plain GEMM: with a 1x1 kernel the
 * input is already the patch matrix (research brief a.2.3), so no lowering:
 *   CHW: Y [M][HW] = W [M][C] · X [C][HW]       HWC: Y [HW][M] = X [HW][C] · Wᵀ
 * one GEMM per group. With stride > 1 the strided pixels are first gathered
 * into the workspace (a compact image of oH x oW pixels in the same layout).
 *
 * Variants (see fam_im2.def):
 *   0  ki, CHW -> CHW: W · X          (weights = A, packed; pixels are N)
 *   1  ik, HWC -> HWC: X · Wᵀ         (X = A, rows of C floats; Wᵀ = B [cg][mg])
 *   2  ki, HWC -> CHW: W · Xᵀ         (B read transposed from HWC)
 *   3  ik, CHW -> HWC: Xᵀ · Wᵀ        (A read transposed from CHW)
 *   4  ki, HCW -> HCW: per output row i, Y_i [M][oW] = W · X_{i*sH} [C][W]
 *      read with column stride sW, so no gather even when strided.
 * No padding (APPLIES): every output pixel reads one input pixel.
 * Weights (prep_im2.c): ki: W_g packed by rt_sgemm_pack_a per group; ik:
 * Wᵀ_g [cg][mg] per group. Workspace: the gathered input (strided layers,
 * rounded up to 16 floats), then rt_sgemm's. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

/* y[r*ld + k] = act(y[r*ld + k] + bias) for r < rows, k < cols, where the
 * bias is b[r] (per_row) or b[k] (per column); b may be NULL. */
static inline void rt_im2_1x1_epilogue_(const struct rt_conv2d *p, const float *b, int per_row,
                                        float *y, /* [rows][cols], row stride ld */
                                        size_t ld, int rows, int cols)
{
	if (!b && p->act == RT_ACT_NONE)
		return;
	for (int r = 0; r < rows; r++) {
		float *yr = y + (size_t)r * ld; /* row r, [cols] */
		const float br = b && per_row ? b[r] : 0.0f;
		const float *bc = b && !per_row ? b : NULL; /* [cols] */
		if (p->act == RT_ACT_NONE) {
			if (bc)
				for (int k = 0; k < cols; k++)
					yr[k] += bc[k];
			else
				for (int k = 0; k < cols; k++)
					yr[k] += br;
		} else if (p->act == RT_ACT_RELU) {
			for (int k = 0; k < cols; k++) {
				const float t = yr[k] + (bc ? bc[k] : br);
				yr[k] = t > 0.0f ? t : 0.0f;
			}
		} else {
			for (int k = 0; k < cols; k++)
				yr[k] = rt_act_apply(p->act, p->alpha, p->beta, yr[k] + (bc ? bc[k] : br));
		}
	}
}

RT_FN void rt_conv_im2_1x1(const struct rt_conv2d *p, int variant,
                           const float *x, /* [N][C][H][W], [N][H][W][C] (1, 2) or [N][H][C][W] (4) */
                           const float *w, /* packed by prep_im2_1x1_pack */
                           const float *b, /* [M] or NULL */
                           float *y,       /* out: [N][M][oH][oW] (0, 2), [N][oH][oW][M] (1, 3)
                                              or [N][oH][M][oW] (4) */
                           float *ws)      /* prep_im2_1x1_ws floats */
{
	const int isa = p->isa, ik = variant & 1, hwc_in = variant == 1 || variant == 2;
	const int G = p->group, cg = p->C / G, mg = p->M / G, C = p->C, M = p->M;
	const int oH = p->oH, oW = p->oW;
	const size_t npix = (size_t)oH * oW;
	const int mr = RT_SGEMM_MR(isa);
	const size_t wblock = ik ? (size_t)cg * mg : (size_t)((mg + mr - 1) / mr) * mr * cg;
	const int sub = variant != 4 && !(p->sH == 1 && p->sW == 1 && oH == p->H && oW == p->W);
	float *sg = ws + (sub ? ((size_t)C * npix + 15) / 16 * 16 : 0); /* sgemm workspace */

	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * C * p->H * p->W; /* image n, input layout */
		float *yn = y + (size_t)n * M * npix; /* image n, output layout */
		if (variant == 4) {
			for (int i = 0; i < oH; i++) {
				const float *xr = xn + (size_t)i * p->sH * C * p->W; /* input row, [C][W] */
				for (int g = 0; g < G; g++)
					rt_sgemm(isa, mg, oW, cg, NULL, 0, 0, w + (size_t)g * wblock,
					         xr + (size_t)g * cg * p->W, (size_t)p->W, (size_t)p->sW,
					         yn + ((size_t)i * M + (size_t)g * mg) * oW, (size_t)oW, 0, sg);
				rt_im2_1x1_epilogue_(p, b, 1, yn + (size_t)i * M * oW, (size_t)oW, M, oW);
			}
			continue;
		}
		const float *xs = xn; /* the pixels read: [C][npix] or [npix][C] */
		if (sub) {
			float *xg = ws; /* out: the strided pixels, [C][oH*oW] or [oH*oW][C] */
			for (int i = 0; i < oH; i++)
				for (int j = 0; j < oW; j++) {
					const size_t q = (size_t)i * oW + j;
					const size_t src = (size_t)i * p->sH * p->W + (size_t)j * p->sW;
					if (hwc_in)
						memcpy(xg + q * C, xn + src * C, (size_t)C * sizeof *xg);
					else
						for (int c = 0; c < C; c++)
							xg[(size_t)c * npix + q] = xn[(size_t)c * p->H * p->W + src];
				}
			xs = xg;
		}
		/* x(c, q) = xs[c*xc + q*xq] */
		const size_t xc = hwc_in ? 1 : npix, xq = hwc_in ? (size_t)C : 1;
		for (int g = 0; g < G; g++) {
			const float *xg = xs + (size_t)g * cg * xc; /* group g's channels */
			if (ik)
				rt_sgemm(isa, (int)npix, mg, cg, xg, xq, xc, NULL, w + (size_t)g * wblock,
				         (size_t)mg, 1, yn + (size_t)g * mg, (size_t)M, 0, sg);
			else
				rt_sgemm(isa, mg, (int)npix, cg, NULL, 0, 0, w + (size_t)g * wblock, xg, xc, xq,
				         yn + (size_t)g * mg * npix, npix, 0, sg);
		}
		if (ik)
			rt_im2_1x1_epilogue_(p, b, 0, yn, (size_t)M, (int)npix, M);
		else
			rt_im2_1x1_epilogue_(p, b, 1, yn, npix, M, (int)npix);
	}
}
