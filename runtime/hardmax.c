/* hardmax.c - ONNX Hardmax (https://onnx.ai/onnx/operators/onnx__Hardmax.html)
 * along one axis, the tensor viewed as [outer, len, inner] like softmax.c:
 * for each vector x[o, :, i], y is 1 at the first index of its maximum and 0
 * elsewhere. x may equal y: a vector is read completely before it is written. */
#include "runtime/rt_types.h"

RT_FN void rt_hardmax(int outer, int len, int inner,
                      const float *x, /* [outer, len, inner] */
                      float *y)       /* out: [outer, len, inner]; may equal x */
{
	for (int o = 0; o < outer; o++) {
		for (int i = 0; i < inner; i++) {
			const size_t base = (size_t)o * len * inner + i; /* x[o, 0, i] */
			int arg = 0;
			for (int k = 1; k < len; k++)
				if (x[base + (size_t)k * inner] > x[base + (size_t)arg * inner])
					arg = k;
			for (int k = 0; k < len; k++)
				y[base + (size_t)k * inner] = k == arg ? 1.0f : 0.0f;
		}
	}
}
