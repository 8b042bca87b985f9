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
 * bias, ReLU or Clip applied on the way out (the other activations after
 * the store, in scalar code).
 *
 * Rows (variant):
 *   16  conv_pointwise_chw16c   x [C/16][H][W][16] -> y [M/16][oH][oW][16]
 *    8  conv_pointwise_chw8c    x [C/8][H][W][8]   -> y [M/8][oH][oW][8]
 *    0  conv_pointwise_hwc      x [H][W][C]        -> y [oH][oW][M]
 * Weights (prep_pointwise.c) are packed at compile time as
 * [ceil(M/wb)][C][wb], wb = the block (16 for HWC), the channels past M zero:
 * a tile's weight vectors for one input channel are contiguous, and
 * consecutive input channels are wb floats apart.
 *
 * Pixels: with stride 1 the output pixels are the input pixels, so the plane
 * is one row of oH*oW pixels and a tile may span image rows (7x7 and 14x14
 * planes fill whole tiles); with stride 2 (ResNet's downsampling shortcut) a
 * tile lies within an output row and reads every sW-th input pixel directly.
 * A row of L pixels is cut into ceil(L/NR) tiles of equal width (+-1).
 *
 * Loop order: image; band of tiles (the inputs a band reads, about 256 KiB,
 * stay in L2); pair of output channel vectors (its weights, 2VL * C floats,
 * stay in L1/L2 across the band); tile; input channel. Threads (rt_parallel)
 * take (band, pair) items, each the sole writer of its outputs and computed
 * the same way whoever runs it, so outputs are identical for any thread
 * count.
 *
 * Blocked layouts: input channels past C are zero but never read (the loop
 * runs over the C real channels); output channels past M are stored as 0.
 * One source for every ISA through the SIMD layer (rt_simd.h); the ISA is
 * p->isa stepped down to AVX2 for 8-channel blocks (rt_simd_isa). */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

/* How the tiles of one layer walk memory (floats). */
struct rt_pw_geom_ {
	int C, M;       /* input and output channels */
	int bs;         /* activation channel block: 16, 8, or 0 for HWC */
	int wb;         /* weight block: bs, or 16 for HWC */
	size_t xcb;     /* input: between channel blocks (blocked) */
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

/* One output channel vector's place: weights at w (input channel 0, then wb
 * floats per channel), outputs of the tile's first pixel at y, `valid` real
 * channels (the rest are stored as 0 in blocked layouts, not at all in HWC). */
struct rt_pw_vec_ {
	const float *w;
	float *y;
	int valid;
};

/* Stores one vector of the tile: all VL lanes, or for HWC only the valid
 * ones; lanes past the real channels are zeroed in blocked layouts. */
static inline void rt_pw_fix_(const struct rt_pw_geom_ *g, const struct rt_pw_vec_ *v, int vl,
                              int nr, const float *t, /* [nr][vl] the tile's values */
                              int scalar_act)
{
	for (int j = 0; j < nr; j++) {
		float *yj = v->y + (size_t)j * g->ypix; /* [vl] */
		const float *tj = t + (size_t)j * vl;
		for (int l = 0; l < vl; l++) {
			if (l >= v->valid) {
				if (g->bs)
					yj[l] = 0.0f;
				continue;
			}
			yj[l] = scalar_act ? rt_act_apply(g->act, g->alpha, g->beta, tj[l]) : tj[l];
		}
	}
}

/* The tile of nr pixels x nv vectors (both constants after inlining):
 * x is the first pixel's channel 0, xp the floats between the tile's pixels. */
#define RT_PW_TILE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)      \
	static inline __attribute__((always_inline)) RT_PW_ATTR_##SUF void rt_pw_tile_##SUF(    \
	    int nr, int nv, const struct rt_pw_geom_ *g, const float *x, size_t xp,            \
	    const float *bias, /* [2][VL] bias of the two vectors, 0 past M */                  \
	    const struct rt_pw_vec_ *v0, const struct rt_pw_vec_ *v1)                           \
	{                                                                                       \
		const V bz0 = LOAD(bias), bz1 = LOAD(bias + VL);                                    \
		V a0 = bz0, a1 = bz0, a2 = bz0, a3 = bz0, a4 = bz0, a5 = bz0;                       \
		V a6 = bz0, a7 = bz0, a8 = bz0, a9 = bz0, a10 = bz0, a11 = bz0;                     \
		V b0 = bz1, b1 = bz1, b2 = bz1, b3 = bz1, b4 = bz1, b5 = bz1;                       \
		V b6 = bz1, b7 = bz1, b8 = bz1, b9 = bz1, b10 = bz1, b11 = bz1;                     \
		const float *w0 = v0->w, *w1 = nv > 1 ? v1->w : v0->w;                             \
		const size_t wb = (size_t)g->wb;                                                    \
		for (int cb = 0; cb < g->ncb; cb++) {                                               \
			const int nci = cb == g->ncb - 1 ? g->C - cb * g->nci : g->nci;                 \
			/* pixel j = 4k + r at xk[r * xp]: few base pointers, one stride */            \
			const float *x0 = x + cb * g->xcb, *x4 = x0 + 4 * xp, *x8 = x0 + 8 * xp;       \
			for (int ci = 0; ci < nci; ci++, x0++, x4++, x8++, w0 += wb, w1 += wb) {        \
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
		/* the epilogue: ReLU and Clip in vectors, the rest after the store */             \
		if (g->act == RT_ACT_RELU || g->act == RT_ACT_CLIP) {                               \
			const V lo = g->act == RT_ACT_RELU ? ZERO : SET1(g->alpha);                     \
			a0 = MAX(a0, lo), a1 = MAX(a1, lo), a2 = MAX(a2, lo), a3 = MAX(a3, lo);         \
			a4 = MAX(a4, lo), a5 = MAX(a5, lo), a6 = MAX(a6, lo), a7 = MAX(a7, lo);         \
			a8 = MAX(a8, lo), a9 = MAX(a9, lo), a10 = MAX(a10, lo), a11 = MAX(a11, lo);     \
			b0 = MAX(b0, lo), b1 = MAX(b1, lo), b2 = MAX(b2, lo), b3 = MAX(b3, lo);         \
			b4 = MAX(b4, lo), b5 = MAX(b5, lo), b6 = MAX(b6, lo), b7 = MAX(b7, lo);         \
			b8 = MAX(b8, lo), b9 = MAX(b9, lo), b10 = MAX(b10, lo), b11 = MAX(b11, lo);     \
			if (g->act == RT_ACT_CLIP) {                                                    \
				const V hi = SET1(g->beta);                                                 \
				a0 = MIN(a0, hi), a1 = MIN(a1, hi), a2 = MIN(a2, hi), a3 = MIN(a3, hi);     \
				a4 = MIN(a4, hi), a5 = MIN(a5, hi), a6 = MIN(a6, hi), a7 = MIN(a7, hi);     \
				a8 = MIN(a8, hi), a9 = MIN(a9, hi), a10 = MIN(a10, hi);                     \
				a11 = MIN(a11, hi);                                                         \
				b0 = MIN(b0, hi), b1 = MIN(b1, hi), b2 = MIN(b2, hi), b3 = MIN(b3, hi);     \
				b4 = MIN(b4, hi), b5 = MIN(b5, hi), b6 = MIN(b6, hi), b7 = MIN(b7, hi);     \
				b8 = MIN(b8, hi), b9 = MIN(b9, hi), b10 = MIN(b10, hi);                     \
				b11 = MIN(b11, hi);                                                         \
			}                                                                               \
		}                                                                                   \
		const int scalar_act = g->act != RT_ACT_NONE && g->act != RT_ACT_RELU &&            \
		                       g->act != RT_ACT_CLIP;                                       \
		for (int q = 0; q < nv; q++) {                                                      \
			const struct rt_pw_vec_ *v = q ? v1 : v0;                                       \
			if (v->valid == VL && !scalar_act) { /* the common case: store as is */        \
				const size_t yp = g->ypix;                                                  \
				float *y = v->y;                                                            \
				STORE(y, q ? b0 : a0);                                                      \
				if (nr > 1) STORE(y + yp, q ? b1 : a1);                                     \
				if (nr > 2) STORE(y + 2 * yp, q ? b2 : a2);                                 \
				if (nr > 3) STORE(y + 3 * yp, q ? b3 : a3);                                 \
				if (nr > 4) STORE(y + 4 * yp, q ? b4 : a4);                                 \
				if (nr > 5) STORE(y + 5 * yp, q ? b5 : a5);                                 \
				if (nr > 6) STORE(y + 6 * yp, q ? b6 : a6);                                 \
				if (nr > 7) STORE(y + 7 * yp, q ? b7 : a7);                                 \
				if (nr > 8) STORE(y + 8 * yp, q ? b8 : a8);                                 \
				if (nr > 9) STORE(y + 9 * yp, q ? b9 : a9);                                 \
				if (nr > 10) STORE(y + 10 * yp, q ? b10 : a10);                             \
				if (nr > 11) STORE(y + 11 * yp, q ? b11 : a11);                             \
				continue;                                                                   \
			}                                                                               \
			float t[12 * VL]; /* the vector's values, [nr][VL] */                           \
			STORE(t, q ? b0 : a0);                                                          \
			if (nr > 1) STORE(t + VL, q ? b1 : a1);                                         \
			if (nr > 2) STORE(t + 2 * VL, q ? b2 : a2);                                     \
			if (nr > 3) STORE(t + 3 * VL, q ? b3 : a3);                                     \
			if (nr > 4) STORE(t + 4 * VL, q ? b4 : a4);                                     \
			if (nr > 5) STORE(t + 5 * VL, q ? b5 : a5);                                     \
			if (nr > 6) STORE(t + 6 * VL, q ? b6 : a6);                                     \
			if (nr > 7) STORE(t + 7 * VL, q ? b7 : a7);                                     \
			if (nr > 8) STORE(t + 8 * VL, q ? b8 : a8);                                     \
			if (nr > 9) STORE(t + 9 * VL, q ? b9 : a9);                                     \
			if (nr > 10) STORE(t + 10 * VL, q ? b10 : a10);                                 \
			if (nr > 11) STORE(t + 11 * VL, q ? b11 : a11);                                 \
			rt_pw_fix_(g, v, VL, nr, t, scalar_act);                                        \
		}                                                                                   \
	}
RT_SIMD_EACH(RT_PW_TILE_)

/* One call per ISA: the tile of nr pixels (1..NR) and nv vectors (1, 2),
 * dispatched to an instance with both as constants. */
#define RT_PW_CASE_(SUF, N)                                                                 \
	case N:                                                                                 \
		if (nv > 1)                                                                         \
			rt_pw_tile_##SUF(N, 2, g, x, xp, bias, v0, v1);                                 \
		else                                                                                \
			rt_pw_tile_##SUF(N, 1, g, x, xp, bias, v0, v1);                                 \
		break;
#define RT_PW_DISPATCH_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)  \
	static RT_PW_ATTR_##SUF void rt_pw_run_##SUF(int nr, int nv, const struct rt_pw_geom_ *g, \
	                                            const float *x, size_t xp, const float *bias, \
	                                            const struct rt_pw_vec_ *v0,                  \
	                                            const struct rt_pw_vec_ *v1)                  \
	{                                                                                       \
		switch (nr) {                                                                       \
			RT_PW_CASE_(SUF, 1)                                                             \
			RT_PW_CASE_(SUF, 2)                                                             \
			RT_PW_CASE_(SUF, 3)                                                             \
			RT_PW_CASE_(SUF, 4)                                                             \
		default:                                                                            \
			if (RT_PW_NR_##SUF > 4)                                                         \
				rt_pw_wide_##SUF(nr, nv, g, x, xp, bias, v0, v1);                           \
		}                                                                                   \
	}
/* nr 5..12, only for the ISAs whose tiles are that wide */
#define RT_PW_WIDE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)      \
	static RT_PW_ATTR_##SUF void rt_pw_wide_##SUF(int nr, int nv, const struct rt_pw_geom_ *g, \
	                                             const float *x, size_t xp, const float *bias, \
	                                             const struct rt_pw_vec_ *v0,                  \
	                                             const struct rt_pw_vec_ *v1)                  \
	{                                                                                       \
		switch (RT_PW_NR_##SUF > 4 ? nr : 0) {                                              \
			RT_PW_CASE_(SUF, 5)                                                             \
			RT_PW_CASE_(SUF, 6)                                                             \
		default:                                                                            \
			if (RT_PW_NR_##SUF > 6)                                                         \
				rt_pw_wider_##SUF(nr, nv, g, x, xp, bias, v0, v1);                          \
		}                                                                                   \
	}
#define RT_PW_WIDER_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)     \
	static RT_PW_ATTR_##SUF void rt_pw_wider_##SUF(int nr, int nv,                          \
	                                              const struct rt_pw_geom_ *g, const float *x, \
	                                              size_t xp, const float *bias,                \
	                                              const struct rt_pw_vec_ *v0,                 \
	                                              const struct rt_pw_vec_ *v1)                 \
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

struct rt_pw_job_ {
	const struct rt_conv2d *p;
	const struct rt_pw_geom_ *g;
	const float *x, *w, *b; /* image n's input; packed weights; bias or NULL */
	float *y;               /* image n's output */
	int isa, vl, nr;        /* ISA, its vector length and tile width */
	int nvec, pairs;        /* output channel vectors, pairs of them */
	int flat;               /* stride 1: the plane is one row of oH*oW pixels */
	int rows, len;          /* rows of pixels (1 when flat) and pixels per row */
	int tpr, tiles, band;   /* tiles per row, in all, per band */
	size_t xpx;             /* input floats per pixel within a block: bs, or C */
};

/* Items [i0, i1): item i is band i / pairs, vector pair i % pairs. */
static void rt_pw_items_(void *ctx, int i0, int i1)
{
	const struct rt_pw_job_ *j = ctx;
	const struct rt_conv2d *p = j->p;
	const struct rt_pw_geom_ *g = j->g;
	const int vl = j->vl;
	for (int it = i0; it < i1; it++) {
		const int band = it / j->pairs, q = 2 * (it % j->pairs);
		const int nv = j->nvec - q >= 2 ? 2 : 1;
		struct rt_pw_vec_ v[2];
		float bias[2 * 16]; /* [2][vl] */
		size_t yoff[2];
		for (int k = 0; k < 2; k++) {
			const int m0 = (q + (k < nv ? k : 0)) * vl; /* first channel of the vector */
			v[k].w = j->w + (size_t)(m0 / g->wb) * g->C * g->wb + m0 % g->wb;
			yoff[k] = g->bs ? (size_t)(m0 / g->bs) * p->oH * p->oW * g->bs + m0 % g->bs
			                : (size_t)m0;
			v[k].valid = p->M - m0 < 0 ? 0 : p->M - m0 < vl ? p->M - m0 : vl;
			for (int l = 0; l < vl; l++)
				bias[k * vl + l] = j->b && l < v[k].valid ? j->b[m0 + l] : 0.0f;
		}
		const int t1 = (band + 1) * j->band < j->tiles ? (band + 1) * j->band : j->tiles;
		for (int t = band * j->band; t < t1; t++) {
			/* tile t: row t / tpr, piece t % tpr of equal width (+-1) */
			const int r = t / j->tpr, k = t % j->tpr;
			const int base = j->len / j->tpr, extra = j->len % j->tpr;
			const int s0 = k * base + (k < extra ? k : extra);
			const int nr = base + (k < extra);
			const size_t qout = (size_t)r * j->len + s0; /* first output pixel */
			/* its input pixel: with stride 1 the same index, else (r*sH, s0*sW) */
			const size_t qin = j->flat ? qout : (size_t)r * p->sH * p->W + (size_t)s0 * p->sW;
			const float *x = j->x + qin * j->xpx;
			const size_t xp = (j->flat ? 1 : (size_t)p->sW) * j->xpx;
			for (int k2 = 0; k2 < 2; k2++)
				v[k2].y = j->y + yoff[k2] + qout * g->ypix;
			switch (j->isa) {
#if RT_SIMD_HAVE_AVX512
			case RT_SGEMM_ISA_AVX512: rt_pw_run_avx512(nr, nv, g, x, xp, bias, &v[0], &v[1]); break;
#endif
#if RT_SIMD_HAVE_AVX2
			case RT_SGEMM_ISA_AVX2: rt_pw_run_avx2(nr, nv, g, x, xp, bias, &v[0], &v[1]); break;
#endif
#if RT_SIMD_HAVE_NEON
			case RT_SGEMM_ISA_NEON: rt_pw_run_neon(nr, nv, g, x, xp, bias, &v[0], &v[1]); break;
#endif
			default:
#if RT_SIMD_HAVE_C
				rt_pw_run_c(nr, nv, g, x, xp, bias, &v[0], &v[1]);
#endif
				break;
			}
		}
	}
}

RT_FN void rt_conv_pointwise(const struct rt_conv2d *p, int variant,
                             const float *x, /* [N] images [C/bs][H][W][bs], or [H][W][C] (0) */
                             const float *w, /* packed: [ceil(M/wb)][C][wb] */
                             const float *b, /* [M] or NULL */
                             float *y,       /* out: [N] images [M/bs][oH][oW][bs], or
                                                [oH][oW][M] (variant 0) */
                             float *ws)      /* unused */
{
	const int bs = variant;
	const int isa = rt_simd_isa(p->isa, bs ? bs : 16);
	const int vl = isa == RT_SGEMM_ISA_AVX512 ? 16 : isa == RT_SGEMM_ISA_AVX2 ? 8
	               : isa == RT_SGEMM_ISA_NEON ? 4 : 1;
	const int nr = isa == RT_SGEMM_ISA_AVX512 ? RT_PW_NR_avx512 : isa == RT_SGEMM_ISA_AVX2
	               ? RT_PW_NR_avx2 : isa == RT_SGEMM_ISA_NEON ? RT_PW_NR_neon : RT_PW_NR_c;
	struct rt_pw_geom_ g;
	(void)ws;
	g.C = p->C;
	g.M = p->M;
	g.bs = bs;
	g.wb = bs ? bs : 16;
	g.xcb = bs ? (size_t)p->H * p->W * bs : 0;
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
	j.xpx = bs ? (size_t)bs : (size_t)p->C;
	/* stride 1 reads every pixel in order: the plane is one row */
	j.flat = p->sH == 1 && p->sW == 1;
	j.rows = j.flat ? 1 : p->oH;
	j.len = j.flat ? p->oH * p->oW : p->oW;
	j.tpr = (j.len + nr - 1) / nr;
	j.tiles = j.rows * j.tpr;
	/* tiles per band: the band's input, C floats per pixel, about 256 KiB */
	j.band = (int)(65536 / ((size_t)p->C * nr));
	if (j.band < 1)
		j.band = 1;
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
	const int items = (j.tiles + j.band - 1) / j.band * j.pairs;
	const size_t ximg = bs ? (size_t)g.ncb * g.xcb : (size_t)p->H * p->W * p->C;
	const size_t yimg = bs ? (size_t)((p->M + bs - 1) / bs) * bs * p->oH * p->oW
	                       : (size_t)p->M * p->oH * p->oW;
	for (int n = 0; n < p->N; n++) {
		j.x = x + n * ximg;
		j.y = y + n * yimg;
		if (work < RT_PARALLEL_MIN_WORK)
			rt_pw_items_(&j, 0, items);
		else
			rt_parallel(rt_pw_items_, &j, items);
	}
}
