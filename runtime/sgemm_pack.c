/* sgemm_pack.c - packs a whole A matrix for rt_sgemm (sgemm.h).
 *
 * Convolution weights are constants, so dnncc packs them once, at compile
 * time and for the target's ISA, and the generated code passes them to
 * rt_sgemm as `ap`: the A side then costs no packing at run time. The layout
 * depends only on the ISA's MR: ceil(M/MR) panels of [K][MR], rows past M
 * zero (see sgemm.h). */
#include "runtime/sgemm.h"

RT_FN void rt_sgemm_pack_a(int isa, int M, int K,
                           const float *a, /* A(i, k) at a[i*rsa + k*csa], [M, K] */
                           size_t rsa, size_t csa,
                           float *ap) /* out: [ceil(M/MR)][K][MR] */
{
	const int mr = RT_SGEMM_MR(isa);
	for (int i0 = 0; i0 < M; i0 += mr) {
		float *panel = ap + (size_t)i0 * K; /* [K][mr] */
		for (int i = 0; i < mr; i++) {
			if (i0 + i < M) {
				const float *s = a + (size_t)(i0 + i) * rsa; /* row i0 + i of A */
				for (int k = 0; k < K; k++)
					panel[(size_t)k * mr + i] = s[(size_t)k * csa];
			} else {
				for (int k = 0; k < K; k++)
					panel[(size_t)k * mr + i] = 0.0f;
			}
		}
	}
}
