/* typed_unary.c - elementwise operators of one input on any numeric type:
 * Not (bool), Abs, Neg and Sign on integers (integers wrap: Abs and Neg of
 * the most negative value give it back, as numpy does), IsNaN and IsInf
 * (detect_positive, detect_negative) on floats. */
#include "runtime/rt_typed.h"

RT_FN void rt_tunary(int op, /* enum rt_tunop */
                     size_t n,
                     int xt, const void *x, /* [n] of xt */
                     int yt, void *y)       /* out: [n] of yt */
{
	for (size_t i = 0; i < n; i++) {
		if (op == RT_TU_ISNAN || op == RT_TU_ISINF || op == RT_TU_ISPOSINF ||
		    op == RT_TU_ISNEGINF) {
			double v = rt_ld_f(xt, x, i);
			int inf = v - v != v - v && v == v; /* infinite, not NaN */
			int r = op == RT_TU_ISNAN ? v != v
			        : op == RT_TU_ISINF ? inf
			        : op == RT_TU_ISPOSINF ? inf && v > 0 : inf && v < 0;
			rt_st_i(yt, y, i, r);
		} else if (rt_dt_is_float(xt)) {
			double v = rt_ld_f(xt, x, i);
			double r = op == RT_TU_NOT ? v == 0.0
			           : op == RT_TU_ABS ? (v < 0 ? -v : v)
			           : op == RT_TU_NEG ? -v : (double)((v > 0) - (v < 0));
			rt_st_f(yt, y, i, r);
		} else {
			int64_t v = rt_ld_i(xt, x, i);
			int64_t neg = (int64_t)(0 - (uint64_t)v);
			int64_t r = op == RT_TU_NOT ? v == 0
			            : op == RT_TU_ABS ? (v < 0 ? neg : v)
			            : op == RT_TU_NEG ? neg : (int64_t)((v > 0) - (v < 0));
			rt_st_i(yt, y, i, r);
		}
	}
}
