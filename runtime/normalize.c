/* normalize.c - ONNX LayerNormalization (opset 17), InstanceNormalization
 * and MeanVarianceNormalization
 * (https://onnx.ai/onnx/operators/onnx__LayerNormalization.html and
 * siblings): every group of elements (struct rt_norm in rt_types.h) is
 * shifted to mean 0 and scaled to variance 1, then scaled and shifted by
 * per-element parameters. Mean and variance are computed in double, in two
 * passes (the variance from the centred values, no cancellation). x may
 * equal y: each group is read completely before it is written. */
#include "runtime/rt_types.h"

/* Offset in x of the t-th element of a group (row-major over red_dims). */
static inline size_t rt_norm_offset(const struct rt_reduce *r, size_t t)
{
	size_t off = 0;
	for (int d = r->n_red - 1; d >= 0; d--) {
		off += (t % (size_t)r->red_dims[d]) * (size_t)r->red_sx[d];
		t /= (size_t)r->red_dims[d];
	}
	return off;
}

RT_FN void rt_normalize(const struct rt_norm *p,
                        const float *x,     /* read through p->r */
                        const float *scale, /* read as p says, or NULL for 1 */
                        const float *bias,  /* read as p says, or NULL for 0 */
                        float *y)           /* out: shaped as x */
{
	const struct rt_reduce *r = &p->r;
	size_t groups = 1, count = 1;
	for (int d = 0; d < r->n_out; d++)
		groups *= (size_t)r->out_dims[d];
	/* A group of consecutive elements (LayerNormalization over the last
	 * axes) is read at base + t: the same sums without the per-element
	 * divisions of rt_norm_offset, so the same results, 6-8x sooner. */
	int dense = 1;
	for (int d = r->n_red - 1; d >= 0; d--) {
		dense &= (size_t)r->red_sx[d] == count;
		count *= (size_t)r->red_dims[d];
	}
	for (size_t o = 0; o < groups; o++) {
		size_t base = 0, rest = o;
		for (int d = r->n_out - 1; d >= 0; d--) {
			base += (rest % (size_t)r->out_dims[d]) * (size_t)r->out_sx[d];
			rest /= (size_t)r->out_dims[d];
		}
		double mean = 0.0, var = 0.0;
		for (size_t t = 0; t < count; t++)
			mean += x[base + (dense ? t : rt_norm_offset(r, t))];
		mean /= (double)count;
		for (size_t t = 0; t < count; t++) {
			const double c = x[base + (dense ? t : rt_norm_offset(r, t))] - mean;
			var += c * c;
		}
		var /= (double)count;
		const double inv = p->eps_outside ? 1.0 / (sqrt(var) + p->epsilon)
		                                  : 1.0 / sqrt(var + p->epsilon);
		const size_t s0 = (o % (size_t)p->s_mod) * (size_t)p->s_o;
		for (size_t t = 0; t < count; t++) {
			const size_t at = base + (dense ? t : rt_norm_offset(r, t));
			const size_t k = s0 + t * (size_t)p->s_t;
			double v = (x[at] - mean) * inv;
			if (scale)
				v *= scale[k];
			if (bias)
				v += bias[k];
			y[at] = (float)v;
		}
	}
}
