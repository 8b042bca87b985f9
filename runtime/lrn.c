/* lrn.c - local response normalization across channels, ONNX LRN
 * (https://onnx.ai/onnx/operators/onnx__LRN.html):
 *   square_sum[n, c, k] = sum of x[n, j, k]^2 over channels j in
 *       [max(0, c - floor((size-1)/2)), min(C-1, c + ceil((size-1)/2))]
 *   y[n, c, k] = x[n, c, k] / (bias + alpha / size * square_sum[n, c, k])^beta
 * (k runs over the spatial positions; the window is asymmetric for even size,
 * as the operator page says). */
#include "runtime/rt_types.h"

RT_FN void rt_lrn(int N, int C, int HW, int size, float alpha, float beta, float bias,
                  const float *x, /* [N, C, H*W] */
                  float *y)       /* out: [N, C, H*W]; must not overlap x */
{
	const int before = (size - 1) / 2;     /* floor((size-1)/2) channels below c */
	const int after = size - 1 - before;   /* ceil((size-1)/2) channels above c */
	const float scale = alpha / (float)size;

	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * C * HW; /* [C, H*W] */
		float *yn = y + (size_t)n * C * HW;       /* [C, H*W] */
		for (int c = 0; c < C; c++) {
			const int lo = c - before < 0 ? 0 : c - before;
			const int hi = c + after > C - 1 ? C - 1 : c + after;
			for (int k = 0; k < HW; k++) {
				float square_sum = 0.0f;
				for (int j = lo; j <= hi; j++) {
					const float v = xn[(size_t)j * HW + k];
					square_sum += v * v;
				}
				yn[(size_t)c * HW + k] = xn[(size_t)c * HW + k] /
				                         powf(bias + scale * square_sum, beta);
			}
		}
	}
}
