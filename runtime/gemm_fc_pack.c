/* gemm_fc_pack.c - packs the constant right operand of a fully-connected
 * layer (Gemm or MatMul with constant 2-D B) for gemm_fc.c, at compile time.
 * Library build only: dnncc writes the packed panels into the weights blob.
 * Layout (sgemm.h): ceil(N/NB) panels of [K][NB] (the last one narrower:
 * whole vectors), columns past N zero, so that the kernel streams every
 * weight once, front to back, whatever transB was. */
#include "runtime/sgemm.h"

void rt_gemm_fc_pack(int isa, int N, int K,
                     const float *b, /* B(k, j) at b[k*rsb + j*csb], [K, N] */
                     size_t rsb, size_t csb,
                     float *bp) /* out: ceil(N/NB) panels [K][W] (sgemm.h) */
{
	const int nb = RT_FC_NB(isa), vl = nb / 4;
	for (int j0 = 0; j0 < N; j0 += nb) {
		/* the last panel: its columns in whole vectors */
		const int w = N - j0 < nb ? (N - j0 + vl - 1) / vl * vl : nb;
		float *panel = bp + (size_t)j0 * K; /* [K][w] */
		for (int j = 0; j < w; j++) {
			if (j0 + j < N) {
				const float *s = b + (size_t)(j0 + j) * csb; /* column j0 + j of B */
				for (int k = 0; k < K; k++)
					panel[(size_t)k * w + j] = s[(size_t)k * rsb];
			} else {
				for (int k = 0; k < K; k++)
					panel[(size_t)k * w + j] = 0.0f;
			}
		}
	}
}
