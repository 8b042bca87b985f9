/* reduce.c - ONNX ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
 * ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp and ReduceSumSquare
 * (https://onnx.ai/onnx/operators/onnx__ReduceSum.html and siblings) over any
 * set of axes (struct rt_reduce in rt_types.h). For each output element the
 * reduced elements are visited in row-major order and accumulated in double:
 *   sum, mean = sum / count, prod, max, min (NaN if any element is NaN),
 *   L1 = sum |x|, L2 = sqrt(sum x^2), SumSquare = sum x^2,
 *   LogSum = log(sum), LogSumExp = m + log(sum exp(x - m)), m the maximum
 *   (the shift keeps exp from overflowing; the result is the same). */
#include "runtime/rt_types.h"

/* Offset in x of the reduced element number t (row-major over red_dims). */
static inline size_t rt_reduce_offset(const struct rt_reduce *p, size_t t)
{
	size_t off = 0;
	for (int d = p->n_red - 1; d >= 0; d--) {
		off += (t % (size_t)p->red_dims[d]) * (size_t)p->red_sx[d];
		t /= (size_t)p->red_dims[d];
	}
	return off;
}

RT_FN void rt_reduce(int op, /* enum rt_reduce_op */
                     const struct rt_reduce *p,
                     const float *x, /* read through p's strides */
                     float *y)       /* out: dense [p->out_dims] */
{
	size_t n_out = 1, count = 1;
	for (int d = 0; d < p->n_out; d++)
		n_out *= (size_t)p->out_dims[d];
	for (int d = 0; d < p->n_red; d++)
		count *= (size_t)p->red_dims[d];
	for (size_t o = 0; o < n_out; o++) {
		/* base: offset in x of the output element's first reduced element */
		size_t base = 0, rest = o;
		for (int d = p->n_out - 1; d >= 0; d--) {
			base += (rest % (size_t)p->out_dims[d]) * (size_t)p->out_sx[d];
			rest /= (size_t)p->out_dims[d];
		}
		double acc = op == RT_REDUCE_PROD ? 1.0 : 0.0;
		double m = -INFINITY; /* LogSumExp's shift */
		if (op == RT_REDUCE_MAX || op == RT_REDUCE_MIN || op == RT_REDUCE_LOG_SUM_EXP) {
			acc = x[base + rt_reduce_offset(p, 0)];
			for (size_t t = 1; t < count; t++) {
				const double v = x[base + rt_reduce_offset(p, t)];
				if (v != v || acc != acc)
					acc = acc + v; /* NaN */
				else if (op == RT_REDUCE_MIN ? v < acc : v > acc)
					acc = v;
			}
			if (op == RT_REDUCE_LOG_SUM_EXP) {
				m = acc;
				acc = 0.0;
			}
		}
		if (op != RT_REDUCE_MAX && op != RT_REDUCE_MIN) {
			for (size_t t = 0; t < count; t++) {
				const double v = x[base + rt_reduce_offset(p, t)];
				switch (op) {
				case RT_REDUCE_PROD: acc *= v; break;
				case RT_REDUCE_L1: acc += fabs(v); break;
				case RT_REDUCE_L2:
				case RT_REDUCE_SUM_SQUARE: acc += v * v; break;
				case RT_REDUCE_LOG_SUM_EXP:
					acc += isinf(m) ? exp(v) : exp(v - m); /* all -inf, or +inf: no shift */
					break;
				default: acc += v; break; /* SUM, MEAN, LOG_SUM */
				}
			}
		}
		switch (op) {
		case RT_REDUCE_MEAN: acc /= (double)count; break;
		case RT_REDUCE_L2: acc = sqrt(acc); break;
		case RT_REDUCE_LOG_SUM: acc = log(acc); break;
		case RT_REDUCE_LOG_SUM_EXP: acc = (isinf(m) ? 0.0 : m) + log(acc); break;
		default: break;
		}
		y[o] = (float)acc;
	}
}
