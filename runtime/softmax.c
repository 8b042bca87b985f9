/* softmax.c - ONNX Softmax and LogSoftmax (opset 13,
 * https://onnx.ai/onnx/operators/onnx__Softmax.html) along one axis. The
 * tensor is viewed as [outer, len, inner] with the axis in the middle; for
 * each of the outer*inner vectors x[o, :, i]:
 *   softmax:     y[k] = exp(x[k] - max) / sum over l of exp(x[l] - max)
 *   log-softmax: y[k] = (x[k] - max) - log(sum over l of exp(x[l] - max))
 * Subtracting the vector's maximum first keeps exp from overflowing; the
 * result is mathematically the same. x may equal y. */
#include "runtime/rt_types.h"

RT_FN void rt_softmax(int outer, int len, int inner, int log_softmax,
                      const float *x, /* [outer, len, inner] */
                      float *y)       /* out: [outer, len, inner]; may equal x */
{
	for (int o = 0; o < outer; o++) {
		for (int i = 0; i < inner; i++) {
			const size_t base = (size_t)o * len * inner + i; /* x[o, 0, i] */
			float max = -INFINITY;
			float sum = 0.0f;
			for (int k = 0; k < len; k++)
				if (x[base + (size_t)k * inner] > max)
					max = x[base + (size_t)k * inner];
			for (int k = 0; k < len; k++)
				sum += expf(x[base + (size_t)k * inner] - max);
			if (log_softmax) {
				const float log_sum = logf(sum);
				for (int k = 0; k < len; k++)
					y[base + (size_t)k * inner] = (x[base + (size_t)k * inner] - max) - log_sum;
			} else {
				for (int k = 0; k < len; k++)
					y[base + (size_t)k * inner] = expf(x[base + (size_t)k * inner] - max) / sum;
			}
		}
	}
}
