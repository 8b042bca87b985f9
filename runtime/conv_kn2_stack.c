/* conv_kn2_stack.c - kn2row and kn2col (Vasudevan, Anderson & Gregg, ASAP
 * 2017; research brief a.2.4): a kH x kW convolution as kH*kW 1x1
 * convolutions, all computed by ONE GEMM with the taps stacked, then
 * shifted and added.
 *
 * Identity: with stride and dilation 1,
 *   y[m][i][j] = b[m] + sum over taps t = (u, v) of T_t[m][i + u - padT][j + v - padL]
 *   T_t = W_t [M][C] · X [C][H*W],   W_t(m, c) = w[m][c][u][v],
 * where T_t is read as 0 outside the H x W grid (that is the padding). No
 * input is replicated; the price is the kH*kW partial maps in the workspace.
 *
 * Variants (bits of `variant`, see fam_kn2.def):
 *   bit 0 = 0  kn2row: T [kH*kW][Mp][H*W] = Wstack [kH*kW*Mp][C] · X, weights
 *              packed at compile time (Mp = M rounded up to MR, see
 *              prep_kn2.c), output CHW; bit 1: the input is HWC (X read
 *              transposed as operand B) instead of CHW.
 *   bit 0 = 1  kn2col: T [H*W][kH*kW*M] = X [H*W][C] · Wc [C][kH*kW*M],
 *              output HWC; bit 1: the input is CHW (read transposed as
 *              operand A) instead of HWC.
 * Shift-add: CHW output plane by plane, so the plane stays in cache across
 * the taps; HWC output pixel by pixel (kH*kW contiguous runs of M floats).
 * Any padding: the shifted ranges are clipped to the input grid. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

/* y[k] = act(y[k]) for k < n */
static inline void rt_kn2_stack_act_(const struct rt_conv2d *p, float *y, size_t n)
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

RT_FN void rt_conv_kn2_stack(const struct rt_conv2d *p, int variant,
                             const float *x, /* [N][C][H][W] or [N][H][W][C] (see above) */
                             const float *w, /* packed by prep_kn2_pack */
                             const float *b, /* [M] or NULL */
                             float *y,       /* out: kn2row [N][M][oH][oW], kn2col [N][oH][oW][M] */
                             float *ws)      /* prep_kn2_stack_ws floats */
{
	const int isa = p->isa, col = variant & 1, hwc_in = col ^ ((variant >> 1) & 1);
	const int C = p->C, M = p->M, H = p->H, W = p->W, oH = p->oH, oW = p->oW;
	const int kW = p->kW, kk = p->kH * kW;
	const size_t hw = (size_t)H * W, npo = (size_t)oH * oW;
	const size_t xc = hwc_in ? 1 : hw, xq = hwc_in ? (size_t)C : 1; /* x(c, q) = x[c*xc + q*xq] */

	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * C * hw; /* image n, input layout */
		float *yn = y + (size_t)n * M * npo; /* image n, output layout */
		if (!col) {
			const int mr = RT_SGEMM_MR(isa), mp = (M + mr - 1) / mr * mr;
			float *T = ws; /* [kk][mp][hw] */
			/* sgemm workspace */
			float *sg = ws + ((size_t)kk * mp * hw + 15) / 16 * 16;
			rt_sgemm(isa, kk * mp, (int)hw, C, NULL, 0, 0, w, xn, xc, xq, T, hw, 0, sg);
			for (int m = 0; m < M; m++) {
				float *ym = yn + (size_t)m * npo; /* [oH][oW] */
				const float bm = b ? b[m] : 0.0f;
				for (size_t k = 0; k < npo; k++)
					ym[k] = bm;
				for (int t = 0; t < kk; t++) {
					const int du = t / kW - p->padT, dv = t % kW - p->padL;
					const int ilo = du < 0 ? -du : 0, ihi = H - du < oH ? H - du : oH;
					const int jlo = dv < 0 ? -dv : 0, jhi = W - dv < oW ? W - dv : oW;
					const float *tm = T + ((size_t)t * mp + m) * hw; /* [H][W] */
					for (int i = ilo; i < ihi; i++) {
						float *yr = ym + (size_t)i * oW; /* [oW] */
						const float *tr = tm + (size_t)(i + du) * W; /* input row i+du */
						for (int j = jlo; j < jhi; j++)
							yr[j] += tr[j + dv];
					}
				}
				rt_kn2_stack_act_(p, ym, npo);
			}
		} else {
			const size_t ld = (size_t)kk * M;
			float *T = ws; /* [hw][kk][M] */
			float *sg = ws + (hw * ld + 15) / 16 * 16; /* sgemm workspace */
			rt_sgemm(isa, (int)hw, kk * M, C, xn, xq, xc, NULL, w, ld, 1, T, ld, 0, sg);
			for (int i = 0; i < oH; i++)
				for (int j = 0; j < oW; j++) {
					float *yp = yn + ((size_t)i * oW + j) * M; /* [M] */
					for (int m = 0; m < M; m++)
						yp[m] = b ? b[m] : 0.0f;
					for (int t = 0; t < kk; t++) {
						const int ih = i + t / kW - p->padT, iw = j + t % kW - p->padL;
						if (ih < 0 || ih >= H || iw < 0 || iw >= W)
							continue;
						/* T of tap t at input pixel (ih, iw), [M] */
						const float *tp = T + ((size_t)ih * W + iw) * ld + (size_t)t * M;
						for (int m = 0; m < M; m++)
							yp[m] += tp[m];
					}
					rt_kn2_stack_act_(p, yp, (size_t)M);
				}
		}
	}
}
