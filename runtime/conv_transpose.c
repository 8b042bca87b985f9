/* conv_transpose.c - ONNX ConvTranspose in 2-D
 * (https://onnx.ai/onnx/operators/onnx__ConvTranspose.html), reference
 * kernel: every input element x[n, c, i, j] adds x * w[c, m', u, v] to
 *   y[n, g * M/group + m', i * sH - padT + u * dH, j * sW - padL + v * dW]
 * for group g = c / (C/group), where that position lies inside y; y starts
 * at the bias (or 0). */
#include "runtime/rt_types.h"

RT_FN void rt_conv_transpose_ref(const struct rt_conv2d *p,
                                 const float *x, /* [N, C, H, W] */
                                 const float *w, /* [C, M/group, kH, kW] */
                                 const float *b, /* [M], or NULL */
                                 float *y)       /* out: [N, M, oH, oW] */
{
	const int Cg = p->C / p->group, Mg = p->M / p->group;
	const size_t oplane = (size_t)p->oH * p->oW;
	for (int n = 0; n < p->N; n++) {
		float *yn = y + (size_t)n * p->M * oplane;
		for (int m = 0; m < p->M; m++)
			for (size_t t = 0; t < oplane; t++)
				yn[m * oplane + t] = b ? b[m] : 0.0f;
		for (int c = 0; c < p->C; c++) {
			const int g = c / Cg;
			const float *xc = x + ((size_t)n * p->C + c) * p->H * p->W;
			for (int mg = 0; mg < Mg; mg++) {
				const float *wk = w + ((size_t)c * Mg + mg) * p->kH * p->kW;
				float *ym = yn + (size_t)(g * Mg + mg) * oplane;
				for (int i = 0; i < p->H; i++)
					for (int u = 0; u < p->kH; u++) {
						const int oh = i * p->sH - p->padT + u * p->dH;
						if (oh < 0 || oh >= p->oH)
							continue;
						for (int j = 0; j < p->W; j++)
							for (int v = 0; v < p->kW; v++) {
								const int ow = j * p->sW - p->padL + v * p->dW;
								if (ow >= 0 && ow < p->oW)
									ym[(size_t)oh * p->oW + ow] +=
									        xc[i * p->W + j] * wk[u * p->kW + v];
							}
					}
			}
		}
	}
}
