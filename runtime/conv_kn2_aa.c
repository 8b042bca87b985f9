/* conv_kn2_aa.c - kn2row-aa and kn2col-aa: kn2 with every tap's GEMM
 * accumulating straight into a shifted view of the output (Anderson,
 * Vasudevan, Keane & Gregg, arXiv:1709.03395; research brief a.2.4), so no
 * M x H x W buffer at all.
 *
 * Tap t = (u, v) adds W_t · X shifted by (du, dv) = (u - padT, v - padL):
 *   y[m][i][j] += sum_c W_t[m][c] x[c][i + du][j + dv]
 * for the outputs i in [ilo, ihi), j in [jlo, jhi) whose input is inside
 * the grid. When the output is as wide as the input (oW == W, "same"
 * padding across) the flattened pixel index q = i*W + j is the same in X
 * and Y up to the constant offset du*W + dv, so ONE GEMM (C += A·B) over the
 * flattened range q0 .. q1-1 does the whole tap:
 *   q0 = ilo*W + max(0, -dv),   q1 = ihi*W - max(0, dv).
 * Inside that range a horizontal shift wraps across rows: for dv > 0 the
 * last dv columns of rows ilo .. ihi-2 read the first columns of the next
 * input row, for dv < 0 the first -dv columns of rows ilo+1 .. ihi-1 read
 * the end of the previous one. Border correction: those |dv|*(rows-1)
 * outputs are saved before the GEMM and restored after it, exactly (no
 * subtraction, so no rounding). Workspace: M*(kW-1)*H floats for the saved
 * outputs plus rt_sgemm's. Other paddings (oW != W): one GEMM per output row
 * over the clipped column range, no wrap. Loop tiling: the taps run over a
 * chunk of output rows (about one sgemm NC block of pixels) before the next
 * chunk, so that part of Y stays in cache; each chunk is the same algorithm
 * on rows [r0, r1), the bias set before and the activation applied after.
 *
 * Variants (bits of `variant`, see fam_kn2.def):
 *   bit 0 = 0  row: W_t (packed at compile time) · X, output CHW; bit 1: HWC
 *              input (read transposed) instead of CHW.
 *   bit 0 = 1  col: X · W_tᵀ (M columns of the [C][kH*kW*M] weights), output
 *              HWC; bit 1: CHW input instead of HWC.
 * Y starts as the bias; the activation runs once all taps are added. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

/* y[k] = act(y[k]) for k < n */
static inline void rt_kn2_aa_act_(const struct rt_conv2d *p, float *y, size_t n)
{
	if (p->act == RT_ACT_NONE)
		return;
	if (p->act == RT_ACT_RELU) {
		for (size_t k = 0; k < n; k++)
			y[k] = y[k] > 0.0f ? y[k] : 0.0f;
		return;
	}
	for (size_t k = 0; k < n; k++)
		y[k] = rt_act_apply(p->act, p->alpha, p->beta, y[k]);
}

/* Copies (restore = 0) or restores (restore = 1) the outputs a flattened tap
 * GEMM with column shift dv wraps onto, for output rows ilo .. ihi-1:
 * columns W-dv .. W-1 of rows ilo .. ihi-2 (dv > 0), columns 0 .. -dv-1 of
 * rows ilo+1 .. ihi-1 (dv < 0). */
static inline void rt_kn2_aa_wrap_(const struct rt_conv2d *p, int col, int dv, int ilo, int ihi,
                                   float *yn, /* one output image, CHW or HWC */
                                   float *save, /* [M][n] (CHW) or [n][M] (HWC) */
                                   int restore)
{
	const int W = p->W, M = p->M, ad = dv < 0 ? -dv : dv;
	const int r0 = dv > 0 ? ilo : ilo + 1, r1 = dv > 0 ? ihi - 1 : ihi;
	const int c0 = dv > 0 ? W - dv : 0;
	const size_t npo = (size_t)p->oH * p->oW;
	if (dv == 0 || r1 <= r0)
		return;
	if (!col) {
		for (int m = 0; m < M; m++)
			for (int i = r0; i < r1; i++) {
				float *yp = yn + (size_t)m * npo + (size_t)i * W + c0; /* wrapped, [ad] */
				/* its saved copy, [ad] */
				float *sp = save + ((size_t)m * (r1 - r0) + (i - r0)) * ad;
				if (restore)
					memcpy(yp, sp, (size_t)ad * sizeof *yp);
				else
					memcpy(sp, yp, (size_t)ad * sizeof *yp);
			}
	} else {
		for (int i = r0; i < r1; i++) {
			float *yp = yn + ((size_t)i * W + c0) * M; /* [ad][M] */
			float *sp = save + (size_t)(i - r0) * ad * M; /* [ad][M] */
			if (restore)
				memcpy(yp, sp, (size_t)ad * M * sizeof *yp);
			else
				memcpy(sp, yp, (size_t)ad * M * sizeof *yp);
		}
	}
}

RT_FN void rt_conv_kn2_aa(const struct rt_conv2d *p, int variant,
                          const float *x, /* [N][C][H][W] or [N][H][W][C] (see above) */
                          const float *w, /* packed by prep_kn2_pack */
                          const float *b, /* [M] or NULL */
                          float *y,       /* out: row [N][M][oH][oW], col [N][oH][oW][M] */
                          float *ws)      /* prep_kn2_aa_ws floats */
{
	const int isa = p->isa, col = variant & 1, hwc_in = col ^ ((variant >> 1) & 1);
	const int C = p->C, M = p->M, H = p->H, W = p->W, oH = p->oH, oW = p->oW;
	const int kW = p->kW, kk = p->kH * kW, mr = RT_SGEMM_MR(isa), nc = RT_SGEMM_NC(isa);
	const size_t hw = (size_t)H * W, npo = (size_t)oH * oW;
	const size_t xc = hwc_in ? 1 : hw, xq = hwc_in ? (size_t)C : 1; /* x(c, q) = x[c*xc + q*xq] */
	const size_t wblock = (size_t)(M + mr - 1) / mr * mr * C;        /* one packed W_t */
	/* output rows per chunk: about one sgemm NC block of pixels, balanced */
	const int most = oW >= nc ? 1 : nc / oW, nchunks = (oH + most - 1) / most;
	const int chunk = (oH + nchunks - 1) / nchunks;
	float *save = ws; /* [M][(kW-1)*H] or [(kW-1)*H][M]: the wrapped outputs */
	float *sg = ws + ((size_t)M * (kW - 1) * H + 15) / 16 * 16; /* sgemm workspace */

	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * C * hw; /* image n, input layout */
		float *yn = y + (size_t)n * M * npo; /* image n, output layout */
		/* all taps for a chunk of output rows, so that chunk of Y stays in cache */
		for (int r0 = 0; r0 < oH; r0 += chunk) {
			const int r1 = r0 + chunk < oH ? r0 + chunk : oH;
			const size_t k0 = (size_t)r0 * oW, k1 = (size_t)r1 * oW; /* pixels of the chunk */
			for (int m = 0; m < M; m++)
				for (size_t k = k0; k < k1; k++)
					yn[col ? k * M + m : (size_t)m * npo + k] = b ? b[m] : 0.0f;
			for (int t = 0; t < kk; t++) {
				const int du = t / kW - p->padT, dv = t % kW - p->padL;
				const int ilo = du < 0 && -du > r0 ? -du : r0;
				const int ihi = H - du < r1 ? H - du : r1;
				const int jlo = dv < 0 ? -dv : 0, jhi = W - dv < oW ? W - dv : oW;
				/* W_t */
				const float *wt = !col ? w + (size_t)t * wblock : w + (size_t)t * M;
				if (ihi <= ilo || jhi <= jlo)
					continue; /* the tap only reads padding here */
				if (oW == W) {
					const int q0 = ilo * W + jlo, q1 = ihi * W - (dv > 0 ? dv : 0);
					const float *xt = xn + (size_t)(q0 + du * W + dv) * xq; /* pixel of q0 */
					rt_kn2_aa_wrap_(p, col, dv, ilo, ihi, yn, save, 0);
					if (!col)
						rt_sgemm(isa, M, q1 - q0, C, NULL, 0, 0, wt, xt, xc, xq, yn + q0, npo, 1,
						         sg);
					else
						rt_sgemm(isa, q1 - q0, M, C, xt, xq, xc, NULL, wt, (size_t)kk * M, 1,
						         yn + (size_t)q0 * M, (size_t)M, 1, sg);
					rt_kn2_aa_wrap_(p, col, dv, ilo, ihi, yn, save, 1);
				} else {
					for (int i = ilo; i < ihi; i++) {
						/* pixel of (i, jlo) */
						const float *xt = xn + ((size_t)(i + du) * W + jlo + dv) * xq;
						if (!col)
							rt_sgemm(isa, M, jhi - jlo, C, NULL, 0, 0, wt, xt, xc, xq,
							         yn + (size_t)i * oW + jlo, npo, 1, sg);
						else
							rt_sgemm(isa, jhi - jlo, M, C, xt, xq, xc, NULL, wt, (size_t)kk * M,
							         1, yn + ((size_t)i * oW + jlo) * M, (size_t)M, 1, sg);
					}
				}
			}
			if (col)
				rt_kn2_aa_act_(p, yn + k0 * M, (k1 - k0) * M);
			else
				for (int m = 0; m < M; m++)
					rt_kn2_aa_act_(p, yn + (size_t)m * npo + k0, k1 - k0);
		}
	}
}
