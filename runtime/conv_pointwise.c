/* conv_pointwise.c - the 1x1 convolution as a register-tiled GEMM on the
 * activation layouts themselves (no im2col, no gather, no workspace).
 *
 * Textbook form (ONNX Conv with a 1x1 kernel, no padding, group 1):
 *   y[m][i][j] = b[m] + sum over c of w[m][c] * x[c][i*sH][j*sW]
 * which is Y [M][P] = W [M][C] · X [C][P] over the P = oH*oW output pixels.
 * The inner kernel is an outer product: a register tile of 2 vectors of VL
 * output channels by nr pixels (AVX-512 12 pixels: 24 of the 32 zmm
 * registers; AVX2 and NEON 6; portable C 4 pixels of 2 channels), and for
 * every input channel c it loads the 2 weight vectors w[m..m+2VL)[c] once and
 * broadcasts each pixel's x[c] once: 2 + nr loads per 2 * nr FMAs. The whole
 * sum over C stays in the registers, so every output is stored once, with
 * bias, the fused residual (p->res: ResNet's Add, passes/fuse.c) and ReLU or
 * Clip applied on the way out (the other activations, and the lanes of a
 * partial vector, in scalar code): bit for bit the conv followed by
 * runtime/residual.c, without the second pass over the output.
 *
 * Rows (variant):
 *   16  conv_pointwise_chw16c   x [C/16][H][W][16] -> y [M/16][oH][oW][16]
 *    8  conv_pointwise_chw8c    x [C/8][H][W][8]   -> y [M/8][oH][oW][8]
 *    0  conv_pointwise_hwc      x [H][W][C]        -> y [oH][oW][M]
 * Weights (prep_pointwise.c) are packed at compile time as
 * [ceil(M/wb)][C][wb], wb = the block (16 for HWC), the channels past M zero:
 * a tile's weight vectors for one input channel are contiguous, and
 * consecutive input channels are wb floats apart. Blocks of 16 whose last
 * block holds 8 channels or fewer also carry that block interleaved by input
 * channel pairs (rt_pw_half_avx512).
 *
 * Pixels: with stride 1 the output pixels are the input pixels, so the plane
 * is one row of oH*oW pixels and a tile may span image rows (7x7 and 14x14
 * planes fill whole tiles); with stride 2 (ResNet's downsampling shortcut) a
 * tile lies within an output row and reads every sW-th input pixel directly.
 * A row of L pixels is cut into ceil(L/NR) tiles of equal width (+-1).
 *
 * Loop order: image; band of tiles (the inputs a band reads, about 512 KiB,
 * stay in L2); pair of output channel vectors (its weights, 2VL * C floats,
 * stay in L1/L2 across the band); tile; input channel. Threads (rt_parallel)
 * take (band, pair) items (pair by pair where the plane fits one band), each
 * the sole writer of its outputs and computed the same way whoever runs it,
 * so outputs are identical for any thread count.
 *
 * Blocked layouts: input channels past C are zero but never read (the loop
 * runs over the C real channels); output channels past M are stored as 0.
 * A tile's next channel block lies a whole plane further on, where the
 * hardware prefetchers do not look, so the tile prefetches its nr pixels of
 * block cb+1 while it works on block cb: without that CHW16c ran 15-25%
 * behind HWC on layers of 512-1024 channels (Xeon, AVX-512); with it, level
 * at up to 256 channels and 5-10% behind at 480-1024 (a tile there touches
 * one page per channel block; TLB reach is the suspect, not measured).
 * It also prefetches the weights RT_PW_WPF input channels ahead (a pair's
 * weights, 128 bytes per channel, outgrow L1 from C = 384 on and then come
 * from L2 or, first in a network call, from memory) and, into L2 on
 * AVX-512 from 256 input channels on (RT_PW_OPF_), its residual and output
 * lines (in HWC a pixel's are M floats apart, a stride the prefetchers do
 * not follow). In ResNet-50 (1 thread, CPU time, A/B
 * interleaved, load 9-16) that took the 1x1 layers' sum 6-8% down, the
 * 14x14x1024 residual convs ~15%, the whole network 2-5%.
 * Partial vectors use masked loads and stores where the ISA has them.
 * One source for every ISA through the SIMD layer (rt_simd.h); the ISA is
 * p->isa stepped down to AVX2 for 8-channel blocks (rt_simd_isa). */
#include <stdint.h>
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

/* How the tiles of one layer walk memory (floats). */
struct rt_pw_geom_ {
	int C, M;       /* input and output channels */
	int bs;         /* activation channel block: 16, 8, or 0 for HWC */
	int wb;         /* weight block: bs, or 16 for HWC */
	size_t xcb;     /* input: between channel blocks (blocked) */
	size_t ycb;     /* output: between channel blocks (blocked) */
	int ncb, nci;   /* input channel blocks, and channels per block (last one: C - ...) */
	size_t ypix;    /* output: between pixels */
	int act;
	float alpha, beta;
};

/* Register tile widths (pixels) per ISA. */
#define RT_PW_NR_avx512 12
#define RT_PW_NR_avx2 6
#define RT_PW_NR_neon 6
#define RT_PW_NR_c 4
/* a*b + c per ISA, and the function attribute that enables it. */
#define RT_PW_FMA_avx512(a, b, c) _mm512_fmadd_ps(a, b, c)
#define RT_PW_FMA_avx2(a, b, c) _mm256_fmadd_ps(a, b, c)
#define RT_PW_FMA_neon(a, b, c) vfmaq_f32(c, a, b)
#define RT_PW_FMA_c(a, b, c) ((c) + (a) * (b))
#define RT_PW_ATTR_avx512 __attribute__((target("avx512f")))
#define RT_PW_ATTR_avx2 __attribute__((target("avx2,fma")))
#define RT_PW_ATTR_neon
#define RT_PW_ATTR_c
/* Partial vectors (the last channels of an HWC row or of a block): whether
 * the ISA has masked loads and stores, and them, on the first n lanes;
 * ZMASK zeroes the other lanes. NEON and C go lane by lane (rt_pw_fix_). */
#define RT_PW_MASKED_avx512 1
#define RT_PW_MASKED_avx2 1
#define RT_PW_MASKED_neon 0
#define RT_PW_MASKED_c 0
#define RT_PW_M16_(n) ((__mmask16)((1u << (n)) - 1u))
#define RT_PW_MLOAD_avx512(p, n) _mm512_maskz_loadu_ps(RT_PW_M16_(n), p)
#define RT_PW_MSTORE_avx512(p, n, v) _mm512_mask_storeu_ps(p, RT_PW_M16_(n), v)
#define RT_PW_ZMASK_avx512(v, n) _mm512_maskz_mov_ps(RT_PW_M16_(n), v)
#define RT_PW_M8_(n)                                                                        \
	_mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define RT_PW_MLOAD_avx2(p, n) _mm256_maskload_ps(p, RT_PW_M8_(n))
#define RT_PW_MSTORE_avx2(p, n, v) _mm256_maskstore_ps(p, RT_PW_M8_(n), v)
#define RT_PW_ZMASK_avx2(v, n) _mm256_and_ps(v, _mm256_castsi256_ps(RT_PW_M8_(n)))
#define RT_PW_MLOAD_neon(p, n) ((void)(n), vld1q_f32(p))
#define RT_PW_MSTORE_neon(p, n, v) ((void)(n), vst1q_f32(p, v))
#define RT_PW_ZMASK_neon(v, n) ((void)(n), (v))
#define RT_PW_MLOAD_c(p, n) ((void)(n), *(p))
#define RT_PW_MSTORE_c(p, n, v) ((void)(n), *(p) = (v))
#define RT_PW_ZMASK_c(v, n) ((void)(n), (v))
/* Prefetch into L1 (blocked layouts: the next channel block's pixels, which
 * lie a plane apart, where the hardware prefetchers do not look). */
#define RT_PW_PREFETCH_avx512(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define RT_PW_PREFETCH_avx2(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define RT_PW_PREFETCH_neon(p) ((void)(p))
#define RT_PW_PREFETCH_c(p) ((void)(p))
#ifndef RT_PW_BAND
#define RT_PW_BAND 131072
#endif
#ifndef RT_PW_WPF
#define RT_PW_WPF 16
#endif
/* The weights' prefetch, AVX-512 only: the AVX2 tile (6 pixels of 8-channel
 * vectors) issues it twice per 12 FMAs and calibrated 5-10% slower with it
 * (bench/calibrate, load ~10: not separable from noise, so left out). */
/* The address is formed as an integer: on the last input channels it lies
 * past the packed weights, where pointer arithmetic would be undefined. */
#define RT_PW_WPREF_avx512(p, n)                                                            \
	_mm_prefetch((const char *)((uintptr_t)(p) + (n) * sizeof(float)), _MM_HINT_T0)
#define RT_PW_WPREF_avx2(p, n) ((void)(p), (void)(n))
#define RT_PW_WPREF_neon(p, n) ((void)(p), (void)(n))
#define RT_PW_WPREF_c(p, n) ((void)(p), (void)(n))
/* Whether a tile prefetches its output (and residual) lines, by input
 * channels: a tile's sum over C must be long enough to hide them, and the
 * prefetches cost a tile 2-4 instructions a pixel. Measured on AVX-512 (Xeon,
 * ResNet-50's 1x1 layers of 256-2048 input channels: 6-8% less time, the
 * whole network 2-5%); on AVX2 (Zen 3) the tiles ran as fast or faster
 * without them at every C from 8 to 2048 (MobileNets' 8-32: 4-11% faster,
 * paired A/B in one process), so AVX2 does not prefetch them, nor AVX-512
 * below 256 channels, where the same short sums apply. On Zen 4 (AVX-512)
 * the threshold hardly matters: prefetching at every C, MobileNetV2 took
 * 0.993x the time and ResNet-50 0.999x; never prefetching, ResNet-50 took
 * 1.009x (whole networks, same plan, 1 thread, alternating processes, 9-21
 * rounds: within the noise). */
#define RT_PW_OPF_avx512(C) ((C) >= 256)
#define RT_PW_OPF_avx2(C) ((void)(C), 0)
#define RT_PW_OPF_neon(C) ((void)(C), 0)
#define RT_PW_OPF_c(C) ((void)(C), 0)
/* Prefetch into L2 (the tile's residual and output lines). */
#define RT_PW_PREFETCH2_avx512(p) _mm_prefetch((const char *)(p), _MM_HINT_T1)
#define RT_PW_PREFETCH2_avx2(p) _mm_prefetch((const char *)(p), _MM_HINT_T1)
#define RT_PW_PREFETCH2_neon(p) ((void)(p))
#define RT_PW_PREFETCH2_c(p) ((void)(p))

/* The next pair's weights (rt_pw_items_), prefetched while this pair's
 * tiles run, 4 lines of each vector per channel block: the addresses
 * [next, end) and the same off1 bytes on (its second vector). Without it a
 * pair's first tile waited on weights from memory with only RT_PW_WPF
 * channels of lead. Addresses as integers: the last step may pass the
 * packed weights' end, where pointer arithmetic would be undefined. */
struct rt_pw_pf_ {
	uintptr_t next, end;
	size_t off1;
	/* end grows by span / nb floats a tile, in whole floats: after tile i it
	 * is the item's start + floor(span * (i + 1) / nb), kept exactly by
	 * adding q = span / nb and carrying the remainders rem = span % nb in er */
	size_t q, rem, nb, er;
};

/* One more tile's share of the next pair's weights (rt_pw_items_). */
static inline __attribute__((always_inline)) void rt_pw_pf_tile_(struct rt_pw_pf_ *pf)
{
	pf->end += pf->q * sizeof(float);
	pf->er += pf->rem;
	if (pf->er >= pf->nb) {
		pf->er -= pf->nb;
		pf->end += sizeof(float);
	}
}

static inline __attribute__((always_inline)) void rt_pw_prefetch_(struct rt_pw_pf_ *pf)
{
	if (pf->next < pf->end) { /* straight code: it is inlined into every tile */
		for (uintptr_t k = 0; k < 256; k += 64) {
			__builtin_prefetch((const void *)(pf->next + k), 0, 3);
			__builtin_prefetch((const void *)(pf->next + pf->off1 + k), 0, 3);
		}
		pf->next += 256;
	}
}

/* One output channel vector's place: weights at w (input channel 0, then wb
 * floats per channel), outputs of the tile's first pixel at y, `valid` real
 * channels (the rest are stored as 0 in blocked layouts, not at all in HWC). */
struct rt_pw_vec_ {
	const float *w;
	float *y;
	const float *r; /* the fused residual at y's place (p->res, laid out like y), or NULL */
	int valid;
	struct rt_pw_pf_ *pf; /* in/out (vector 0's): the next pair's weights, or NULL */
};

/* The vector's output and residual nd floats further on (the next tile's). */
static inline __attribute__((always_inline)) void rt_pw_step_(struct rt_pw_vec_ *u, size_t nd)
{
	u->y += nd;
	if (u->r)
		u->r += nd;
}

/* Stores one vector of the tile lane by lane: y = act(t + r) with the
 * residual r if v->r and the activation if `act`; only the valid lanes, the
 * rest zeroed in blocked layouts and left alone in HWC. */
static inline void rt_pw_fix_(const struct rt_pw_geom_ *g, const struct rt_pw_vec_ *v, int vl,
                              int nr, const float *t, /* [nr][vl] the tile's values */
                              int act)
{
	for (int j = 0; j < nr; j++) {
		float *yj = v->y + (size_t)j * g->ypix; /* [vl] */
		const float *rj = v->r ? v->r + (size_t)j * g->ypix : NULL;
		const float *tj = t + (size_t)j * vl;
		for (int l = 0; l < vl; l++) {
			if (l >= v->valid) {
				if (g->bs)
					yj[l] = 0.0f;
				continue;
			}
			float s = rj ? tj[l] + rj[l] : tj[l];
			yj[l] = act ? rt_act_apply(g->act, g->alpha, g->beta, s) : s;
		}
	}
}

/* Spills c0..c(nr-1) to t [nr][VL]. */
#define RT_PW_SPILL_(STORE, VL)                                                             \
	do {                                                                                    \
		STORE(t, c0);                                                                       \
		if (nr > 1) STORE(t + VL, c1);                                                      \
		if (nr > 2) STORE(t + 2 * VL, c2);                                                  \
		if (nr > 3) STORE(t + 3 * VL, c3);                                                  \
		if (nr > 4) STORE(t + 4 * VL, c4);                                                  \
		if (nr > 5) STORE(t + 5 * VL, c5);                                                  \
		if (nr > 6) STORE(t + 6 * VL, c6);                                                  \
		if (nr > 7) STORE(t + 7 * VL, c7);                                                  \
		if (nr > 8) STORE(t + 8 * VL, c8);                                                  \
		if (nr > 9) STORE(t + 9 * VL, c9);                                                  \
		if (nr > 10) STORE(t + 10 * VL, c10);                                               \
		if (nr > 11) STORE(t + 11 * VL, c11);                                               \
	} while (0)
/* The stores and residual loads of one output channel vector, one function
 * per kind so that a tile picks the kind once for all its pixels: plain (all
 * lanes valid), zero-masked (blocked layouts: the lanes past M stored as 0)
 * or masked (HWC: only the valid lanes read and written, never past the
 * tensor). */
#define RT_PW_ST_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)       \
	static inline __attribute__((always_inline)) RT_PW_ATTR_##SUF void rt_pw_stp_##SUF(     \
	    float *y, int n, V c)                                                               \
	{                                                                                       \
		(void)n;                                                                            \
		STORE(y, c);                                                                        \
	}                                                                                       \
	static inline __attribute__((always_inline)) RT_PW_ATTR_##SUF void rt_pw_stz_##SUF(     \
	    float *y, int n, V c)                                                               \
	{                                                                                       \
		STORE(y, RT_PW_ZMASK_##SUF(c, n));                                                  \
	}                                                                                       \
	static inline __attribute__((always_inline)) RT_PW_ATTR_##SUF void rt_pw_stm_##SUF(     \
	    float *y, int n, V c)                                                               \
	{                                                                                       \
		RT_PW_MSTORE_##SUF(y, n, c);                                                        \
	}                                                                                       \
	static inline __attribute__((always_inline)) RT_PW_ATTR_##SUF V rt_pw_adp_##SUF(        \
	    V c, const float *r, int n)                                                         \
	{                                                                                       \
		(void)n;                                                                            \
		return ADD(c, LOAD(r));                                                             \
	}                                                                                       \
	static inline __attribute__((always_inline)) RT_PW_ATTR_##SUF V rt_pw_adm_##SUF(        \
	    V c, const float *r, int n)                                                         \
	{                                                                                       \
		return ADD(c, RT_PW_MLOAD_##SUF(r, n));                                             \
	}
RT_SIMD_EACH(RT_PW_ST_)
/* S(F, k, ck) for the tile's pixels k < nr (in rt_pw_out_: nr, c0..c11 in
 * scope), S one of the two below */
#define RT_PW_EACH_(S, F)                                                                   \
	do {                                                                                    \
		S(F, 0, c0);                                                                        \
		if (nr > 1) S(F, 1, c1);                                                            \
		if (nr > 2) S(F, 2, c2);                                                            \
		if (nr > 3) S(F, 3, c3);                                                            \
		if (nr > 4) S(F, 4, c4);                                                            \
		if (nr > 5) S(F, 5, c5);                                                            \
		if (nr > 6) S(F, 6, c6);                                                            \
		if (nr > 7) S(F, 7, c7);                                                            \
		if (nr > 8) S(F, 8, c8);                                                            \
		if (nr > 9) S(F, 9, c9);                                                            \
		if (nr > 10) S(F, 10, c10);                                                         \
		if (nr > 11) S(F, 11, c11);                                                         \
	} while (0)
/* pixel k's store through F (rt_pw_st?_), and its residual added (rt_pw_ad?_) */
#define RT_PW_ST1_(F, k, c) F(v->y + (k) * yp, v->valid, c)
#define RT_PW_RES1_(F, k, c) (c = F(c, v->r + (k) * yp, v->valid))
/* The store of one output channel vector of a tile, c0..c(nr-1) its nr
 * pixels' sums (bias included): y = act(c + r). The residual is added and
 * ReLU or Clip applied in registers, so the result equals bit for bit the
 * conv followed by runtime/residual.c's pass (the same float add, then the
 * same max/min). A partial vector (the last channels of an HWC row or of a
 * block) reads and writes only its valid lanes with masked loads and stores
 * (blocked layouts store the other lanes as 0); the other activations, and
 * partial vectors on ISAs without masks, go lane by lane (rt_pw_fix_). */
#define RT_PW_OUT_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)      \
	static inline __attribute__((always_inline)) RT_PW_ATTR_##SUF void rt_pw_out_##SUF(     \
	    int nr, const struct rt_pw_geom_ *g, const struct rt_pw_vec_ *v, V c0, V c1, V c2,  \
	    V c3, V c4, V c5, V c6, V c7, V c8, V c9, V c10, V c11)                             \
	{                                                                                       \
		const size_t yp = g->ypix;                                                          \
		const int full = v->valid == VL;                                                    \
		float t[12 * VL]; /* the vector's values, [nr][VL], for rt_pw_fix_ */               \
		if (full || RT_PW_MASKED_##SUF) {                                                   \
			if (v->r && full)                                                               \
				RT_PW_EACH_(RT_PW_RES1_, rt_pw_adp_##SUF);                                           \
			else if (v->r)                                                                  \
				RT_PW_EACH_(RT_PW_RES1_, rt_pw_adm_##SUF);                                           \
			if (g->act == RT_ACT_RELU || g->act == RT_ACT_CLIP) {                           \
				const V lo = g->act == RT_ACT_RELU ? ZERO : SET1(g->alpha);                 \
				c0 = MAX(c0, lo), c1 = MAX(c1, lo), c2 = MAX(c2, lo), c3 = MAX(c3, lo);     \
				c4 = MAX(c4, lo), c5 = MAX(c5, lo), c6 = MAX(c6, lo), c7 = MAX(c7, lo);     \
				c8 = MAX(c8, lo), c9 = MAX(c9, lo), c10 = MAX(c10, lo), c11 = MAX(c11, lo); \
				if (g->act == RT_ACT_CLIP) {                                                \
					const V hi = SET1(g->beta);                                             \
					c0 = MIN(c0, hi), c1 = MIN(c1, hi), c2 = MIN(c2, hi);                   \
					c3 = MIN(c3, hi), c4 = MIN(c4, hi), c5 = MIN(c5, hi);                   \
					c6 = MIN(c6, hi), c7 = MIN(c7, hi), c8 = MIN(c8, hi);                   \
					c9 = MIN(c9, hi), c10 = MIN(c10, hi), c11 = MIN(c11, hi);               \
				}                                                                           \
			} else if (g->act != RT_ACT_NONE) {                                             \
				struct rt_pw_vec_ u = *v; /* residual added; the activation remains */      \
				u.r = NULL;                                                                 \
				RT_PW_SPILL_(STORE, VL);                                                    \
				rt_pw_fix_(g, &u, VL, nr, t, 1);                                            \
				return;                                                                     \
			}                                                                               \
			if (full)                                                                       \
				RT_PW_EACH_(RT_PW_ST1_, rt_pw_stp_##SUF);                                            \
			else if (g->bs)                                                                 \
				RT_PW_EACH_(RT_PW_ST1_, rt_pw_stz_##SUF);                                            \
			else                                                                            \
				RT_PW_EACH_(RT_PW_ST1_, rt_pw_stm_##SUF);                                            \
			return;                                                                         \
		}                                                                                   \
		RT_PW_SPILL_(STORE, VL); /* partial, no masks: residual and activation by lane */   \
		rt_pw_fix_(g, v, VL, nr, t, 1);                                                     \
	}
RT_SIMD_EACH(RT_PW_OUT_)

/* The tile of nr pixels x nv vectors (both constants after inlining):
 * x is the first pixel's channel 0, xp the floats between the tile's pixels. */
#define RT_PW_TILE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)     \
	static inline __attribute__((always_inline)) RT_PW_ATTR_##SUF void rt_pw_tile_##SUF(    \
	    int nr, int nv, const struct rt_pw_geom_ *g, const float *x, size_t xp,             \
	    const float *bias, /* [2][VL] bias of the two vectors, 0 past M */                  \
	    const struct rt_pw_vec_ *v0, const struct rt_pw_vec_ *v1)                           \
	{                                                                                       \
		const V bz0 = LOAD(bias), bz1 = LOAD(bias + VL);                                    \
		V a0 = bz0, a1 = bz0, a2 = bz0, a3 = bz0, a4 = bz0, a5 = bz0;                       \
		V a6 = bz0, a7 = bz0, a8 = bz0, a9 = bz0, a10 = bz0, a11 = bz0;                     \
		V b0 = bz1, b1 = bz1, b2 = bz1, b3 = bz1, b4 = bz1, b5 = bz1;                       \
		V b6 = bz1, b7 = bz1, b8 = bz1, b9 = bz1, b10 = bz1, b11 = bz1;                     \
		const float *w0 = v0->w, *w1 = nv > 1 ? v1->w : v0->w;                              \
		const size_t wb = (size_t)g->wb;                                                    \
		/* the tile's residual and output lines, a plane or a row apart where the     */    \
		/* hardware prefetchers do not look: into L2 while the sum over C runs, if   */     \
		/* that is long enough (RT_PW_OPF_)                                           */    \
		for (int j = 0; RT_PW_OPF_##SUF(g->C) && j < nr; j++) {                             \
			const size_t o = (size_t)j * g->ypix;                                           \
			if (v0->r) RT_PW_PREFETCH2_##SUF(v0->r + o);                                    \
			RT_PW_PREFETCH2_##SUF(v0->y + o);                                               \
			if (nv > 1) {                                                                   \
				if (v1->r) RT_PW_PREFETCH2_##SUF(v1->r + o);                                \
				RT_PW_PREFETCH2_##SUF(v1->y + o);                                           \
			}                                                                               \
		}                                                                                   \
		for (int cb = 0; cb < g->ncb; cb++) {                                               \
			const int nci = cb == g->ncb - 1 ? g->C - cb * g->nci : g->nci;                 \
			/* pixel j = 4k + r at xk[r * xp]: few base pointers, one stride */             \
			const float *x0 = x + cb * g->xcb, *x4 = x0 + 4 * xp, *x8 = x0 + 8 * xp;        \
			if (cb + 1 < g->ncb) /* the next block's pixels: nr lines a block apart */      \
				for (int j = 0; j < nr; j++)                                                \
					RT_PW_PREFETCH_##SUF(x0 + g->xcb + j * xp);                             \
			if (v0->pf)                                                                     \
				rt_pw_prefetch_(v0->pf);                                                    \
			for (int ci = 0; ci < nci; ci++, x0++, x4++, x8++, w0 += wb, w1 += wb) {        \
				RT_PW_WPREF_##SUF(w0, RT_PW_WPF * wb);                                      \
				if (nv > 1) RT_PW_WPREF_##SUF(w1, RT_PW_WPF * wb);                          \
				const V wv0 = LOAD(w0);                                                     \
				const V wv1 = nv > 1 ? LOAD(w1) : wv0;                                      \
				V xv;                                                                       \
				xv = SET1(x0[0]);                                                           \
				a0 = RT_PW_FMA_##SUF(xv, wv0, a0);                                          \
				if (nv > 1) b0 = RT_PW_FMA_##SUF(xv, wv1, b0);                              \
				if (nr > 1) {                                                               \
					xv = SET1(x0[xp]);                                                      \
					a1 = RT_PW_FMA_##SUF(xv, wv0, a1);                                      \
					if (nv > 1) b1 = RT_PW_FMA_##SUF(xv, wv1, b1);                          \
				}                                                                           \
				if (nr > 2) {                                                               \
					xv = SET1(x0[2 * xp]);                                                  \
					a2 = RT_PW_FMA_##SUF(xv, wv0, a2);                                      \
					if (nv > 1) b2 = RT_PW_FMA_##SUF(xv, wv1, b2);                          \
				}                                                                           \
				if (nr > 3) {                                                               \
					xv = SET1(x0[3 * xp]);                                                  \
					a3 = RT_PW_FMA_##SUF(xv, wv0, a3);                                      \
					if (nv > 1) b3 = RT_PW_FMA_##SUF(xv, wv1, b3);                          \
				}                                                                           \
				if (nr > 4) {                                                               \
					xv = SET1(x4[0]);                                                       \
					a4 = RT_PW_FMA_##SUF(xv, wv0, a4);                                      \
					if (nv > 1) b4 = RT_PW_FMA_##SUF(xv, wv1, b4);                          \
				}                                                                           \
				if (nr > 5) {                                                               \
					xv = SET1(x4[xp]);                                                      \
					a5 = RT_PW_FMA_##SUF(xv, wv0, a5);                                      \
					if (nv > 1) b5 = RT_PW_FMA_##SUF(xv, wv1, b5);                          \
				}                                                                           \
				if (nr > 6) {                                                               \
					xv = SET1(x4[2 * xp]);                                                  \
					a6 = RT_PW_FMA_##SUF(xv, wv0, a6);                                      \
					if (nv > 1) b6 = RT_PW_FMA_##SUF(xv, wv1, b6);                          \
				}                                                                           \
				if (nr > 7) {                                                               \
					xv = SET1(x4[3 * xp]);                                                  \
					a7 = RT_PW_FMA_##SUF(xv, wv0, a7);                                      \
					if (nv > 1) b7 = RT_PW_FMA_##SUF(xv, wv1, b7);                          \
				}                                                                           \
				if (nr > 8) {                                                               \
					xv = SET1(x8[0]);                                                       \
					a8 = RT_PW_FMA_##SUF(xv, wv0, a8);                                      \
					if (nv > 1) b8 = RT_PW_FMA_##SUF(xv, wv1, b8);                          \
				}                                                                           \
				if (nr > 9) {                                                               \
					xv = SET1(x8[xp]);                                                      \
					a9 = RT_PW_FMA_##SUF(xv, wv0, a9);                                      \
					if (nv > 1) b9 = RT_PW_FMA_##SUF(xv, wv1, b9);                          \
				}                                                                           \
				if (nr > 10) {                                                              \
					xv = SET1(x8[2 * xp]);                                                  \
					a10 = RT_PW_FMA_##SUF(xv, wv0, a10);                                    \
					if (nv > 1) b10 = RT_PW_FMA_##SUF(xv, wv1, b10);                        \
				}                                                                           \
				if (nr > 11) {                                                              \
					xv = SET1(x8[3 * xp]);                                                  \
					a11 = RT_PW_FMA_##SUF(xv, wv0, a11);                                    \
					if (nv > 1) b11 = RT_PW_FMA_##SUF(xv, wv1, b11);                        \
				}                                                                           \
			}                                                                               \
		}                                                                                   \
		rt_pw_out_##SUF(nr, g, v0, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);       \
		if (nv > 1)                                                                         \
			rt_pw_out_##SUF(nr, g, v1, b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11);   \
	}
RT_SIMD_EACH(RT_PW_TILE_)

/* A vector pair's last vector, alone (M = 24 on 8 lanes: 3 vectors), runs
 * two tiles as one of 2 nr pixels on AVX2: a lone vector's tile of 6 holds
 * only 6 accumulators, fewer than the 8 FMAs in flight that 2 pipes of
 * latency 4 need, and loads a weight vector per 6 FMAs. Each accumulator
 * sums in the same order, so the outputs are the same bits. AVX-512 tiles
 * are 12 pixels already; NEON not measured. */
#define RT_PW_DOUBLE_avx512 0
#define RT_PW_DOUBLE_avx2 1
#define RT_PW_DOUBLE_neon 0
#define RT_PW_DOUBLE_c 0

/* cnt tiles of nr pixels side by side in one row (x and the outputs step
 * nr pixels a tile), each taking its share of the next pair's weights to
 * prefetch: the loop over a run of tiles is compiled with the tile's width
 * as a constant, so that a layer of few input channels (MobileNets' 8 to
 * 32), whose tiles are short, does not pay a call, a dispatch and the
 * tile's place in the band for each of them. */
#define RT_PW_TILES_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)    \
	static inline __attribute__((always_inline)) RT_PW_ATTR_##SUF void rt_pw_tiles_##SUF(   \
	    int nr, int nv, int cnt, const struct rt_pw_geom_ *g, const float *x, size_t xp,    \
	    const float *bias, const struct rt_pw_vec_ *v0, const struct rt_pw_vec_ *v1)        \
	{                                                                                       \
		struct rt_pw_vec_ u0 = *v0, u1 = *v1;                                               \
		const int w = RT_PW_DOUBLE_##SUF && nv == 1 ? 2 : 1; /* tiles per call */           \
		const size_t dy = (size_t)w * nr * g->ypix;                                         \
		int i = 0;                                                                          \
		for (; i + w <= cnt; i += w, x += (size_t)w * nr * xp) {                            \
			if (u0.pf)                                                                      \
				for (int k = 0; k < w; k++)                                                 \
					rt_pw_pf_tile_(u0.pf);                                                  \
			rt_pw_tile_##SUF(w * nr, nv, g, x, xp, bias, &u0, &u1);                         \
			rt_pw_step_(&u0, dy);                                                           \
			rt_pw_step_(&u1, dy);                                                           \
		}                                                                                   \
		if (i < cnt) { /* one tile left of a doubled run */                                 \
			if (u0.pf)                                                                      \
				rt_pw_pf_tile_(u0.pf);                                                      \
			rt_pw_tile_##SUF(nr, nv, g, x, xp, bias, &u0, &u1);                             \
		}                                                                                   \
	}
RT_SIMD_EACH(RT_PW_TILES_)

/* One call per ISA: cnt tiles of nr pixels (1..NR) and nv vectors (1, 2),
 * dispatched to an instance with both as constants. */
#define RT_PW_CASE_(SUF, N)                                                                 \
	case N:                                                                                 \
		if (nv > 1)                                                                         \
			rt_pw_tiles_##SUF(N, 2, cnt, g, x, xp, bias, v0, v1);                           \
		else                                                                                \
			rt_pw_tiles_##SUF(N, 1, cnt, g, x, xp, bias, v0, v1);                           \
		break;
#define RT_PW_DISPATCH_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN) \
	static RT_PW_ATTR_##SUF void rt_pw_run_##SUF(                                           \
	    int nr, int nv, int cnt, const struct rt_pw_geom_ *g, const float *x, size_t xp,    \
	    const float *bias, const struct rt_pw_vec_ *v0, const struct rt_pw_vec_ *v1)        \
	{                                                                                       \
		switch (nr) {                                                                       \
			RT_PW_CASE_(SUF, 1)                                                             \
			RT_PW_CASE_(SUF, 2)                                                             \
			RT_PW_CASE_(SUF, 3)                                                             \
			RT_PW_CASE_(SUF, 4)                                                             \
		default:                                                                            \
			if (RT_PW_NR_##SUF > 4)                                                         \
				rt_pw_wide_##SUF(nr, nv, cnt, g, x, xp, bias, v0, v1);                      \
		}                                                                                   \
	}
/* nr 5..12, only for the ISAs whose tiles are that wide */
#define RT_PW_WIDE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)     \
	static RT_PW_ATTR_##SUF void rt_pw_wide_##SUF(                                          \
	    int nr, int nv, int cnt, const struct rt_pw_geom_ *g, const float *x, size_t xp,    \
	    const float *bias, const struct rt_pw_vec_ *v0, const struct rt_pw_vec_ *v1)        \
	{                                                                                       \
		switch (RT_PW_NR_##SUF > 4 ? nr : 0) {                                              \
			RT_PW_CASE_(SUF, 5)                                                             \
			RT_PW_CASE_(SUF, 6)                                                             \
		default:                                                                            \
			if (RT_PW_NR_##SUF > 6)                                                         \
				rt_pw_wider_##SUF(nr, nv, cnt, g, x, xp, bias, v0, v1);                     \
		}                                                                                   \
	}
#define RT_PW_WIDER_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)    \
	static RT_PW_ATTR_##SUF void rt_pw_wider_##SUF(                                         \
	    int nr, int nv, int cnt, const struct rt_pw_geom_ *g, const float *x, size_t xp,    \
	    const float *bias, const struct rt_pw_vec_ *v0, const struct rt_pw_vec_ *v1)        \
	{                                                                                       \
		switch (RT_PW_NR_##SUF > 6 ? nr : 0) {                                              \
			RT_PW_CASE_(SUF, 7)                                                             \
			RT_PW_CASE_(SUF, 8)                                                             \
			RT_PW_CASE_(SUF, 9)                                                             \
			RT_PW_CASE_(SUF, 10)                                                            \
			RT_PW_CASE_(SUF, 11)                                                            \
			RT_PW_CASE_(SUF, 12)                                                            \
		default: break;                                                                     \
		}                                                                                   \
	}
RT_SIMD_EACH(RT_PW_WIDER_)
RT_SIMD_EACH(RT_PW_WIDE_)
RT_SIMD_EACH(RT_PW_DISPATCH_)

#if RT_SIMD_HAVE_AVX512
/* Blocked 16 on AVX-512, the last output channel vector when it holds 8
 * channels or fewer (M = 24, 40, ...: a vector of 16 would waste half or more
 * of its FMAs on the padding). Its accumulator h per pixel instead holds 8
 * channels x 2 input channel parities: lane 2i sums m = m0 + i over the even
 * input channels (from the bias), lane 2i+1 over the odd ones (from 0), so
 * one FMA covers 2 input channels, with the pair x[c], x[c+1] (adjacent in
 * the block) broadcast as one 64-bit value and the weights interleaved the
 * same way (prep_pointwise_pack's tail: [ceil(C/2)][16], lane 2i+p = w[m0 +
 * i][2k + p]). The full vector's x[c+1] is that pair's odd lanes (a shuffle,
 * not a third load per pixel): the tile is then 36 FMAs per 2 input channels
 * and 12 pixels against 27 loads, where broadcasting x[c+1] from memory too
 * made it 39 and load-bound (96 -> 24 on 56 x 56, CPU time, medians of 300:
 * 81-83 us, with the shuffle 71-73, with both from the pair 75; the 32-wide
 * tile it replaces 89). The store adds the two halves (a permute each) and goes
 * through rt_pw_out_avx512 like any partial vector. A full vector vf, when
 * the tile has one (nf), runs alongside in the usual order, bit for bit as
 * rt_pw_tile_avx512 computes it. */
#define RT_PH_BC2_(p) _mm512_castpd_ps(_mm512_broadcastsd_pd(_mm_castsi128_pd(              \
	_mm_loadl_epi64((const __m128i *)(const void *)(p)))))
#define RT_PH_PAIR_(J)                                                                      \
	if (nr > J) {                                                                           \
		const float *xj = x0 + (J) * xp;                                                    \
		const __m512 x2 = RT_PH_BC2_(xj); /* x[c], x[c+1], x[c], ... */                     \
		if (nf) {                                                                           \
			a##J = _mm512_fmadd_ps(_mm512_set1_ps(xj[0]), wa, a##J);                        \
			a##J = _mm512_fmadd_ps(_mm512_movehdup_ps(x2), wb1, a##J);                      \
		}                                                                                   \
		h##J = _mm512_fmadd_ps(x2, wh2, h##J);                                              \
	}
#define RT_PH_ODD_(J)                                                                       \
	if (nr > J) {                                                                           \
		const __m512 xv = _mm512_set1_ps(x0[(J) * xp]);                                     \
		if (nf) a##J = _mm512_fmadd_ps(xv, wa, a##J);                                       \
		h##J = _mm512_mask3_fmadd_ps(xv, wh2, h##J, 0x5555);                                \
	}
#define RT_PH_SUM_(J)                                                                       \
	h##J = _mm512_add_ps(_mm512_maskz_permutexvar_ps(0x00ff, ie, h##J),                     \
	                     _mm512_maskz_permutexvar_ps(0x00ff, io, h##J));
static inline __attribute__((always_inline)) RT_PW_ATTR_avx512 void rt_pw_half_avx512(
    int nr, int nf, const struct rt_pw_geom_ *g, const float *x, size_t xp,
    const float *bias, /* [2][16]: the full vector's, then the half's */
    const struct rt_pw_vec_ *vf, const struct rt_pw_vec_ *vh,
    const float *wh) /* the interleaved weights of vh, [ceil(C/2)][16] */
{
	const __m512i ib = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
	const __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m512i io = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m512 bz0 = _mm512_loadu_ps(bias);
	const __m512 bzh = _mm512_maskz_permutexvar_ps(0x5555, ib, _mm512_loadu_ps(bias + 16));
	__m512 a0 = bz0, a1 = bz0, a2 = bz0, a3 = bz0, a4 = bz0, a5 = bz0;
	__m512 a6 = bz0, a7 = bz0, a8 = bz0, a9 = bz0, a10 = bz0, a11 = bz0;
	__m512 h0 = bzh, h1 = bzh, h2 = bzh, h3 = bzh, h4 = bzh, h5 = bzh;
	__m512 h6 = bzh, h7 = bzh, h8 = bzh, h9 = bzh, h10 = bzh, h11 = bzh;
	const float *wf = vf->w; /* read only when nf */
	for (int j = 0; RT_PW_OPF_avx512(g->C) && j < nr; j++) {
		const size_t o = (size_t)j * g->ypix;
		if (vh->r) RT_PW_PREFETCH2_avx512(vh->r + o);
		RT_PW_PREFETCH2_avx512(vh->y + o);
		if (nf) {
			if (vf->r) RT_PW_PREFETCH2_avx512(vf->r + o);
			RT_PW_PREFETCH2_avx512(vf->y + o);
		}
	}
	for (int cb = 0; cb < g->ncb; cb++) {
		const int nci = cb == g->ncb - 1 ? g->C - cb * g->nci : g->nci;
		const float *x0 = x + cb * g->xcb;
		if (cb + 1 < g->ncb) /* the next block's pixels: nr lines a block apart */
			for (int j = 0; j < nr; j++)
				RT_PW_PREFETCH_avx512(x0 + g->xcb + j * xp);
		int ci = 0;
		for (; ci + 1 < nci; ci += 2, x0 += 2, wh += 16) {
			const __m512 wh2 = _mm512_loadu_ps(wh);
			const __m512 wa = nf ? _mm512_loadu_ps(wf) : wh2;
			const __m512 wb1 = nf ? _mm512_loadu_ps(wf + 16) : wh2;
			if (nf)
				wf += 32;
			RT_PH_PAIR_(0) RT_PH_PAIR_(1) RT_PH_PAIR_(2) RT_PH_PAIR_(3)
			RT_PH_PAIR_(4) RT_PH_PAIR_(5) RT_PH_PAIR_(6) RT_PH_PAIR_(7)
			RT_PH_PAIR_(8) RT_PH_PAIR_(9) RT_PH_PAIR_(10) RT_PH_PAIR_(11)
		}
		if (ci < nci) { /* C odd: its last channel, the odd lanes left alone */
			const __m512 wh2 = _mm512_loadu_ps(wh);
			const __m512 wa = nf ? _mm512_loadu_ps(wf) : wh2;
			if (nf)
				wf += 16;
			RT_PH_ODD_(0) RT_PH_ODD_(1) RT_PH_ODD_(2) RT_PH_ODD_(3)
			RT_PH_ODD_(4) RT_PH_ODD_(5) RT_PH_ODD_(6) RT_PH_ODD_(7)
			RT_PH_ODD_(8) RT_PH_ODD_(9) RT_PH_ODD_(10) RT_PH_ODD_(11)
		}
	}
	RT_PH_SUM_(0) RT_PH_SUM_(1) RT_PH_SUM_(2) RT_PH_SUM_(3) RT_PH_SUM_(4) RT_PH_SUM_(5)
	RT_PH_SUM_(6) RT_PH_SUM_(7) RT_PH_SUM_(8) RT_PH_SUM_(9) RT_PH_SUM_(10) RT_PH_SUM_(11)
	if (nf)
		rt_pw_out_avx512(nr, g, vf, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
	rt_pw_out_avx512(nr, g, vh, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11);
}
#define RT_PH_CASE_(N)                                                                      \
	case N:                                                                                 \
		if (nf)                                                                             \
			rt_pw_half_avx512(N, 1, g, x, xp, bias, &uf, &uh, wh);                          \
		else                                                                                \
			rt_pw_half_avx512(N, 0, g, x, xp, bias, &uf, &uh, wh);                          \
		break;
/* cnt tiles of nr pixels side by side, as rt_pw_tiles_ runs them */
static RT_PW_ATTR_avx512 void rt_pw_hrun_avx512(int nr, int nf, int cnt,
                                               const struct rt_pw_geom_ *g, const float *x,
                                               size_t xp, const float *bias,
                                               const struct rt_pw_vec_ *vf,
                                               const struct rt_pw_vec_ *vh, const float *wh)
{
	struct rt_pw_vec_ uf = *vf, uh = *vh;
	const size_t dy = (size_t)nr * g->ypix;
	for (int i = 0; i < cnt; i++, x += (size_t)nr * xp) {
		if (uh.pf)
			rt_pw_pf_tile_(uh.pf);
		switch (nr) {
			RT_PH_CASE_(1) RT_PH_CASE_(2) RT_PH_CASE_(3) RT_PH_CASE_(4)
			RT_PH_CASE_(5) RT_PH_CASE_(6) RT_PH_CASE_(7) RT_PH_CASE_(8)
			RT_PH_CASE_(9) RT_PH_CASE_(10) RT_PH_CASE_(11) RT_PH_CASE_(12)
		default: break;
		}
		rt_pw_step_(&uf, dy);
		rt_pw_step_(&uh, dy);
	}
}
#endif

struct rt_pw_job_ {
	const struct rt_conv2d *p;
	const struct rt_pw_geom_ *g;
	const float *x, *w, *b; /* image n's input; packed weights; bias or NULL */
	float *y;               /* image n's output */
	const float *r;         /* image n's fused residual (laid out like y), or NULL */
	int isa, vl, nr;        /* ISA, its vector length and tile width */
	int nvec, pairs;        /* output channel vectors, pairs of them */
	int flat;               /* stride 1: the plane is one row of oH*oW pixels */
	int rows, len;          /* rows of pixels (1 when flat) and pixels per row */
	int tpr, tiles, band;   /* tiles per row, in all, per band */
	int bands;              /* bands: ceil(tiles / band) */
	int pair_major;         /* items run pair by pair (else band by band) */
	const float *wh;        /* the last vector's interleaved weights (rt_pw_half_avx512), or NULL */
	size_t xpx;             /* input floats per pixel within a block: bs, or C */
};

/* The vector pair (index) that item it runs. */
static int rt_pw_pair_(const struct rt_pw_job_ *j, int it)
{
	return j->pair_major ? it / j->bands : it % j->pairs;
}

/* Items [i0, i1): item i is band i / pairs, vector pair i % pairs; or, pair
 * major, vector pair i / bands, band i % bands. */
static void rt_pw_items_(void *ctx, int i0, int i1)
{
	const struct rt_pw_job_ *j = ctx;
	const struct rt_conv2d *p = j->p;
	const struct rt_pw_geom_ *g = j->g;
	const int vl = j->vl;
	struct rt_pw_pf_ pf;
	for (int it = i0; it < i1; it++) {
		const int band = j->pair_major ? it % j->bands : it / j->pairs;
		const int q = 2 * rt_pw_pair_(j, it);
		const int nv = j->nvec - q >= 2 ? 2 : 1;
		struct rt_pw_vec_ v[2];
		float bias[2 * 16]; /* [2][vl] */
		size_t yoff[2];
		/* the next item's pair, when it is another one */
		const int q2 = 2 * rt_pw_pair_(j, it + 1 < i1 ? it + 1 : it);
		const int m2 = q2 * vl, m3 = (j->nvec - q2 >= 2 ? q2 + 1 : q2) * vl;
		const float *wn = j->w + (size_t)(m2 / g->wb) * g->C * g->wb + m2 % g->wb;
		const size_t wspan = it + 1 < i1 && q2 != q ? (size_t)g->C * g->wb : 0;
		pf.next = pf.end = (uintptr_t)wn;
		pf.off1 = ((size_t)(m3 / g->wb) * g->C * g->wb + m3 % g->wb - (size_t)(wn - j->w)) *
		          sizeof(float);
		v[0].pf = v[1].pf = &pf;
		for (int k = 0; k < 2; k++) {
			const int m0 = (q + (k < nv ? k : 0)) * vl; /* first channel of the vector */
			v[k].w = j->w + (size_t)(m0 / g->wb) * g->C * g->wb + m0 % g->wb;
			yoff[k] = g->bs ? (size_t)(m0 / g->bs) * g->ycb + m0 % g->bs
			                : (size_t)m0;
			v[k].valid = p->M - m0 < 0 ? 0 : p->M - m0 < vl ? p->M - m0 : vl;
			for (int l = 0; l < vl; l++)
				bias[k * vl + l] = j->b && l < v[k].valid ? j->b[m0 + l] : 0.0f;
		}
		const int t0 = band * j->band;
		const int t1 = t0 + j->band < j->tiles ? t0 + j->band : j->tiles;
		/* a share of the next pair's weights per tile (rt_pw_pf_tile_), so
		 * that a large plane's tiles do not fetch them all at the start */
		pf.nb = (size_t)(t1 - t0);
		pf.q = wspan / pf.nb;
		pf.rem = wspan % pf.nb;
		pf.er = 0;
		/* runs of tiles: tile t is row t / tpr, piece k = t % tpr, of base + 1
		 * pixels for the first `extra` pieces of the row and base after them */
		const int base = j->len / j->tpr, extra = j->len % j->tpr;
		for (int t = t0, cnt; t < t1; t += cnt) {
			const int r = t / j->tpr, k = t % j->tpr;
			const int s0 = k * base + (k < extra ? k : extra);
			const int nr = base + (k < extra);
			cnt = (k < extra ? extra : j->tpr) - k;
			if (cnt > t1 - t)
				cnt = t1 - t;
			const size_t qout = (size_t)r * j->len + s0; /* first output pixel */
			/* its input pixel: with stride 1 the same index, else (r*sH, s0*sW) */
			const size_t qin = j->flat ? qout : (size_t)r * p->sH * p->W + (size_t)s0 * p->sW;
			const float *x = j->x + qin * j->xpx;
			const size_t xp = (j->flat ? 1 : (size_t)p->sW) * j->xpx;
			for (int k2 = 0; k2 < 2; k2++) {
				v[k2].y = j->y + yoff[k2] + qout * g->ypix;
				v[k2].r = j->r ? j->r + yoff[k2] + qout * g->ypix : NULL;
			}
#if RT_SIMD_HAVE_AVX512
			if (j->wh && q + nv == j->nvec) {
				rt_pw_hrun_avx512(nr, nv - 1, cnt, g, x, xp, bias, &v[0], &v[nv - 1], j->wh);
				continue;
			}
#endif
			switch (j->isa) {
#if RT_SIMD_HAVE_AVX512
			case RT_SGEMM_ISA_AVX512: rt_pw_run_avx512(nr, nv, cnt, g, x, xp, bias, &v[0], &v[1]); break;
#endif
#if RT_SIMD_HAVE_AVX2
			case RT_SGEMM_ISA_AVX2: rt_pw_run_avx2(nr, nv, cnt, g, x, xp, bias, &v[0], &v[1]); break;
#endif
#if RT_SIMD_HAVE_NEON
			case RT_SGEMM_ISA_NEON: rt_pw_run_neon(nr, nv, cnt, g, x, xp, bias, &v[0], &v[1]); break;
#endif
			default:
#if RT_SIMD_HAVE_C
				rt_pw_run_c(nr, nv, cnt, g, x, xp, bias, &v[0], &v[1]);
#endif
				break;
			}
		}
	}
}

/* rt_conv_pointwise with the distance between channel blocks given (blocked
 * variants; 0: the dense H*W*bs and oH*oW*bs), so that a caller can run the
 * 1x1 on a band of rows of a larger image and write it into a buffer of its
 * own (conv_pw_dw.c): x then points at the band's first row in block 0 of
 * the image, xcb = H*W*bs of that image, y at the buffer with ycb its
 * distance between blocks. Images lie ceil(C/bs)*xcb and ceil(M/bs)*ycb
 * floats apart. HWC (variant 0) ignores both. */
RT_FN void rt_conv_pointwise_blocks(const struct rt_conv2d *p, int variant,
                                    const float *x, /* [N] images [C/bs] blocks, xcb apart,
                                                       of [H][W][bs]; or [H][W][C] (0) */
                                    size_t xcb,
                                    const float *w, /* packed: [ceil(M/wb)][C][wb] */
                                    const float *b, /* [M] or NULL */
                                    float *y,       /* out: [N] images [M/bs] blocks, ycb
                                                       apart, of [oH][oW][bs]; or
                                                       [oH][oW][M] (0) */
                                    size_t ycb)
{
	const int bs = variant;
	const int isa = rt_simd_isa(p->isa, bs ? bs : 16);
	const int vl = isa == RT_SGEMM_ISA_AVX512 ? 16 : isa == RT_SGEMM_ISA_AVX2 ? 8
	               : isa == RT_SGEMM_ISA_NEON ? 4 : 1;
	const int nr = isa == RT_SGEMM_ISA_AVX512 ? RT_PW_NR_avx512 : isa == RT_SGEMM_ISA_AVX2
	               ? RT_PW_NR_avx2 : isa == RT_SGEMM_ISA_NEON ? RT_PW_NR_neon : RT_PW_NR_c;
	struct rt_pw_geom_ g;
	g.C = p->C;
	g.M = p->M;
	g.bs = bs;
	g.wb = bs ? bs : 16;
	g.xcb = bs ? (xcb ? xcb : (size_t)p->H * p->W * bs) : 0;
	g.ycb = bs ? (ycb ? ycb : (size_t)p->oH * p->oW * bs) : 0;
	g.ncb = bs ? (p->C + bs - 1) / bs : 1;
	g.nci = bs ? bs : p->C;
	g.ypix = bs ? (size_t)bs : (size_t)p->M;
	g.act = p->act;
	g.alpha = p->alpha;
	g.beta = p->beta;

	struct rt_pw_job_ j;
	j.p = p;
	j.g = &g;
	j.w = w;
	j.b = b;
	j.isa = isa;
	j.vl = vl;
	j.nr = nr;
	j.nvec = bs ? (p->M + bs - 1) / bs * (bs / vl) : (p->M + vl - 1) / vl;
	j.pairs = (j.nvec + 1) / 2;
	/* blocks of 16 on AVX-512 whose last vector has 8 channels or fewer: that
	 * vector runs 2 input channels per FMA on its interleaved weights, which
	 * prep_pointwise_pack appends after the blocks */
	j.wh = isa == RT_SGEMM_ISA_AVX512 && rt_pw_pairs_tail(p->M, bs)
	       ? w + (size_t)((p->M + 15) / 16) * 16 * p->C : NULL;
	j.xpx = bs ? (size_t)bs : (size_t)p->C;
	/* stride 1 reads every pixel in order: the plane is one row */
	j.flat = p->sH == 1 && p->sW == 1;
	j.rows = j.flat ? 1 : p->oH;
	j.len = j.flat ? p->oH * p->oW : p->oW;
	j.tpr = (j.len + nr - 1) / nr;
	j.tiles = j.rows * j.tpr;
	/* tiles per band: the band's input, C floats per pixel, about 512 KiB,
	 * stays in L2 while every pair's weights pass over it; that holds a whole
	 * 7x7 plane of 2048 channels (ResNet-50's layer4), whose 4 MiB of weights
	 * are then read once per call instead of once per band */
	j.band = (int)(RT_PW_BAND / ((size_t)p->C * nr));
	if (j.band < 1)
		j.band = 1;
	/* a plane that fits one band stays in L2 whatever the order, so its
	 * items run pair by pair: each pair's weights are read once, and the
	 * threads, taking runs of items from either end (thread_pool.c), each
	 * read and write their own output channels (MobileNetV2's 7 x 7 x 960
	 * -> 160: 614 KiB of weights over a 188 KiB plane), the channel blocks
	 * that the depthwise layer after an expansion takes on the same thread */
	j.pair_major = j.tiles <= j.band;
	const double work = (double)p->M * p->C * p->oH * p->oW;
#ifdef RT_THREADS
	/* and, where the layer splits, at least 2 RT_PARALLEL_ITEMS items, so
	 * that a layer of few output channels (MobileNetV2's 28 x 28 x 144 ->
	 * 32: one pair, 2 bands) or few tiles (7 x 7 x 960 -> 160: 5 pairs, 1
	 * band) shares evenly; a tile computes the same whatever band it is in */
	const int bands = (2 * RT_PARALLEL_ITEMS + j.pairs - 1) / j.pairs;
	if (work >= RT_PARALLEL_MIN_WORK && (j.tiles + j.band - 1) / j.band < bands)
		j.band = (j.tiles + bands - 1) / bands > 1 ? (j.tiles + bands - 1) / bands : 1;
#endif
	j.bands = (j.tiles + j.band - 1) / j.band;
	const int items = j.bands * j.pairs;
	const size_t ximg = bs ? (size_t)g.ncb * g.xcb : (size_t)p->H * p->W * p->C;
	const size_t yimg = bs ? (size_t)((p->M + bs - 1) / bs) * g.ycb
	                       : (size_t)p->M * p->oH * p->oW;
	for (int n = 0; n < p->N; n++) {
		j.x = x + n * ximg;
		j.y = y + n * yimg;
		j.r = p->res ? p->res + n * yimg : NULL;
		if (work < RT_PARALLEL_MIN_WORK)
			rt_pw_items_(&j, 0, items);
		else
			rt_parallel(rt_pw_items_, &j, items);
	}
}

RT_FN void rt_conv_pointwise(const struct rt_conv2d *p, int variant,
                             const float *x, /* [N] images [C/bs][H][W][bs], or [H][W][C] (0) */
                             const float *w, /* packed: [ceil(M/wb)][C][wb] */
                             const float *b, /* [M] or NULL */
                             float *y,       /* out: [N] images [M/bs][oH][oW][bs], or
                                                [oH][oW][M] (variant 0); with p->res,
                                                act(conv + bias + res) */
                             float *ws)      /* unused */
{
	(void)ws;
	rt_conv_pointwise_blocks(p, variant, x, 0, w, b, y, 0);
}
