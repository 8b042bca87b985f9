/* conv_ref.c - 2-D convolution, the textbook reference.
 *
 * Computes ONNX Conv (https://onnx.ai/onnx/operators/onnx__Conv.html), which
 * is a cross-correlation:
 *   y[n, m, i, j] = act(b[m] + sum over c < C/group, u < kH, v < kW of
 *                   x[n, g*C/group + c, i*sH - padT + u*dH, j*sW - padL + v*dW]
 *                   * w[m, c, u, v])
 * with g = m / (M/group) the group of output channel m; input positions
 * outside [0, H) x [0, W) are the zero padding. Sums accumulate in float in
 * plain loop order. Any stride, pad, dilation and group (depthwise included)
 * is handled; this is the oracle the fast primitives are tested against. */
#include "runtime/rt_types.h"

RT_FN void rt_conv2d_ref(const struct rt_conv2d *p,
                         const float *x, /* [N, C, H, W] */
                         const float *w, /* [M, C/group, kH, kW] */
                         const float *b, /* [M], or NULL: no bias */
                         float *y)       /* out: [N, M, oH, oW] */
{
	const int cg = p->C / p->group; /* input channels per group */
	const int mg = p->M / p->group; /* output channels per group */

	for (int n = 0; n < p->N; n++) {
		for (int m = 0; m < p->M; m++) {
			const int g = m / mg;
			const float *wm = w + (size_t)m * cg * p->kH * p->kW; /* [C/group, kH, kW] */
			float *ym = y + ((size_t)n * p->M + m) * p->oH * p->oW; /* [oH, oW] */
			for (int i = 0; i < p->oH; i++) {
				for (int j = 0; j < p->oW; j++) {
					float sum = 0.0f;
					for (int c = 0; c < cg; c++) {
						/* [H, W] plane of input channel g*cg + c */
						const float *xc = x + ((size_t)n * p->C + (size_t)g * cg + c) * p->H * p->W;
						const float *wc = wm + (size_t)c * p->kH * p->kW; /* [kH, kW] */
						for (int u = 0; u < p->kH; u++) {
							const int ih = i * p->sH - p->padT + u * p->dH;
							if (ih < 0 || ih >= p->H)
								continue;
							for (int v = 0; v < p->kW; v++) {
								const int iw = j * p->sW - p->padL + v * p->dW;
								if (iw < 0 || iw >= p->W)
									continue;
								sum += xc[(size_t)ih * p->W + iw] * wc[u * p->kW + v];
							}
						}
					}
					if (b)
						sum += b[m];
					ym[(size_t)i * p->oW + j] = rt_act_apply(p->act, p->alpha, p->beta, sum);
				}
			}
		}
	}
}
