/* conv3d.c - convolution over three spatial dims, the textbook reference.
 *
 * ONNX Conv (https://onnx.ai/onnx/operators/onnx__Conv.html) for 3-D
 * (volumetric) inputs, a cross-correlation:
 *   y[n, m, a, i, j] = act(b[m] + sum over c < C/group, t < kD, u < kH,
 *                      v < kW of x[n, g*C/group + c, a*sD - pD + t*dD,
 *                      i*sH - pH + u*dH, j*sW - pW + v*dW] * w[m, c, t, u, v])
 * with g = m / (M/group); input positions outside the input are the zero
 * padding. Sums accumulate in float in plain loop order. No primitive
 * selection happens for these layers (the primitive table is 1-D/2-D):
 * this kernel is what runs. */
#include "runtime/rt_types.h"

RT_FN void rt_conv3d_ref(const struct rt_window3d *p,
                         const float *x, /* [N, C, D, H, W] */
                         const float *w, /* [M, C/group, kD, kH, kW] */
                         const float *b, /* [M], or NULL */
                         float *y)       /* out: [N, M, oD, oH, oW] */
{
	const int cg = p->C / p->group, mg = p->M / p->group;
	const size_t iplane = (size_t)p->in[0] * p->in[1] * p->in[2];
	const size_t oplane = (size_t)p->out[0] * p->out[1] * p->out[2];
	const size_t ksize = (size_t)p->k[0] * p->k[1] * p->k[2];
	for (int n = 0; n < p->N; n++)
		for (int m = 0; m < p->M; m++) {
			const int g = m / mg;
			const float *wm = w + (size_t)m * cg * ksize;
			float *ym = y + ((size_t)n * p->M + m) * oplane;
			size_t o = 0;
			for (int a = 0; a < p->out[0]; a++)
				for (int i = 0; i < p->out[1]; i++)
					for (int j = 0; j < p->out[2]; j++, o++) {
						float sum = 0.0f;
						for (int c = 0; c < cg; c++) {
							const float *xc =
							        x + ((size_t)n * p->C + (size_t)g * cg + c) * iplane;
							const float *wc = wm + (size_t)c * ksize;
							for (int t = 0; t < p->k[0]; t++) {
								const int id = a * p->s[0] - p->pb[0] + t * p->d[0];
								if (id < 0 || id >= p->in[0])
									continue;
								for (int u = 0; u < p->k[1]; u++) {
									const int ih = i * p->s[1] - p->pb[1] + u * p->d[1];
									if (ih < 0 || ih >= p->in[1])
										continue;
									const float *xr =
									        xc + ((size_t)id * p->in[1] + ih) * p->in[2];
									const float *wr = wc + ((size_t)t * p->k[1] + u) * p->k[2];
									for (int v = 0; v < p->k[2]; v++) {
										const int iw = j * p->s[2] - p->pb[2] + v * p->d[2];
										if (iw >= 0 && iw < p->in[2])
											sum += xr[iw] * wr[v];
									}
								}
							}
						}
						if (b)
							sum += b[m];
						ym[o] = rt_act_apply(p->act, p->alpha, p->beta, sum);
					}
		}
}
