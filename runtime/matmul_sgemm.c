/* matmul_sgemm.c - ONNX MatMul (numpy.matmul) of two activations on dnncc's
 * blocked SGEMM (sgemm.c; cblas_sgemm under --blas openblas): the attention
 * products of a transformer, Q K^T and softmax(.) V, per head. A MatMul with
 * a constant 2-D B runs gemm_fc.c instead (B packed at compile time).
 *
 * Same contract as rt_matmul (matmul.c, the textbook loop this replaces
 * outside --strategy reference): the last two dims are matrices, the batch
 * dims broadcast with whole-matrix strides batch->sa and batch->sb (0 on a
 * broadcast dim), and a 1-D operand comes as a [1, K] or [K, 1] matrix.
 * Every output matrix is one rt_sgemm call, which packs its B into the
 * workspace and splits itself over the threads when it is large enough;
 * each element's sum is the micro-kernel's, whatever the thread count.
 * Sums run in the SGEMM's order (K in KC slices, FMA where the ISA has it),
 * not the textbook's, so results differ from rt_matmul's in the last bits. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

RT_FN void rt_matmul_sgemm(const struct rt_bcast *batch, int M, int N, int K,
                           int isa,        /* RT_SGEMM_ISA_* (generated code: RT_SGEMM_ISA) */
                           const float *a, /* [a's batch..., M, K] */
                           const float *b, /* [b's batch..., K, N] */
                           float *y,       /* out: [batch->dims..., M, N] */
                           void *ws)       /* rt_sgemm_workspace_size(isa, M, N, K) bytes */
{
	int idx[RT_MAX_RANK] = {0}; /* current batch index vector */
	ptrdiff_t ia = 0, ib = 0;   /* its a and b matrix offsets, in matrices */
	const size_t count = rt_bcast_count(batch); /* number of output matrices */
	const size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;

	for (size_t t = 0; t < count; t++) {
		rt_sgemm(isa, M, N, K, a + ia * mk, (size_t)K, 1, NULL, b + ib * kn, (size_t)N, 1,
		         y + t * mn, (size_t)N, 0, ws);
		rt_bcast_next(batch, idx, &ia, &ib); /* next index */
	}
}
