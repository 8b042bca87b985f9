/* typed_gather_elements.c - ONNX GatherElements
 * (https://onnx.ai/onnx/operators/onnx__GatherElements.html): y has the
 * shape of idx; y[i] = x[i with i[axis] replaced by idx[i]] (negative
 * indices count from the end; an index out of range gives zero). */
#include <string.h>

#include "runtime/rt_typed.h"

RT_FN void rt_gather_elements(size_t es, const void *x, /* [xdims], es bytes each */
                              int it, const void *idx,  /* [idims] int64 or int32 */
                              void *y,                  /* out: [idims] */
                              int rank, const int *xdims, const int *idims, int axis)
{
	int pos[RT_MAX_RANK] = {0};
	size_t count = 1;
	for (int d = 0; d < rank; d++)
		count *= (size_t)idims[d];
	for (size_t t = 0; t < count; t++) {
		int64_t k = rt_ld_i(it, idx, t);
		if (k < 0)
			k += xdims[axis];
		unsigned char *dst = (unsigned char *)y + es * t;
		if (k < 0 || k >= xdims[axis]) {
			memset(dst, 0, es);
		} else {
			size_t at = 0;
			for (int d = 0; d < rank; d++)
				at = at * (size_t)xdims[d] + (size_t)(d == axis ? k : pos[d]);
			memcpy(dst, (const unsigned char *)x + es * at, es);
		}
		for (int d = rank - 1; d >= 0; d--) {
			if (++pos[d] < idims[d])
				break;
			pos[d] = 0;
		}
	}
}
