/* conv_im2_row.c - im2row convolution: lower an HWC input to a patch matrix
 * with one row per output pixel, then one GEMM per group (Anderson & Gregg's
 * im2row family; research brief a.2.3).
 *
 * Textbook form: Q has a row per output pixel (i, j) and a column per kernel
 * tap, ordered (g, u, v, c') with c' the channel within group g,
 *   Q[(i,j)][(g,u,v,c')] = x[i*sH - padT + u*dH][j*sW - padL + v*dW][g*cg + c'],
 * zero outside the input. For a fixed (i, j, u) and group 1 without dilation
 * the kW*C entries are one contiguous run of the HWC input whatever the
 * stride, so rows are built with memcpy (clipped at the left and right
 * edges); with groups or dilation the runs are cg floats per (g, v).
 *
 * Variants (bits of `variant`, see fam_im2.def):
 *   bit 0     ik: Y [oH*oW][M] = Q · Wᵀ (Q = operand A, Wᵀ a row-major B
 *             [Kg][mg] per group), output HWC;
 *             ki: Y [M][oH*oW] = W · Qᵀ (weights = operand A, packed at
 *             compile time; pixels are N), output CHW.
 *   bits 1-2  copy (0): the whole Q; scan (1): Q for a band of output rows
 *             (about one sgemm NC block of pixels) at a time; acc (2): Q for
 *             one kernel row u at a time, kH GEMMs per group accumulating into
 *             Y (1/kH of the workspace).
 * Bias and the fused activation are applied per band while it is in cache.
 *
 * Weights (prep_im2.c): columns in (u, v, c') order per group; ki: packed by
 * rt_sgemm_pack_a per (group, kernel-row slice); ik: Wᵀ [Kg][mg] per (group,
 * slice). Workspace: Q (rounded up to 16 floats), then rt_sgemm's. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

/* Rows of Q for output rows i0..i1-1, kernel rows u0 .. u0+nu-1. */
static inline void rt_im2_row_build_(const struct rt_conv2d *p,
                                     const float *x, /* one image, [H][W][C] */
                                     int u0, int nu, int i0, int i1,
                                     float *Q) /* out: [(i1-i0)*oW][G][nu][kW][cg] */
{
	const int C = p->C, G = p->group, cg = C / G, kW = p->kW;
	const size_t L = (size_t)C * nu * kW; /* row length */
	for (int i = i0; i < i1; i++)
		for (int j = 0; j < p->oW; j++) {
			float *q = Q + ((size_t)(i - i0) * p->oW + j) * L; /* row (i, j), [L] */
			const int iw0 = j * p->sW - p->padL; /* input column of v = 0 */
			for (int uu = 0; uu < nu; uu++) {
				const int ih = i * p->sH - p->padT + (u0 + uu) * p->dH;
				if (ih < 0 || ih >= p->H) {
					for (int g = 0; g < G; g++) {
						float *d = q + (size_t)(g * nu + uu) * kW * cg; /* [kW][cg] */
						for (int k = 0; k < kW * cg; k++)
							d[k] = 0.0f;
					}
					continue;
				}
				const float *xr = x + (size_t)ih * p->W * C; /* input row, [W][C] */
				if (G == 1 && p->dW == 1) {
					/* taps v in [vlo, vhi) are inside the row: one run */
					float *d = q + (size_t)uu * kW * C; /* [kW][C] */
					int vlo = iw0 < 0 ? -iw0 : 0, vhi = p->W - iw0 < kW ? p->W - iw0 : kW;
					if (vlo > kW)
						vlo = kW;
					if (vhi < vlo)
						vhi = vlo;
					for (size_t k = 0; k < (size_t)vlo * C; k++)
						d[k] = 0.0f;
					if (vhi > vlo)
						memcpy(d + (size_t)vlo * C, xr + (size_t)(iw0 + vlo) * C,
						       (size_t)(vhi - vlo) * C * sizeof *d);
					for (size_t k = (size_t)vhi * C; k < (size_t)kW * C; k++)
						d[k] = 0.0f;
				} else {
					for (int g = 0; g < G; g++)
						for (int v = 0; v < kW; v++) {
							float *d = q + ((size_t)(g * nu + uu) * kW + v) * cg; /* [cg] */
							const int iw = iw0 + v * p->dW;
							if (iw < 0 || iw >= p->W)
								for (int k = 0; k < cg; k++)
									d[k] = 0.0f;
							else
								memcpy(d, xr + (size_t)iw * C + (size_t)g * cg,
								       (size_t)cg * sizeof *d);
						}
				}
			}
		}
}

/* y[r*ld + k] = act(y[r*ld + k] + bias) for r < rows, k < cols, where the
 * bias is b[r] (per_row) or b[k] (per column); b may be NULL. */
static inline void rt_im2_row_epilogue_(const struct rt_conv2d *p, const float *b, int per_row,
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

RT_FN void rt_conv_im2_row(const struct rt_conv2d *p, int variant,
                           const float *x, /* [N][H][W][C] */
                           const float *w, /* packed by prep_im2_row_pack */
                           const float *b, /* [M] or NULL */
                           float *y,       /* out: ik [N][oH][oW][M], ki [N][M][oH][oW] */
                           float *ws)      /* prep_im2_row_ws floats */
{
	const int isa = p->isa, ik = variant & 1, mode = (variant >> 1) & 3;
	const int G = p->group, cg = p->C / G, mg = p->M / G, oW = p->oW;
	const int acc = mode == 2, nu = acc ? 1 : p->kH, slices = acc ? p->kH : 1;
	const int Kg = cg * nu * p->kW;  /* columns of Q per group */
	const size_t L = (size_t)Kg * G; /* row length of Q */
	const size_t npix = (size_t)p->oH * oW;
	const int mr = RT_SGEMM_MR(isa);
	const size_t wblock = ik ? (size_t)Kg * mg : (size_t)((mg + mr - 1) / mr) * mr * Kg;
	int band = p->oH; /* output rows per patch block */
	if (mode == 1) {
		const int nc = RT_SGEMM_NC(isa);
		const int most = oW >= nc ? 1 : nc / oW, nbands = (p->oH + most - 1) / most;
		band = (p->oH + nbands - 1) / nbands; /* balanced: no thin last band */
	}
	float *Q = ws; /* [band*oW][L] */
	float *sg = ws + (L * band * oW + 15) / 16 * 16; /* sgemm workspace */

	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * p->C * p->H * p->W; /* image n, input layout */
		float *yn = y + (size_t)n * p->M * npix; /* image n, output layout */
		for (int i0 = 0; i0 < p->oH; i0 += band) {
			const int i1 = i0 + band < p->oH ? i0 + band : p->oH;
			const int nb = (i1 - i0) * oW;
			for (int s = 0; s < slices; s++) {
				rt_im2_row_build_(p, xn, acc ? s : 0, nu, i0, i1, Q);
				for (int g = 0; g < G; g++) {
					const float *Qg = Q + (size_t)g * Kg; /* [nb][Kg], row stride L */
					/* weights of (g, s) */
					const float *wg = w + (size_t)(g * slices + s) * wblock;
					if (ik)
						rt_sgemm(isa, nb, mg, Kg, Qg, L, 1, NULL, wg, (size_t)mg, 1,
						         yn + (size_t)i0 * oW * p->M + (size_t)g * mg, (size_t)p->M,
						         s > 0, sg);
					else
						rt_sgemm(isa, mg, nb, Kg, NULL, 0, 0, wg, Qg, 1, L,
						         yn + (size_t)g * mg * npix + (size_t)i0 * oW, npix, s > 0, sg);
				}
			}
			if (ik)
				rt_im2_row_epilogue_(p, b, 0, yn + (size_t)i0 * oW * p->M, (size_t)p->M, nb,
				                     p->M);
			else
				rt_im2_row_epilogue_(p, b, 1, yn + (size_t)i0 * oW, npix, p->M, nb);
		}
	}
}
