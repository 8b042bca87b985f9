/* typed_argmax.c - ONNX ArgMax and ArgMin
 * (https://onnx.ai/onnx/operators/onnx__ArgMax.html): x viewed as [outer,
 * len, inner]; y[o][i] is the index along len of the largest (smallest)
 * value, the first one unless select_last. */
#include "runtime/rt_typed.h"

RT_FN void rt_argmax(int xt, const void *x, /* [outer, len, inner] of xt */
                     int64_t *y,            /* out: [outer, inner] */
                     size_t outer, size_t len, size_t inner, int is_min, int select_last)
{
	for (size_t o = 0; o < outer; o++) {
		for (size_t i = 0; i < inner; i++) {
			size_t base = o * len * inner + i, best = 0;
			double bv = rt_ld_f(xt, x, base);
			for (size_t k = 1; k < len; k++) {
				double v = rt_ld_f(xt, x, base + k * inner);
				int better = is_min ? (select_last ? v <= bv : v < bv)
				                    : (select_last ? v >= bv : v > bv);
				if (better) {
					bv = v;
					best = k;
				}
			}
			y[o * inner + i] = (int64_t)best;
		}
	}
}
