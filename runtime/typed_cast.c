/* typed_cast.c - ONNX Cast between float32, float64, the integer types and
 * bool (https://onnx.ai/onnx/operators/onnx__Cast.html): float to integer
 * truncates toward zero, integers wrap to the target width, anything to
 * bool is "not zero". */
#include "runtime/rt_typed.h"

RT_FN void rt_cast(size_t n,
                   int xt, const void *x, /* [n] of enum rt_dtype xt */
                   int yt, void *y)       /* out: [n] of yt */
{
	for (size_t i = 0; i < n; i++) {
		if (rt_dt_is_float(xt))
			rt_st_f(yt, y, i, rt_ld_f(xt, x, i));
		else
			rt_st_i(yt, y, i, rt_ld_i(xt, x, i));
	}
}
