/* transpose.c - ONNX Transpose (https://onnx.ai/onnx/operators/onnx__Transpose.html)
 * and any other strided copy: y is dense over p->dims and
 *   y[i] = x[sum(i[d] * sx[d])]
 * For Transpose with permutation perm, dims[d] = x's dim perm[d] and sx[d] is
 * x's (dense) stride of axis perm[d]. Rank 0 copies one element. */
#include "runtime/rt_types.h"

RT_FN void rt_transpose(const struct rt_transpose *p,
                        const float *x, /* read through p->sx */
                        float *y)       /* out: dense [p->dims]; must not overlap x */
{
	int idx[RT_MAX_RANK] = {0}; /* current output index vector */
	ptrdiff_t ix = 0;           /* its x offset */
	size_t count = 1;           /* number of output elements */

	for (int d = 0; d < p->rank; d++)
		count *= (size_t)p->dims[d];
	for (size_t t = 0; t < count; t++) {
		y[t] = x[ix];
		/* next index, last dim fastest */
		for (int d = p->rank - 1; d >= 0; d--) {
			idx[d]++;
			ix += p->sx[d];
			if (idx[d] < p->dims[d])
				break;
			ix -= (ptrdiff_t)p->sx[d] * p->dims[d];
			idx[d] = 0;
		}
	}
}
