/* pad.c - ONNX Pad in constant mode (https://onnx.ai/onnx/operators/onnx__Pad.html):
 *   y[i] = x[i - begin]  if every i[d] - begin[d] lies in [0, in_dims[d]),
 *          value         otherwise
 * over the dense output out_dims[d] = in_dims[d] + begin[d] + end[d]. A
 * negative begin or end removes elements at that side (ONNX allows negative
 * pads and crops). */
#include "runtime/rt_types.h"

RT_FN void rt_pad_constant(const struct rt_pad *p,
                           const float *x, /* [p->in_dims] */
                           float *y)       /* out: [p->out_dims] */
{
	int idx[RT_MAX_RANK] = {0}; /* current output index vector */
	size_t count = 1;           /* number of output elements */

	for (int d = 0; d < p->rank; d++)
		count *= (size_t)p->out_dims[d];
	for (size_t t = 0; t < count; t++) {
		size_t ix = 0; /* x offset of idx - begin, if inside x */
		int inside = 1;
		for (int d = 0; d < p->rank; d++) {
			const int c = idx[d] - p->begin[d];
			if (c < 0 || c >= p->in_dims[d]) {
				inside = 0;
				break;
			}
			ix = ix * p->in_dims[d] + c;
		}
		y[t] = inside ? x[ix] : p->value;
		/* next index, last dim fastest */
		for (int d = p->rank - 1; d >= 0; d--) {
			if (++idx[d] < p->out_dims[d])
				break;
			idx[d] = 0;
		}
	}
}
