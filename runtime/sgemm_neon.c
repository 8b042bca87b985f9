/* sgemm_neon.c - SGEMM micro-kernel for AArch64 Advanced SIMD: an 8 x 12 tile.
 *
 * Contract in sgemm.h (a micro-kernel). Each k step loads one row of the
 * packed B panel as three q vectors (12 floats) and column k of A as two (8
 * consecutive floats when A's rows are adjacent, as in packed A or a
 * transposed A; else 8 single loads), and does 24 lane-indexed FMAs (FMLA by
 * element) into 24 q accumulators: 29 of the 32 vector registers.
 *
 * Edges: a full tile is stored directly; a partial one (m < 8 or n < 12) goes
 * through a tile on the stack and only its m x n part is added or copied, so
 * nothing outside C is read or written. Rows past m repeat row 0 of A (never
 * read past A).
 *
 * Advanced SIMD is part of the AArch64 base architecture, so no attributes are
 * needed; the file is empty unless the compiler is GCC or Clang targeting
 * AArch64. */
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_NEON
#include <arm_neon.h>

/* Stores (or adds into) one row of 12: three q vectors. */
static inline void rt_sgemm_neon_row_(float *c, /* one row of C, [12] */
                                      int accumulate, float32x4_t v0, float32x4_t v1,
                                      float32x4_t v2)
{
	if (accumulate) {
		v0 = vaddq_f32(v0, vld1q_f32(c));
		v1 = vaddq_f32(v1, vld1q_f32(c + 4));
		v2 = vaddq_f32(v2, vld1q_f32(c + 8));
	}
	vst1q_f32(c, v0);
	vst1q_f32(c + 4, v1);
	vst1q_f32(c + 8, v2);
}

RT_FN void rt_sgemm_kernel_neon(int kc,
                                const float *a, /* A(i, k) at a[i*ars + k*acs], [m][kc] */
                                size_t ars, size_t acs,
                                const float *b, /* packed B panel, [kc][12] */
                                float *c,       /* out: C tile, [m][n], row stride ldc */
                                size_t ldc, int m, int n, int accumulate)
{
	float32x4_t c00 = vdupq_n_f32(0.0f), c01 = c00, c02 = c00;
	float32x4_t c10 = c00, c11 = c00, c12 = c00;
	float32x4_t c20 = c00, c21 = c00, c22 = c00;
	float32x4_t c30 = c00, c31 = c00, c32 = c00;
	float32x4_t c40 = c00, c41 = c00, c42 = c00;
	float32x4_t c50 = c00, c51 = c00, c52 = c00;
	float32x4_t c60 = c00, c61 = c00, c62 = c00;
	float32x4_t c70 = c00, c71 = c00, c72 = c00;
	/* rows of A; rows past m repeat row 0 */
	const float *r0 = a, *r1 = a + (m > 1 ? ars : 0), *r2 = a + (m > 2 ? 2 * ars : 0);
	const float *r3 = a + (m > 3 ? 3 * ars : 0), *r4 = a + (m > 4 ? 4 * ars : 0);
	const float *r5 = a + (m > 5 ? 5 * ars : 0), *r6 = a + (m > 6 ? 6 * ars : 0);
	const float *r7 = a + (m > 7 ? 7 * ars : 0);
	const int adjacent = ars == 1 && m == 8; /* column k is a[k*acs .. k*acs+7] */
	size_t ak = 0; /* offset of column k in every row */
	for (int k = 0; k < kc; k++, ak += acs) {
		const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8);
		float32x4_t a0, a1;
		if (adjacent) {
			a0 = vld1q_f32(a + ak);
			a1 = vld1q_f32(a + ak + 4);
		} else {
			const float x0[4] = {r0[ak], r1[ak], r2[ak], r3[ak]};
			const float x1[4] = {r4[ak], r5[ak], r6[ak], r7[ak]};
			a0 = vld1q_f32(x0);
			a1 = vld1q_f32(x1);
		}
		c00 = vfmaq_laneq_f32(c00, b0, a0, 0);
		c01 = vfmaq_laneq_f32(c01, b1, a0, 0);
		c02 = vfmaq_laneq_f32(c02, b2, a0, 0);
		c10 = vfmaq_laneq_f32(c10, b0, a0, 1);
		c11 = vfmaq_laneq_f32(c11, b1, a0, 1);
		c12 = vfmaq_laneq_f32(c12, b2, a0, 1);
		c20 = vfmaq_laneq_f32(c20, b0, a0, 2);
		c21 = vfmaq_laneq_f32(c21, b1, a0, 2);
		c22 = vfmaq_laneq_f32(c22, b2, a0, 2);
		c30 = vfmaq_laneq_f32(c30, b0, a0, 3);
		c31 = vfmaq_laneq_f32(c31, b1, a0, 3);
		c32 = vfmaq_laneq_f32(c32, b2, a0, 3);
		c40 = vfmaq_laneq_f32(c40, b0, a1, 0);
		c41 = vfmaq_laneq_f32(c41, b1, a1, 0);
		c42 = vfmaq_laneq_f32(c42, b2, a1, 0);
		c50 = vfmaq_laneq_f32(c50, b0, a1, 1);
		c51 = vfmaq_laneq_f32(c51, b1, a1, 1);
		c52 = vfmaq_laneq_f32(c52, b2, a1, 1);
		c60 = vfmaq_laneq_f32(c60, b0, a1, 2);
		c61 = vfmaq_laneq_f32(c61, b1, a1, 2);
		c62 = vfmaq_laneq_f32(c62, b2, a1, 2);
		c70 = vfmaq_laneq_f32(c70, b0, a1, 3);
		c71 = vfmaq_laneq_f32(c71, b1, a1, 3);
		c72 = vfmaq_laneq_f32(c72, b2, a1, 3);
		b += 12;
	}
	if (m == 8 && n == 12) {
		rt_sgemm_neon_row_(c, accumulate, c00, c01, c02);
		rt_sgemm_neon_row_(c + ldc, accumulate, c10, c11, c12);
		rt_sgemm_neon_row_(c + 2 * ldc, accumulate, c20, c21, c22);
		rt_sgemm_neon_row_(c + 3 * ldc, accumulate, c30, c31, c32);
		rt_sgemm_neon_row_(c + 4 * ldc, accumulate, c40, c41, c42);
		rt_sgemm_neon_row_(c + 5 * ldc, accumulate, c50, c51, c52);
		rt_sgemm_neon_row_(c + 6 * ldc, accumulate, c60, c61, c62);
		rt_sgemm_neon_row_(c + 7 * ldc, accumulate, c70, c71, c72);
		return;
	}
	float t[8][12]; /* the whole tile, then its m x n part goes to C */
	rt_sgemm_neon_row_(t[0], 0, c00, c01, c02);
	rt_sgemm_neon_row_(t[1], 0, c10, c11, c12);
	rt_sgemm_neon_row_(t[2], 0, c20, c21, c22);
	rt_sgemm_neon_row_(t[3], 0, c30, c31, c32);
	rt_sgemm_neon_row_(t[4], 0, c40, c41, c42);
	rt_sgemm_neon_row_(t[5], 0, c50, c51, c52);
	rt_sgemm_neon_row_(t[6], 0, c60, c61, c62);
	rt_sgemm_neon_row_(t[7], 0, c70, c71, c72);
	for (int i = 0; i < m; i++) {
		float *ci = c + (size_t)i * ldc; /* row i of C, [n] */
		for (int j = 0; j < n; j++)
			ci[j] = accumulate ? ci[j] + t[i][j] : t[i][j];
	}
}

#endif
