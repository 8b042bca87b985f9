/* layout_transpose.c - the matrix transpose the layout transforms are built
 * from (transforms.def):
 *   y[j*ldy + i] = x[i*ldx + j]   for i < r, j < c
 * CHW -> HWC transposes a C x (H*W) matrix, HCW -> HWC one C x W matrix per
 * row, CHW -> CHW16c a 16 x (H*W) matrix per channel block, and so on.
 *
 * How: the rows go in bands of 16 (AVX-512) or 8 (AVX2) and each band in
 * square tiles transposed inside registers, so every load and every store
 * moves a whole vector: a 16 x 16 tile is 16 loads, 64 two-source permutes
 * (log2(16) = 4 butterfly stages of 16) and 16 stores; an 8 x 8 tile 8 loads,
 * 24 shuffles and 8 stores. A band reads 16 rows sequentially and writes
 * whole 64-byte runs of the output, so a large transpose streams at memory
 * speed. Ragged edges and other CPUs use a scalar loop over 8 x 8 blocks.
 * The SIMD paths are enabled by target attributes and chosen at run time
 * (__builtin_cpu_supports, which also checks that the OS saves the
 * registers); the file compiles to plain C elsewhere.
 *
 * This unit holds no RUN of its own: the layout_*.c transforms call it (as
 * rt_layout_transpose_mt, which cuts a large transpose into parts for the
 * threads, below) and name it in their deps. */
#include "runtime/rt_types.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define RT_LT_X86_ 1
#include <immintrin.h>
#else
#define RT_LT_X86_ 0
#endif

RT_FN void rt_layout_transpose(int r, int c, const float *x, size_t ldx, float *y, size_t ldy);
RT_FN void rt_layout_transpose_mt(int r, int c, const float *x, size_t ldx, float *y, size_t ldy);

/* Scalar: 8 x 8 blocks, so both sides are touched a cache line at a time. */
static inline void rt_lt_scalar_(int r, int c, const float *x, size_t ldx, float *y, size_t ldy)
{
	for (int i0 = 0; i0 < r; i0 += 8)
		for (int j0 = 0; j0 < c; j0 += 8) {
			const int i1 = r - i0 < 8 ? r : i0 + 8, j1 = c - j0 < 8 ? c : j0 + 8;
			for (int j = j0; j < j1; j++)
				for (int i = i0; i < i1; i++)
					y[(size_t)j * ldy + i] = x[(size_t)i * ldx + j];
		}
}

#if RT_LT_X86_
/* One 16 x 16 tile. Butterfly stage d (8, 4, 2, 1) swaps the off-diagonal
 * d x d blocks of every 2d x 2d block: rows i and i + d (i & d == 0) become
 *   row i:     j & d ? row_{i+d}[j - d] : row_i[j]
 *   row i + d: j & d ? row_{i+d}[j]     : row_i[j + d]
 * and after the four stages row j holds column j. */
static inline __attribute__((target("avx512f"))) void
rt_lt_tile16_(const float *x, size_t ldx, float *y, size_t ldy)
{
	const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	__m512 t[16];
#pragma GCC unroll 16
	for (int i = 0; i < 16; i++)
		t[i] = _mm512_loadu_ps(x + (size_t)i * ldx);
#pragma GCC unroll 4
	for (int d = 8; d > 0; d /= 2) {
		const __m512i vd = _mm512_set1_epi32(d), v16 = _mm512_set1_epi32(16);
		const __mmask16 hi = _mm512_test_epi32_mask(iota, vd); /* lanes j with j & d */
		/* two-source indices: 0..15 pick row i, 16..31 row i + d */
		const __m512i lo_idx = _mm512_mask_sub_epi32(iota, hi, _mm512_add_epi32(iota, v16), vd);
		const __m512i hi_idx = _mm512_mask_add_epi32(_mm512_add_epi32(iota, vd), hi, iota, v16);
#pragma GCC unroll 16
		for (int i = 0; i < 16; i++) {
			if (i & d)
				continue;
			const __m512 a = t[i], b = t[i + d];
			t[i] = _mm512_permutex2var_ps(a, lo_idx, b);
			t[i + d] = _mm512_permutex2var_ps(a, hi_idx, b);
		}
	}
#pragma GCC unroll 16
	for (int j = 0; j < 16; j++)
		_mm512_storeu_ps(y + (size_t)j * ldy, t[j]);
}

/* One 8 x 8 tile: the same three stages with AVX shuffles. */
static inline __attribute__((target("avx2"))) void
rt_lt_tile8_(const float *x, size_t ldx, float *y, size_t ldy)
{
	__m256 t[8], s[8];
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++)
		t[i] = _mm256_loadu_ps(x + (size_t)i * ldx);
	/* d = 4: 128-bit halves */
#pragma GCC unroll 4
	for (int i = 0; i < 4; i++) {
		s[i] = _mm256_permute2f128_ps(t[i], t[i + 4], 0x20);
		s[i + 4] = _mm256_permute2f128_ps(t[i], t[i + 4], 0x31);
	}
	/* d = 2: 64-bit pairs within each half */
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++) {
		if (i & 2)
			continue;
		t[i] = _mm256_shuffle_ps(s[i], s[i + 2], 0x44);
		t[i + 2] = _mm256_shuffle_ps(s[i], s[i + 2], 0xEE);
	}
	/* d = 1: single lanes */
#pragma GCC unroll 8
	for (int i = 0; i < 8; i += 2) {
		s[i] = _mm256_blend_ps(t[i], _mm256_moveldup_ps(t[i + 1]), 0xAA);
		s[i + 1] = _mm256_blend_ps(_mm256_movehdup_ps(t[i]), t[i + 1], 0xAA);
	}
#pragma GCC unroll 8
	for (int j = 0; j < 8; j++)
		_mm256_storeu_ps(y + (size_t)j * ldy, s[j]);
}

/* A band of 16 rows: whole tiles, 8 x 8 tiles for 8 of the columns left
 * over, then the rest. */
static inline __attribute__((target("avx512f"))) void
rt_lt_band16_(int c, const float *x, size_t ldx, float *y, size_t ldy)
{
	int j = 0;
	for (; j + 16 <= c; j += 16)
		rt_lt_tile16_(x + j, ldx, y + (size_t)j * ldy, ldy);
	if (j + 8 <= c) {
		rt_lt_tile8_(x + j, ldx, y + (size_t)j * ldy, ldy);
		rt_lt_tile8_(x + 8 * ldx + j, ldx, y + (size_t)j * ldy + 8, ldy);
		j += 8;
	}
	rt_lt_scalar_(16, c - j, x + j, ldx, y + (size_t)j * ldy, ldy);
}

static inline __attribute__((target("avx2"))) void
rt_lt_band8_(int c, const float *x, size_t ldx, float *y, size_t ldy)
{
	int j = 0;
	for (; j + 8 <= c; j += 8)
		rt_lt_tile8_(x + j, ldx, y + (size_t)j * ldy, ldy);
	rt_lt_scalar_(8, c - j, x + j, ldx, y + (size_t)j * ldy, ldy);
}
#endif

RT_FN void rt_layout_transpose(int r, int c,
                               const float *x, /* [r] rows of [c], row stride ldx */
                               size_t ldx,
                               float *y,       /* out: [c] rows of [r], row stride ldy */
                               size_t ldy)
{
	int i = 0;
#if RT_LT_X86_
	/* the widest tile that fits the columns too */
	if (c >= 16 && __builtin_cpu_supports("avx512f"))
		for (; i + 16 <= r; i += 16)
			rt_lt_band16_(c, x + (size_t)i * ldx, ldx, y + i, ldy);
	if (c >= 8 && __builtin_cpu_supports("avx2"))
		for (; i + 8 <= r; i += 8)
			rt_lt_band8_(c, x + (size_t)i * ldx, ldx, y + i, ldy);
#endif
	rt_lt_scalar_(r - i, c, x + (size_t)i * ldx, ldx, y + i, ldy);
}

/* rt_layout_transpose_mt: the same transpose cut into RT_PARALLEL_ITEMS
 * parts along its longer side, at multiples of 16, for rt_parallel. A part
 * is a transpose of its own rows (or columns), so what lands where does not
 * depend on the cut or on the thread count. */
struct rt_lt_job_ {
	int r, c, rows; /* rows: cut the rows of x, else its columns */
	const float *x;
	size_t ldx;
	float *y;
	size_t ldy;
};

static void rt_lt_parts_(void *ctx, int begin, int end)
{
	const struct rt_lt_job_ *j = ctx;
	const int n = j->rows ? j->r : j->c, units = (n + 15) / 16;
	const int a = 16 * (int)((long long)units * begin / RT_PARALLEL_ITEMS);
	int b = 16 * (int)((long long)units * end / RT_PARALLEL_ITEMS);
	b = b < n ? b : n;
	if (a >= b)
		return;
	if (j->rows)
		rt_layout_transpose(b - a, j->c, j->x + (size_t)a * j->ldx, j->ldx, j->y + a, j->ldy);
	else
		rt_layout_transpose(j->r, b - a, j->x + a, j->ldx, j->y + (size_t)a * j->ldy, j->ldy);
}

/* A transpose counts twice RT_PARALLEL_COPY_UNITS an element: one side is
 * strided, and ResNet-50's 256 x 14 x 14 HWC <-> CHW ran 1-1.5 elements per
 * ns (17-53 us, 15 of them a call, serial at 2 threads under 16 units). */
RT_FN void rt_layout_transpose_mt(int r, int c, const float *x, size_t ldx, float *y, size_t ldy)
{
	struct rt_lt_job_ j = {r, c, r >= c, x, ldx, y, ldy};
	if (2.0 * RT_PARALLEL_COPY_UNITS * r * c < RT_PARALLEL_MIN_WORK)
		rt_layout_transpose(r, c, x, ldx, y, ldy);
	else
		rt_parallel(rt_lt_parts_, &j, RT_PARALLEL_ITEMS);
}
