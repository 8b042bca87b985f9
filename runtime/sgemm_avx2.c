/* sgemm_avx2.c - SGEMM micro-kernel for AVX2 + FMA: a 6 x 16 tile of C.
 *
 * Contract in sgemm.h (a micro-kernel). Each k step loads one row of the
 * packed B panel as two ymm vectors (16 floats), broadcasts the 6 values of
 * column k of A (one load from each of 6 row pointers, indexed by one offset,
 * so packed and unpacked A cost the same), and does 12 FMAs into 12 ymm
 * accumulators: with the 2 B vectors and the broadcast, 15 of the 16 ymm
 * registers.
 *
 * Edges: a tile of at most 8 columns computes one vector per row instead of
 * two; stores go through vmaskmov with a lane mask, so nothing outside C is
 * read or written. Rows past m repeat row 0 of A (never read past A) and are
 * not stored.
 *
 * SIMD is enabled by target attributes only; the file is empty unless the
 * compiler is GCC or Clang targeting x86-64. */
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_AVX2
#include <immintrin.h>

/* Lane mask (all ones in lanes < r) of an 8-float vector. */
static inline __attribute__((always_inline, target("avx2,fma"))) __m256i
rt_sgemm_avx2_mask_(int r)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Stores (or adds into) one row of the tile: nv vectors, n columns. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_sgemm_avx2_row_(float *c, /* one row of C, [n] */
                   int nv, int n, int accumulate, __m256 v0, __m256 v1)
{
	if (n >= 8 * nv) {
		if (accumulate) {
			v0 = _mm256_add_ps(v0, _mm256_loadu_ps(c));
			if (nv > 1)
				v1 = _mm256_add_ps(v1, _mm256_loadu_ps(c + 8));
		}
		_mm256_storeu_ps(c, v0);
		if (nv > 1)
			_mm256_storeu_ps(c + 8, v1);
		return;
	}
	const __m256i k0 = rt_sgemm_avx2_mask_(n), k1 = rt_sgemm_avx2_mask_(n - 8);
	if (accumulate) {
		v0 = _mm256_add_ps(v0, _mm256_maskload_ps(c, k0));
		if (nv > 1)
			v1 = _mm256_add_ps(v1, _mm256_maskload_ps(c + 8, k1));
	}
	_mm256_maskstore_ps(c, k0, v0);
	if (nv > 1)
		_mm256_maskstore_ps(c + 8, k1, v1);
}

/* The tile with nv (1 or 2, a constant after inlining) vectors per row. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_sgemm_avx2_tile_(int nv, int kc,
                    const float *a, /* A(i, k) at a[i*ars + k*acs], [m][kc] */
                    size_t ars, size_t acs,
                    const float *b, /* packed B panel, [kc][16] */
                    float *c,       /* out: C tile, [m][n], row stride ldc */
                    size_t ldc, int m, int n, int accumulate)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = c00;
	__m256 c10 = c00, c11 = c00;
	__m256 c20 = c00, c21 = c00;
	__m256 c30 = c00, c31 = c00;
	__m256 c40 = c00, c41 = c00;
	__m256 c50 = c00, c51 = c00;
	/* rows of A; rows past m repeat row 0 */
	const float *a0 = a, *a1 = a + (m > 1 ? ars : 0), *a2 = a + (m > 2 ? 2 * ars : 0);
	const float *a3 = a + (m > 3 ? 3 * ars : 0), *a4 = a + (m > 4 ? 4 * ars : 0);
	const float *a5 = a + (m > 5 ? 5 * ars : 0);
	/* the tile of C is read or written only after the k loop: fetch its
	 * lines now (a row of nv vectors spans one or two lines) */
	for (int i = 0; i < m; i++) {
		const char *ci = (const char *)(c + (size_t)i * ldc);
		_mm_prefetch(ci, _MM_HINT_T0);
		_mm_prefetch(ci + 32 * nv - 1, _MM_HINT_T0);
	}
	size_t ak = 0; /* offset of column k in every row */
	for (int k = 0; k < kc; k++, ak += acs) {
		const __m256 b0 = _mm256_loadu_ps(b);
		const __m256 b1 = nv > 1 ? _mm256_loadu_ps(b + 8) : b0;
		__m256 ai;
		ai = _mm256_broadcast_ss(a0 + ak);
		c00 = _mm256_fmadd_ps(ai, b0, c00);
		if (nv > 1) c01 = _mm256_fmadd_ps(ai, b1, c01);
		ai = _mm256_broadcast_ss(a1 + ak);
		c10 = _mm256_fmadd_ps(ai, b0, c10);
		if (nv > 1) c11 = _mm256_fmadd_ps(ai, b1, c11);
		ai = _mm256_broadcast_ss(a2 + ak);
		c20 = _mm256_fmadd_ps(ai, b0, c20);
		if (nv > 1) c21 = _mm256_fmadd_ps(ai, b1, c21);
		ai = _mm256_broadcast_ss(a3 + ak);
		c30 = _mm256_fmadd_ps(ai, b0, c30);
		if (nv > 1) c31 = _mm256_fmadd_ps(ai, b1, c31);
		ai = _mm256_broadcast_ss(a4 + ak);
		c40 = _mm256_fmadd_ps(ai, b0, c40);
		if (nv > 1) c41 = _mm256_fmadd_ps(ai, b1, c41);
		ai = _mm256_broadcast_ss(a5 + ak);
		c50 = _mm256_fmadd_ps(ai, b0, c50);
		if (nv > 1) c51 = _mm256_fmadd_ps(ai, b1, c51);
		b += 16;
	}
	rt_sgemm_avx2_row_(c, nv, n, accumulate, c00, c01);
	if (m > 1) rt_sgemm_avx2_row_(c + ldc, nv, n, accumulate, c10, c11);
	if (m > 2) rt_sgemm_avx2_row_(c + 2 * ldc, nv, n, accumulate, c20, c21);
	if (m > 3) rt_sgemm_avx2_row_(c + 3 * ldc, nv, n, accumulate, c30, c31);
	if (m > 4) rt_sgemm_avx2_row_(c + 4 * ldc, nv, n, accumulate, c40, c41);
	if (m > 5) rt_sgemm_avx2_row_(c + 5 * ldc, nv, n, accumulate, c50, c51);
}

RT_FN __attribute__((target("avx2,fma"))) void
rt_sgemm_kernel_avx2(int kc,
                     const float *a, /* A(i, k) at a[i*ars + k*acs], [m][kc] */
                     size_t ars, size_t acs,
                     const float *b, /* packed B panel, [kc][16] */
                     float *c,       /* out: C tile, [m][n], row stride ldc */
                     size_t ldc, int m, int n, int accumulate)
{
	if (n > 8)
		rt_sgemm_avx2_tile_(2, kc, a, ars, acs, b, c, ldc, m, n, accumulate);
	else
		rt_sgemm_avx2_tile_(1, kc, a, ars, acs, b, c, ldc, m, n, accumulate);
}

#endif
