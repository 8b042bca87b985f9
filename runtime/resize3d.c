/* resize3d.c - ONNX Resize (https://onnx.ai/onnx/operators/onnx__Resize.html)
 * over the last three dims, for what resize.c (last two dims, nearest and
 * linear) does not cover: cubic interpolation and resizes of a third dim
 * (trilinear and nearest on volumes). Separable: each output coordinate o of
 * each dim maps back to x by the coordinate_transformation_mode (as in
 * resize.c: half_pixel (o + 0.5) / s - 0.5, pytorch_half_pixel the same or 0
 * when n * s <= 1, asymmetric o / s, align_corners o * (n - 1) / (n * s - 1),
 * tf_half_pixel_for_nn (o + 0.5) / s),
 * which gives up to four taps per dim:
 *   nearest  one index, rounded by nearest_mode, clamped to [0, n - 1];
 *   linear   the two neighbours of the coordinate clamped to [0, n - 1];
 *   cubic    the four indices floor(c) - 1 .. floor(c) + 2 with the Keys
 *            kernel of parameter A (cubic_coeff_a) at their distances,
 *            indices clamped to [0, n - 1] (the edge value repeats); with
 *            exclude_outside the taps outside [0, n) weigh 0 and the other
 *            weights are scaled to sum to 1.
 * The output is the sum over the product of the three dims' taps. */
#include <math.h>

#include "runtime/rt_types.h"

/* Keys' cubic convolution kernel at distance s. */
static double rt_resize3d_cubic(double s, double a)
{
	s = fabs(s);
	if (s <= 1)
		return ((a + 2) * s - (a + 3)) * s * s + 1;
	if (s < 2)
		return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
	return 0;
}

/* The taps of output index o along dim d: count, indices, weights. */
static int rt_resize3d_taps(const struct rt_resize3d *p, int d, int o, int idx[4], float w[4])
{
	const int n = p->in[d];
	const double s = p->scale[d];
	/* the output length as n * s, unrounded, as in the ONNX reference */
	const double len = n * s;
	double c;
	switch (p->coord) {
	case RT_RESIZE_PYTORCH_HALF_PIXEL: c = len > 1 ? (o + 0.5) / s - 0.5 : 0.0; break;
	case RT_RESIZE_ASYMMETRIC: c = o / s; break;
	case RT_RESIZE_ALIGN_CORNERS: c = len > 1 ? (double)o * (n - 1) / (len - 1) : 0.0; break;
	case RT_RESIZE_TF_HALF_PIXEL_FOR_NN: c = (o + 0.5) / s; break;
	default: c = (o + 0.5) / s - 0.5; break; /* RT_RESIZE_HALF_PIXEL */
	}
	const double f = floor(c);
	if (p->mode == 0) {
		int i;
		switch (p->rounding) {
		case RT_NEAREST_FLOOR: i = (int)f; break;
		case RT_NEAREST_CEIL: i = (int)ceil(c); break;
		case RT_NEAREST_ROUND_PREFER_CEIL: i = (int)(c - f >= 0.5 ? f + 1 : f); break;
		default: i = (int)(c - f > 0.5 ? f + 1 : f); break; /* round_prefer_floor */
		}
		idx[0] = i < 0 ? 0 : i >= n ? n - 1 : i;
		w[0] = 1.0f;
		return 1;
	}
	if (p->mode == 1) {
		double cc = c < 0 ? 0 : c > n - 1 ? n - 1 : c;
		int lo = (int)floor(cc);
		idx[0] = lo;
		idx[1] = lo + 1 < n ? lo + 1 : n - 1;
		w[1] = (float)(cc - lo);
		w[0] = 1.0f - w[1];
		return 2;
	}
	double wd[4], sum = 0;
	for (int k = 0; k < 4; k++) {
		const int i = (int)f - 1 + k;
		wd[k] = rt_resize3d_cubic(c - i, p->cubic_a);
		if (p->exclude_outside && (i < 0 || i >= n))
			wd[k] = 0;
		sum += wd[k];
		idx[k] = i < 0 ? 0 : i >= n ? n - 1 : i;
	}
	for (int k = 0; k < 4; k++)
		w[k] = (float)(p->exclude_outside && sum != 0 ? wd[k] / sum : wd[k]);
	return 4;
}

RT_FN void rt_resize3d(const struct rt_resize3d *p,
                       const float *x, /* [outer, in[0], in[1], in[2]] */
                       float *y)       /* out: [outer, out[0], out[1], out[2]]; not x */
{
	const size_t iv = (size_t)p->in[0] * p->in[1] * p->in[2];
	const size_t ov = (size_t)p->out[0] * p->out[1] * p->out[2];
	int i0[4], i1[4], i2[4];
	float w0[4], w1[4], w2[4];
	for (int a = 0; a < p->out[0]; a++) {
		const int n0 = rt_resize3d_taps(p, 0, a, i0, w0);
		for (int b = 0; b < p->out[1]; b++) {
			const int n1 = rt_resize3d_taps(p, 1, b, i1, w1);
			for (int c = 0; c < p->out[2]; c++) {
				const int n2 = rt_resize3d_taps(p, 2, c, i2, w2);
				const size_t o = ((size_t)a * p->out[1] + b) * p->out[2] + c;
				for (int v = 0; v < p->outer; v++) {
					const float *xv = x + (size_t)v * iv;
					float acc = 0.0f;
					for (int t = 0; t < n0; t++)
						for (int u = 0; u < n1; u++) {
							const float *row =
							        xv + ((size_t)i0[t] * p->in[1] + i1[u]) * p->in[2];
							float r = 0.0f;
							for (int q = 0; q < n2; q++)
								r += row[i2[q]] * w2[q];
							acc += r * w0[t] * w1[u];
						}
					y[(size_t)v * ov + o] = acc;
				}
			}
		}
	}
}
