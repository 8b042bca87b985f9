/* matmul.c - batched matrix product, ONNX MatMul
 * (https://onnx.ai/onnx/operators/onnx__MatMul.html), numpy.matmul semantics:
 * the last two dims are matrices, the leading (batch) dims broadcast.
 *   y[i][r, s] = sum over k < K of a[ia][r, k] * b[ib][k, s]
 * for every batch index vector i of the dense output batch `batch->dims`,
 * with matrix offsets ia = sum(i[d] * sa[d]) and ib = sum(i[d] * sb[d])
 * (stride 0 on a broadcast dim); rank 0 is a single product. 1-D operands are
 * the caller's business: it passes them as [1, K] or [K, 1] matrices. Sums
 * accumulate in float in plain loop order. */
#include "runtime/rt_types.h"

RT_FN void rt_matmul(const struct rt_bcast *batch, int M, int N, int K,
                     const float *a, /* [a's batch..., M, K] */
                     const float *b, /* [b's batch..., K, N] */
                     float *y)       /* out: [batch->dims..., M, N] */
{
	int idx[RT_MAX_RANK] = {0}; /* current batch index vector */
	ptrdiff_t ia = 0, ib = 0;   /* its a and b matrix offsets, in matrices */
	const size_t count = rt_bcast_count(batch); /* number of output matrices */

	for (size_t t = 0; t < count; t++) {
		const float *am = a + ia * M * K; /* [M, K] */
		const float *bm = b + ib * K * N; /* [K, N] */
		float *ym = y + t * M * N;        /* [M, N] */
		for (int r = 0; r < M; r++) {
			for (int s = 0; s < N; s++) {
				float sum = 0.0f;
				for (int k = 0; k < K; k++)
					sum += am[(size_t)r * K + k] * bm[(size_t)k * N + s];
				ym[(size_t)r * N + s] = sum;
			}
		}
		rt_bcast_next(batch, idx, &ia, &ib); /* next index */
	}
}
