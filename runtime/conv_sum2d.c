/* conv_sum2d.c - the baseline primitive of Anderson & Gregg: a convolution
 * as the sum, over input channels, of single-channel 2-D convolutions.
 *   for each image n, output channel m:  y[m] = b[m]
 *     for each input channel c of m's group:  y[m] += corr2d(x[c], w[m, c])
 * then the epilogue. Same arithmetic as conv_ref.c, different loop order (the
 * 2-D correlation is the inner kernel); keep it obviously correct: it is the
 * reference every other primitive is timed against. Any kernel, stride,
 * padding, dilation and group. No workspace; raw [M, C/group, kH, kW] weights. */
#include "runtime/rt_types.h"

RT_FN void rt_conv_sum2d_chw(const struct rt_conv2d *p, int variant,
                             const float *x, /* [N][C][H][W] */
                             const float *w, /* [M, C/group, kH, kW] */
                             const float *b, /* [M] or NULL */
                             float *y,       /* out: [N][M][oH][oW] */
                             float *ws)      /* unused */
{
	const int cg = p->C / p->group, mg = p->M / p->group;
	const size_t plane = (size_t)p->oH * p->oW;
	(void)variant;
	(void)ws;
	for (int n = 0; n < p->N; n++) {
		for (int m = 0; m < p->M; m++) {
			float *ym = y + ((size_t)n * p->M + m) * plane; /* [oH][oW] */
			const int c0 = m / mg * cg;
			for (size_t k = 0; k < plane; k++)
				ym[k] = b ? b[m] : 0.0f;
			for (int c = 0; c < cg; c++) {
				/* [H][W] input plane and [kH][kW] kernel of this channel pair */
				const float *xc = x + ((size_t)n * p->C + c0 + c) * p->H * p->W;
				const float *wc = w + ((size_t)m * cg + c) * p->kH * p->kW;
				for (int i = 0; i < p->oH; i++) {
					for (int j = 0; j < p->oW; j++) {
						float s = 0.0f;
						for (int u = 0; u < p->kH; u++) {
							const int ih = i * p->sH - p->padT + u * p->dH;
							if (ih < 0 || ih >= p->H)
								continue;
							for (int v = 0; v < p->kW; v++) {
								const int iw = j * p->sW - p->padL + v * p->dW;
								if (iw >= 0 && iw < p->W)
									s += xc[(size_t)ih * p->W + iw] * wc[u * p->kW + v];
							}
						}
						ym[(size_t)i * p->oW + j] += s;
					}
				}
			}
			for (size_t k = 0; k < plane; k++)
				ym[k] = rt_act_apply(p->act, p->alpha, p->beta, ym[k]);
		}
	}
}
