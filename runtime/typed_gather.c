/* typed_gather.c - ONNX Gather (https://onnx.ai/onnx/operators/onnx__Gather.html)
 * with indices known at run time: x viewed as [outer, axis_len, inner], y as
 * [outer, n_idx, inner], y[o][j][:] = x[o][idx[j]][:]; a negative index counts
 * from the end. An index outside [-axis_len, axis_len) is invalid ONNX; its
 * slice is written as zeros instead of reading outside x. */
#include <string.h>

#include "runtime/rt_typed.h"

RT_FN void rt_gather(size_t es,                  /* bytes per element of x and y */
                     const void *x,              /* [outer, axis_len, inner] */
                     int it, const void *idx,    /* [n_idx] int64 or int32 */
                     void *y,                    /* out: [outer, n_idx, inner] */
                     size_t outer, int64_t axis_len, size_t inner, size_t n_idx)
{
	size_t row = es * inner;
	for (size_t o = 0; o < outer; o++) {
		for (size_t j = 0; j < n_idx; j++) {
			int64_t k = rt_ld_i(it, idx, j);
			unsigned char *dst = (unsigned char *)y + (o * n_idx + j) * row;
			if (k < 0)
				k += axis_len;
			if (k < 0 || k >= axis_len)
				memset(dst, 0, row);
			else
				memcpy(dst, (const unsigned char *)x + (o * (size_t)axis_len + (size_t)k) * row,
				       row);
		}
	}
}
