/* pad_mode.c - ONNX Pad in edge and reflect modes
 * (https://onnx.ai/onnx/operators/onnx__Pad.html), numpy.pad's rules:
 *   y[i] = x[m(i - begin)]  over the dense output out_dims,
 * where m maps each coordinate c of a dim of size n into [0, n):
 *   edge:    clamp c to [0, n - 1];
 *   reflect: mirror about the first and last element without repeating
 *            them (period 2 * (n - 1); n = 1 always gives 0).
 * A negative begin or end crops that side as in constant mode. */
#include "runtime/rt_types.h"

RT_FN void rt_pad_edge_reflect(const struct rt_pad *p,
                               int reflect,    /* 1: reflect, 0: edge */
                               const float *x, /* [p->in_dims] */
                               float *y)       /* out: [p->out_dims]; must not overlap x */
{
	int idx[RT_MAX_RANK] = {0}; /* current output index vector */
	size_t count = 1;           /* number of output elements */

	for (int d = 0; d < p->rank; d++)
		count *= (size_t)p->out_dims[d];
	for (size_t t = 0; t < count; t++) {
		size_t ix = 0; /* x offset of the mapped index */
		for (int d = 0; d < p->rank; d++) {
			const int n = p->in_dims[d];
			int c = idx[d] - p->begin[d];
			if (reflect && n > 1) {
				const int period = 2 * (n - 1);
				c %= period;
				if (c < 0)
					c += period;
				if (c >= n)
					c = period - c;
			} else {
				c = c < 0 ? 0 : c >= n ? n - 1 : c;
			}
			ix = ix * (size_t)n + (size_t)c;
		}
		y[t] = x[ix];
		/* next index, last dim fastest */
		for (int d = p->rank - 1; d >= 0; d--) {
			if (++idx[d] < p->out_dims[d])
				break;
			idx[d] = 0;
		}
	}
}
