/* resize.c - ONNX Resize (https://onnx.ai/onnx/operators/onnx__Resize.html)
 * over the last two dims of x [outer, in_h, in_w] into y [outer, out_h, out_w].
 * Each output coordinate o of a dim maps back to x by the
 * coordinate_transformation_mode (s the dim's scale, n its x length, m its y
 * length):
 *   half_pixel          (o + 0.5) / s - 0.5
 *   pytorch_half_pixel  the same, or 0 when n * s <= 1
 *   asymmetric          o / s
 *   align_corners       o * (n - 1) / (n * s - 1), or 0 when n * s <= 1
 *   tf_half_pixel_for_nn (o + 0.5) / s
 * then nearest takes one element (nearest_mode rounds; the index clamps to
 * [0, n - 1]) and linear blends the two neighbours of the coordinate clamped
 * to [0, n - 1], bilinear over both dims. Coordinates are computed in double
 * so that halfway cases round as the ONNX reference does. */
#include <math.h>

#include "runtime/rt_types.h"

/* The output length m enters as n * s, unrounded, as in the ONNX reference:
 * downsampling 4 by 0.6 to 2 aligns corners over a length of 2.4. */
static double rt_resize_coord(int mode, int o, double s, int n)
{
	const double len = n * s;
	switch (mode) {
	case RT_RESIZE_PYTORCH_HALF_PIXEL:
		return len > 1 ? (o + 0.5) / s - 0.5 : 0.0;
	case RT_RESIZE_ASYMMETRIC: return o / s;
	case RT_RESIZE_ALIGN_CORNERS: return len > 1 ? (double)o * (n - 1) / (len - 1) : 0.0;
	case RT_RESIZE_TF_HALF_PIXEL_FOR_NN: return (o + 0.5) / s;
	default: return (o + 0.5) / s - 0.5; /* RT_RESIZE_HALF_PIXEL */
	}
}

static int rt_resize_nearest(int rounding, double c, int n)
{
	double f = floor(c);
	int i;
	switch (rounding) {
	case RT_NEAREST_FLOOR: i = (int)f; break;
	case RT_NEAREST_CEIL: i = (int)ceil(c); break;
	case RT_NEAREST_ROUND_PREFER_CEIL: i = (int)(c - f >= 0.5 ? f + 1 : f); break;
	default: i = (int)(c - f > 0.5 ? f + 1 : f); break; /* round_prefer_floor */
	}
	return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Index lo, hi = lo + 1 (clamped) and the weight of hi for coordinate c. */
static void rt_resize_linear(double c, int n, int *lo, int *hi, float *w)
{
	if (c < 0)
		c = 0;
	if (c > n - 1)
		c = n - 1;
	*lo = (int)floor(c);
	*hi = *lo + 1 < n ? *lo + 1 : n - 1;
	*w = (float)(c - *lo);
}

RT_FN void rt_resize(const struct rt_resize *p,
                     const float *x, /* [p->outer, p->in_h, p->in_w] */
                     float *y)       /* out: [p->outer, p->out_h, p->out_w]; must not overlap x */
{
	const size_t in_plane = (size_t)p->in_h * p->in_w;
	for (int oh = 0; oh < p->out_h; oh++) {
		const double ch = rt_resize_coord(p->coord, oh, p->scale_h, p->in_h);
		for (int ow = 0; ow < p->out_w; ow++) {
			const double cw = rt_resize_coord(p->coord, ow, p->scale_w, p->in_w);
			float *yo = y + (size_t)oh * p->out_w + ow;
			if (!p->linear) {
				const size_t ix = (size_t)rt_resize_nearest(p->rounding, ch, p->in_h) * p->in_w +
				                  (size_t)rt_resize_nearest(p->rounding, cw, p->in_w);
				for (int o = 0; o < p->outer; o++)
					yo[(size_t)o * p->out_h * p->out_w] = x[o * in_plane + ix];
				continue;
			}
			int h0, h1, w0, w1;
			float a, b; /* weights of h1 and w1 */
			rt_resize_linear(ch, p->in_h, &h0, &h1, &a);
			rt_resize_linear(cw, p->in_w, &w0, &w1, &b);
			for (int o = 0; o < p->outer; o++) {
				const float *xo = x + o * in_plane;
				const float top = xo[h0 * p->in_w + w0] * (1 - b) + xo[h0 * p->in_w + w1] * b;
				const float bot = xo[h1 * p->in_w + w0] * (1 - b) + xo[h1 * p->in_w + w1] * b;
				yo[(size_t)o * p->out_h * p->out_w] = top * (1 - a) + bot * a;
			}
		}
	}
}
