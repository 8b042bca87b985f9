/* clip.c - ONNX Clip with bounds read at run time
 * (https://onnx.ai/onnx/operators/onnx__Clip.html): Clip-11 and later take
 * min and max as optional inputs, which a model may compute or take as graph
 * inputs. Each bound is a pointer to one float, or NULL to use the constant
 * the compiler passes (the given constant bound, or -FLT_MAX / FLT_MAX for an
 * absent one):
 *   y[i] = min(max(x[i], lo), hi)
 * so that, as the operator page says, every value becomes max when min > max.
 * A NaN in x stays NaN (numpy.clip, the ONNX reference, does the same).
 * Constant bounds use rt_unary's RT_ACT_CLIP instead. */
#include "runtime/rt_types.h"

RT_FN void rt_clip(size_t n,
                   const float *x,  /* [n] */
                   const float *lo, /* [1] min, or NULL: lo_const */
                   const float *hi, /* [1] max, or NULL: hi_const */
                   float lo_const, float hi_const,
                   float *y)        /* out: [n]; may equal x */
{
	const float a = lo ? *lo : lo_const;
	const float b = hi ? *hi : hi_const;
	for (size_t i = 0; i < n; i++) {
		const float v = x[i] < a ? a : x[i];
		y[i] = v > b ? b : v;
	}
}
