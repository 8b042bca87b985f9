/* typed_nll.c - ONNX NegativeLogLikelihoodLoss and, with log_softmax set,
 * SoftmaxCrossEntropyLoss (https://onnx.ai/onnx/operators/
 * onnx__NegativeLogLikelihoodLoss.html and onnx__SoftmaxCrossEntropyLoss.html).
 * x is [N, C, D] (D the product of the trailing dims, 1 if none), target
 * [N, D] class numbers, weight [C] or NULL. With log_softmax, x is first
 * replaced by log_softmax over C, written to logp when it is not NULL. Then
 * loss[n][d] = -x[n][t][d] * w[t] (0 where t == ignore_index); reduction 0
 * writes loss [N, D], 1 its sum, 2 the sum divided by the sum of w[t] over
 * the elements not ignored. */
#include <math.h>

#include "runtime/rt_typed.h"

RT_FN void rt_nll(const float *x,            /* [N, C, D] */
                  int tt, const void *target, /* [N, D] int64 or int32 */
                  const float *w,            /* [C] or NULL */
                  float *y,                  /* out: [N, D], or [1] when reduced */
                  float *logp,               /* out: [N, C, D] log_softmax(x), or NULL */
                  size_t N, size_t C, size_t D, int reduction, int has_ignore,
                  int64_t ignore_index, int log_softmax)
{
	double sum = 0.0, wsum = 0.0;
	for (size_t n = 0; n < N; n++) {
		for (size_t d = 0; d < D; d++) {
			const float *row = x + n * C * D + d; /* stride D */
			double lse = 0.0;
			if (log_softmax) {
				double m = row[0];
				for (size_t c = 1; c < C; c++)
					m = row[c * D] > m ? row[c * D] : m;
				double s = 0.0;
				for (size_t c = 0; c < C; c++)
					s += exp(row[c * D] - m);
				lse = m + log(s);
				if (logp)
					for (size_t c = 0; c < C; c++)
						logp[n * C * D + c * D + d] = (float)(row[c * D] - lse);
			}
			int64_t t = rt_ld_i(tt, target, n * D + d);
			double l = 0.0, wt = 0.0;
			if (!(has_ignore && t == ignore_index) && t >= 0 && (size_t)t < C) {
				wt = w ? w[t] : 1.0;
				l = -((double)row[(size_t)t * D] - lse) * wt;
			}
			if (reduction == 0)
				y[n * D + d] = (float)l;
			sum += l;
			wsum += wt;
		}
	}
	if (reduction == 1)
		y[0] = (float)sum;
	else if (reduction == 2)
		y[0] = (float)(wsum != 0.0 ? sum / wsum : sum / 0.0);
}
