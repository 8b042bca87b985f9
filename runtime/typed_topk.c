/* typed_topk.c - ONNX TopK (https://onnx.ai/onnx/operators/onnx__TopK.html)
 * for small k: x viewed as [outer, len, inner]; along len, the k largest
 * (smallest) values in order, ties to the lower index, and their indices.
 * k passes over the row each (O(k len)): meant for k much smaller than len. */
#include "runtime/rt_typed.h"

RT_FN void rt_topk(int xt, const void *x, /* [outer, len, inner] of xt */
                   void *vals,            /* out: [outer, k, inner] of xt */
                   int64_t *ind,          /* out: [outer, k, inner] */
                   size_t outer, size_t len, size_t inner, size_t k, int largest)
{
	for (size_t o = 0; o < outer; o++) {
		for (size_t i = 0; i < inner; i++) {
			size_t base = o * len * inner + i, obase = o * k * inner + i;
			for (size_t r = 0; r < k; r++) {
				/* the best element not taken yet: after the previous pick
				 * in (value, index) order */
				int have = 0;
				size_t best = 0;
				double bv = 0.0;
				double pv = r ? rt_ld_f(xt, vals, obase + (r - 1) * inner) : 0.0;
				size_t pi = r ? (size_t)ind[obase + (r - 1) * inner] : 0;
				for (size_t j = 0; j < len; j++) {
					double v = rt_ld_f(xt, x, base + j * inner);
					if (r) { /* strictly after (pv, pi) */
						int after = largest ? (v < pv || (v == pv && j > pi))
						                    : (v > pv || (v == pv && j > pi));
						if (!after)
							continue;
					}
					if (!have || (largest ? v > bv : v < bv)) {
						have = 1;
						bv = v;
						best = j;
					}
				}
				ind[obase + r * inner] = (int64_t)best;
				if (rt_dt_is_float(xt))
					rt_st_f(xt, vals, obase + r * inner, bv);
				else
					rt_st_i(xt, vals, obase + r * inner, rt_ld_i(xt, x, base + best * inner));
			}
		}
	}
}
