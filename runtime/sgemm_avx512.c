/* sgemm_avx512.c - SGEMM micro-kernel for AVX-512F: an 8 x 48 tile of C.
 *
 * Contract in sgemm.h (a micro-kernel). Each k step loads one row of the
 * packed B panel as three zmm vectors (48 floats), broadcasts the 8 values of
 * column k of A (one load from each of 8 row pointers, indexed by one offset,
 * so packed and unpacked A cost the same), and does 24 FMAs into 24 zmm
 * accumulators; with the 3 B vectors and the broadcast that is 28 of the 32
 * zmm registers. The 11 loads per 24 FMAs leave the two FMA ports as the
 * bound.
 *
 * Edges: a tile narrower than 48 columns computes only the 16-wide vectors
 * it needs (1, 2 or 3: an edge of N = 50 costs 64 columns, not 96), and stores
 * use the AVX-512 write masks, so nothing outside C is read or written. Rows
 * past m repeat row 0 of A (never read past A) and are not stored. An edge
 * of at most 4 columns with A packed goes down the rows instead
 * (rt_sgemm_avx512_cols_).
 *
 * SIMD is enabled by target attributes only; the file is empty unless the
 * compiler is GCC or Clang targeting x86-64. */
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_AVX512
#include <immintrin.h>

/* Mask of the first r lanes of a 16-float vector (r may be <= 0 or > 16). */
static inline __attribute__((always_inline, target("avx512f"))) __mmask16
rt_sgemm_avx512_mask_(int r)
{
	return (__mmask16)(r >= 16 ? 0xFFFF : r <= 0 ? 0 : (1u << r) - 1u);
}

/* Stores (or adds into) one row of the tile: nv vectors, n columns. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_sgemm_avx512_row_(float *c, /* one row of C, [n] */
                     int nv, int n, int accumulate, __m512 v0, __m512 v1, __m512 v2)
{
	const __mmask16 k0 = rt_sgemm_avx512_mask_(n);
	const __mmask16 k1 = rt_sgemm_avx512_mask_(n - 16);
	const __mmask16 k2 = rt_sgemm_avx512_mask_(n - 32);
	if (accumulate) {
		v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(k0, c));
		if (nv > 1)
			v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(k1, c + 16));
		if (nv > 2)
			v2 = _mm512_add_ps(v2, _mm512_maskz_loadu_ps(k2, c + 32));
	}
	_mm512_mask_storeu_ps(c, k0, v0);
	if (nv > 1)
		_mm512_mask_storeu_ps(c + 16, k1, v1);
	if (nv > 2)
		_mm512_mask_storeu_ps(c + 32, k2, v2);
}

/* The tile with nv (1..3, a constant after inlining) vectors per row. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_sgemm_avx512_tile_(int nv, int kc,
                      const float *a, /* A(i, k) at a[i*ars + k*acs], [m][kc] */
                      size_t ars, size_t acs,
                      const float *b, /* packed B panel, [kc][48] */
                      float *c,       /* out: C tile, [m][n], row stride ldc */
                      size_t ldc, int m, int n, int accumulate)
{
	__m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00;
	__m512 c10 = c00, c11 = c00, c12 = c00;
	__m512 c20 = c00, c21 = c00, c22 = c00;
	__m512 c30 = c00, c31 = c00, c32 = c00;
	__m512 c40 = c00, c41 = c00, c42 = c00;
	__m512 c50 = c00, c51 = c00, c52 = c00;
	__m512 c60 = c00, c61 = c00, c62 = c00;
	__m512 c70 = c00, c71 = c00, c72 = c00;
	/* rows of A; rows past m repeat row 0 */
	const float *a0 = a, *a1 = a + (m > 1 ? ars : 0), *a2 = a + (m > 2 ? 2 * ars : 0);
	const float *a3 = a + (m > 3 ? 3 * ars : 0), *a4 = a + (m > 4 ? 4 * ars : 0);
	const float *a5 = a + (m > 5 ? 5 * ars : 0), *a6 = a + (m > 6 ? 6 * ars : 0);
	const float *a7 = a + (m > 7 ? 7 * ars : 0);
	/* the tile of C is read or written only after the k loop: fetch its
	 * lines now (a row of nv vectors spans nv or nv + 1 lines) */
	for (int i = 0; i < m; i++) {
		const char *ci = (const char *)(c + (size_t)i * ldc);
		_mm_prefetch(ci, _MM_HINT_T0);
		if (nv > 1)
			_mm_prefetch(ci + 64, _MM_HINT_T0);
		if (nv > 2)
			_mm_prefetch(ci + 128, _MM_HINT_T0);
		_mm_prefetch(ci + 64 * nv - 1, _MM_HINT_T0);
	}
	size_t ak = 0; /* offset of column k in every row */
	for (int k = 0; k < kc; k++, ak += acs) {
		const __m512 b0 = _mm512_loadu_ps(b);
		const __m512 b1 = nv > 1 ? _mm512_loadu_ps(b + 16) : b0;
		const __m512 b2 = nv > 2 ? _mm512_loadu_ps(b + 32) : b0;
		__m512 ai;
		ai = _mm512_set1_ps(a0[ak]);
		c00 = _mm512_fmadd_ps(ai, b0, c00);
		if (nv > 1) c01 = _mm512_fmadd_ps(ai, b1, c01);
		if (nv > 2) c02 = _mm512_fmadd_ps(ai, b2, c02);
		ai = _mm512_set1_ps(a1[ak]);
		c10 = _mm512_fmadd_ps(ai, b0, c10);
		if (nv > 1) c11 = _mm512_fmadd_ps(ai, b1, c11);
		if (nv > 2) c12 = _mm512_fmadd_ps(ai, b2, c12);
		ai = _mm512_set1_ps(a2[ak]);
		c20 = _mm512_fmadd_ps(ai, b0, c20);
		if (nv > 1) c21 = _mm512_fmadd_ps(ai, b1, c21);
		if (nv > 2) c22 = _mm512_fmadd_ps(ai, b2, c22);
		ai = _mm512_set1_ps(a3[ak]);
		c30 = _mm512_fmadd_ps(ai, b0, c30);
		if (nv > 1) c31 = _mm512_fmadd_ps(ai, b1, c31);
		if (nv > 2) c32 = _mm512_fmadd_ps(ai, b2, c32);
		ai = _mm512_set1_ps(a4[ak]);
		c40 = _mm512_fmadd_ps(ai, b0, c40);
		if (nv > 1) c41 = _mm512_fmadd_ps(ai, b1, c41);
		if (nv > 2) c42 = _mm512_fmadd_ps(ai, b2, c42);
		ai = _mm512_set1_ps(a5[ak]);
		c50 = _mm512_fmadd_ps(ai, b0, c50);
		if (nv > 1) c51 = _mm512_fmadd_ps(ai, b1, c51);
		if (nv > 2) c52 = _mm512_fmadd_ps(ai, b2, c52);
		ai = _mm512_set1_ps(a6[ak]);
		c60 = _mm512_fmadd_ps(ai, b0, c60);
		if (nv > 1) c61 = _mm512_fmadd_ps(ai, b1, c61);
		if (nv > 2) c62 = _mm512_fmadd_ps(ai, b2, c62);
		ai = _mm512_set1_ps(a7[ak]);
		c70 = _mm512_fmadd_ps(ai, b0, c70);
		if (nv > 1) c71 = _mm512_fmadd_ps(ai, b1, c71);
		if (nv > 2) c72 = _mm512_fmadd_ps(ai, b2, c72);
		b += 48;
	}
	rt_sgemm_avx512_row_(c, nv, n, accumulate, c00, c01, c02);
	if (m > 1) rt_sgemm_avx512_row_(c + ldc, nv, n, accumulate, c10, c11, c12);
	if (m > 2) rt_sgemm_avx512_row_(c + 2 * ldc, nv, n, accumulate, c20, c21, c22);
	if (m > 3) rt_sgemm_avx512_row_(c + 3 * ldc, nv, n, accumulate, c30, c31, c32);
	if (m > 4) rt_sgemm_avx512_row_(c + 4 * ldc, nv, n, accumulate, c40, c41, c42);
	if (m > 5) rt_sgemm_avx512_row_(c + 5 * ldc, nv, n, accumulate, c50, c51, c52);
	if (m > 6) rt_sgemm_avx512_row_(c + 6 * ldc, nv, n, accumulate, c60, c61, c62);
	if (m > 7) rt_sgemm_avx512_row_(c + 7 * ldc, nv, n, accumulate, c70, c71, c72);
}

/* One column of the narrow edge: the lane i of sum u (four partial sums over
 * k mod 4, so that four FMAs are in flight) is C(i, j). */
#define RT_SGEMM_AVX512_COL_FMA_(j, u)                                           \
	if (nc > j)                                                              \
		s##j##u = _mm256_fmadd_ps(a##u, _mm256_set1_ps(b[(size_t)(k + u) * 48 + j]), s##j##u);

/* The last nc (1..4, a constant after inlining) columns of C when A is packed
 * (eight rows, contiguous at each k): vectors run down the rows instead, one
 * 8-lane FMA per column and k, rather than a 16-column tile of which nc are
 * wanted (N = 49 = 48 + 1 spent a third of the tile's FMAs on one column; a
 * Winograd block of 49 tiles is such a GEMM). Rows past m are not loaded. */
static inline __attribute__((always_inline, target("avx512f,avx512vl,avx2,fma"))) void
rt_sgemm_avx512_cols_(int nc, int kc,
                      const float *a, /* packed A panel, (i, k) at a[k*8 + i] */
                      const float *b, /* packed B panel, [kc][48] */
                      float *c, size_t ldc, int m, int accumulate)
{
	const __mmask8 km = (__mmask8)(m >= 8 ? 0xFF : (1u << m) - 1u);
	__m256 s00 = _mm256_setzero_ps(), s01 = s00, s02 = s00, s03 = s00;
	__m256 s10 = s00, s11 = s00, s12 = s00, s13 = s00;
	__m256 s20 = s00, s21 = s00, s22 = s00, s23 = s00;
	__m256 s30 = s00, s31 = s00, s32 = s00, s33 = s00;
	int k = 0;
	for (; k + 4 <= kc; k += 4) {
		const __m256 a0 = _mm256_maskz_loadu_ps(km, a + (size_t)k * 8);
		const __m256 a1 = _mm256_maskz_loadu_ps(km, a + (size_t)(k + 1) * 8);
		const __m256 a2 = _mm256_maskz_loadu_ps(km, a + (size_t)(k + 2) * 8);
		const __m256 a3 = _mm256_maskz_loadu_ps(km, a + (size_t)(k + 3) * 8);
		RT_SGEMM_AVX512_COL_FMA_(0, 0) RT_SGEMM_AVX512_COL_FMA_(0, 1)
		RT_SGEMM_AVX512_COL_FMA_(0, 2) RT_SGEMM_AVX512_COL_FMA_(0, 3)
		RT_SGEMM_AVX512_COL_FMA_(1, 0) RT_SGEMM_AVX512_COL_FMA_(1, 1)
		RT_SGEMM_AVX512_COL_FMA_(1, 2) RT_SGEMM_AVX512_COL_FMA_(1, 3)
		RT_SGEMM_AVX512_COL_FMA_(2, 0) RT_SGEMM_AVX512_COL_FMA_(2, 1)
		RT_SGEMM_AVX512_COL_FMA_(2, 2) RT_SGEMM_AVX512_COL_FMA_(2, 3)
		RT_SGEMM_AVX512_COL_FMA_(3, 0) RT_SGEMM_AVX512_COL_FMA_(3, 1)
		RT_SGEMM_AVX512_COL_FMA_(3, 2) RT_SGEMM_AVX512_COL_FMA_(3, 3)
	}
	for (; k < kc; k++) { /* the last kc mod 4, into sum 0 */
		const __m256 a0 = _mm256_maskz_loadu_ps(km, a + (size_t)k * 8);
		RT_SGEMM_AVX512_COL_FMA_(0, 0)
		RT_SGEMM_AVX512_COL_FMA_(1, 0)
		RT_SGEMM_AVX512_COL_FMA_(2, 0)
		RT_SGEMM_AVX512_COL_FMA_(3, 0)
	}
	float col[4][8];
	_mm256_storeu_ps(col[0], _mm256_add_ps(_mm256_add_ps(s00, s01), _mm256_add_ps(s02, s03)));
	if (nc > 1)
		_mm256_storeu_ps(col[1], _mm256_add_ps(_mm256_add_ps(s10, s11), _mm256_add_ps(s12, s13)));
	if (nc > 2)
		_mm256_storeu_ps(col[2], _mm256_add_ps(_mm256_add_ps(s20, s21), _mm256_add_ps(s22, s23)));
	if (nc > 3)
		_mm256_storeu_ps(col[3], _mm256_add_ps(_mm256_add_ps(s30, s31), _mm256_add_ps(s32, s33)));
	for (int i = 0; i < m; i++)
		for (int j = 0; j < nc; j++)
			c[(size_t)i * ldc + j] = accumulate ? c[(size_t)i * ldc + j] + col[j][i] : col[j][i];
}

RT_FN __attribute__((target("avx512f,avx512vl,avx2,fma"))) void
rt_sgemm_kernel_avx512(int kc,
                       const float *a, /* A(i, k) at a[i*ars + k*acs], [m][kc] */
                       size_t ars, size_t acs,
                       const float *b, /* packed B panel, [kc][48] */
                       float *c,       /* out: C tile, [m][n], row stride ldc */
                       size_t ldc, int m, int n, int accumulate)
{
	if (n <= 4 && ars == 1 && acs == 8) { /* A packed (or laid out alike) */
		if (n == 1)
			rt_sgemm_avx512_cols_(1, kc, a, b, c, ldc, m, accumulate);
		else if (n == 2)
			rt_sgemm_avx512_cols_(2, kc, a, b, c, ldc, m, accumulate);
		else if (n == 3)
			rt_sgemm_avx512_cols_(3, kc, a, b, c, ldc, m, accumulate);
		else
			rt_sgemm_avx512_cols_(4, kc, a, b, c, ldc, m, accumulate);
	} else if (n > 32)
		rt_sgemm_avx512_tile_(3, kc, a, ars, acs, b, c, ldc, m, n, accumulate);
	else if (n > 16)
		rt_sgemm_avx512_tile_(2, kc, a, ars, acs, b, c, ldc, m, n, accumulate);
	else
		rt_sgemm_avx512_tile_(1, kc, a, ars, acs, b, c, ldc, m, n, accumulate);
}

#endif
