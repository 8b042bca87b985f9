/* global_avgpool.c - ONNX GlobalAveragePool
 * (https://onnx.ai/onnx/operators/onnx__GlobalAveragePool.html): the mean of
 * each channel's spatial plane, y[nc] = (sum over k < HW of x[nc, k]) / HW,
 * accumulated in float. */
#include "runtime/rt_types.h"

RT_FN void rt_global_avgpool(int nc, int hw,
                             const float *x, /* [N*C, H*W] */
                             float *y)       /* out: [N*C] */
{
	for (int i = 0; i < nc; i++) {
		const float *xi = x + (size_t)i * hw; /* [H*W] */
		float sum = 0.0f;
		for (int k = 0; k < hw; k++)
			sum += xi[k];
		y[i] = sum / (float)hw;
	}
}
