/* conv_direct_chw.c - direct convolution on CHW by three orders of the
 * six-deep loop nest (Anderson & Gregg's "direct" family).
 *
 * Textbook form (ONNX Conv, a cross-correlation), over one image:
 *   for m, i, j:  y[m][i][j] = b[m] + sum over c, u, v of
 *                 w[m][c][u][v] * x[c0(m) + c][i*sH - padT + u*dH][j*sW - padL + v*dW]
 * where c0(m) is the first input channel of m's group. The rows differ only
 * in the order of the loops, hence in what stays in registers or cache:
 *   variant 0  m-i-j-c-u-v  conv_direct_mijcuv_chw: one output at a time, its
 *              whole sum in a register ("gather"); inner loop over a kernel row
 *   variant 1  c-m-u-v-i-j  conv_direct_cmuvij_chw: each input channel
 *              "scatters" into every output plane of its group, one weight at
 *              a time; the output stays in memory as a running sum
 *   variant 2  m-c-u-v-i-j  conv_direct_mcuvij_chw: one output plane at a
 *              time accumulates every (channel, tap) as a shifted, scaled copy
 *              of an input plane (the plane stays in cache)
 * In variants 1 and 2 the innermost loop is an axpy along an output row
 * (contiguous for stride 1, so compilers vectorise it); the tap's valid rows
 * and columns are computed once, so no bounds test runs inside it. Any
 * kernel, stride, padding, dilation and group; raw [M][C/group][kH][kW]
 * weights; no workspace. */
#include "runtime/rt_types.h"

/* yp[i][j] += wv * xp[i*sH + ioff][j*sW + joff] over the valid rows and
 * columns of one tap (ioff = u*dH - padT, joff = v*dW - padL). */
static inline void rt_dchw_axpy_(const struct rt_conv2d *p, float wv,
                                 const float *restrict xp, /* input plane [H][W] */
                                 float *restrict yp,       /* in/out: output plane [oH][oW] */
                                 int ioff, int joff)
{
	int i0, i1, j0, j1;
	rt_tap_range(ioff, p->sH, p->H, p->oH, &i0, &i1);
	rt_tap_range(joff, p->sW, p->W, p->oW, &j0, &j1);
	if (j1 <= j0)
		return;
	for (int i = i0; i < i1; i++) {
		const float *restrict xr = xp + (size_t)(i * p->sH + ioff) * p->W + (j0 * p->sW + joff);
		float *restrict yr = yp + (size_t)i * p->oW + j0;
		const int n = j1 - j0;
		if (p->sW == 1) {
			for (int j = 0; j < n; j++)
				yr[j] += wv * xr[j];
		} else {
			for (int j = 0; j < n; j++)
				yr[j] += wv * xr[(size_t)j * p->sW];
		}
	}
}

RT_FN void rt_conv_direct_chw(const struct rt_conv2d *p, int variant,
                              const float *x, /* [N][C][H][W] */
                              const float *w, /* [M][C/group][kH][kW] */
                              const float *b, /* [M] or NULL */
                              float *y,       /* out: [N][M][oH][oW] */
                              float *ws)      /* unused */
{
	const int cg = p->C / p->group, mg = p->M / p->group, taps = p->kH * p->kW;
	const size_t plane = (size_t)p->oH * p->oW, iplane = (size_t)p->H * p->W;
	(void)ws;
	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * p->C * iplane; /* [C][H][W] */
		float *yn = y + (size_t)n * p->M * plane;        /* [M][oH][oW] */
		if (variant == 0) { /* m-i-j-c-u-v */
			for (int m = 0; m < p->M; m++) {
				const float *xg = xn + (size_t)(m / mg * cg) * iplane;
				const float *wm = w + (size_t)m * cg * taps; /* [cg][kH][kW] */
				for (int i = 0; i < p->oH; i++) {
					int u0, u1;
					rt_tap_range(i * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);
					for (int j = 0; j < p->oW; j++) {
						int v0, v1;
						rt_tap_range(j * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);
						float s = b ? b[m] : 0.0f;
						for (int c = 0; c < cg && v0 < v1; c++) {
							for (int u = u0; u < u1; u++) {
								const float *xr = xg + (size_t)c * iplane +
								                  (size_t)(i * p->sH - p->padT + u * p->dH) * p->W +
								                  (j * p->sW - p->padL + v0 * p->dW);
								const float *wr = wm + ((size_t)c * p->kH + u) * p->kW;
								for (int v = v0; v < v1; v++)
									s += wr[v] * xr[(v - v0) * p->dW];
							}
						}
						yn[(size_t)m * plane + (size_t)i * p->oW + j] =
							rt_act_apply(p->act, p->alpha, p->beta, s);
					}
				}
			}
			continue;
		}
		/* variants 1 and 2 accumulate in y: start from the bias */
		for (int m = 0; m < p->M; m++)
			for (size_t k = 0; k < plane; k++)
				yn[(size_t)m * plane + k] = b ? b[m] : 0.0f;
		if (variant == 1) { /* c-m-u-v-i-j */
			for (int c = 0; c < p->C; c++) {
				const int g = c / cg;
				for (int m = g * mg; m < (g + 1) * mg; m++) {
					const float *wmc = w + ((size_t)m * cg + c % cg) * taps; /* [kH][kW] */
					for (int u = 0; u < p->kH; u++)
						for (int v = 0; v < p->kW; v++)
							rt_dchw_axpy_(p, wmc[u * p->kW + v], xn + (size_t)c * iplane,
							              yn + (size_t)m * plane, u * p->dH - p->padT,
							              v * p->dW - p->padL);
				}
			}
		} else { /* m-c-u-v-i-j */
			for (int m = 0; m < p->M; m++) {
				const int c0 = m / mg * cg;
				for (int c = 0; c < cg; c++) {
					const float *wmc = w + ((size_t)m * cg + c) * taps; /* [kH][kW] */
					for (int u = 0; u < p->kH; u++)
						for (int v = 0; v < p->kW; v++)
							rt_dchw_axpy_(p, wmc[u * p->kW + v], xn + (size_t)(c0 + c) * iplane,
							              yn + (size_t)m * plane, u * p->dH - p->padT,
							              v * p->dW - p->padL);
				}
			}
		}
		for (size_t k = 0; k < (size_t)p->M * plane; k++)
			yn[k] = rt_act_apply(p->act, p->alpha, p->beta, yn[k]);
	}
}
