/* batchnorm.c - ONNX BatchNormalization in inference mode
 * (https://onnx.ai/onnx/operators/onnx__BatchNormalization.html) with
 * statistics read at run time (graph inputs or computed tensors; constant
 * statistics are folded into a Conv or lowered to Mul + Add by
 * passes/canonicalize.c instead):
 *   y[n, c, k] = (x[n, c, k] - mean[c]) / sqrt(var[c] + epsilon) * scale[c]
 *                + bias[c]
 * per channel c (dimension 1; k runs over the spatial positions). */
#include "runtime/rt_types.h"

RT_FN void rt_batchnorm(int N, int C, int HW, float epsilon,
                        const float *x,     /* [N, C, H*W] */
                        const float *scale, /* [C] gamma */
                        const float *bias,  /* [C] beta (ONNX's B) */
                        const float *mean,  /* [C] input_mean */
                        const float *var,   /* [C] input_var */
                        float *y)           /* out: [N, C, H*W]; may equal x */
{
	for (int c = 0; c < C; c++) {
		const float s = scale[c] / sqrtf(var[c] + epsilon);
		const float m = mean[c], b = bias[c];
		for (int n = 0; n < N; n++) {
			const float *xc = x + ((size_t)n * C + c) * HW; /* [H*W] */
			float *yc = y + ((size_t)n * C + c) * HW;       /* [H*W] */
			for (int k = 0; k < HW; k++)
				yc[k] = (xc[k] - m) * s + b;
		}
	}
}
