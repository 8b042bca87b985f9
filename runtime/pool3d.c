/* pool3d.c - max and average pooling over three spatial dims, ONNX MaxPool
 * and AveragePool (https://onnx.ai/onnx/operators/onnx__MaxPool.html,
 * onnx__AveragePool.html) for 3-D (volumetric) inputs:
 *   y[n, c, a, i, j] = max, or sum / count, over the window positions
 *                      (a*sD - pD + t*dD, i*sH - pH + u*dH, j*sW - pW + v*dW),
 *                      t < kD, u < kH, v < kW, that lie inside the input.
 * As in maxpool.c and avgpool.c: positions outside the input are skipped by
 * max and add zero to the sum; with count_include_pad the divisor counts the
 * positions inside the padded input (pads pb and pe), otherwise only those
 * inside the input; the overhang of the last window under ceil_mode is never
 * counted. A window with no counted position gives -inf (max) or 0. */
#include "runtime/rt_types.h"

RT_FN void rt_pool3d(const struct rt_window3d *p,
                     const float *x, /* [N, C, D, H, W] */
                     float *y)       /* out: [N, C, oD, oH, oW] */
{
	const size_t iplane = (size_t)p->in[0] * p->in[1] * p->in[2];
	const size_t oplane = (size_t)p->out[0] * p->out[1] * p->out[2];
	for (size_t nc = 0; nc < (size_t)p->N * p->C; nc++) {
		const float *xp = x + nc * iplane;
		float *yp = y + nc * oplane;
		size_t o = 0;
		for (int a = 0; a < p->out[0]; a++)
			for (int i = 0; i < p->out[1]; i++)
				for (int j = 0; j < p->out[2]; j++, o++) {
					float acc = p->max ? -INFINITY : 0.0f;
					int count = 0;
					for (int t = 0; t < p->k[0]; t++) {
						const int id = a * p->s[0] - p->pb[0] + t * p->d[0];
						const int d_in = id >= 0 && id < p->in[0];
						const int d_pad = id >= -p->pb[0] && id < p->in[0] + p->pe[0];
						for (int u = 0; u < p->k[1]; u++) {
							const int ih = i * p->s[1] - p->pb[1] + u * p->d[1];
							const int h_in = ih >= 0 && ih < p->in[1];
							const int h_pad = ih >= -p->pb[1] && ih < p->in[1] + p->pe[1];
							for (int v = 0; v < p->k[2]; v++) {
								const int iw = j * p->s[2] - p->pb[2] + v * p->d[2];
								const int w_in = iw >= 0 && iw < p->in[2];
								const int w_pad =
								        iw >= -p->pb[2] && iw < p->in[2] + p->pe[2];
								if (d_in && h_in && w_in) {
									const float xv =
									        xp[((size_t)id * p->in[1] + ih) * p->in[2] + iw];
									if (p->max)
										acc = xv > acc ? xv : acc;
									else
										acc += xv;
									count++;
								} else if (p->count_include_pad && d_pad && h_pad && w_pad) {
									count++;
								}
							}
						}
					}
					if (!p->max)
						acc = count > 0 ? acc / (float)count : 0.0f;
					yp[o] = acc;
				}
	}
}
