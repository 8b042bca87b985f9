/* gemm_ref.c - general matrix multiply, the textbook reference.
 *
 * Computes ONNX Gemm (https://onnx.ai/onnx/operators/onnx__Gemm.html) with a
 * fused activation epilogue:
 *   y[m, n] = act(alpha * sum over k < K of A[m, k] * B[k, n] + beta * C[m, n])
 * where A = a or a transposed (transA), B = b or b transposed (transB), and C
 * is read through strides so that any unidirectional broadcast of C to
 * [M, N] (scalar, row, column, full) is a choice of c_sm and c_sn. Without C
 * the beta term is absent. Sums accumulate in float in plain loop order. */
#include "runtime/rt_types.h"

RT_FN void rt_gemm_ref(const struct rt_gemm *p,
                       const float *a, /* [M, K], or [K, M] if transA */
                       const float *b, /* [K, N], or [N, K] if transB */
                       const float *c, /* C[m, n] at c[m*c_sm + n*c_sn], or NULL */
                       float *y)       /* out: [M, N] */
{
	for (int m = 0; m < p->M; m++) {
		for (int n = 0; n < p->N; n++) {
			float sum = 0.0f;
			for (int k = 0; k < p->K; k++) {
				const float av = p->transA ? a[(size_t)k * p->M + m] : a[(size_t)m * p->K + k];
				const float bv = p->transB ? b[(size_t)n * p->K + k] : b[(size_t)k * p->N + n];
				sum += av * bv;
			}
			sum *= p->alpha;
			if (c)
				sum += p->beta * c[(size_t)m * p->c_sm + (size_t)n * p->c_sn];
			y[(size_t)m * p->N + n] = rt_act_apply(p->act, p->act_alpha, p->act_beta, sum);
		}
	}
}
