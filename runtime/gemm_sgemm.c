/* gemm_sgemm.c - Gemm on dnncc's blocked SGEMM (sgemm.c, or cblas_sgemm under
 * --blas openblas): the fully-connected layers with many rows (M >= 64),
 * where the register-blocked GEMM beats streaming the weights once per four
 * rows (gemm_fc.c), and every constant-B Gemm under --blas openblas.
 *
 * Textbook form as rt_gemm_ref (gemm_ref.c); A and B are read through their
 * strides (transA, transB), the SGEMM stores the product into y, and the
 * epilogue then applies alpha, beta * C (broadcast strides c_sm, c_sn) and
 * the fused activation in place, one pass over y. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

RT_FN void rt_gemm_sgemm(const struct rt_gemm *p,
                         int isa,        /* RT_SGEMM_ISA_* (generated code: RT_SGEMM_ISA) */
                         const float *a, /* [M, K], or [K, M] if transA */
                         const float *b, /* [K, N], or [N, K] if transB */
                         const float *c, /* C[m, n] at c[m*c_sm + n*c_sn], or NULL */
                         float *y,       /* out: [M, N] */
                         void *ws)       /* rt_sgemm_workspace_size(isa, M, N, K) bytes */
{
	const size_t M = (size_t)p->M, N = (size_t)p->N, K = (size_t)p->K;
	rt_sgemm(isa, p->M, p->N, p->K, a, p->transA ? 1 : K, p->transA ? M : 1, NULL, b,
	         p->transB ? 1 : N, p->transB ? K : 1, y, N, 0, ws);
	for (size_t m = 0; m < M; m++)
		for (size_t n = 0; n < N; n++) {
			float v = p->alpha * y[m * N + n];
			if (c)
				v += p->beta * c[m * (size_t)p->c_sm + n * (size_t)p->c_sn];
			y[m * N + n] = rt_act_apply(p->act, p->act_alpha, p->act_beta, v);
		}
}
