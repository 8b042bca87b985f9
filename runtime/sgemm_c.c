/* sgemm_c.c - portable C99 SGEMM micro-kernel: a 4 x 4 tile of C.
 *
 * Contract in sgemm.h (a micro-kernel). The 16 accumulators, 4 values of A
 * and 4 of B fit the 32 single-precision registers of a Cortex-M4F/M7, so the
 * k loop runs from registers; on other CPUs compilers may vectorise the rows.
 * It is the kernel for targets without a SIMD kernel and the fallback
 * everywhere. Rows past m repeat row 0 of A (never read past A), columns past
 * n come from the zero padding of the packed B panel; neither is stored. */
#include "runtime/sgemm.h"

RT_FN void rt_sgemm_kernel_c(int kc,
                             const float *a, /* A(i, k) at a[i*ars + k*acs], [m][kc] */
                             size_t ars, size_t acs,
                             const float *b, /* packed B panel, [kc][4] */
                             float *c,       /* out: C tile, [m][n], row stride ldc */
                             size_t ldc, int m, int n, int accumulate)
{
	/* rows of A; rows past m repeat row 0 */
	const float *a0 = a, *a1 = a + (m > 1 ? ars : 0), *a2 = a + (m > 2 ? 2 * ars : 0);
	const float *a3 = a + (m > 3 ? 3 * ars : 0);
	float t00 = 0.0f, t01 = 0.0f, t02 = 0.0f, t03 = 0.0f;
	float t10 = 0.0f, t11 = 0.0f, t12 = 0.0f, t13 = 0.0f;
	float t20 = 0.0f, t21 = 0.0f, t22 = 0.0f, t23 = 0.0f;
	float t30 = 0.0f, t31 = 0.0f, t32 = 0.0f, t33 = 0.0f;
	size_t ak = 0; /* offset of column k in every row */
	for (int k = 0; k < kc; k++, ak += acs) {
		const float b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
		const float x0 = a0[ak], x1 = a1[ak], x2 = a2[ak], x3 = a3[ak];
		t00 += x0 * b0, t01 += x0 * b1, t02 += x0 * b2, t03 += x0 * b3;
		t10 += x1 * b0, t11 += x1 * b1, t12 += x1 * b2, t13 += x1 * b3;
		t20 += x2 * b0, t21 += x2 * b1, t22 += x2 * b2, t23 += x2 * b3;
		t30 += x3 * b0, t31 += x3 * b1, t32 += x3 * b2, t33 += x3 * b3;
		b += 4;
	}
	const float t[4][4] = {{t00, t01, t02, t03}, {t10, t11, t12, t13},
	                       {t20, t21, t22, t23}, {t30, t31, t32, t33}};
	for (int i = 0; i < m; i++) {
		float *ci = c + (size_t)i * ldc; /* row i of C, [n] */
		for (int j = 0; j < n; j++)
			ci[j] = accumulate ? ci[j] + t[i][j] : t[i][j];
	}
}
