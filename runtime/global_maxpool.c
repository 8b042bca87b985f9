/* global_maxpool.c - ONNX GlobalMaxPool
 * (https://onnx.ai/onnx/operators/onnx__GlobalMaxPool.html): the maximum of
 * each channel's spatial plane, y[nc] = max over k < HW of x[nc, k]. */
#include "runtime/rt_types.h"

RT_FN void rt_global_maxpool(int nc, int hw,
                             const float *x, /* [N*C, H*W] */
                             float *y)       /* out: [N*C] */
{
	for (int i = 0; i < nc; i++) {
		const float *xi = x + (size_t)i * hw; /* [H*W] */
		float best = -INFINITY;
		for (int k = 0; k < hw; k++)
			if (xi[k] > best)
				best = xi[k];
		y[i] = best;
	}
}
