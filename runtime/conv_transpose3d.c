/* conv_transpose3d.c - ONNX ConvTranspose over one to three spatial dims
 * (https://onnx.ai/onnx/operators/onnx__ConvTranspose.html), reference
 * kernel; 2-D ConvTranspose runs on conv_transpose.c. Every input element
 * x[n, c, a, i, j] adds x * w[c, m', t, u, v] to
 *   y[n, g*M/group + m', a*sD - pD + t*dD, i*sH - pH + u*dH, j*sW - pW + v*dW]
 * for g = c / (C/group), where that position lies inside y (pads and
 * output_padding only shift or extend the window: canonicalisation turned
 * them into the leading pads pb and the output dims); y starts at the bias
 * (or 0). A 1-D operator runs with D = H = 1. */
#include "runtime/rt_types.h"

RT_FN void rt_conv_transpose3d_ref(const struct rt_window3d *p,
                                   const float *x, /* [N, C, D, H, W] */
                                   const float *w, /* [C, M/group, kD, kH, kW] */
                                   const float *b, /* [M], or NULL */
                                   float *y)       /* out: [N, M, oD, oH, oW] */
{
	const int cg = p->C / p->group, mg = p->M / p->group;
	const size_t iplane = (size_t)p->in[0] * p->in[1] * p->in[2];
	const size_t oplane = (size_t)p->out[0] * p->out[1] * p->out[2];
	const size_t ksize = (size_t)p->k[0] * p->k[1] * p->k[2];
	for (int n = 0; n < p->N; n++) {
		float *yn = y + (size_t)n * p->M * oplane;
		for (int m = 0; m < p->M; m++)
			for (size_t o = 0; o < oplane; o++)
				yn[m * oplane + o] = b ? b[m] : 0.0f;
		for (int c = 0; c < p->C; c++) {
			const int g = c / cg;
			const float *xc = x + ((size_t)n * p->C + c) * iplane;
			for (int m = 0; m < mg; m++) {
				const float *wk = w + ((size_t)c * mg + m) * ksize;
				float *ym = yn + (size_t)(g * mg + m) * oplane;
				size_t e = 0;
				for (int a = 0; a < p->in[0]; a++)
					for (int i = 0; i < p->in[1]; i++)
						for (int j = 0; j < p->in[2]; j++, e++) {
							const float xv = xc[e];
							for (int t = 0; t < p->k[0]; t++) {
								const int od = a * p->s[0] - p->pb[0] + t * p->d[0];
								if (od < 0 || od >= p->out[0])
									continue;
								for (int u = 0; u < p->k[1]; u++) {
									const int oh = i * p->s[1] - p->pb[1] + u * p->d[1];
									if (oh < 0 || oh >= p->out[1])
										continue;
									float *yr = ym + ((size_t)od * p->out[1] + oh) * p->out[2];
									const float *wr = wk + ((size_t)t * p->k[1] + u) * p->k[2];
									for (int v = 0; v < p->k[2]; v++) {
										const int ow = j * p->s[2] - p->pb[2] + v * p->d[2];
										if (ow >= 0 && ow < p->out[2])
											yr[ow] += xv * wr[v];
									}
								}
							}
						}
			}
		}
	}
}
