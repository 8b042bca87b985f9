/* conv_direct_hwc.c - direct convolution reading channels-last (HWC) input,
 * by loop orders whose innermost loop is a dot product over contiguous
 * channels (Anderson & Gregg's "direct" family).
 *
 * Textbook form (ONNX Conv, a cross-correlation), over one image:
 *   y[m][i][j] = b[m] + sum over u, v, c of
 *                w[m][u][v][c] * x[i*sH - padT + u*dH][j*sW - padL + v*dW][c0(m) + c]
 * with the weights re-laid out at compile time as [M][kH][kW][C/group]
 * (prep_direct_mkkc_pack) so that a kernel pixel's channels are contiguous
 * like an input pixel's; c0(m) is the first input channel of m's group.
 *   variant 0  i-j-m-u-v-c  conv_direct_ijmuvc_hwc: HWC -> HWC; one output
 *              pixel at a time, all its channels, each a sum of kH x kW dot
 *              products of length C/group
 *   variant 1  m-i-j-u-v-c  conv_direct_mijuvc_hwc_chw: HWC -> CHW; one output
 *              plane at a time (its weights stay in cache)
 * Any kernel, stride, padding, dilation and group; no workspace. */
#include "runtime/rt_types.h"

/* One output value before the epilogue: bias + the sum over the valid taps. */
static inline float rt_dhwc_dot_(const struct rt_conv2d *p, int cg, float bias,
                                 const float *restrict x, /* [H][W][C] at channel c0(m) */
                                 const float *restrict w, /* [kH][kW][cg] of output channel m */
                                 int i, int j)
{
	int u0, u1, v0, v1;
	rt_tap_range(i * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);
	rt_tap_range(j * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);
	float s = bias;
	for (int u = u0; u < u1; u++) {
		const int ih = i * p->sH - p->padT + u * p->dH;
		for (int v = v0; v < v1; v++) {
			const int iw = j * p->sW - p->padL + v * p->dW;
			const float *restrict xp = x + ((size_t)ih * p->W + iw) * p->C;
			const float *restrict wp = w + ((size_t)u * p->kW + v) * cg;
			for (int c = 0; c < cg; c++)
				s += wp[c] * xp[c];
		}
	}
	return s;
}

RT_FN void rt_conv_direct_hwc(const struct rt_conv2d *p, int variant,
                              const float *x, /* [N][H][W][C] */
                              const float *w, /* [M][kH][kW][C/group] (packed) */
                              const float *b, /* [M] or NULL */
                              float *y,       /* out: [N][oH][oW][M] (variant 0) or
                                                 [N][M][oH][oW] (1) */
                              float *ws)      /* unused */
{
	const int cg = p->C / p->group, mg = p->M / p->group;
	const size_t wm = (size_t)p->kH * p->kW * cg; /* weights per output channel */
	const size_t xi = (size_t)p->H * p->W * p->C, yi = (size_t)p->oH * p->oW * p->M;
	(void)ws;
	for (int n = 0; n < p->N; n++) {
		const float *xn = x + n * xi;
		float *yn = y + n * yi;
		if (variant == 0) { /* i-j-m-u-v-c */
			for (int i = 0; i < p->oH; i++)
				for (int j = 0; j < p->oW; j++) {
					float *yp = yn + ((size_t)i * p->oW + j) * p->M; /* [M] */
					for (int m = 0; m < p->M; m++) {
						const float s = rt_dhwc_dot_(p, cg, b ? b[m] : 0.0f, xn + m / mg * cg,
						                             w + m * wm, i, j);
						yp[m] = rt_act_apply(p->act, p->alpha, p->beta, s);
					}
				}
		} else { /* m-i-j-u-v-c */
			for (int m = 0; m < p->M; m++) {
				float *yp = yn + (size_t)m * p->oH * p->oW; /* [oH][oW] */
				for (int i = 0; i < p->oH; i++)
					for (int j = 0; j < p->oW; j++) {
						const float s = rt_dhwc_dot_(p, cg, b ? b[m] : 0.0f, xn + m / mg * cg,
						                             w + m * wm, i, j);
						yp[(size_t)i * p->oW + j] = rt_act_apply(p->act, p->alpha, p->beta, s);
					}
			}
		}
	}
}
