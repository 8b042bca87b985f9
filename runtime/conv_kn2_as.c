/* conv_kn2_as.c - kn2row-as and kn2col-as: the accumulating kn2 (Anderson,
 * Vasudevan, Keane & Gregg, arXiv:1709.03395; research brief a.2.4).
 *
 * Same identity as conv_kn2_stack.c (a kH x kW convolution is the sum of
 * kH*kW shifted 1x1 convolutions), but one tap at a time: the tap's GEMM
 * writes one M x H x W buffer, which is then shifted and added into Y. The
 * workspace is M*H*W floats instead of kH*kW*M*H*W. Only the input rows a
 * tap can reach inside the output are multiplied, and taps that fall
 * entirely into the padding are skipped.
 *
 * Variants (bits of `variant`, see fam_kn2.def):
 *   bit 0 = 0  row: buf [M][H*W] = W_t · X (W_t packed at compile time),
 *              output CHW; bit 1: HWC input (read transposed) instead of CHW.
 *   bit 0 = 1  col: buf [H*W][M] = X · W_tᵀ (W_tᵀ = M columns of the [C][kH*kW*M]
 *              weight matrix), output HWC; bit 1: CHW input instead of HWC.
 * Y starts as the bias; the activation runs once all taps are added. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

/* y[k] = act(y[k]) for k < n */
static inline void rt_kn2_as_act_(const struct rt_conv2d *p, float *y, size_t n)
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

RT_FN void rt_conv_kn2_as(const struct rt_conv2d *p, int variant,
                          const float *x, /* [N][C][H][W] or [N][H][W][C] (see above) */
                          const float *w, /* packed by prep_kn2_pack */
                          const float *b, /* [M] or NULL */
                          float *y,       /* out: row [N][M][oH][oW], col [N][oH][oW][M] */
                          float *ws)      /* prep_kn2_as_ws floats */
{
	const int isa = p->isa, col = variant & 1, hwc_in = col ^ ((variant >> 1) & 1);
	const int C = p->C, M = p->M, H = p->H, W = p->W, oH = p->oH, oW = p->oW;
	const int kW = p->kW, kk = p->kH * kW, mr = RT_SGEMM_MR(isa);
	const size_t hw = (size_t)H * W, npo = (size_t)oH * oW;
	const size_t xc = hwc_in ? 1 : hw, xq = hwc_in ? (size_t)C : 1; /* x(c, q) = x[c*xc + q*xq] */
	const size_t wblock = (size_t)(M + mr - 1) / mr * mr * C;        /* one packed W_t */
	float *buf = ws; /* row: [M][rows*W], col: [rows*W][M] */
	float *sg = ws + ((size_t)M * hw + 15) / 16 * 16; /* sgemm workspace */

	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * C * hw; /* image n, input layout */
		float *yn = y + (size_t)n * M * npo; /* image n, output layout */
		if (!col) {
			for (int m = 0; m < M; m++)
				for (size_t k = 0; k < npo; k++)
					yn[(size_t)m * npo + k] = b ? b[m] : 0.0f;
		} else {
			for (size_t k = 0; k < npo; k++)
				for (int m = 0; m < M; m++)
					yn[k * M + m] = b ? b[m] : 0.0f;
		}
		for (int t = 0; t < kk; t++) {
			const int du = t / kW - p->padT, dv = t % kW - p->padL;
			const int ilo = du < 0 ? -du : 0, ihi = H - du < oH ? H - du : oH;
			const int jlo = dv < 0 ? -dv : 0, jhi = W - dv < oW ? W - dv : oW;
			if (ihi <= ilo || jhi <= jlo)
				continue; /* the tap only ever reads padding */
			/* input rows ilo+du .. ihi+du-1 are the ones this tap adds */
			const int nq = (ihi - ilo) * W;
			const float *xt = xn + (size_t)(ilo + du) * W * xq; /* input row ilo+du */
			if (!col) {
				rt_sgemm(isa, M, nq, C, NULL, 0, 0, w + (size_t)t * wblock, xt, xc, xq, buf,
				         (size_t)nq, 0, sg);
				for (int m = 0; m < M; m++)
					for (int i = ilo; i < ihi; i++) {
						/* output row i of channel m, [oW] */
						float *yr = yn + (size_t)m * npo + (size_t)i * oW;
						/* the tap's result for input row i+du, [W] */
						const float *br = buf + (size_t)m * nq + (size_t)(i - ilo) * W;
						for (int j = jlo; j < jhi; j++)
							yr[j] += br[j + dv];
					}
			} else {
				rt_sgemm(isa, nq, M, C, xt, xq, xc, NULL, w + (size_t)t * M, (size_t)kk * M, 1,
				         buf, (size_t)M, 0, sg);
				for (int i = ilo; i < ihi; i++)
					for (int j = jlo; j < jhi; j++) {
						float *yp = yn + ((size_t)i * oW + j) * M; /* [M] */
						/* tap result at input pixel (i+du, j+dv), [M] */
						const float *bp = buf + ((size_t)(i - ilo) * W + j + dv) * M;
						for (int m = 0; m < M; m++)
							yp[m] += bp[m];
					}
			}
		}
		rt_kn2_as_act_(p, yn, (size_t)M * npo);
	}
}
