/* typed_cumsum.c - ONNX CumSum (https://onnx.ai/onnx/operators/onnx__CumSum.html):
 * x viewed as [outer, len, inner], running sums along len, forward or
 * reverse, inclusive or exclusive; floats summed in double, integers in
 * int64 (wrapping). */
#include "runtime/rt_typed.h"

RT_FN void rt_cumsum(int xt, const void *x, /* [outer, len, inner] of xt */
                     void *y,               /* out: like x */
                     size_t outer, size_t len, size_t inner, int exclusive, int reverse)
{
	for (size_t o = 0; o < outer; o++) {
		for (size_t i = 0; i < inner; i++) {
			double sf = 0.0;
			uint64_t si = 0;
			for (size_t s = 0; s < len; s++) {
				size_t k = reverse ? len - 1 - s : s;
				size_t at = (o * len + k) * inner + i;
				if (rt_dt_is_float(xt)) {
					double v = rt_ld_f(xt, x, at);
					if (!exclusive)
						sf += v;
					rt_st_f(xt, y, at, sf);
					if (exclusive)
						sf += v;
				} else {
					uint64_t v = (uint64_t)rt_ld_i(xt, x, at);
					if (!exclusive)
						si += v;
					rt_st_i(xt, y, at, (int64_t)si);
					if (exclusive)
						si += v;
				}
			}
		}
	}
}
