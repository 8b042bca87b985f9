/* gemm_fc.c - fully-connected layers: Gemm (and MatMul) whose right operand
 * B is a constant, packed at compile time (rt_gemm_fc_pack, sgemm.h).
 *
 * Textbook form, as rt_gemm_ref (gemm_ref.c):
 *   y[m, n] = act(alpha * sum over k < K of A[m, k] * B[k, n] + beta * C[m, n])
 * B arrives as ceil(N/NB) panels of [K][NB] (NB = RT_FC_NB(isa), four SIMD
 * vectors; the last panel only as many vectors wide as its columns need,
 * columns past N zero), so transB is gone by run time and the weights are
 * read once, front to back, in one sequential stream per panel.
 *
 * At batch 1..4 a fully-connected layer is a matrix-vector product: two flops
 * per weight, so it runs at the speed memory delivers the weights. The loop
 * is built for that: for each panel and each group of MB = 4 rows of A, an
 * MB x NB tile of sums stays in registers (AVX-512: 16 zmm) while the panel
 * streams by, one broadcast of A(m, k) and four FMAs per row and k. Larger M
 * re-reads each panel once per four rows (from cache when it fits). The
 * epilogue (alpha, beta * C, the fused activation) runs on the tile's
 * registers and stores straight into y for whole panels when C is absent or
 * a bias row and the activation is none or ReLU (a Linear + BatchNorm + ReLU
 * stack: a scalar epilogue was a quarter of the autoencoder's instructions);
 * otherwise the tile goes through a buffer to the scalar epilogue, which
 * reads C through the broadcast strides c_sm and c_sn and applies any
 * activation. Both round alike (alpha * sum, then + beta * C), so they agree
 * to the bit.
 *
 * One kernel source over a thin SIMD layer (RT_FC_ISA_ below instantiates it
 * with each ISA's vector type, load, store, broadcast and FMA): AVX-512F
 * (16 floats), AVX2 + FMA (8), AArch64 Advanced SIMD (4) and portable C (one
 * float; NB = 4, sixteen scalar sums for the 32 single registers of a
 * Cortex-M4F). The library compiles every ISA this compiler can build and
 * takes the ISA as an argument; generated code compiles only RT_SGEMM_ISA.
 * SIMD code is enabled by target attributes only. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
#include <immintrin.h>
#endif
#if RT_SGEMM_HAVE_NEON
#include <arm_neon.h>
#endif

#ifdef __GNUC__
#define RT_FC_INLINE_ __attribute__((always_inline))
#else
#define RT_FC_INLINE_
#endif

/* Row i of a tile, one k: four FMAs into the named sums c0..c3 of that row
 * (helpers of RT_FC_TILE_; a row past MB is dead code the compiler drops). */
#define RT_FC_ROW_FMA_(V, SET1, FMA, MB, NV, i, c0, c1, c2, c3)               \
	if (MB > i) {                                                          \
		const V s = SET1(a[(size_t)i * rsa + (size_t)k * csa]);       \
		c0 = FMA(s, w0, c0);                                           \
		if (NV > 1)                                                    \
			c1 = FMA(s, w1, c1);                                   \
		if (NV > 2)                                                    \
			c2 = FMA(s, w2, c2);                                   \
		if (NV > 3)                                                    \
			c3 = FMA(s, w3, c3);                                   \
	}
#define RT_FC_ROW_STORE_(STORE, VL, MB, NV, i, c0, c1, c2, c3)                 \
	if (MB > i) {                                                          \
		STORE(out + (size_t)i * (4 * VL), c0);                         \
		if (NV > 1)                                                    \
			STORE(out + (size_t)i * (4 * VL) + VL, c1);            \
		if (NV > 2)                                                    \
			STORE(out + (size_t)i * (4 * VL) + 2 * VL, c2);        \
		if (NV > 3)                                                    \
			STORE(out + (size_t)i * (4 * VL) + 3 * VL, c3);        \
	}
#define RT_FC_EPI_(V, MUL, ADD, RELU, STORE, q, c, bc)                          \
	{                                                                      \
		V r = MUL(va, c);                                              \
		if (cv)                                                        \
			r = ADD(r, bc);                                        \
		if (relu)                                                      \
			r = RELU(r);                                           \
		STORE(q, r);                                                   \
	}
#define RT_FC_ROW_EPI_(V, MUL, ADD, RELU, STORE, VL, MB, NV, i, c0, c1, c2, c3) \
	if (MB > i) {                                                          \
		float *yi = yd + (size_t)i * ldy;                              \
		RT_FC_EPI_(V, MUL, ADD, RELU, STORE, yi, c0, b0)               \
		if (NV > 1)                                                    \
			RT_FC_EPI_(V, MUL, ADD, RELU, STORE, yi + VL, c1, b1)  \
		if (NV > 2)                                                    \
			RT_FC_EPI_(V, MUL, ADD, RELU, STORE, yi + 2 * VL, c2, b2) \
		if (NV > 3)                                                    \
			RT_FC_EPI_(V, MUL, ADD, RELU, STORE, yi + 3 * VL, c3, b3) \
	}

/* One MB x NB tile: out[i][j] = sum over k < K of A(i, k) * w[k][j], with
 * A(i, k) = a[i*rsa + k*csa]; w is one packed panel, [K][4*VL]. With yd set
 * the epilogue runs on the registers instead (rt_gemm_fc_vec_epilogue_ said
 * it may): yd[i*ldy + j] = act(alpha * sum + beta * cv[j]), act none or ReLU,
 * cv a row of C (NULL: none); the same two roundings as the scalar epilogue,
 * so both give the same bits. The MB x 4 sums are named variables, not an
 * array: gcc -O2 does not unroll a loop over an array of vectors, and kept
 * them in memory, a load and a store around every FMA (the autoencoder's
 * 128 x 128 layers ran at a third of the FMA peak). (A software prefetch
 * of the panel 1-4 KiB ahead changed neither the autoencoder nor AlexNet's
 * classifier on the Zen 4, so there is none.) */
#define RT_FC_TILE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, MB, NV) \
	static inline RT_FC_INLINE_ ATTR void rt_gemm_fc_tile_##SUF##_##MB##_##NV(              \
	        int K, const float *a, size_t rsa, size_t csa, const float *w,    \
	        size_t ldw, float *out, float *yd, size_t ldy, const float *cv,    \
	        float alpha, float beta, int relu)                                 \
	{                                                                          \
		V c00 = ZERO, c01 = ZERO, c02 = ZERO, c03 = ZERO;                  \
		V c10 = ZERO, c11 = ZERO, c12 = ZERO, c13 = ZERO;                  \
		V c20 = ZERO, c21 = ZERO, c22 = ZERO, c23 = ZERO;                  \
		V c30 = ZERO, c31 = ZERO, c32 = ZERO, c33 = ZERO;                  \
		for (int k = 0; k < K; k++) {                                      \
			const float *wk = w + (size_t)k * ldw;               \
			const V w0 = LOAD(wk);                                     \
			const V w1 = NV > 1 ? LOAD(wk + VL) : ZERO;                \
			const V w2 = NV > 2 ? LOAD(wk + 2 * VL) : ZERO;            \
			const V w3 = NV > 3 ? LOAD(wk + 3 * VL) : ZERO;            \
			RT_FC_ROW_FMA_(V, SET1, FMA, MB, NV, 0, c00, c01, c02, c03) \
			RT_FC_ROW_FMA_(V, SET1, FMA, MB, NV, 1, c10, c11, c12, c13) \
			RT_FC_ROW_FMA_(V, SET1, FMA, MB, NV, 2, c20, c21, c22, c23) \
			RT_FC_ROW_FMA_(V, SET1, FMA, MB, NV, 3, c30, c31, c32, c33) \
		}                                                                  \
		if (!yd) {                                                         \
			RT_FC_ROW_STORE_(STORE, VL, MB, NV, 0, c00, c01, c02, c03) \
			RT_FC_ROW_STORE_(STORE, VL, MB, NV, 1, c10, c11, c12, c13) \
			RT_FC_ROW_STORE_(STORE, VL, MB, NV, 2, c20, c21, c22, c23) \
			RT_FC_ROW_STORE_(STORE, VL, MB, NV, 3, c30, c31, c32, c33) \
			return;                                                    \
		}                                                                  \
		const V va = SET1(alpha), vb = SET1(beta);                         \
		const V b0 = cv ? MUL(vb, LOAD(cv)) : ZERO;                        \
		const V b1 = cv && NV > 1 ? MUL(vb, LOAD(cv + VL)) : ZERO;         \
		const V b2 = cv && NV > 2 ? MUL(vb, LOAD(cv + 2 * VL)) : ZERO;     \
		const V b3 = cv && NV > 3 ? MUL(vb, LOAD(cv + 3 * VL)) : ZERO;     \
		RT_FC_ROW_EPI_(V, MUL, ADD, RELU, STORE, VL, MB, NV, 0, c00, c01, c02, c03) \
		RT_FC_ROW_EPI_(V, MUL, ADD, RELU, STORE, VL, MB, NV, 1, c10, c11, c12, c13) \
		RT_FC_ROW_EPI_(V, MUL, ADD, RELU, STORE, VL, MB, NV, 2, c20, c21, c22, c23) \
		RT_FC_ROW_EPI_(V, MUL, ADD, RELU, STORE, VL, MB, NV, 3, c30, c31, c32, c33) \
	}

/* The tiles of MB rows for NV = 1..4 vectors, and a switch over NV. */
#define RT_FC_TILES_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, MB) \
	RT_FC_TILE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, MB, 1) \
	RT_FC_TILE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, MB, 2) \
	RT_FC_TILE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, MB, 3) \
	RT_FC_TILE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, MB, 4) \
	static inline RT_FC_INLINE_ ATTR void rt_gemm_fc_tiles_##SUF##_##MB(                   \
	        int nv, int K, const float *a, size_t rsa, size_t csa, const float *w, \
	        size_t ldw, float *out, float *yd, size_t ldy, const float *cv,    \
	        float alpha, float beta, int relu)                                 \
	{                                                                          \
		switch (nv) {                                                      \
		case 1: rt_gemm_fc_tile_##SUF##_##MB##_1(K, a, rsa, csa, w, ldw, out, yd, ldy, cv, alpha, beta, relu); break; \
		case 2: rt_gemm_fc_tile_##SUF##_##MB##_2(K, a, rsa, csa, w, ldw, out, yd, ldy, cv, alpha, beta, relu); break; \
		case 3: rt_gemm_fc_tile_##SUF##_##MB##_3(K, a, rsa, csa, w, ldw, out, yd, ldy, cv, alpha, beta, relu); break; \
		default: rt_gemm_fc_tile_##SUF##_##MB##_4(K, a, rsa, csa, w, ldw, out, yd, ldy, cv, alpha, beta, relu); break; \
		}                                                                  \
	}

/* Panels [p0, p1) of the layer for one ISA: panels outermost, then groups
 * of four rows. The last panel holds only the vectors it needs (nv). Panels
 * of whole vectors take the register epilogue where it applies.
 * TV: the most vectors of a panel one tile of 3 or 4 rows takes; the tile
 * then goes over the panel again for the next TV vectors (rows k of the
 * panel stay nv vectors apart: ldw). AVX2 has 16 ymm registers: a 4 x 4
 * tile's 16 sums, 4 weight vectors and a broadcast did not fit, and gcc kept
 * two sums on the stack, a store and a reload on their FMA chains every k
 * (the autoencoder, batch 4, ran at 53 GFLOP/s of the 90 an AVX2 core has);
 * 4 x 2 tiles take 11 registers. Tiles of 1 or 2 rows fit whole panels, and
 * take them: a batch-1 layer streams each panel from memory once. */
#define RT_FC_ISA_(SUF, ATTR, V, VL, TV, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU) \
	RT_FC_TILES_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, 1) \
	RT_FC_TILES_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, 2) \
	RT_FC_TILES_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, 3) \
	RT_FC_TILES_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, FMA, MUL, ADD, RELU, 4) \
	static inline ATTR void rt_gemm_fc_##SUF(const struct rt_gemm *p, const float *a, \
	                                         const float *bp, const float *c, float *y, \
	                                         int p0, int p1)                   \
	{                                                                          \
		const size_t rsa = p->transA ? 1 : (size_t)p->K;                   \
		const size_t csa = p->transA ? (size_t)p->M : 1;                   \
		const int vec = rt_gemm_fc_vec_epilogue_(p, c);                    \
		const int relu = p->act == RT_ACT_RELU;                            \
		float out[4 * 4 * VL]; /* [MB][NB] */                              \
		for (int j0 = p0 * 4 * VL; j0 < p->N && j0 < p1 * 4 * VL; j0 += 4 * VL) { \
			const float *w = bp + (size_t)j0 * p->K;                   \
			const int nn = p->N - j0 < 4 * VL ? p->N - j0 : 4 * VL;    \
			const int nv = (nn + VL - 1) / VL;                         \
			const size_t ldw = (size_t)nv * VL; /* panel row k to k+1 */ \
			const int direct = vec && nn == nv * VL;                   \
			const float *cv = direct && c ? c + j0 : NULL;             \
			for (int m0 = 0; m0 < p->M; m0 += 4) {                     \
				const int mm = p->M - m0 < 4 ? p->M - m0 : 4;      \
				const float *am = a + (size_t)m0 * rsa;            \
				float *yd = direct ? y + (size_t)m0 * p->N + j0 : NULL; \
				const int tvm = mm > 2 ? TV : 4;                   \
				for (int v0 = 0; v0 < nv; v0 += tvm) {             \
					const int tv = nv - v0 < tvm ? nv - v0 : tvm; \
					const float *wv = w + (size_t)v0 * VL;     \
					float *ov = out + (size_t)v0 * VL;          \
					float *ydv = yd ? yd + (size_t)v0 * VL : NULL; \
					const float *cvv = cv ? cv + (size_t)v0 * VL : NULL; \
					switch (mm) {                              \
					case 1: rt_gemm_fc_tiles_##SUF##_1(tv, p->K, am, rsa, csa, wv, ldw, ov, ydv, (size_t)p->N, cvv, p->alpha, p->beta, relu); break; \
					case 2: rt_gemm_fc_tiles_##SUF##_2(tv, p->K, am, rsa, csa, wv, ldw, ov, ydv, (size_t)p->N, cvv, p->alpha, p->beta, relu); break; \
					case 3: rt_gemm_fc_tiles_##SUF##_3(tv, p->K, am, rsa, csa, wv, ldw, ov, ydv, (size_t)p->N, cvv, p->alpha, p->beta, relu); break; \
					default: rt_gemm_fc_tiles_##SUF##_4(tv, p->K, am, rsa, csa, wv, ldw, ov, ydv, (size_t)p->N, cvv, p->alpha, p->beta, relu); break; \
					}                                          \
				}                                                  \
				if (!direct)                                       \
					rt_gemm_fc_epilogue_(p, out, 4 * VL, m0, mm, j0, nn, c, y); \
			}                                                          \
		}                                                                  \
	}

/* Whether whole panels may take the register epilogue: no activation or ReLU,
 * and C absent or one row shared by every row of y (c_sm 0, c_sn 1; a bias). */
static inline int rt_gemm_fc_vec_epilogue_(const struct rt_gemm *p, const float *c)
{
	return (p->act == RT_ACT_NONE || p->act == RT_ACT_RELU) &&
	       (!c || (p->c_sm == 0 && p->c_sn == 1));
}

/* y rows m0.. (mm of them), columns j0.. (nn) from the tile sums out[i][j]. */
static inline void rt_gemm_fc_epilogue_(const struct rt_gemm *p, const float *out, int nb,
                                        int m0, int mm, int j0, int nn, const float *c, float *y)
{
	for (int i = 0; i < mm; i++) {
		float *yr = y + (size_t)(m0 + i) * p->N + j0;
		for (int j = 0; j < nn; j++) {
			float v = p->alpha * out[(size_t)i * nb + j];
			if (c)
				v += p->beta * c[(size_t)(m0 + i) * p->c_sm + (size_t)(j0 + j) * p->c_sn];
			yr[j] = rt_act_apply(p->act, p->act_alpha, p->act_beta, v);
		}
	}
}

/* Weights (bytes) past which a layer is taken to stream from L3 or memory:
 * more than any core's L2. */
#define RT_FC_STREAM_BYTES (4.0 * 1024 * 1024)

#if RT_SGEMM_HAVE_AVX512
#define RT_FC_AVX512_ATTR_ __attribute__((target("avx512f")))
/* max(r, +0) is +0 for -0 and NaN, as the scalar v > 0 ? v : 0 (MAXPS
 * returns its second operand when either is NaN or both are zero) */
#define RT_FC_AVX512_RELU_(r) _mm512_max_ps(r, _mm512_setzero_ps())
RT_FC_ISA_(avx512, RT_FC_AVX512_ATTR_, __m512, 16, 4, _mm512_setzero_ps(), _mm512_loadu_ps,
           _mm512_storeu_ps, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_mul_ps, _mm512_add_ps,
           RT_FC_AVX512_RELU_)
/* The same kernel for weights streamed from beyond L2 (rt_gemm_fc: more than
 * RT_FC_STREAM_BYTES): each 16-float vector of the panel is read as two
 * 256-bit halves. On a Zen 4, a standalone 9216 x 4096 stream (151 MB, batch
 * 1) ran 6-10% faster that way (29.2 -> 31.2 GB/s), whether the FMAs were 512
 * or 256 bits wide, and AlexNet's classifier at one thread went from 8.03 to
 * 7.53 ms; from L2 or L3 both loads ran alike. The extra insert per vector
 * costs nothing while memory is the bound, so cache-resident layers keep
 * whole loads.
 * Each vector (one 64-byte line of the 64-byte aligned panel) also asks for
 * the line RT_FC_STREAM_AHEAD floats (3 KiB, 12 rows of a 64-wide panel)
 * ahead, into L2 (hint T1), not L1.
 * On an Emerald Rapids Xeon (bench/fc, AlexNet's classifier, one core,
 * medians of four runs) the halves alone took 17.5 ms, whole loads 15.0 and
 * the halves with a prefetch 4 KiB ahead into L1 15.1-15.4; the Zen 4 had
 * shown no change from a prefetch 1-4 KiB ahead. On a Xeon of family 6
 * model 167 (AVX-512, 2 MiB L2; AlexNet's three Gemm layers in the
 * network, --instrument, 150 calls, rounds interleaved) that L1 prefetch
 * was the slowest of the distances and hints tried: at 2 threads its
 * classifier took 7.1-8.6 ms, no prefetch 7.6-7.9, L1 prefetches 1, 2 and
 * 8 KiB ahead 7.0-7.2, 6.8-7.2 and 6.9-7.7, L2 prefetches 1, 2, 3, 4, 8 and
 * 16 KiB ahead 7.2-7.6, 6.9-7.6, 6.4-7.1, 6.9-7.7, 7.2-8.0 and 7.2-7.7; at
 * 1 thread 15.6-18.2 (L1, 4 KiB), 14.2-15.6 (L1, 2 KiB), 13.5-14.5 (L2,
 * 3 KiB). The distance matters about as much as the hint. A prefetch past
 * the end of the weights is a hint and cannot fault. */
#define RT_FC_STREAM_AHEAD 768
static inline RT_FC_INLINE_ RT_FC_AVX512_ATTR_ __m512 rt_gemm_fc_load_halves_(const float *q)
{
	_mm_prefetch((const char *)(q + RT_FC_STREAM_AHEAD), _MM_HINT_T1);
	const __m256d lo = _mm256_castps_pd(_mm256_loadu_ps(q));
	const __m256d hi = _mm256_castps_pd(_mm256_loadu_ps(q + 8));
	return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1));
}
/* (a call, so the generated code's copy of the runtime keeps the helper) */
#define RT_FC_AVX512_LOAD_HALVES_(q) rt_gemm_fc_load_halves_(q)
RT_FC_ISA_(avx512s, RT_FC_AVX512_ATTR_, __m512, 16, 4, _mm512_setzero_ps(),
           RT_FC_AVX512_LOAD_HALVES_, _mm512_storeu_ps, _mm512_set1_ps, _mm512_fmadd_ps,
           _mm512_mul_ps, _mm512_add_ps, RT_FC_AVX512_RELU_)
#endif
#if RT_SGEMM_HAVE_AVX2
#define RT_FC_AVX2_ATTR_ __attribute__((target("avx2,fma")))
#define RT_FC_AVX2_RELU_(r) _mm256_max_ps(r, _mm256_setzero_ps())
RT_FC_ISA_(avx2, RT_FC_AVX2_ATTR_, __m256, 8, 2, _mm256_setzero_ps(), _mm256_loadu_ps,
           _mm256_storeu_ps, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_mul_ps, _mm256_add_ps,
           RT_FC_AVX2_RELU_)
#endif
#if RT_SGEMM_HAVE_NEON
#define RT_FC_NEON_FMA_(s, w, acc) vfmaq_f32(acc, s, w)
/* r where r > 0, else +0 (also for NaN), as the scalar epilogue */
#define RT_FC_NEON_RELU_(r) vbslq_f32(vcgtq_f32(r, vdupq_n_f32(0.0f)), r, vdupq_n_f32(0.0f))
RT_FC_ISA_(neon, , float32x4_t, 4, 4, vdupq_n_f32(0.0f), vld1q_f32, vst1q_f32, vdupq_n_f32,
           RT_FC_NEON_FMA_, vmulq_f32, vaddq_f32, RT_FC_NEON_RELU_)
#endif
#if RT_SGEMM_HAVE_C
#define RT_FC_C_LOAD_(q) (*(q))
#define RT_FC_C_STORE_(q, v) (*(q) = (v))
#define RT_FC_C_SET1_(x) (x)
#define RT_FC_C_FMA_(s, w, acc) ((acc) + (s) * (w))
#define RT_FC_C_MUL_(x, y) ((x) * (y))
#define RT_FC_C_ADD_(x, y) ((x) + (y))
#define RT_FC_C_RELU_(r) ((r) > 0.0f ? (r) : 0.0f)
RT_FC_ISA_(c, , float, 1, 4, 0.0f, RT_FC_C_LOAD_, RT_FC_C_STORE_, RT_FC_C_SET1_, RT_FC_C_FMA_,
           RT_FC_C_MUL_, RT_FC_C_ADD_, RT_FC_C_RELU_)
#endif

/* What the threads of one rt_gemm_fc call share. */
struct rt_gemm_fc_job_ {
	const struct rt_gemm *p;
	int isa, stream; /* stream: the weights come from beyond L2 */
	const float *a, *bp, *c;
	float *y;
};

/* Panels [p0, p1) of N (4 SIMD vectors wide each). */
static void rt_gemm_fc_panels_(void *ctx, int p0, int p1)
{
	const struct rt_gemm_fc_job_ *j = ctx;
	switch (j->isa) {
#if RT_SGEMM_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512:
		if (j->stream)
			rt_gemm_fc_avx512s(j->p, j->a, j->bp, j->c, j->y, p0, p1);
		else
			rt_gemm_fc_avx512(j->p, j->a, j->bp, j->c, j->y, p0, p1);
		break;
#endif
#if RT_SGEMM_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2: rt_gemm_fc_avx2(j->p, j->a, j->bp, j->c, j->y, p0, p1); break;
#endif
#if RT_SGEMM_HAVE_NEON
	case RT_SGEMM_ISA_NEON: rt_gemm_fc_neon(j->p, j->a, j->bp, j->c, j->y, p0, p1); break;
#endif
#if RT_SGEMM_HAVE_C
	default: rt_gemm_fc_c(j->p, j->a, j->bp, j->c, j->y, p0, p1); break;
#else
	default: break;
#endif
	}
}

RT_FN void rt_gemm_fc(const struct rt_gemm *p,
                      int isa,         /* RT_SGEMM_ISA_* the weights were packed for */
                      const float *a,  /* [M, K], or [K, M] if transA */
                      const float *bp, /* B packed by rt_gemm_fc_pack for isa */
                      const float *c,  /* C[m, n] at c[m*c_sm + n*c_sn], or NULL */
                      float *y)        /* out: [M, N] */
{
#ifdef RT_SGEMM_ISA
	isa = RT_SGEMM_ISA; /* generated code has this one kernel */
#endif
	const int stream = (double)p->K * p->N * sizeof(float) > RT_FC_STREAM_BYTES;
	struct rt_gemm_fc_job_ j = {p, isa, stream, a, bp, c, y};
	const int nb = RT_FC_NB(isa), panels = (p->N + nb - 1) / nb;
	/* threads take whole panels. At a batch of a few rows every weight is
	 * streamed for few multiply-adds, so a weight counts as at least 8 units
	 * (GoogLeNet's 1024 x 1000 classifier, 1 M weights, 0.33 ms at batch 1,
	 * splits; an autoencoder's 640 x 128 layer, L2-resident, does not) */
	if ((double)(p->M > 8 ? p->M : 8) * p->N * p->K < RT_PARALLEL_MIN_WORK)
		rt_gemm_fc_panels_(&j, 0, panels);
	else
		rt_parallel(rt_gemm_fc_panels_, &j, panels);
}
