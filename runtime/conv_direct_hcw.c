/* conv_direct_hcw.c - direct convolution reading HCW input (each input row
 * holds all channels, one W-long run each), by loop orders that build one
 * output row at a time (Anderson & Gregg's "direct" family).
 *
 * Textbook form (ONNX Conv, a cross-correlation), over one image:
 *   y[m][i][j] = b[m] + sum over u, c, v of
 *                w[m][c][u][v] * x[i*sH - padT + u*dH][c0(m) + c][j*sW - padL + v*dW]
 * where c0(m) is the first input channel of m's group. For an output row i
 * only kH input rows are read, each [C][W] and contiguous, so the working set
 * of a row is kH * C * W floats whatever the image height.
 *   variant 0  i-m-u-c-v-j  conv_direct_imucvj_hcw: HCW -> HCW; an output row
 *              of one channel accumulates (channel, tap) shifted input runs
 *   variant 1  i-u-c-m-v-j  conv_direct_iucmvj_hcw: HCW -> HCW; each input run
 *              is scattered into every output channel of its group before the
 *              next is read
 *   variant 2  i-m-u-c-v-j  conv_direct_imucvj_hcw_chw: as 0, writing CHW
 * The innermost loop is an axpy along an output row, contiguous for stride 1;
 * each tap's valid columns are computed once. Any kernel, stride, padding,
 * dilation and group; raw [M][C/group][kH][kW] weights; no workspace. */
#include "runtime/rt_types.h"

/* yr[j] += sum over v of wr[v] * xr[j*sW - padL + v*dW], valid j only. */
static inline void rt_dhcw_row_(const struct rt_conv2d *p,
                                const float *restrict wr, /* [kW]: one kernel row */
                                const float *restrict xr, /* [W]: one input run */
                                float *restrict yr)       /* in/out: [oW] */
{
	for (int v = 0; v < p->kW; v++) {
		const int off = v * p->dW - p->padL;
		const float wv = wr[v];
		int j0, j1;
		rt_tap_range(off, p->sW, p->W, p->oW, &j0, &j1);
		if (j1 <= j0)
			continue;
		const float *restrict xs = xr + j0 * p->sW + off;
		if (p->sW == 1) {
			for (int j = j0; j < j1; j++)
				yr[j] += wv * xs[j - j0];
		} else {
			for (int j = j0; j < j1; j++)
				yr[j] += wv * xs[(size_t)(j - j0) * p->sW];
		}
	}
}

static inline void rt_dhcw_fill_(float *yr, int n, float v)
{
	for (int j = 0; j < n; j++)
		yr[j] = v;
}

static inline void rt_dhcw_act_(const struct rt_conv2d *p, float *yr, size_t n)
{
	for (size_t j = 0; j < n; j++)
		yr[j] = rt_act_apply(p->act, p->alpha, p->beta, yr[j]);
}

RT_FN void rt_conv_direct_hcw(const struct rt_conv2d *p, int variant,
                              const float *x, /* [N][H][C][W] */
                              const float *w, /* [M][C/group][kH][kW] */
                              const float *b, /* [M] or NULL */
                              float *y,       /* out: [N][oH][M][oW] (variants 0, 1) or
                                                 [N][M][oH][oW] (2) */
                              float *ws)      /* unused */
{
	const int cg = p->C / p->group, mg = p->M / p->group, taps = p->kH * p->kW;
	const size_t xrow = (size_t)p->C * p->W;                  /* floats per input row */
	const size_t xi = (size_t)p->H * xrow, yi = (size_t)p->oH * p->M * p->oW;
	(void)ws;
	for (int n = 0; n < p->N; n++) {
		const float *xn = x + n * xi;
		float *yn = y + n * yi;
		for (int i = 0; i < p->oH; i++) {
			int u0, u1;
			rt_tap_range(i * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);
			if (variant == 1) { /* i-u-c-m-v-j */
				float *yrows = yn + (size_t)i * p->M * p->oW; /* [M][oW] */
				for (int m = 0; m < p->M; m++)
					rt_dhcw_fill_(yrows + (size_t)m * p->oW, p->oW, b ? b[m] : 0.0f);
				for (int u = u0; u < u1; u++) {
					const float *xr = xn + (size_t)(i * p->sH - p->padT + u * p->dH) * xrow;
					for (int c = 0; c < p->C; c++) {
						const int g = c / cg;
						for (int m = g * mg; m < (g + 1) * mg; m++)
							rt_dhcw_row_(p, w + ((size_t)m * cg + c % cg) * taps + u * p->kW,
							             xr + (size_t)c * p->W, yrows + (size_t)m * p->oW);
					}
				}
				rt_dhcw_act_(p, yrows, (size_t)p->M * p->oW);
				continue;
			}
			for (int m = 0; m < p->M; m++) { /* i-m-u-c-v-j */
				float *yr = variant == 0 ? yn + ((size_t)i * p->M + m) * p->oW
				                         : yn + ((size_t)m * p->oH + i) * p->oW; /* [oW] */
				const int c0 = m / mg * cg;
				rt_dhcw_fill_(yr, p->oW, b ? b[m] : 0.0f);
				for (int u = u0; u < u1; u++) {
					const float *xr = xn + (size_t)(i * p->sH - p->padT + u * p->dH) * xrow;
					for (int c = 0; c < cg; c++)
						rt_dhcw_row_(p, w + ((size_t)m * cg + c) * taps + u * p->kW,
						             xr + (size_t)(c0 + c) * p->W, yr);
				}
				rt_dhcw_act_(p, yr, (size_t)p->oW);
			}
		}
	}
}
