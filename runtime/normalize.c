/* normalize.c - ONNX LayerNormalization (opset 17), InstanceNormalization
 * and MeanVarianceNormalization
 * (https://onnx.ai/onnx/operators/onnx__LayerNormalization.html and
 * siblings): every group of elements (struct rt_norm in rt_types.h) is
 * shifted to mean 0 and scaled to variance 1, then scaled and shifted by
 * per-element parameters. Mean and variance are computed in double, in two
 * passes (the variance from the centred values, no cancellation). x may
 * equal y: each group is read completely before it is written.
 *
 * A group of consecutive elements (LayerNormalization over the last axes,
 * InstanceNormalization in CHW) sums in RT_NORM_LANES_ interleaved partial
 * results, combined in a fixed order: the compiler keeps them in vector
 * registers (one long chain of dependent double additions bounded the
 * scalar loop), and the order depends on the group's length only, not on
 * the ISA or the thread count. Threads take whole groups. */
#include "runtime/rt_types.h"

#define RT_NORM_LANES_ 16

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

struct rt_norm_job_ {
	const struct rt_norm *p;
	const float *x, *scale, *bias;
	float *y;
	size_t count; /* elements per group */
	int dense;    /* a group is count consecutive elements */
};

/* Sum of (x[t] - shift) over the count consecutive floats at x, to the power
 * 1 or 2, in the interleaved partial results. */
static inline double rt_norm_lanes_(const float *x, size_t count, double shift, int square)
{
	double s[RT_NORM_LANES_];
	const size_t full = count - count % RT_NORM_LANES_;
	for (int l = 0; l < RT_NORM_LANES_; l++)
		s[l] = 0.0;
	if (square) {
		for (size_t k = 0; k < full; k += RT_NORM_LANES_)
			for (int l = 0; l < RT_NORM_LANES_; l++) {
				const double c = (double)x[k + l] - shift;
				s[l] += c * c;
			}
		for (size_t k = full; k < count; k++) {
			const double c = (double)x[k] - shift;
			s[k - full] += c * c;
		}
	} else {
		for (size_t k = 0; k < full; k += RT_NORM_LANES_)
			for (int l = 0; l < RT_NORM_LANES_; l++)
				s[l] += (double)x[k + l];
		for (size_t k = full; k < count; k++)
			s[k - full] += (double)x[k];
	}
	double sum = 0.0;
	for (int l = 0; l < RT_NORM_LANES_; l++)
		sum += s[l];
	return sum;
}

/* Group o. */
static void rt_norm_group_(const struct rt_norm_job_ *j, size_t o)
{
	const struct rt_norm *p = j->p;
	const struct rt_reduce *r = &p->r;
	const float *x = j->x, *scale = j->scale, *bias = j->bias;
	float *y = j->y;
	const size_t count = j->count;
	const int dense = j->dense;
	size_t base = 0, rest = o;
	for (int d = r->n_out - 1; d >= 0; d--) {
		base += (rest % (size_t)r->out_dims[d]) * (size_t)r->out_sx[d];
		rest /= (size_t)r->out_dims[d];
	}
	double mean = 0.0, var = 0.0;
	if (dense) {
		mean = rt_norm_lanes_(x + base, count, 0.0, 0) / (double)count;
		var = rt_norm_lanes_(x + base, count, mean, 1) / (double)count;
	} else {
		for (size_t t = 0; t < count; t++)
			mean += x[base + rt_norm_offset(r, t)];
		mean /= (double)count;
		for (size_t t = 0; t < count; t++) {
			const double c = x[base + rt_norm_offset(r, t)] - mean;
			var += c * c;
		}
		var /= (double)count;
	}
	const double inv = p->eps_outside ? 1.0 / (sqrt(var) + p->epsilon)
	                                  : 1.0 / sqrt(var + p->epsilon);
	const size_t s0 = (o % (size_t)p->s_mod) * (size_t)p->s_o;
	if (dense && p->s_t == 1 && scale && bias) { /* LayerNormalization */
		const float *xs = x + base, *sc = scale + s0, *bi = bias + s0;
		float *ys = y + base;
		for (size_t t = 0; t < count; t++)
			ys[t] = (float)(((double)xs[t] - mean) * inv * (double)sc[t] +
			                (double)bi[t]);
		return;
	}
	if (dense && p->s_t == 0) { /* one scale and bias per group, or none */
		const double sc = scale ? (double)scale[s0] : 1.0, bi = bias ? (double)bias[s0] : 0.0;
		const float *xs = x + base;
		float *ys = y + base;
		if (bias)
			for (size_t t = 0; t < count; t++)
				ys[t] = (float)(((double)xs[t] - mean) * inv * sc + bi);
		else /* no + 0.0, which would turn -0.0 into +0.0 */
			for (size_t t = 0; t < count; t++)
				ys[t] = (float)(((double)xs[t] - mean) * inv * sc);
		return;
	}
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

/* Groups [o0, o1). */
static void rt_norm_groups_(void *ctx, int o0, int o1)
{
	for (int o = o0; o < o1; o++)
		rt_norm_group_((const struct rt_norm_job_ *)ctx, (size_t)o);
}

RT_FN void rt_normalize(const struct rt_norm *p,
                        const float *x,     /* read through p->r */
                        const float *scale, /* read as p says, or NULL for 1 */
                        const float *bias,  /* read as p says, or NULL for 0 */
                        float *y)           /* out: shaped as x */
{
	const struct rt_reduce *r = &p->r;
	struct rt_norm_job_ j = {.p = p, .x = x, .scale = scale, .bias = bias, .y = y,
	                         .count = 1, .dense = 1};
	size_t groups = 1;
	for (int d = 0; d < r->n_out; d++)
		groups *= (size_t)r->out_dims[d];
	for (int d = r->n_red - 1; d >= 0; d--) {
		j.dense &= (size_t)r->red_sx[d] == j.count;
		j.count *= (size_t)r->red_dims[d];
	}
	if (groups == 0 || j.count == 0)
		return;
	/* three passes over memory and a few flops per element */
	if ((double)groups * (double)j.count * RT_PARALLEL_COPY_UNITS >= (double)RT_PARALLEL_MIN_WORK &&
	    groups <= 0x7fffffff)
		rt_parallel(rt_norm_groups_, &j, (int)groups);
	else
		for (size_t o = 0; o < groups; o++)
			rt_norm_group_(&j, o);
}
