/* unary_vec.c - the element-wise functions that need exp or erf, vectorised
 * over the SIMD layer (rt_simd.h); textbook form: rt_unary_math
 * (unary_math.c), which evaluates each in double. fn is an enum rt_math_fn:
 *   RT_MATH_SIGMOID       1 / (1 + exp(-x)), as exp(x) / (1 + exp(x)) for x < 0
 *                         (no overflow, subnormal results where they are due)
 *   RT_MATH_EXP           exp(x)
 *   RT_MATH_ERF           erf(x)
 *   RT_MATH_GELU          x / 2 * (1 + erf(x / sqrt(2)))
 *   RT_MATH_HARD_SIGMOID  max(0, min(1, alpha x + beta))
 *   RT_MATH_HARD_SWISH    x * max(0, min(1, x / 6 + 1 / 2))
 * (rt_unary_vec_has says which). Element order does not matter, so x and y
 * may be in any layout.
 *
 * exp(x): n = round(x log2(e)), r = x - n ln(2) with ln(2) split in two
 * (0.693359375, whose product with any n here is exact, and -2.12194440e-4),
 * so |r| <= ln(2)/2 + a little; exp(r) by its Taylor polynomial of degree 7
 * (truncation under 6e-9 relative), times 2^n built in the exponent field as
 * 2^(n/2) 2^(n - n/2), so that n from -150 to 128 neither overflows nor
 * underflows an intermediate: results below FLT_MIN come out subnormal and
 * exp(x) overflows to +inf where the float result does. x is clamped to
 * [-104, 89] first (exp is 0 below, +inf above, in float); the clamp keeps
 * a NaN (max/min return their second operand when one is NaN).
 * erf(x): for |x| < 0.5 the series 2/sqrt(pi) (x - x^3/3 + x^5/10 - ...)
 * to x^13 (next term under 5e-10 relative); above, 1 - erfc(|x|) with the
 * sign of x, erfc(z) = t exp(-z^2 - 1.26551223 + t (1.00002368 + ...)),
 * t = 1 / (1 + z/2), the Chebyshev fit of Numerical Recipes (2nd ed., 6.2;
 * relative error under 1.2e-7 for every z >= 0). GELU takes 1 + erf(x/sqrt 2)
 * as 2 - erfc or erfc itself for x < 0, so a large negative x keeps its
 * relative accuracy instead of cancelling to 0; -z^2 reaches exp unrounded,
 * as the exact square of the (exact) input in two parts.
 * The polynomials run on fused multiply-adds (AVX2 code is built with FMA,
 * which every AVX2 CPU dnncc targets has, as the 1x1 kernels are), and the
 * loop runs two vectors at a time: each function is one long dependent
 * chain, so a second one hides half its latency (1.4x here).
 * tests/test_nonconv.c measures the error against the double reference on
 * every ISA (a few float ulps; the test bounds it). A call's tail (n mod
 * the vector width) runs through the same vector code on a padded copy, so
 * every element gets the same result wherever it sits. The plain C form
 * (no vectors: Cortex-M) calls libm instead, below. */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

/* What rt_simd.h's template operations lack, per ISA: the functions'
 * attribute (AVX2 with FMA), a b + c fused, division, rounding to the
 * nearest integer, 2^n for an integral float n in [-126, 127] (built in the
 * exponent field), a < b ? t : f, and |m| with the sign of s (m >= 0). */
#if RT_SIMD_HAVE_AVX512
#define RT_UV_ATTR_avx512 __attribute__((target("avx512f")))
#define RT_UV_FMA_avx512(a, b, c) _mm512_fmadd_ps(a, b, c)
#define RT_UV_DIV_avx512(a, b) _mm512_div_ps(a, b)
#define RT_UV_ROUND_avx512(a) _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define RT_UV_POW2I_avx512(n)                                                                    \
	_mm512_castsi512_ps(                                                                     \
		_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23))
#define RT_UV_SEL_LT_avx512(a, b, t, f) _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), f, t)
#define RT_UV_SIGN_avx512(m, s)                                                                  \
	_mm512_castsi512_ps(_mm512_or_si512(                                                     \
		_mm512_castps_si512(m),                                                          \
		_mm512_and_si512(_mm512_castps_si512(s), _mm512_set1_epi32((int)0x80000000u))))
#endif
#if RT_SIMD_HAVE_AVX2
#define RT_UV_ATTR_avx2 __attribute__((target("avx2,fma")))
#define RT_UV_FMA_avx2(a, b, c) _mm256_fmadd_ps(a, b, c)
#define RT_UV_DIV_avx2(a, b) _mm256_div_ps(a, b)
#define RT_UV_ROUND_avx2(a) _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define RT_UV_POW2I_avx2(n)                                                                      \
	_mm256_castsi256_ps(                                                                     \
		_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23))
#define RT_UV_SEL_LT_avx2(a, b, t, f) _mm256_blendv_ps(f, t, _mm256_cmp_ps(a, b, _CMP_LT_OQ))
#define RT_UV_SIGN_avx2(m, s) _mm256_or_ps(m, _mm256_and_ps(s, _mm256_set1_ps(-0.0f)))
#endif
#if RT_SIMD_HAVE_NEON
#define RT_UV_ATTR_neon
#define RT_UV_FMA_neon(a, b, c) vfmaq_f32(c, a, b)
#define RT_UV_DIV_neon(a, b) vdivq_f32(a, b)
#define RT_UV_ROUND_neon(a) vrndnq_f32(a)
#define RT_UV_POW2I_neon(n)                                                                      \
	vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23))
#define RT_UV_SEL_LT_neon(a, b, t, f) vbslq_f32(vcltq_f32(a, b), t, f)
#define RT_UV_SIGN_neon(m, s) vbslq_f32(vdupq_n_u32(0x80000000u), s, m)
#endif

/* y[i] = F(v) with v the vector at x + i; the tail (n mod VL elements) goes
 * through F on a zero-padded copy. */
#define RT_UV_LOOP_(V, VL, LOAD, STORE, F)                                                       \
	{                                                                                          \
		const size_t nv = n - n % VL, n2 = n - n % (2 * VL); /* rt_simd.h */               \
		size_t i = 0;                                                                      \
		for (; i < n2; i += 2 * VL) { /* two independent chains, for latency */          \
			const V v0 = LOAD(x + i), v1 = LOAD(x + i + VL);                           \
			V v = v0;                                                                  \
			const V y0 = F;                                                            \
			v = v1;                                                                    \
			STORE(y + i + VL, F);                                                      \
			STORE(y + i, y0);                                                          \
		}                                                                                  \
		for (; i < nv; i += VL) {                                                          \
			const V v = LOAD(x + i);                                                   \
			STORE(y + i, F);                                                           \
		}                                                                                  \
		if (i < n) {                                                                       \
			float t[VL];                                                               \
			for (size_t k = 0; k < VL; k++)                                            \
				t[k] = i + k < n ? x[i + k] : 0.0f;                                \
			const V v = LOAD(t);                                                       \
			STORE(t, F);                                                               \
			for (size_t k = 0; i + k < n; k++)                                         \
				y[i + k] = t[k];                                                   \
		}                                                                                  \
	}
#ifdef __GNUC__
#define RT_UV_INLINE_ __attribute__((always_inline))
#else
#define RT_UV_INLINE_
#endif

#define RT_UNARY_VEC_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)        \
	/* exp(x + b): x exact, |b| < 2 added after the reduction (erfc's -z^2 in two \
	 * parts) */                                                                               \
	static inline RT_UV_INLINE_ RT_UV_ATTR_##SUF V rt_uv_exp2_##SUF(V x, V b)                                           \
	{                                                                                          \
		x = MIN(SET1(89.0f), MAX(SET1(-104.0f), x));                                       \
		const V n = RT_UV_ROUND_##SUF(MUL(ADD(x, b), SET1(1.44269504088896341f)));         \
		V r = ADD(SUB(x, MUL(n, SET1(0.693359375f))), b);                                  \
		r = SUB(r, MUL(n, SET1(-2.12194440e-4f)));                                         \
		V p = SET1(1.0f / 5040.0f);                                                        \
		p = RT_UV_FMA_##SUF(p, r, SET1(1.0f / 720.0f));                                           \
		p = RT_UV_FMA_##SUF(p, r, SET1(1.0f / 120.0f));                                           \
		p = RT_UV_FMA_##SUF(p, r, SET1(1.0f / 24.0f));                                            \
		p = RT_UV_FMA_##SUF(p, r, SET1(1.0f / 6.0f));                                             \
		p = RT_UV_FMA_##SUF(p, r, SET1(0.5f));                                                    \
		p = RT_UV_FMA_##SUF(p, r, SET1(1.0f));                                                    \
		p = RT_UV_FMA_##SUF(p, r, SET1(1.0f));                                                    \
		/* n / 2 rounded towards -inf, and the rest: both within [-77, 66] */              \
		const V h = RT_UV_ROUND_##SUF(SUB(MUL(n, SET1(0.5f)), SET1(0.25f)));               \
		return MUL(MUL(p, RT_UV_POW2I_##SUF(h)), RT_UV_POW2I_##SUF(SUB(n, h)));           \
	}                                                                                          \
	/* erf(x) for |x| < 0.5: 2/sqrt(pi) x (1 - x^2/3 + x^4/10 - x^6/42 + x^8/216 -            \
	 * x^10/1320 + x^12/9360) */                                                               \
	static inline RT_UV_INLINE_ RT_UV_ATTR_##SUF V rt_uv_erf_small_##SUF(V x)                                           \
	{                                                                                          \
		const V s = MUL(x, x);                                                             \
		V p = SET1(1.0f / 9360.0f);                                                        \
		p = RT_UV_FMA_##SUF(p, s, SET1(-1.0f / 1320.0f));                                          \
		p = RT_UV_FMA_##SUF(p, s, SET1(1.0f / 216.0f));                                           \
		p = RT_UV_FMA_##SUF(p, s, SET1(-1.0f / 42.0f));                                            \
		p = RT_UV_FMA_##SUF(p, s, SET1(1.0f / 10.0f));                                            \
		p = RT_UV_FMA_##SUF(p, s, SET1(-1.0f / 3.0f));                                             \
		p = RT_UV_FMA_##SUF(p, s, SET1(1.0f));                                                    \
		return MUL(MUL(p, x), SET1(1.12837916709551257f));                                 \
	}                                                                                          \
	/* erfc(z) for z >= 0, z^2 = k m^2 with m >= 0 exact and k 1 or 1/2 (z itself \
	 * may be rounded): m^2 = hi + lo exactly (Veltkamp's split, m clamped to 30, \
	 * where erfc is long 0), so exp(-z^2 + p) sees no rounded -z^2 */            \
	static inline RT_UV_INLINE_ RT_UV_ATTR_##SUF V rt_uv_erfc_##SUF(V z, V m, V k)                                      \
	{                                                                                          \
		const V t = RT_UV_DIV_##SUF(SET1(1.0f), ADD(SET1(1.0f), MUL(z, SET1(0.5f))));     \
		V p = SET1(0.17087277f);                                                           \
		p = RT_UV_FMA_##SUF(p, t, SET1(-0.82215223f));                                            \
		p = RT_UV_FMA_##SUF(p, t, SET1(1.48851587f));                                             \
		p = RT_UV_FMA_##SUF(p, t, SET1(-1.13520398f));                                            \
		p = RT_UV_FMA_##SUF(p, t, SET1(0.27886807f));                                             \
		p = RT_UV_FMA_##SUF(p, t, SET1(-0.18628806f));                                            \
		p = RT_UV_FMA_##SUF(p, t, SET1(0.09678418f));                                             \
		p = RT_UV_FMA_##SUF(p, t, SET1(0.37409196f));                                             \
		p = RT_UV_FMA_##SUF(p, t, SET1(1.00002368f));                                             \
		p = RT_UV_FMA_##SUF(p, t, SET1(-1.26551223f));                                            \
		m = MIN(SET1(30.0f), m);                                                           \
		const V c = MUL(m, SET1(4097.0f));                                                 \
		const V mh = SUB(c, SUB(c, m)), ml = SUB(m, mh);                                   \
		const V hi = MUL(m, m);                                                            \
		const V lo = ADD(ADD(SUB(MUL(mh, mh), hi), MUL(ADD(mh, mh), ml)), MUL(ml, ml));    \
		return MUL(t, rt_uv_exp2_##SUF(SUB(ZERO, MUL(hi, k)), SUB(p, MUL(lo, k))));        \
	}                                                                                          \
	static inline RT_UV_INLINE_ RT_UV_ATTR_##SUF V rt_uv_sigmoid_##SUF(V x)                               \
	{ /* e = exp(-|x|): 1 / (1 + e), or e / (1 + e) for x < 0 */                              \
		const V z = ZERO;                                                                  \
		const V e = rt_uv_exp2_##SUF(SUB(z, MAX(x, SUB(z, x))), z);                        \
		const V q = RT_UV_DIV_##SUF(SET1(1.0f), ADD(SET1(1.0f), e));                       \
		return RT_UV_SEL_LT_##SUF(x, z, MUL(e, q), q);                                     \
	}                                                                                          \
	static inline RT_UV_INLINE_ RT_UV_ATTR_##SUF V rt_uv_erf_##SUF(V x)                                   \
	{                                                                                          \
		const V m = MAX(x, SUB(ZERO, x)); /* |x| */                                        \
		const V one = SET1(1.0f);                                                          \
		const V big = RT_UV_SIGN_##SUF(SUB(one, rt_uv_erfc_##SUF(m, m, one)), x);         \
		return RT_UV_SEL_LT_##SUF(m, SET1(0.5f), rt_uv_erf_small_##SUF(x), big);          \
	}                                                                                          \
	static inline RT_UV_INLINE_ RT_UV_ATTR_##SUF V rt_uv_gelu_##SUF(V x)                                  \
	{ /* 1 + erf(u): erfc(|u|) for u < 0, 2 - erfc(u) above */                                \
		const V z = ZERO, u = MUL(x, SET1(0.70710678118654752f));                          \
		const V m = MAX(u, SUB(z, u));                                                     \
		const V e = rt_uv_erfc_##SUF(m, MAX(x, SUB(z, x)), SET1(0.5f));                    \
		const V big = RT_UV_SEL_LT_##SUF(u, z, e, SUB(SET1(2.0f), e));                     \
		const V s = RT_UV_SEL_LT_##SUF(m, SET1(0.5f),                                      \
		                               ADD(SET1(1.0f), rt_uv_erf_small_##SUF(u)), big);   \
		return MUL(MUL(x, SET1(0.5f)), s);                                                 \
	}                                                                                          \
	static inline RT_UV_ATTR_##SUF void rt_unary_vec_##SUF(int fn, float alpha, float beta, size_t n,     \
	                                           const float *x, float *y)                      \
	{                                                                                          \
		const V a = SET1(alpha), b = SET1(beta), z = ZERO, one = SET1(1.0f);               \
		const V sixth = SET1(1.0f / 6.0f), half = SET1(0.5f);                              \
		switch (fn) {                                                                      \
		case RT_MATH_SIGMOID: RT_UV_LOOP_(V, VL, LOAD, STORE, rt_uv_sigmoid_##SUF(v)) break; \
		case RT_MATH_EXP: RT_UV_LOOP_(V, VL, LOAD, STORE, rt_uv_exp2_##SUF(v, z)) break;   \
		case RT_MATH_ERF: RT_UV_LOOP_(V, VL, LOAD, STORE, rt_uv_erf_##SUF(v)) break;       \
		case RT_MATH_GELU: RT_UV_LOOP_(V, VL, LOAD, STORE, rt_uv_gelu_##SUF(v)) break;     \
		case RT_MATH_HARD_SIGMOID:                                                         \
			RT_UV_LOOP_(V, VL, LOAD, STORE, MAX(z, MIN(one, ADD(MUL(a, v), b))))       \
			break;                                                                     \
		default: /* RT_MATH_HARD_SWISH */                                                  \
			RT_UV_LOOP_(V, VL, LOAD, STORE,                                            \
			            MUL(v, MAX(z, MIN(one, ADD(MUL(v, sixth), half)))))            \
			break;                                                                     \
		}                                                                                  \
	}

RT_SIMD_AVX512_(RT_UNARY_VEC_)
RT_SIMD_AVX2_(RT_UNARY_VEC_)
RT_SIMD_NEON_(RT_UNARY_VEC_)

#if RT_SIMD_HAVE_C
/* Without vectors, libm's scalar functions beat the vector algorithm run
 * one lane at a time (glibc: 3-4 ns against 9-25 an element): the same
 * formulas over expf and erff, GELU in double (erfc of a rounded -x/sqrt 2
 * would lose the tail's accuracy in float). */
static inline void rt_unary_vec_c(int fn, float alpha, float beta, size_t n, const float *x,
                                  float *y)
{
	for (size_t i = 0; i < n; i++) {
		const float v = x[i];
		float r;
		switch (fn) {
		case RT_MATH_SIGMOID: {
			const float e = expf(v < 0.0f ? v : -v), q = 1.0f / (1.0f + e);
			r = v < 0.0f ? e * q : q;
			break;
		}
		case RT_MATH_EXP: r = expf(v); break;
		case RT_MATH_ERF: r = erff(v); break;
		case RT_MATH_GELU: r = (float)(0.5 * v * erfc(-v * 0.70710678118654752440)); break;
		case RT_MATH_HARD_SIGMOID: {
			const float t = alpha * v + beta;
			r = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
			break;
		}
		default: { /* RT_MATH_HARD_SWISH */
			const float t = v * (1.0f / 6.0f) + 0.5f;
			r = v * (t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t);
		}
		}
		y[i] = r;
	}
}
#endif

/* Threads take chunks of RT_UV_CHUNK_ elements (a multiple of every vector
 * width, so only the last chunk has a tail) when the call moves at least
 * RT_PARALLEL_MIN_WORK / RT_PARALLEL_COPY_UNITS elements: exp costs about as
 * much per element as a copy's memory traffic. */
#define RT_UV_CHUNK_ 4096
struct rt_unary_vec_job_ {
	int fn, isa;
	float alpha, beta;
	size_t n;
	const float *x;
	float *y;
};

static void rt_unary_vec_chunks_(void *ctx, int c0, int c1)
{
	const struct rt_unary_vec_job_ *j = (const struct rt_unary_vec_job_ *)ctx;
	size_t i0 = (size_t)c0 * RT_UV_CHUNK_, i1 = (size_t)c1 * RT_UV_CHUNK_;
	if (i1 > j->n)
		i1 = j->n;
	const float *x = j->x + i0;
	float *y = j->y + i0;
	switch (rt_simd_isa(j->isa, 16)) {
#if RT_SIMD_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512: rt_unary_vec_avx512(j->fn, j->alpha, j->beta, i1 - i0, x, y); break;
#endif
#if RT_SIMD_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2: rt_unary_vec_avx2(j->fn, j->alpha, j->beta, i1 - i0, x, y); break;
#endif
#if RT_SIMD_HAVE_NEON
	case RT_SGEMM_ISA_NEON: rt_unary_vec_neon(j->fn, j->alpha, j->beta, i1 - i0, x, y); break;
#endif
	default:
#if RT_SIMD_HAVE_C
		rt_unary_vec_c(j->fn, j->alpha, j->beta, i1 - i0, x, y);
#endif
		break;
	}
}

RT_FN void rt_unary_vec(int fn, /* enum rt_math_fn, one rt_unary_vec_has accepts */
                        float alpha, float beta, /* HardSigmoid's */
                        int isa,  /* RT_SGEMM_ISA_* to run (generated code: its own) */
                        size_t n, /* elements */
                        const float *x, /* [n] */
                        float *y)       /* out: [n]; may equal x */
{
	struct rt_unary_vec_job_ j;
	j.fn = fn, j.isa = isa, j.alpha = alpha, j.beta = beta, j.n = n, j.x = x, j.y = y;
	const size_t chunks = (n + RT_UV_CHUNK_ - 1) / RT_UV_CHUNK_;
	if (chunks > 1 && (double)n * RT_PARALLEL_COPY_UNITS >= (double)RT_PARALLEL_MIN_WORK)
		rt_parallel(rt_unary_vec_chunks_, &j, (int)chunks);
	else if (n > 0)
		rt_unary_vec_chunks_(&j, 0, (int)chunks);
}
