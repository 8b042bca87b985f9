/* conv_im2_col.c - im2col convolution: lower the input to a patch matrix,
 * then one GEMM per group (Anderson & Gregg's im2col family; research brief
 * a.2.3).
 *
 * Textbook form: the patch matrix P has a row per kernel tap (c, u, v) and a
 * column per output pixel (i, j),
 *   P[(c,u,v)][(i,j)] = x[c][i*sH - padT + u*dH][j*sW - padL + v*dW]  (0 outside),
 * so that the convolution is W [M][C*kH*kW] · P (group g: its mg rows of W
 * times its cg*kH*kW rows of P). Padding, stride and dilation all live in the
 * patch builder; the GEMM (rt_sgemm) sees a plain matrix.
 *
 * Variants (bits of `variant`, see fam_im2.def):
 *   bit 0     ki: Y [M][oH*oW] = W · P (weights = operand A, packed at compile
 *             time; the pixels are the big N dimension), output CHW;
 *             ik: Y [oH*oW][M] = Pᵀ · Wᵀ (P read transposed as operand A,
 *             Wᵀ as a row-major B), output HWC.
 *   bits 1-2  copy (0): the whole P, one GEMM per group.
 *             scan (1): P for a band of output rows at a time (about one sgemm
 *             NC block of pixels), so the workspace is C*kH*kW x band.
 *             acc (2): P for one kernel row u at a time (C*kW rows), kH GEMMs
 *             per group accumulating into Y: 1/kH of the workspace.
 *   bit 3     input HCW ([H][C][W]) instead of CHW: only the builder's
 *             addressing changes.
 *   bit 4     (ki only) output HCW: one GEMM per output row i, writing the
 *             [M][oW] slab of row i.
 * Bias and the fused activation are applied per band while it is in cache.
 *
 * Weights (prep_im2.c): ki: per (group, kernel row slice) the [mg][Kg] block
 * packed by rt_sgemm_pack_a; ik: per (group, slice) Wᵀ as [Kg][mg].
 * Workspace: P (rounded up to 16 floats), then rt_sgemm's workspace. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

/* Rows (c, u0+uu, v), uu < nu, of the patch matrix for output rows i0..i1-1. */
static inline void rt_im2_col_build_(const struct rt_conv2d *p,
                                     const float *x, /* one image: x(c,h,w) at x[c*xc + h*xh + w] */
                                     size_t xc, size_t xh, int u0, int nu, int i0, int i1,
                                     float *P) /* out: [C][nu][kW] rows of [(i1-i0)*oW] */
{
	const int oW = p->oW;
	const size_t nb = (size_t)(i1 - i0) * oW;
	for (int c = 0; c < p->C; c++)
		for (int uu = 0; uu < nu; uu++)
			for (int v = 0; v < p->kW; v++) {
				float *row = P + ((size_t)(c * nu + uu) * p->kW + v) * nb; /* [i1-i0][oW] */
				const int off = v * p->dW - p->padL; /* input column of j is j*sW + off */
				int jlo = off >= 0 ? 0 : (-off + p->sW - 1) / p->sW;
				int jhi = p->W - 1 - off < 0 ? 0 : (p->W - 1 - off) / p->sW + 1;
				if (jhi > oW)
					jhi = oW;
				if (jlo > jhi)
					jlo = jhi;
				for (int i = i0; i < i1; i++) {
					/* output row i's columns, [oW] */
					float *d = row + (size_t)(i - i0) * oW;
					const int ih = i * p->sH - p->padT + (u0 + uu) * p->dH;
					if (ih < 0 || ih >= p->H) {
						for (int j = 0; j < oW; j++)
							d[j] = 0.0f;
						continue;
					}
					const float *s = x + (size_t)c * xc + (size_t)ih * xh; /* input row [W] */
					for (int j = 0; j < jlo; j++)
						d[j] = 0.0f;
					if (p->sW == 1)
						memcpy(d + jlo, s + jlo + off, (size_t)(jhi - jlo) * sizeof *d);
					else
						for (int j = jlo; j < jhi; j++)
							d[j] = s[j * p->sW + off];
					for (int j = jhi; j < oW; j++)
						d[j] = 0.0f;
				}
			}
}

/* y[r*ld + k] = act(y[r*ld + k] + bias) for r < rows, k < cols, where the
 * bias is b[r] (per_row) or b[k] (per column); b may be NULL. */
static inline void rt_im2_col_epilogue_(const struct rt_conv2d *p, const float *b, int per_row,
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

RT_FN void rt_conv_im2_col(const struct rt_conv2d *p, int variant,
                           const float *x, /* [N][C][H][W] (bit 3: [N][H][C][W]) */
                           const float *w, /* packed by prep_im2_col_pack */
                           const float *b, /* [M] or NULL */
                           float *y,       /* out: ki [N][M][oH][oW] (bit 4: [N][oH][M][oW]),
                                              ik [N][oH][oW][M] */
                           float *ws)      /* prep_im2_col_ws floats */
{
	const int isa = p->isa, ik = variant & 1, mode = (variant >> 1) & 3;
	const int hcw_in = (variant >> 3) & 1, hcw_out = (variant >> 4) & 1;
	const int G = p->group, cg = p->C / G, mg = p->M / G, oW = p->oW;
	const int acc = mode == 2, nu = acc ? 1 : p->kH, slices = acc ? p->kH : 1;
	const int Kg = cg * nu * p->kW; /* rows of P per group */
	const size_t npix = (size_t)p->oH * oW;
	const int mr = RT_SGEMM_MR(isa);
	const size_t wblock = ik ? (size_t)Kg * mg : (size_t)((mg + mr - 1) / mr) * mr * Kg;
	/* x(c, h, w) = x[c*xc + h*xh + w] */
	const size_t xc = hcw_in ? (size_t)p->W : (size_t)p->H * p->W;
	const size_t xh = hcw_in ? (size_t)p->C * p->W : (size_t)p->W;
	int band = p->oH; /* output rows per patch block */
	if (mode == 1) {
		const int nc = RT_SGEMM_NC(isa);
		const int most = oW >= nc ? 1 : nc / oW, nbands = (p->oH + most - 1) / most;
		band = (p->oH + nbands - 1) / nbands; /* balanced: no thin last band */
	}
	float *P = ws; /* [G][Kg][band*oW] */
	float *sg = ws + ((size_t)Kg * G * band * oW + 15) / 16 * 16; /* sgemm workspace */

	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * p->C * p->H * p->W; /* image n, input layout */
		float *yn = y + (size_t)n * p->M * npix; /* image n, output layout */
		for (int i0 = 0; i0 < p->oH; i0 += band) {
			const int i1 = i0 + band < p->oH ? i0 + band : p->oH;
			const int nb = (i1 - i0) * oW;
			for (int s = 0; s < slices; s++) {
				rt_im2_col_build_(p, xn, xc, xh, acc ? s : 0, nu, i0, i1, P);
				for (int g = 0; g < G; g++) {
					const float *Pg = P + (size_t)g * Kg * nb; /* [Kg][nb] */
					/* weights of (g, s) */
					const float *wg = w + (size_t)(g * slices + s) * wblock;
					if (ik)
						rt_sgemm(isa, nb, mg, Kg, Pg, 1, (size_t)nb, NULL, wg, (size_t)mg, 1,
						         yn + (size_t)i0 * oW * p->M + (size_t)g * mg, (size_t)p->M,
						         s > 0, sg);
					else if (hcw_out)
						for (int i = i0; i < i1; i++)
							rt_sgemm(isa, mg, oW, Kg, NULL, 0, 0, wg, Pg + (size_t)(i - i0) * oW,
							         (size_t)nb, 1, yn + ((size_t)i * p->M + (size_t)g * mg) * oW,
							         (size_t)oW, s > 0, sg);
					else
						rt_sgemm(isa, mg, nb, Kg, NULL, 0, 0, wg, Pg, (size_t)nb, 1,
						         yn + (size_t)g * mg * npix + (size_t)i0 * oW, npix, s > 0, sg);
				}
			}
			if (ik)
				rt_im2_col_epilogue_(p, b, 0, yn + (size_t)i0 * oW * p->M, (size_t)p->M, nb,
				                     p->M);
			else if (hcw_out)
				for (int i = i0; i < i1; i++)
					rt_im2_col_epilogue_(p, b, 1, yn + (size_t)i * p->M * oW, (size_t)oW,
					                     p->M, oW);
			else
				rt_im2_col_epilogue_(p, b, 1, yn + (size_t)i0 * oW, npix, p->M, nb);
		}
	}
}
