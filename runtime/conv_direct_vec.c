/* conv_direct_vec.c - the register-blocked, vectorised direct convolution
 * (Zhang, Franchetti & Low, "High performance zero-memory overhead direct
 * convolutions", ICML 2018; the nChw16c / nChw8c layouts of oneDNN) and its
 * channels-last twin, the HWC "implicit GEMM" direct convolution.
 *
 * Textbook form (ONNX Conv, a cross-correlation):
 *   y[m][i][j] = b[m] + sum over c, u, v of
 *                w[m][c][u][v] * x[c][i*sH - padT + u*dH][j*sW - padL + v*dW]
 * All three rows vectorise over output channels: one FMA broadcasts one input
 * value x[c][ih][iw] and multiplies it by a vector of VL output channels'
 * weights (VL = 16 for AVX-512, 8 for AVX2 and for the portable C path). A
 * register tile holds NW output pixels x 2 vectors of output channels:
 * AVX-512 14 x 2 (28 of the 32 zmm registers, + 2 weight vectors + the
 * broadcast), AVX2 6 x 2 (12 of 16 ymm). Each weight vector load serves NW
 * FMAs and each broadcast 2, so the FMA units, not the loads, set the pace.
 * No workspace (zero extra memory). A fused residual (p->res, laid out like
 * y: ResNet's Add, passes/fuse.c) is added to each tile in registers at the
 * last chunk, before the activation and before the tile is stored: no second
 * pass over the output (runtime/residual.c), bitwise the same result, and
 * where the layer runs in one chunk (prep_direct_one_pass) y may be the
 * residual's own buffer (plan_memory): each output is stored once, after its
 * residual was read.
 *
 * Rows (variant):
 *   16  conv_direct_chw16c     x [C/16][H][W][16] -> y [M/16][oH][oW][16]
 *    8  conv_direct_chw8c      x [C/8][H][W][8]   -> y [M/8][oH][oW][8]
 *       weights packed [M/bs][Cg/bs][kH][kW][bs ci][bs co] (bs = 16 or 8;
 *       Cg = C/group; blocks rounded up, the padding zero)
 *    0  conv_direct_igemm_hwc  x [H][W][C] -> y [oH][oW][M], weights packed
 *       [group][kH][kW][C/group][mgp] (mgp = M/group rounded up to 16, zero)
 * Loop order, outermost first: image; group; output-channel vector pair (an
 * output channel block bo = 16, or two of 8); band of output rows; input-
 * channel chunk (channel blocks whose weights for the pair stay in L1, 32 KiB;
 * for HWC 64 channels); output row; output column tile; then inside the tile:
 * channel block, u, v, input channel, the tile's FMAs. The first chunk starts
 * from the bias, later chunks add to the partial sums stored in y (a band's
 * stay in L2), the last applies the epilogue.
 *
 * Padding, strides and dilation: for each output row the taps u whose input
 * row lies inside the image are a range [u0, u1); pixels whose every tap v
 * lies inside the row (the middle of the row) go through tiles of NW or
 * fewer pixels, cut to equal widths. A border column of pixels (the same taps
 * v, all taps u) is a vertical strip, so it goes through the same tiles,
 * stepping one output row per pixel; only the corners and the border rows'
 * edge pixels run one pixel at a time (with four interleaved partial sums, to
 * keep the FMA pipes busy). So any stride, padding and dilation, and no
 * branch in the inner loops. Blocked layouts: channels past C are zero on
 * input (the layout contract) and meet zero weights; output channels past M
 * are written as zero. Grouped convolution on the blocked layouts needs
 * C/group and M/group to be multiples of the block (the predicate refuses the
 * rest).
 *
 * ISA: AVX-512 (chw16c and hwc), AVX2 (chw8c, and chw16c / hwc when the
 * target has AVX2 but not AVX-512) and portable C (every pixel on its own,
 * VL = 8), chosen by p->isa (a constant in generated code). SIMD code is
 * enabled by target attributes only.
 *
 * Measured (one core of a Sapphire Rapids class Xeon, AVX-512, min of 10,
 * thread CPU time): conv_direct_chw16c 150-175 GFLOP/s on VGG-16 conv2_2 to
 * conv5_1 and ResNet-50's 3x3 layers, within noise of oneDNN 2.6's
 * brgconv:avx512_core (0.94 to 1.0 of its speed). */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_AVX512
#define RT_DVEC_AVX512_ 1
#else
#define RT_DVEC_AVX512_ 0
#endif
#if RT_SGEMM_HAVE_AVX2 || RT_SGEMM_HAVE_AVX512
#define RT_DVEC_AVX2_ 1
#else
#define RT_DVEC_AVX2_ 0
#endif
#if RT_DVEC_AVX512_ || RT_DVEC_AVX2_
#include <immintrin.h>
#endif

/* The next chunk's weights (rt_dvec_items_), prefetched while this chunk
 * runs: the lines [next, end), and the same lines off1 floats on (the
 * pair's second vector; off1 0: the same lines again). A 512-channel 3x3
 * layer's weights (9.4 MB) come from memory on every call, and a 7x7 plane
 * uses each weight only 49 times, so a chunk computes for about as long as
 * its weights take to arrive. The tiles take 2 lines of each vector per tap
 * as they go, up to a share per output row, which spreads the misses over
 * the chunk; a burst of the row's share at its start, as before, held the
 * FMAs up behind the few misses a core keeps in flight, and the pair's last
 * chunk fetched nothing for the next pair. Measured (Zen 5, one thread, CPU
 * time, weights cold on every call, 5-9 interleaved rounds): 512 -> 512 on
 * 7x7 1440 -> 1100 us, 256 -> 512 stride 2 750 -> 540 us, GoogLeNet's
 * 192 -> 384 on 7x7 420 -> 300 us, 14x14 layers 1.07-1.14x faster, 28x28
 * and 56x56 level. */
struct rt_dvec_pf_ {
	const float *next, *end;
	size_t off1;
};

static inline __attribute__((always_inline)) void
rt_dvec_prefetch_(struct rt_dvec_pf_ *pf)
{
	if (pf->next < pf->end) { /* straight code: it is inlined into every tile */
		__builtin_prefetch(pf->next, 0, 3);
		__builtin_prefetch(pf->next + 16, 0, 3);
		__builtin_prefetch(pf->next + pf->off1, 0, 3);
		__builtin_prefetch(pf->next + pf->off1 + 16, 0, 3);
		pf->next += 32;
	}
}

/* How a tile walks its input, weights and output (floats between
 * neighbours); fixed per layer, except w1/y1/nci which the driver sets per
 * vector pair and chunk. */
struct rt_dvec_geom_ {
	int nci;             /* input channels per channel block */
	size_t xpx;          /* input floats per input pixel: bs, or C for HWC */
	size_t xpix;         /* between the tile's neighbouring output pixels' inputs: sW * xpx */
	size_t xrow, xcol;   /* between tap rows (dH input rows) and tap columns (dW pixels) */
	size_t xcb;          /* between input channel blocks */
	size_t wci;          /* weights: between input channels */
	size_t wtap, wrow;   /* between taps v and taps u */
	size_t wcb;          /* between input channel blocks */
	size_t ypix;         /* output floats between pixels */
	size_t w1, y1;       /* offset of the tile's second vector in weights and in output */
	int act;             /* epilogue */
	float alpha, beta;
	const float *res;    /* p->res: the residual, laid out like y, or NULL */
	const float *ybase;  /* y of the call: res + (dst - ybase) is dst's residual */
	struct rt_dvec_pf_ *pf; /* in/out: the next chunk's weights, a few lines per tap */
};

/* The output channels of a tile's two vectors. */
struct rt_dvec_out_ {
	const float *bias[2]; /* [valid] bias of each vector, or NULL */
	int valid[2];         /* lanes holding real channels; the rest are stored as 0 */
	int store[2];         /* lanes to write: VL for blocked layouts, valid for HWC */
};

/* ---- AVX-512: VL = 16 ---------------------------------------------------- */
#if RT_DVEC_AVX512_

#define RT_DVEC_NW16_ 14

static inline __attribute__((always_inline, target("avx512f"))) __mmask16
rt_dvec_mask16_(int r)
{
	return (__mmask16)(r >= 16 ? 0xFFFF : r <= 0 ? 0 : (1u << r) - 1u);
}

/* The epilogue on a stored tile (last chunk; its residual, if any, added
 * in registers before the store): act on the real channels, zero on the
 * lanes past them (blocked layouts). */
static inline __attribute__((target("avx512f"))) void
rt_dvec_epilogue16_(const struct rt_dvec_geom_ *g, const struct rt_dvec_out_ *o, int nw, int nb,
                    float *y) /* in/out: the tile's first pixel, vector 0 */
{
	const __m512 zero = _mm512_setzero_ps(), alpha = _mm512_set1_ps(g->alpha);
	const __m512 beta = _mm512_set1_ps(g->beta);
	for (int q = 0; q < nb; q++) {
		const __mmask16 kst = rt_dvec_mask16_(o->store[q]), kv = rt_dvec_mask16_(o->valid[q]);
		for (int j = 0; j < nw; j++) {
			float *dst = y + (q ? g->y1 : 0) + (size_t)j * g->ypix;
			__m512 v = _mm512_maskz_loadu_ps(kst, dst);
			switch (g->act) {
			case RT_ACT_NONE: break;
			case RT_ACT_RELU: v = _mm512_max_ps(v, zero); break;
			case RT_ACT_LEAKY_RELU:
				v = _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v, alpha);
				break;
			case RT_ACT_CLIP: v = _mm512_min_ps(_mm512_max_ps(v, alpha), beta); break;
			default: { /* sigmoid, tanh: per lane */
				float t[16];
				_mm512_storeu_ps(t, v);
				for (int l = 0; l < o->valid[q]; l++)
					t[l] = rt_act_apply(g->act, g->alpha, g->beta, t[l]);
				v = _mm512_loadu_ps(t);
				break;
			}
			}
			_mm512_mask_storeu_ps(dst, kst, _mm512_maskz_mov_ps(kv, v));
		}
	}
}

/* One register tile: nw pixels (1..14) x nb vectors (1 or 2), both
 * constants after inlining; ncb channel blocks, nu x nv taps. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dvec_tile16_(int nw, int nb, size_t xp1, /* xp1: g->xpix, or that value as a constant */
                const struct rt_dvec_geom_ *g, const struct rt_dvec_out_ *o,
                const float *x, /* input at tap (u0, v0) of the first pixel, first block */
                int ncb, int nu, int nv,
                const float *w, /* weights of vector 0 at the first block, tap (u0, v0) */
                float *y,       /* out: the first pixel's vector 0 */
                int first, int last)
{
	const size_t yp = g->ypix;
	const __mmask16 k0 = rt_dvec_mask16_(o->store[0]), k1 = rt_dvec_mask16_(o->store[1]);
	const __m512 b0 = first && o->bias[0]
	                          ? _mm512_maskz_loadu_ps(rt_dvec_mask16_(o->valid[0]), o->bias[0])
	                          : _mm512_setzero_ps();
	const __m512 b1 = nb > 1 && first && o->bias[1]
	                          ? _mm512_maskz_loadu_ps(rt_dvec_mask16_(o->valid[1]), o->bias[1])
	                          : _mm512_setzero_ps();
	float *y1 = y + g->y1;
	/* The residual, ReLU and no epilogue are done here; lanes past the
	 * real channels are zero already (zero bias and weights, the residual
	 * read on the real ones only), so only other activations need
	 * rt_dvec_epilogue16_, on the tile just stored, still in L1 */
	const int relu = last && g->act == RT_ACT_RELU;
	__m512 c0 = b0, c1 = b0, c2 = b0, c3 = b0, c4 = b0, c5 = b0, c6 = b0;
	__m512 c7 = b0, c8 = b0, c9 = b0, c10 = b0, c11 = b0, c12 = b0, c13 = b0;
	__m512 d0 = b1, d1 = b1, d2 = b1, d3 = b1, d4 = b1, d5 = b1, d6 = b1;
	__m512 d7 = b1, d8 = b1, d9 = b1, d10 = b1, d11 = b1, d12 = b1, d13 = b1;
	if (!first) {
		c0 = _mm512_maskz_loadu_ps(k0, y);
		if (nw > 1) c1 = _mm512_maskz_loadu_ps(k0, y + yp);
		if (nw > 2) c2 = _mm512_maskz_loadu_ps(k0, y + 2 * yp);
		if (nw > 3) c3 = _mm512_maskz_loadu_ps(k0, y + 3 * yp);
		if (nw > 4) c4 = _mm512_maskz_loadu_ps(k0, y + 4 * yp);
		if (nw > 5) c5 = _mm512_maskz_loadu_ps(k0, y + 5 * yp);
		if (nw > 6) c6 = _mm512_maskz_loadu_ps(k0, y + 6 * yp);
		if (nw > 7) c7 = _mm512_maskz_loadu_ps(k0, y + 7 * yp);
		if (nw > 8) c8 = _mm512_maskz_loadu_ps(k0, y + 8 * yp);
		if (nw > 9) c9 = _mm512_maskz_loadu_ps(k0, y + 9 * yp);
		if (nw > 10) c10 = _mm512_maskz_loadu_ps(k0, y + 10 * yp);
		if (nw > 11) c11 = _mm512_maskz_loadu_ps(k0, y + 11 * yp);
		if (nw > 12) c12 = _mm512_maskz_loadu_ps(k0, y + 12 * yp);
		if (nw > 13) c13 = _mm512_maskz_loadu_ps(k0, y + 13 * yp);
		if (nb > 1) {
			d0 = _mm512_maskz_loadu_ps(k1, y1);
			if (nw > 1) d1 = _mm512_maskz_loadu_ps(k1, y1 + yp);
			if (nw > 2) d2 = _mm512_maskz_loadu_ps(k1, y1 + 2 * yp);
			if (nw > 3) d3 = _mm512_maskz_loadu_ps(k1, y1 + 3 * yp);
			if (nw > 4) d4 = _mm512_maskz_loadu_ps(k1, y1 + 4 * yp);
			if (nw > 5) d5 = _mm512_maskz_loadu_ps(k1, y1 + 5 * yp);
			if (nw > 6) d6 = _mm512_maskz_loadu_ps(k1, y1 + 6 * yp);
			if (nw > 7) d7 = _mm512_maskz_loadu_ps(k1, y1 + 7 * yp);
			if (nw > 8) d8 = _mm512_maskz_loadu_ps(k1, y1 + 8 * yp);
			if (nw > 9) d9 = _mm512_maskz_loadu_ps(k1, y1 + 9 * yp);
			if (nw > 10) d10 = _mm512_maskz_loadu_ps(k1, y1 + 10 * yp);
			if (nw > 11) d11 = _mm512_maskz_loadu_ps(k1, y1 + 11 * yp);
			if (nw > 12) d12 = _mm512_maskz_loadu_ps(k1, y1 + 12 * yp);
			if (nw > 13) d13 = _mm512_maskz_loadu_ps(k1, y1 + 13 * yp);
		}
	}
	for (int cb = 0; cb < ncb; cb++) {
		for (int u = 0; u < nu; u++) {
			for (int v = 0; v < nv; v++) {
				const float *xp = x + cb * g->xcb + u * g->xrow + v * g->xcol;
				const float *wp = w + cb * g->wcb + u * g->wrow + v * g->wtap;
				/* pixel j = 3a + r is at xa[r * xp1]: a few base pointers and
				 * one stride register address them all (x86 scales 1 and 2) */
				const float *x0 = xp, *x3 = xp + 3 * xp1, *x6 = xp + 6 * xp1,
				            *x9 = xp + 9 * xp1, *x12 = xp + 12 * xp1;
				rt_dvec_prefetch_(g->pf);
				for (int ci = 0; ci < g->nci;
				     ci++, x0++, x3++, x6++, x9++, x12++, wp += g->wci) {
					const __m512 w0 = _mm512_loadu_ps(wp);
					const __m512 w1 = nb > 1 ? _mm512_loadu_ps(wp + g->w1) : w0;
					__m512 xb;
					if (nw > 0) {
						xb = _mm512_set1_ps(x0[0]);
						c0 = _mm512_fmadd_ps(xb, w0, c0);
						if (nb > 1) d0 = _mm512_fmadd_ps(xb, w1, d0);
					}
					if (nw > 1) {
						xb = _mm512_set1_ps(x0[xp1]);
						c1 = _mm512_fmadd_ps(xb, w0, c1);
						if (nb > 1) d1 = _mm512_fmadd_ps(xb, w1, d1);
					}
					if (nw > 2) {
						xb = _mm512_set1_ps(x0[2 * xp1]);
						c2 = _mm512_fmadd_ps(xb, w0, c2);
						if (nb > 1) d2 = _mm512_fmadd_ps(xb, w1, d2);
					}
					if (nw > 3) {
						xb = _mm512_set1_ps(x3[0]);
						c3 = _mm512_fmadd_ps(xb, w0, c3);
						if (nb > 1) d3 = _mm512_fmadd_ps(xb, w1, d3);
					}
					if (nw > 4) {
						xb = _mm512_set1_ps(x3[xp1]);
						c4 = _mm512_fmadd_ps(xb, w0, c4);
						if (nb > 1) d4 = _mm512_fmadd_ps(xb, w1, d4);
					}
					if (nw > 5) {
						xb = _mm512_set1_ps(x3[2 * xp1]);
						c5 = _mm512_fmadd_ps(xb, w0, c5);
						if (nb > 1) d5 = _mm512_fmadd_ps(xb, w1, d5);
					}
					if (nw > 6) {
						xb = _mm512_set1_ps(x6[0]);
						c6 = _mm512_fmadd_ps(xb, w0, c6);
						if (nb > 1) d6 = _mm512_fmadd_ps(xb, w1, d6);
					}
					if (nw > 7) {
						xb = _mm512_set1_ps(x6[xp1]);
						c7 = _mm512_fmadd_ps(xb, w0, c7);
						if (nb > 1) d7 = _mm512_fmadd_ps(xb, w1, d7);
					}
					if (nw > 8) {
						xb = _mm512_set1_ps(x6[2 * xp1]);
						c8 = _mm512_fmadd_ps(xb, w0, c8);
						if (nb > 1) d8 = _mm512_fmadd_ps(xb, w1, d8);
					}
					if (nw > 9) {
						xb = _mm512_set1_ps(x9[0]);
						c9 = _mm512_fmadd_ps(xb, w0, c9);
						if (nb > 1) d9 = _mm512_fmadd_ps(xb, w1, d9);
					}
					if (nw > 10) {
						xb = _mm512_set1_ps(x9[xp1]);
						c10 = _mm512_fmadd_ps(xb, w0, c10);
						if (nb > 1) d10 = _mm512_fmadd_ps(xb, w1, d10);
					}
					if (nw > 11) {
						xb = _mm512_set1_ps(x9[2 * xp1]);
						c11 = _mm512_fmadd_ps(xb, w0, c11);
						if (nb > 1) d11 = _mm512_fmadd_ps(xb, w1, d11);
					}
					if (nw > 12) {
						xb = _mm512_set1_ps(x12[0]);
						c12 = _mm512_fmadd_ps(xb, w0, c12);
						if (nb > 1) d12 = _mm512_fmadd_ps(xb, w1, d12);
					}
					if (nw > 13) {
						xb = _mm512_set1_ps(x12[xp1]);
						c13 = _mm512_fmadd_ps(xb, w0, c13);
						if (nb > 1) d13 = _mm512_fmadd_ps(xb, w1, d13);
					}
				}
			}
		}
	}
	if (last && g->res) { /* before any store: y may be the residual's own buffer */
		const __mmask16 kv0 = rt_dvec_mask16_(o->valid[0]);
		const float *r = g->res + (y - g->ybase), *r1 = r + g->y1;
		c0 = _mm512_add_ps(c0, _mm512_maskz_loadu_ps(kv0, r));
		if (nw > 1) c1 = _mm512_add_ps(c1, _mm512_maskz_loadu_ps(kv0, r + yp));
		if (nw > 2) c2 = _mm512_add_ps(c2, _mm512_maskz_loadu_ps(kv0, r + 2 * yp));
		if (nw > 3) c3 = _mm512_add_ps(c3, _mm512_maskz_loadu_ps(kv0, r + 3 * yp));
		if (nw > 4) c4 = _mm512_add_ps(c4, _mm512_maskz_loadu_ps(kv0, r + 4 * yp));
		if (nw > 5) c5 = _mm512_add_ps(c5, _mm512_maskz_loadu_ps(kv0, r + 5 * yp));
		if (nw > 6) c6 = _mm512_add_ps(c6, _mm512_maskz_loadu_ps(kv0, r + 6 * yp));
		if (nw > 7) c7 = _mm512_add_ps(c7, _mm512_maskz_loadu_ps(kv0, r + 7 * yp));
		if (nw > 8) c8 = _mm512_add_ps(c8, _mm512_maskz_loadu_ps(kv0, r + 8 * yp));
		if (nw > 9) c9 = _mm512_add_ps(c9, _mm512_maskz_loadu_ps(kv0, r + 9 * yp));
		if (nw > 10) c10 = _mm512_add_ps(c10, _mm512_maskz_loadu_ps(kv0, r + 10 * yp));
		if (nw > 11) c11 = _mm512_add_ps(c11, _mm512_maskz_loadu_ps(kv0, r + 11 * yp));
		if (nw > 12) c12 = _mm512_add_ps(c12, _mm512_maskz_loadu_ps(kv0, r + 12 * yp));
		if (nw > 13) c13 = _mm512_add_ps(c13, _mm512_maskz_loadu_ps(kv0, r + 13 * yp));
		if (nb > 1) {
			const __mmask16 kv1 = rt_dvec_mask16_(o->valid[1]);
			d0 = _mm512_add_ps(d0, _mm512_maskz_loadu_ps(kv1, r1));
			if (nw > 1) d1 = _mm512_add_ps(d1, _mm512_maskz_loadu_ps(kv1, r1 + yp));
			if (nw > 2) d2 = _mm512_add_ps(d2, _mm512_maskz_loadu_ps(kv1, r1 + 2 * yp));
			if (nw > 3) d3 = _mm512_add_ps(d3, _mm512_maskz_loadu_ps(kv1, r1 + 3 * yp));
			if (nw > 4) d4 = _mm512_add_ps(d4, _mm512_maskz_loadu_ps(kv1, r1 + 4 * yp));
			if (nw > 5) d5 = _mm512_add_ps(d5, _mm512_maskz_loadu_ps(kv1, r1 + 5 * yp));
			if (nw > 6) d6 = _mm512_add_ps(d6, _mm512_maskz_loadu_ps(kv1, r1 + 6 * yp));
			if (nw > 7) d7 = _mm512_add_ps(d7, _mm512_maskz_loadu_ps(kv1, r1 + 7 * yp));
			if (nw > 8) d8 = _mm512_add_ps(d8, _mm512_maskz_loadu_ps(kv1, r1 + 8 * yp));
			if (nw > 9) d9 = _mm512_add_ps(d9, _mm512_maskz_loadu_ps(kv1, r1 + 9 * yp));
			if (nw > 10) d10 = _mm512_add_ps(d10, _mm512_maskz_loadu_ps(kv1, r1 + 10 * yp));
			if (nw > 11) d11 = _mm512_add_ps(d11, _mm512_maskz_loadu_ps(kv1, r1 + 11 * yp));
			if (nw > 12) d12 = _mm512_add_ps(d12, _mm512_maskz_loadu_ps(kv1, r1 + 12 * yp));
			if (nw > 13) d13 = _mm512_add_ps(d13, _mm512_maskz_loadu_ps(kv1, r1 + 13 * yp));
		}
	}
	if (relu) { /* the common epilogue, in registers */
		const __m512 z = _mm512_setzero_ps();
		c0 = _mm512_max_ps(c0, z);
		if (nw > 1) c1 = _mm512_max_ps(c1, z);
		if (nw > 2) c2 = _mm512_max_ps(c2, z);
		if (nw > 3) c3 = _mm512_max_ps(c3, z);
		if (nw > 4) c4 = _mm512_max_ps(c4, z);
		if (nw > 5) c5 = _mm512_max_ps(c5, z);
		if (nw > 6) c6 = _mm512_max_ps(c6, z);
		if (nw > 7) c7 = _mm512_max_ps(c7, z);
		if (nw > 8) c8 = _mm512_max_ps(c8, z);
		if (nw > 9) c9 = _mm512_max_ps(c9, z);
		if (nw > 10) c10 = _mm512_max_ps(c10, z);
		if (nw > 11) c11 = _mm512_max_ps(c11, z);
		if (nw > 12) c12 = _mm512_max_ps(c12, z);
		if (nw > 13) c13 = _mm512_max_ps(c13, z);
		if (nb > 1) {
			d0 = _mm512_max_ps(d0, z);
			if (nw > 1) d1 = _mm512_max_ps(d1, z);
			if (nw > 2) d2 = _mm512_max_ps(d2, z);
			if (nw > 3) d3 = _mm512_max_ps(d3, z);
			if (nw > 4) d4 = _mm512_max_ps(d4, z);
			if (nw > 5) d5 = _mm512_max_ps(d5, z);
			if (nw > 6) d6 = _mm512_max_ps(d6, z);
			if (nw > 7) d7 = _mm512_max_ps(d7, z);
			if (nw > 8) d8 = _mm512_max_ps(d8, z);
			if (nw > 9) d9 = _mm512_max_ps(d9, z);
			if (nw > 10) d10 = _mm512_max_ps(d10, z);
			if (nw > 11) d11 = _mm512_max_ps(d11, z);
			if (nw > 12) d12 = _mm512_max_ps(d12, z);
			if (nw > 13) d13 = _mm512_max_ps(d13, z);
		}
	}
	_mm512_mask_storeu_ps(y, k0, c0);
	if (nw > 1) _mm512_mask_storeu_ps(y + yp, k0, c1);
	if (nw > 2) _mm512_mask_storeu_ps(y + 2 * yp, k0, c2);
	if (nw > 3) _mm512_mask_storeu_ps(y + 3 * yp, k0, c3);
	if (nw > 4) _mm512_mask_storeu_ps(y + 4 * yp, k0, c4);
	if (nw > 5) _mm512_mask_storeu_ps(y + 5 * yp, k0, c5);
	if (nw > 6) _mm512_mask_storeu_ps(y + 6 * yp, k0, c6);
	if (nw > 7) _mm512_mask_storeu_ps(y + 7 * yp, k0, c7);
	if (nw > 8) _mm512_mask_storeu_ps(y + 8 * yp, k0, c8);
	if (nw > 9) _mm512_mask_storeu_ps(y + 9 * yp, k0, c9);
	if (nw > 10) _mm512_mask_storeu_ps(y + 10 * yp, k0, c10);
	if (nw > 11) _mm512_mask_storeu_ps(y + 11 * yp, k0, c11);
	if (nw > 12) _mm512_mask_storeu_ps(y + 12 * yp, k0, c12);
	if (nw > 13) _mm512_mask_storeu_ps(y + 13 * yp, k0, c13);
	if (nb > 1) {
		_mm512_mask_storeu_ps(y1, k1, d0);
		if (nw > 1) _mm512_mask_storeu_ps(y1 + yp, k1, d1);
		if (nw > 2) _mm512_mask_storeu_ps(y1 + 2 * yp, k1, d2);
		if (nw > 3) _mm512_mask_storeu_ps(y1 + 3 * yp, k1, d3);
		if (nw > 4) _mm512_mask_storeu_ps(y1 + 4 * yp, k1, d4);
		if (nw > 5) _mm512_mask_storeu_ps(y1 + 5 * yp, k1, d5);
		if (nw > 6) _mm512_mask_storeu_ps(y1 + 6 * yp, k1, d6);
		if (nw > 7) _mm512_mask_storeu_ps(y1 + 7 * yp, k1, d7);
		if (nw > 8) _mm512_mask_storeu_ps(y1 + 8 * yp, k1, d8);
		if (nw > 9) _mm512_mask_storeu_ps(y1 + 9 * yp, k1, d9);
		if (nw > 10) _mm512_mask_storeu_ps(y1 + 10 * yp, k1, d10);
		if (nw > 11) _mm512_mask_storeu_ps(y1 + 11 * yp, k1, d11);
		if (nw > 12) _mm512_mask_storeu_ps(y1 + 12 * yp, k1, d12);
		if (nw > 13) _mm512_mask_storeu_ps(y1 + 13 * yp, k1, d13);
	}
	if (last && !relu && g->act != RT_ACT_NONE)
		rt_dvec_epilogue16_(g, o, nw, nb, y);
}

/* One pixel x nb vectors (a border pixel with its own taps [v0, v0 + nv), or a
 * one-pixel middle): the sum over input channels runs in four interleaved
 * partial sums, so 4 * nb independent FMA chains hide the FMA latency that a
 * one-pixel tile would expose. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dvec_pixel16_(int nb, const struct rt_dvec_geom_ *g, const struct rt_dvec_out_ *o,
                 const float *x, /* input at tap (u0, v0), first block */
                 int ncb, int nu, int nv,
                 const float *w, /* weights of vector 0 at the first block, tap (u0, v0) */
                 float *y,       /* out: the pixel's vector 0 */
                 int first, int last)
{
	const __mmask16 k0 = rt_dvec_mask16_(o->store[0]), k1 = rt_dvec_mask16_(o->store[1]);
	const __m512 zero = _mm512_setzero_ps();
	const size_t wci = g->wci, w1 = g->w1;
	__m512 c0 = zero, c1 = zero, c2 = zero, c3 = zero, d0 = zero, d1 = zero, d2 = zero, d3 = zero;
	if (first) {
		if (o->bias[0])
			c0 = _mm512_maskz_loadu_ps(rt_dvec_mask16_(o->valid[0]), o->bias[0]);
		if (nb > 1 && o->bias[1])
			d0 = _mm512_maskz_loadu_ps(rt_dvec_mask16_(o->valid[1]), o->bias[1]);
	} else {
		c0 = _mm512_maskz_loadu_ps(k0, y);
		if (nb > 1)
			d0 = _mm512_maskz_loadu_ps(k1, y + g->y1);
	}
	for (int cb = 0; cb < ncb; cb++) {
		for (int u = 0; u < nu; u++) {
			for (int v = 0; v < nv; v++) {
				const float *xp = x + cb * g->xcb + u * g->xrow + v * g->xcol;
				const float *wp = w + cb * g->wcb + u * g->wrow + v * g->wtap;
				int ci = 0;
				rt_dvec_prefetch_(g->pf);
				for (; ci + 4 <= g->nci; ci += 4, xp += 4, wp += 4 * wci) {
					const __m512 x0 = _mm512_set1_ps(xp[0]), x1 = _mm512_set1_ps(xp[1]);
					const __m512 x2 = _mm512_set1_ps(xp[2]), x3 = _mm512_set1_ps(xp[3]);
					c0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(wp), c0);
					c1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(wp + wci), c1);
					c2 = _mm512_fmadd_ps(x2, _mm512_loadu_ps(wp + 2 * wci), c2);
					c3 = _mm512_fmadd_ps(x3, _mm512_loadu_ps(wp + 3 * wci), c3);
					if (nb > 1) {
						d0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(wp + w1), d0);
						d1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(wp + wci + w1), d1);
						d2 = _mm512_fmadd_ps(x2, _mm512_loadu_ps(wp + 2 * wci + w1), d2);
						d3 = _mm512_fmadd_ps(x3, _mm512_loadu_ps(wp + 3 * wci + w1), d3);
					}
				}
				for (; ci < g->nci; ci++, xp++, wp += wci) {
					const __m512 x0 = _mm512_set1_ps(xp[0]);
					c0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(wp), c0);
					if (nb > 1)
						d0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(wp + w1), d0);
				}
			}
		}
	}
	c0 = _mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3));
	d0 = _mm512_add_ps(_mm512_add_ps(d0, d1), _mm512_add_ps(d2, d3));
	if (last && g->res) { /* as in rt_dvec_tile16_ */
		const float *r = g->res + (y - g->ybase);
		c0 = _mm512_add_ps(c0, _mm512_maskz_loadu_ps(rt_dvec_mask16_(o->valid[0]), r));
		if (nb > 1)
			d0 = _mm512_add_ps(d0, _mm512_maskz_loadu_ps(rt_dvec_mask16_(o->valid[1]), r + g->y1));
	}
	if (last && g->act == RT_ACT_RELU) {
		c0 = _mm512_max_ps(c0, zero);
		d0 = _mm512_max_ps(d0, zero);
	}
	_mm512_mask_storeu_ps(y, k0, c0);
	if (nb > 1)
		_mm512_mask_storeu_ps(y + g->y1, k1, d0);
	if (last && g->act != RT_ACT_RELU && g->act != RT_ACT_NONE)
		rt_dvec_epilogue16_(g, o, 1, nb, y);
}

/* The middle of a row (or a border column, see rt_dvec_cols16_): n pixels
 * with every tap inside the input, cut into tiles of as equal widths as
 * possible (26 = 9 + 9 + 8, not 12 + 12 + 2: a narrow tile has too few
 * independent FMA chains to hide the FMA latency). */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dvec_middle16_(int nb, size_t xp1, const struct rt_dvec_geom_ *g, const struct rt_dvec_out_ *o,
                  const float *x, int ncb, int nu, int nv, const float *w, float *y, int n,
                  int first, int last)
{
	for (int tiles = (n + RT_DVEC_NW16_ - 1) / RT_DVEC_NW16_; tiles > 0; tiles--) {
		const int nw = (n + tiles - 1) / tiles;
		switch (nw) {
		case 14: rt_dvec_tile16_(14, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 13: rt_dvec_tile16_(13, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 12: rt_dvec_tile16_(12, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 11: rt_dvec_tile16_(11, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 10: rt_dvec_tile16_(10, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 9: rt_dvec_tile16_(9, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 8: rt_dvec_tile16_(8, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 7: rt_dvec_tile16_(7, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 6: rt_dvec_tile16_(6, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 5: rt_dvec_tile16_(5, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 4: rt_dvec_tile16_(4, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 3: rt_dvec_tile16_(3, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 2: rt_dvec_tile16_(2, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		default: rt_dvec_pixel16_(nb, g, o, x, ncb, nu, nv, w, y, first, last); break;
		}
		n -= nw;
		x += nw * xp1;
		y += nw * g->ypix;
	}
}

/* One output row of one vector pair: the middle pixels [owl, owr) in tiles
 * and, when edges is set, the border pixels one at a time (otherwise
 * rt_dvec_cols16_ does them); nu taps u from the row's first valid one. */
static inline __attribute__((target("avx512f"))) void
rt_dvec_row16_(const struct rt_conv2d *p, const struct rt_dvec_geom_ *g,
               const struct rt_dvec_out_ *o, int nb,
               const float *x, /* input row of tap u0, pixel 0, first block */
               int ncb, int nu,
               const float *w, /* weights of vector 0, first block, tap (u0, 0) */
               float *y,       /* out: the row's pixel 0, vector 0 */
               int owl, int owr, int edges, int first, int last)
{
	for (int ow = 0; ow < p->oW; ow++) {
		if (!edges && (ow < owl || ow >= owr))
			continue;
		if (ow == owl) { /* middle: all taps v inside the row */
			const float *xm = x + (size_t)(ow * p->sW - p->padL) * g->xpx;
			float *ym = y + (size_t)ow * g->ypix;
			/* a constant pixel step for blocked strides 1 and 2 frees registers */
			if (nb > 1 && g->xpix == 16)
				rt_dvec_middle16_(2, 16, g, o, xm, ncb, nu, p->kW, w, ym, owr - owl, first, last);
			else if (nb > 1 && g->xpix == 32)
				rt_dvec_middle16_(2, 32, g, o, xm, ncb, nu, p->kW, w, ym, owr - owl, first, last);
			else if (nb > 1)
				rt_dvec_middle16_(2, g->xpix, g, o, xm, ncb, nu, p->kW, w, ym, owr - owl, first, last);
			else
				rt_dvec_middle16_(1, g->xpix, g, o, xm, ncb, nu, p->kW, w, ym, owr - owl, first, last);
			ow = owr - 1;
			continue;
		}
		int v0, v1;
		rt_tap_range(ow * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);
		const float *xe = v1 > v0 ? x + (size_t)(ow * p->sW - p->padL + v0 * p->dW) * g->xpx : x;
		const float *we = w + v0 * g->wtap;
		if (nb > 1)
			rt_dvec_pixel16_(2, g, o, xe, ncb, nu, v1 - v0, we, y + (size_t)ow * g->ypix, first, last);
		else
			rt_dvec_pixel16_(1, g, o, xe, ncb, nu, v1 - v0, we, y + (size_t)ow * g->ypix, first, last);
	}
}

/* The border columns [0, owl) and [owr, oW) over the rows [oh0, oh1) whose
 * taps u all lie inside the image: each column is a vertical strip of pixels
 * with the same taps v, so it goes through the same tiles as a row's middle,
 * stepping sH input rows and one output row per pixel. */
static inline __attribute__((target("avx512f"))) void
rt_dvec_cols16_(const struct rt_conv2d *p, const struct rt_dvec_geom_ *g,
               const struct rt_dvec_out_ *o, int nb,
               const float *x, /* input of the chunk's first block, [.][H][W][.] at (0, 0) */
               int ncb,
               const float *w, /* weights of vector 0, first block, tap (0, 0) */
               float *y,       /* out: the plane's pixel (0, 0), vector 0 */
               int owl, int owr, int oh0, int oh1, int first, int last)
{
	struct rt_dvec_geom_ gc = *g;
	const size_t xstep = (size_t)p->sH * p->W * g->xpx;
	gc.ypix = (size_t)p->oW * g->ypix;
	for (int ow = 0; ow < p->oW; ow++) {
		if (ow == owl)
			ow = owr;
		if (ow >= p->oW)
			break;
		int v0, v1;
		rt_tap_range(ow * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);
		/* a column with no tap inside the row still gets its bias */
		const size_t at = v1 > v0 ? ((size_t)(oh0 * p->sH - p->padT) * p->W +
		                             (size_t)(ow * p->sW - p->padL + v0 * p->dW)) * g->xpx : 0;
		const float *xs = x + at, *ws = w + v0 * g->wtap;
		float *ys = y + ((size_t)oh0 * p->oW + ow) * g->ypix;
		if (nb > 1)
			rt_dvec_middle16_(2, v1 > v0 ? xstep : 0, &gc, o, xs, ncb, p->kH, v1 - v0, ws, ys,
			                  oh1 - oh0, first, last);
		else
			rt_dvec_middle16_(1, v1 > v0 ? xstep : 0, &gc, o, xs, ncb, p->kH, v1 - v0, ws, ys,
			                  oh1 - oh0, first, last);
	}
}

#endif /* RT_DVEC_AVX512_ */

/* ---- AVX2: VL = 8 -------------------------------------------------------- */
#if RT_DVEC_AVX2_

#define RT_DVEC_NW8_ 6

/* All-ones in the first r lanes. */
static inline __attribute__((always_inline, target("avx2,fma"))) __m256i
rt_dvec_mask8_(int r)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dvec_put8_(float *dst, int nst, __m256i kst, __m256 v)
{
	if (nst >= 8)
		_mm256_storeu_ps(dst, v);
	else
		_mm256_maskstore_ps(dst, kst, v);
}

/* A stored partial sum: nst lanes. */
static inline __attribute__((always_inline, target("avx2,fma"))) __m256
rt_dvec_get8_(const float *y, int nst, __m256i kst)
{
	return nst >= 8 ? _mm256_loadu_ps(y) : _mm256_maskload_ps(y, kst);
}

static inline __attribute__((target("avx2,fma"))) void
rt_dvec_epilogue8_(const struct rt_dvec_geom_ *g, const struct rt_dvec_out_ *o, int nw, int nb,
                   float *y) /* in/out: the tile's first pixel, vector 0 */
{
	const __m256 zero = _mm256_setzero_ps(), alpha = _mm256_set1_ps(g->alpha);
	const __m256 beta = _mm256_set1_ps(g->beta);
	for (int q = 0; q < nb; q++) {
		const __m256i kst = rt_dvec_mask8_(o->store[q]), kv = rt_dvec_mask8_(o->valid[q]);
		for (int j = 0; j < nw; j++) {
			float *dst = y + (q ? g->y1 : 0) + (size_t)j * g->ypix;
			__m256 v = _mm256_maskload_ps(dst, kst);
			switch (g->act) {
			case RT_ACT_NONE: break;
			case RT_ACT_RELU: v = _mm256_max_ps(v, zero); break;
			case RT_ACT_LEAKY_RELU:
				v = _mm256_blendv_ps(v, _mm256_mul_ps(v, alpha), _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
				break;
			case RT_ACT_CLIP: v = _mm256_min_ps(_mm256_max_ps(v, alpha), beta); break;
			default: { /* sigmoid, tanh: per lane */
				float t[8];
				_mm256_storeu_ps(t, v);
				for (int l = 0; l < o->valid[q]; l++)
					t[l] = rt_act_apply(g->act, g->alpha, g->beta, t[l]);
				v = _mm256_loadu_ps(t);
				break;
			}
			}
			_mm256_maskstore_ps(dst, kst, _mm256_and_ps(v, _mm256_castsi256_ps(kv)));
		}
	}
}

/* One register tile: nw pixels (1..6) x nb vectors (1 or 2). */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dvec_tile8_(int nw, int nb, size_t xp1, /* xp1: g->xpix, or that value as a constant */
               const struct rt_dvec_geom_ *g, const struct rt_dvec_out_ *o,
               const float *x, /* input at tap (u0, v0) of the first pixel, first block */
               int ncb, int nu, int nv,
               const float *w, /* weights of vector 0 at the first block, tap (u0, v0) */
               float *y,       /* out: the first pixel's vector 0 */
               int first, int last)
{
	const size_t yp = g->ypix;
	const int n0 = o->store[0], n1 = o->store[1];
	const __m256i k0 = rt_dvec_mask8_(n0), k1 = rt_dvec_mask8_(n1);
	const __m256 b0 = first && o->bias[0] ? _mm256_maskload_ps(o->bias[0], rt_dvec_mask8_(o->valid[0]))
	                                      : _mm256_setzero_ps();
	const __m256 b1 = nb > 1 && first && o->bias[1]
	                          ? _mm256_maskload_ps(o->bias[1], rt_dvec_mask8_(o->valid[1]))
	                          : _mm256_setzero_ps();
	float *y1 = y + g->y1;
	__m256 c0 = b0, c1 = b0, c2 = b0, c3 = b0, c4 = b0, c5 = b0;
	__m256 d0 = b1, d1 = b1, d2 = b1, d3 = b1, d4 = b1, d5 = b1;
	if (!first) {
		c0 = rt_dvec_get8_(y, n0, k0);
		if (nw > 1) c1 = rt_dvec_get8_(y + yp, n0, k0);
		if (nw > 2) c2 = rt_dvec_get8_(y + 2 * yp, n0, k0);
		if (nw > 3) c3 = rt_dvec_get8_(y + 3 * yp, n0, k0);
		if (nw > 4) c4 = rt_dvec_get8_(y + 4 * yp, n0, k0);
		if (nw > 5) c5 = rt_dvec_get8_(y + 5 * yp, n0, k0);
		if (nb > 1) {
			d0 = rt_dvec_get8_(y1, n1, k1);
			if (nw > 1) d1 = rt_dvec_get8_(y1 + yp, n1, k1);
			if (nw > 2) d2 = rt_dvec_get8_(y1 + 2 * yp, n1, k1);
			if (nw > 3) d3 = rt_dvec_get8_(y1 + 3 * yp, n1, k1);
			if (nw > 4) d4 = rt_dvec_get8_(y1 + 4 * yp, n1, k1);
			if (nw > 5) d5 = rt_dvec_get8_(y1 + 5 * yp, n1, k1);
		}
	}
	for (int cb = 0; cb < ncb; cb++) {
		for (int u = 0; u < nu; u++) {
			for (int v = 0; v < nv; v++) {
				const float *xp = x + cb * g->xcb + u * g->xrow + v * g->xcol;
				const float *wp = w + cb * g->wcb + u * g->wrow + v * g->wtap;
				const float *x0 = xp, *x3 = xp + 3 * xp1;
				rt_dvec_prefetch_(g->pf);
				for (int ci = 0; ci < g->nci; ci++, x0++, x3++, wp += g->wci) {
					const __m256 w0 = _mm256_loadu_ps(wp);
					const __m256 w1 = nb > 1 ? _mm256_loadu_ps(wp + g->w1) : w0;
					__m256 xb;
					if (nw > 0) {
						xb = _mm256_broadcast_ss(x0);
						c0 = _mm256_fmadd_ps(xb, w0, c0);
						if (nb > 1) d0 = _mm256_fmadd_ps(xb, w1, d0);
					}
					if (nw > 1) {
						xb = _mm256_broadcast_ss(x0 + xp1);
						c1 = _mm256_fmadd_ps(xb, w0, c1);
						if (nb > 1) d1 = _mm256_fmadd_ps(xb, w1, d1);
					}
					if (nw > 2) {
						xb = _mm256_broadcast_ss(x0 + 2 * xp1);
						c2 = _mm256_fmadd_ps(xb, w0, c2);
						if (nb > 1) d2 = _mm256_fmadd_ps(xb, w1, d2);
					}
					if (nw > 3) {
						xb = _mm256_broadcast_ss(x3);
						c3 = _mm256_fmadd_ps(xb, w0, c3);
						if (nb > 1) d3 = _mm256_fmadd_ps(xb, w1, d3);
					}
					if (nw > 4) {
						xb = _mm256_broadcast_ss(x3 + xp1);
						c4 = _mm256_fmadd_ps(xb, w0, c4);
						if (nb > 1) d4 = _mm256_fmadd_ps(xb, w1, d4);
					}
					if (nw > 5) {
						xb = _mm256_broadcast_ss(x3 + 2 * xp1);
						c5 = _mm256_fmadd_ps(xb, w0, c5);
						if (nb > 1) d5 = _mm256_fmadd_ps(xb, w1, d5);
					}
				}
			}
		}
	}
	if (last && g->res) { /* before any store: y may be the residual's own buffer */
		const __m256i kv0 = rt_dvec_mask8_(o->valid[0]);
		const float *r = g->res + (y - g->ybase), *r1 = r + g->y1;
		c0 = _mm256_add_ps(c0, _mm256_maskload_ps(r, kv0));
		if (nw > 1) c1 = _mm256_add_ps(c1, _mm256_maskload_ps(r + yp, kv0));
		if (nw > 2) c2 = _mm256_add_ps(c2, _mm256_maskload_ps(r + 2 * yp, kv0));
		if (nw > 3) c3 = _mm256_add_ps(c3, _mm256_maskload_ps(r + 3 * yp, kv0));
		if (nw > 4) c4 = _mm256_add_ps(c4, _mm256_maskload_ps(r + 4 * yp, kv0));
		if (nw > 5) c5 = _mm256_add_ps(c5, _mm256_maskload_ps(r + 5 * yp, kv0));
		if (nb > 1) {
			const __m256i kv1 = rt_dvec_mask8_(o->valid[1]);
			d0 = _mm256_add_ps(d0, _mm256_maskload_ps(r1, kv1));
			if (nw > 1) d1 = _mm256_add_ps(d1, _mm256_maskload_ps(r1 + yp, kv1));
			if (nw > 2) d2 = _mm256_add_ps(d2, _mm256_maskload_ps(r1 + 2 * yp, kv1));
			if (nw > 3) d3 = _mm256_add_ps(d3, _mm256_maskload_ps(r1 + 3 * yp, kv1));
			if (nw > 4) d4 = _mm256_add_ps(d4, _mm256_maskload_ps(r1 + 4 * yp, kv1));
			if (nw > 5) d5 = _mm256_add_ps(d5, _mm256_maskload_ps(r1 + 5 * yp, kv1));
		}
	}
	rt_dvec_put8_(y, n0, k0, c0);
	if (nw > 1) rt_dvec_put8_(y + yp, n0, k0, c1);
	if (nw > 2) rt_dvec_put8_(y + 2 * yp, n0, k0, c2);
	if (nw > 3) rt_dvec_put8_(y + 3 * yp, n0, k0, c3);
	if (nw > 4) rt_dvec_put8_(y + 4 * yp, n0, k0, c4);
	if (nw > 5) rt_dvec_put8_(y + 5 * yp, n0, k0, c5);
	if (nb > 1) {
		rt_dvec_put8_(y1, n1, k1, d0);
		if (nw > 1) rt_dvec_put8_(y1 + yp, n1, k1, d1);
		if (nw > 2) rt_dvec_put8_(y1 + 2 * yp, n1, k1, d2);
		if (nw > 3) rt_dvec_put8_(y1 + 3 * yp, n1, k1, d3);
		if (nw > 4) rt_dvec_put8_(y1 + 4 * yp, n1, k1, d4);
		if (nw > 5) rt_dvec_put8_(y1 + 5 * yp, n1, k1, d5);
	}
	if (last && (g->act != RT_ACT_NONE || o->valid[nb - 1] < o->store[nb - 1]))
		rt_dvec_epilogue8_(g, o, nw, nb, y);
}

/* The middle of a row (or a border column) in tiles of equal widths, as
 * rt_dvec_middle16_. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dvec_middle8_(int nb, size_t xp1, const struct rt_dvec_geom_ *g, const struct rt_dvec_out_ *o,
                 const float *x, int ncb, int nu, int nv, const float *w, float *y, int n,
                 int first, int last)
{
	for (int tiles = (n + RT_DVEC_NW8_ - 1) / RT_DVEC_NW8_; tiles > 0; tiles--) {
		const int nw = (n + tiles - 1) / tiles;
		switch (nw) {
		case 6: rt_dvec_tile8_(6, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 5: rt_dvec_tile8_(5, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 4: rt_dvec_tile8_(4, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 3: rt_dvec_tile8_(3, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		case 2: rt_dvec_tile8_(2, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		default: rt_dvec_tile8_(1, nb, xp1, g, o, x, ncb, nu, nv, w, y, first, last); break;
		}
		n -= nw;
		x += nw * xp1;
		y += nw * g->ypix;
	}
}

/* One output row of one vector pair, as rt_dvec_row16_. */
static inline __attribute__((target("avx2,fma"))) void
rt_dvec_row8_(const struct rt_conv2d *p, const struct rt_dvec_geom_ *g,
              const struct rt_dvec_out_ *o, int nb,
              const float *x, /* input row of tap u0, pixel 0, first block */
              int ncb, int nu,
              const float *w, /* weights of vector 0, first block, tap (u0, 0) */
              float *y,       /* out: the row's pixel 0, vector 0 */
               int owl, int owr, int edges, int first, int last)
{
	for (int ow = 0; ow < p->oW; ow++) {
		if (!edges && (ow < owl || ow >= owr))
			continue;
		if (ow == owl) {
			const float *xm = x + (size_t)(ow * p->sW - p->padL) * g->xpx;
			float *ym = y + (size_t)ow * g->ypix;
			if (nb > 1 && g->xpix == 8)
				rt_dvec_middle8_(2, 8, g, o, xm, ncb, nu, p->kW, w, ym, owr - owl, first, last);
			else if (nb > 1 && g->xpix == 16)
				rt_dvec_middle8_(2, 16, g, o, xm, ncb, nu, p->kW, w, ym, owr - owl, first, last);
			else if (nb > 1)
				rt_dvec_middle8_(2, g->xpix, g, o, xm, ncb, nu, p->kW, w, ym, owr - owl, first, last);
			else
				rt_dvec_middle8_(1, g->xpix, g, o, xm, ncb, nu, p->kW, w, ym, owr - owl, first, last);
			ow = owr - 1;
			continue;
		}
		int v0, v1;
		rt_tap_range(ow * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);
		const float *xe = v1 > v0 ? x + (size_t)(ow * p->sW - p->padL + v0 * p->dW) * g->xpx : x;
		const float *we = w + v0 * g->wtap;
		if (nb > 1)
			rt_dvec_tile8_(1, 2, 0, g, o, xe, ncb, nu, v1 - v0, we, y + (size_t)ow * g->ypix, first, last);
		else
			rt_dvec_tile8_(1, 1, 0, g, o, xe, ncb, nu, v1 - v0, we, y + (size_t)ow * g->ypix, first, last);
	}
}

/* The border columns [0, owl) and [owr, oW) over the rows [oh0, oh1) whose
 * taps u all lie inside the image: each column is a vertical strip of pixels
 * with the same taps v, so it goes through the same tiles as a row's middle,
 * stepping sH input rows and one output row per pixel. */
static inline __attribute__((target("avx2,fma"))) void
rt_dvec_cols8_(const struct rt_conv2d *p, const struct rt_dvec_geom_ *g,
               const struct rt_dvec_out_ *o, int nb,
               const float *x, /* input of the chunk's first block, [.][H][W][.] at (0, 0) */
               int ncb,
               const float *w, /* weights of vector 0, first block, tap (0, 0) */
               float *y,       /* out: the plane's pixel (0, 0), vector 0 */
               int owl, int owr, int oh0, int oh1, int first, int last)
{
	struct rt_dvec_geom_ gc = *g;
	const size_t xstep = (size_t)p->sH * p->W * g->xpx;
	gc.ypix = (size_t)p->oW * g->ypix;
	for (int ow = 0; ow < p->oW; ow++) {
		if (ow == owl)
			ow = owr;
		if (ow >= p->oW)
			break;
		int v0, v1;
		rt_tap_range(ow * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);
		/* a column with no tap inside the row still gets its bias */
		const size_t at = v1 > v0 ? ((size_t)(oh0 * p->sH - p->padT) * p->W +
		                             (size_t)(ow * p->sW - p->padL + v0 * p->dW)) * g->xpx : 0;
		const float *xs = x + at, *ws = w + v0 * g->wtap;
		float *ys = y + ((size_t)oh0 * p->oW + ow) * g->ypix;
		if (nb > 1)
			rt_dvec_middle8_(2, v1 > v0 ? xstep : 0, &gc, o, xs, ncb, p->kH, v1 - v0, ws, ys,
			                  oh1 - oh0, first, last);
		else
			rt_dvec_middle8_(1, v1 > v0 ? xstep : 0, &gc, o, xs, ncb, p->kH, v1 - v0, ws, ys,
			                  oh1 - oh0, first, last);
	}
}

#endif /* RT_DVEC_AVX2_ */

/* ---- portable C: VL = 8, one pixel at a time ----------------------------- */

static inline void rt_dvec_rowc_(const struct rt_conv2d *p, const struct rt_dvec_geom_ *g,
                                 const struct rt_dvec_out_ *o, int nb,
                                 const float *x, /* input row of tap u0, pixel 0, first block */
                                 int ncb, int nu,
                                 const float *w, /* weights of vector 0, first block, tap (u0, 0) */
                                 float *y,       /* out: the row's pixel 0, vector 0 */
                                 int first, int last)
{
	for (int ow = 0; ow < p->oW; ow++) {
		int v0, v1;
		rt_tap_range(ow * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);
		const float *xe = v1 > v0 ? x + (size_t)(ow * p->sW - p->padL + v0 * p->dW) * g->xpx : x;
		const float *we = w + v0 * g->wtap;
		for (int q = 0; q < nb; q++) {
			float acc[8];
			float *dst = y + (size_t)ow * g->ypix + (q ? g->y1 : 0);
			const float *wq = we + (q ? g->w1 : 0);
			for (int l = 0; l < 8; l++)
				acc[l] = !first ? (l < o->store[q] ? dst[l] : 0.0f)
				                : o->bias[q] && l < o->valid[q] ? o->bias[q][l] : 0.0f;
			for (int cb = 0; cb < ncb; cb++)
				for (int u = 0; u < nu; u++)
					for (int v = 0; v < v1 - v0; v++) {
						const float *xp = xe + cb * g->xcb + u * g->xrow + v * g->xcol;
						const float *wp = wq + cb * g->wcb + u * g->wrow + v * g->wtap;
						rt_dvec_prefetch_(g->pf);
						for (int ci = 0; ci < g->nci; ci++, wp += g->wci)
							for (int l = 0; l < 8; l++)
								acc[l] += xp[ci] * wp[l];
					}
			const float *rq = last && g->res ? g->res + (dst - g->ybase) : NULL;
			for (int l = 0; l < o->store[q]; l++)
				dst[l] = !last ? acc[l]
				         : l < o->valid[q]
				                 ? rt_act_apply(g->act, g->alpha, g->beta, rq ? acc[l] + rq[l] : acc[l])
				                 : 0.0f;
		}
	}
}

/* What the threads of one rt_conv_direct_vec call share. */
struct rt_dvec_job_ {
	const struct rt_conv2d *p;
	const struct rt_dvec_geom_ *g; /* copied per thread: the tiles change some fields */
	const float *x, *w, *b;
	float *y;
	int n, bs, vl, simd, mg, nvec, cblocks, chunk, full, band, owl, owr, oht, ohb;
	int rsplit; /* parts the output rows are cut into (rt_dvec_items_) */
	size_t ximg, yimg, xgrp, wgrp;
};

/* Where vector qk (VL output channels) of group gr starts in the packed
 * weights, in floats. */
static inline size_t rt_dvec_woff_(const struct rt_dvec_job_ *j, int gr, int qk)
{
	if (j->bs) {
		const int ob = gr * (j->nvec * j->vl / j->bs) + qk / (j->bs / j->vl);
		return (size_t)ob * j->cblocks * j->g->wcb + (size_t)(qk % (j->bs / j->vl)) * j->vl;
	}
	return gr * j->wgrp + (size_t)qk * j->vl;
}

/* Items [i0, i1) of image j->n: item i is segment s = i / pairs, vector
 * pair i % pairs (output channels q, q + 1 with q = 2 * (i % pairs)); a
 * segment is part s % rsplit of the output rows of group s / rsplit; bands
 * of output rows outermost within a segment, as in the serial loop. */
static void rt_dvec_items_(void *ctx, int i0, int i1)
{
	const struct rt_dvec_job_ *j = ctx;
	const struct rt_conv2d *p = j->p;
	struct rt_dvec_geom_ g = *j->g;
	const float *x = j->x, *w = j->w, *b = j->b;
	float *y = j->y;
	const int n = j->n, bs = j->bs, vl = j->vl, simd = j->simd, mg = j->mg, nvec = j->nvec;
	const int cblocks = j->cblocks, chunk = j->chunk, full = j->full, band = j->band;
	const int owl = j->owl, owr = j->owr, oht = j->oht, ohb = j->ohb;
	const size_t ximg = j->ximg, yimg = j->yimg, xgrp = j->xgrp, wgrp = j->wgrp;
	const int pairs = (nvec + 1) / 2;
	(void)mg;
	(void)wgrp;
	(void)vl;
	(void)owl; /* read only where SIMD is compiled in */
	const int rsplit = j->rsplit;
	struct rt_dvec_pf_ pf = {NULL, NULL, 0};
	g.pf = &pf;
	for (int sg = i0 / pairs; sg < p->group * rsplit && sg * pairs < i1; sg++) {
		const int gr = sg / rsplit, rp = sg % rsplit;
		const int r0 = (int)((long long)p->oH * rp / rsplit);
		const int r1 = (int)((long long)p->oH * (rp + 1) / rsplit);
		const int qlo = i0 > sg * pairs ? 2 * (i0 - sg * pairs) : 0;
		const int qhi = i1 < (sg + 1) * pairs ? 2 * (i1 - sg * pairs) : nvec;
		const float *xg = x + n * ximg + gr * xgrp;
		/* bands of output rows: the input rows a band reads stay in L2
		 * while every vector pair and chunk goes over them */
		for (int b0 = r0; b0 < r1; b0 += band) {
			const int b1 = r1 - b0 < band ? r1 : b0 + band;
			for (int q = qlo; q < qhi && q < nvec; q += 2) {
				const int nb = nvec - q >= 2 ? 2 : 1;
				struct rt_dvec_out_ o;
				size_t woff[2], yoff[2];
				for (int k = 0; k < 2; k++) {
					const int qk = q + (k < nb ? k : 0);
					int m0;
					if (bs) {
						const int ob = gr * (nvec * vl / bs) + qk / (bs / vl), h = qk % (bs / vl);
						m0 = ob * bs + h * vl;
						yoff[k] = (size_t)ob * p->oH * p->oW * bs + (size_t)h * vl;
						o.valid[k] = p->M - m0 < 0 ? 0 : p->M - m0 < vl ? p->M - m0 : vl;
						o.store[k] = vl;
					} else {
						m0 = gr * mg + qk * vl;
						yoff[k] = (size_t)m0;
						o.valid[k] = mg - qk * vl < vl ? mg - qk * vl : vl;
						o.store[k] = o.valid[k];
					}
					o.bias[k] = b && o.valid[k] > 0 ? b + m0 : NULL;
					woff[k] = rt_dvec_woff_(j, gr, qk);
				}
				g.w1 = woff[1] - woff[0];
				g.y1 = yoff[1] - yoff[0];
				for (int c0 = 0, ncb; c0 < cblocks; c0 += ncb) {
					ncb = cblocks - c0 < chunk ? cblocks - c0 : chunk;
					if (bs && c0 < full && c0 + ncb > full)
						ncb = full - c0;
					const int first = c0 == 0, last = c0 + ncb == cblocks;
					const float *xc = xg + c0 * g.xcb;
					const float *wc = w + woff[0] + c0 * g.wcb;
					int nblk = ncb; /* blocks the tiles loop over */
					if (!bs) { /* HWC: one block of ncb channels */
						g.nci = ncb;
						nblk = 1;
					} else { /* the partial block alone, on its real channels */
						g.nci = c0 < full ? bs : p->C - full * bs;
					}
					/* the next chunk's weights of the pair (nx blocks per
					 * vector), or at the pair's last chunk the next pair's
					 * first, fetched while this chunk runs (rt_dvec_pf_) */
					const int nx = c0 + ncb >= cblocks     ? 0
					               : cblocks - c0 - ncb < chunk ? cblocks - c0 - ncb
					                                            : chunk;
					const float *wn = NULL;
					size_t wspan = 0;
					if (bs && nx) {
						wn = wc + (size_t)ncb * g.wcb;
						wspan = (size_t)nx * g.wcb;
						pf.off1 = g.w1;
					} else if (bs && q + 2 < qhi && q + 2 < nvec) {
						const int nb2 = nvec - q - 2 >= 2 ? 2 : 1;
						wn = w + rt_dvec_woff_(j, gr, q + 2);
						wspan = (size_t)(cblocks < chunk ? cblocks : chunk) * g.wcb;
						pf.off1 = nb2 > 1 ? rt_dvec_woff_(j, gr, q + 3) - rt_dvec_woff_(j, gr, q + 2) : 0;
					}
					pf.next = pf.end = wn;
					for (int oh = b0; oh < b1; oh++) {
						int u0, u1;
						/* a share per output row, so that a large plane's
						 * tiles do not fetch it all at the start and evict
						 * this chunk's weights from L1 (wspan is a multiple
						 * of 32 floats) */
						if (wspan) {
							const size_t f1 = wspan * (size_t)(oh - b0 + 1) / (size_t)(b1 - b0);
							pf.end = wn + (f1 + 31) / 32 * 32;
						}
						rt_tap_range(oh * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);
						const int ih = oh * p->sH - p->padT + u0 * p->dH;
						/* the input row of tap u0, at column 0; columns are
						 * added as offsets that stay inside the row */
						const float *xr = xc + (size_t)(u1 > u0 ? ih : 0) * p->W * g.xpx;
						const float *wr = wc + u0 * g.wrow;
						float *yr = y + n * yimg + yoff[0] + (size_t)oh * p->oW * g.ypix;
						/* border pixels of the inner rows go by columns, below */
						const int edges = oh < oht || oh >= ohb;
	#if RT_DVEC_AVX512_
						if (vl == 16) {
							rt_dvec_row16_(p, &g, &o, nb, xr, nblk, u1 - u0, wr, yr, owl, owr,
							               edges, first, last);
							continue;
						}
	#endif
	#if RT_DVEC_AVX2_
						if (simd) {
							rt_dvec_row8_(p, &g, &o, nb, xr, nblk, u1 - u0, wr, yr, owl, owr, edges,
							              first, last);
							continue;
						}
	#endif
						/* portable C: every pixel with its own taps, no columns */
						(void)edges;
						rt_dvec_rowc_(p, &g, &o, nb, xr, nblk, u1 - u0, wr, yr, first, last);
					}
					if ((oht > b0 ? oht : b0) < (ohb < b1 ? ohb : b1)) {
						float *yp = y + n * yimg + yoff[0];
	#if RT_DVEC_AVX512_
						if (vl == 16)
							rt_dvec_cols16_(p, &g, &o, nb, xc, nblk, wc, yp, owl, owr,
							                oht > b0 ? oht : b0, ohb < b1 ? ohb : b1, first,
							                last);
	#endif
	#if RT_DVEC_AVX2_
						if (vl == 8 && simd)
							rt_dvec_cols8_(p, &g, &o, nb, xc, nblk, wc, yp, owl, owr,
							               oht > b0 ? oht : b0, ohb < b1 ? ohb : b1, first,
							               last);
	#endif
						(void)yp;
						(void)simd;
						(void)owr;
					}
				}
			}
		}
	}
}

/* Fewest output rows in a part of a plane that rt_dvec_items_ cuts
 * (see rt_conv_direct_vec). */
#define RT_DVEC_PART_ROWS_ 8

/* ---- driver -------------------------------------------------------------- */

RT_FN void rt_conv_direct_vec(const struct rt_conv2d *p, int variant,
                              const float *x, /* [N] images [C/bs][H][W][bs], or
                                                 [H][W][C] (variant 0) */
                              const float *w, /* packed: [M/bs][Cg/bs][kH][kW][bs][bs], or
                                                 [group][kH][kW][Cg][mgp] (variant 0) */
                              const float *b, /* [M] or NULL */
                              float *y,       /* out: [N] images [M/bs][oH][oW][bs], or
                                                 [oH][oW][M] (variant 0) */
                              float *ws)      /* unused */
{
	const int bs = variant; /* channel block: 16, 8, or 0 for HWC */
	const int cg = p->C / p->group, mg = p->M / p->group;
	const int vl = bs != 8 && p->isa == RT_SGEMM_ISA_AVX512 && RT_DVEC_AVX512_ ? 16 : 8;
	const int simd = (p->isa == RT_SGEMM_ISA_AVX512 || p->isa == RT_SGEMM_ISA_AVX2) && RT_DVEC_AVX2_;
	const size_t taps = (size_t)p->kH * p->kW;
	struct rt_dvec_geom_ g;
	int nvec, cblocks, chunk;                /* vectors per group; channel blocks per group */
	size_t ximg, yimg, xgrp, wgrp;           /* floats per image, per group */
	(void)ws;
	if (bs) {
		const int cgb = p->group == 1 ? (p->C + bs - 1) / bs : cg / bs;
		const int mgb = p->group == 1 ? (p->M + bs - 1) / bs : mg / bs;
		g.nci = bs;
		g.xpx = (size_t)bs;
		g.xcb = (size_t)p->H * p->W * bs;
		g.wci = (size_t)bs;
		g.wtap = (size_t)bs * bs;
		g.wcb = taps * bs * bs;
		g.ypix = (size_t)bs;
		nvec = mgb * (bs / vl);
		cblocks = cgb;
		ximg = (size_t)(p->group == 1 ? cgb : p->C / bs) * g.xcb;
		yimg = (size_t)(p->group == 1 ? mgb : p->M / bs) * p->oH * p->oW * bs;
		xgrp = (size_t)cgb * g.xcb;
		wgrp = (size_t)mgb * cgb * g.wcb;
	} else {
		/* HWC: the "blocks" are single channels, chunked as one block of
		 * up to `chunk` channels (set per chunk below) */
		const int mgp = (mg + 15) / 16 * 16;
		g.nci = 1;
		g.xpx = (size_t)p->C;
		g.xcb = 1;
		g.wci = (size_t)mgp;
		g.wtap = (size_t)cg * mgp;
		g.wcb = (size_t)mgp;
		g.ypix = (size_t)p->M;
		nvec = (mg + vl - 1) / vl;
		cblocks = cg;
		ximg = (size_t)p->H * p->W * p->C;
		yimg = (size_t)p->oH * p->oW * p->M;
		xgrp = (size_t)cg;
		wgrp = taps * cg * mgp;
	}
	chunk = rt_dvec_chunk(bs, vl, g.wcb); /* blocks, or HWC channels, per chunk */
	/* input channel blocks [0, full) are whole; a last block of fewer than
	 * bs real channels (C not a multiple of bs, no groups) runs on its own
	 * chunk over those channels only: a 3-channel image costs 3/16 of a
	 * block, not all of it */
	const int full = bs && p->group == 1 && p->C % bs ? cblocks - 1 : cblocks;
	/* output rows per band: all of them when the group's input fits in L2
	 * (2 MiB); else as many as read about 1 MiB of input rows (sH per
	 * output row), half of L2, and at least 12, or the border columns get
	 * cut into short, slow tiles. Measured: 1x1 stride-2 layers 1.4x faster,
	 * 224 x 224 planes a few per cent; each band reads all the weights
	 * again, so smaller inputs are better off without. */
	const size_t xrowf = (size_t)p->W * (bs ? (size_t)cblocks * bs : (size_t)cg); /* floats */
	int band = xrowf * p->H <= 524288 ? p->oH : (int)(262144 / (xrowf * p->sH));
	if (band < 12)
		band = 12;
	g.xpix = (size_t)p->sW * g.xpx;
	g.xcol = (size_t)p->dW * g.xpx;
	g.xrow = (size_t)p->dH * p->W * g.xpx;
	g.wrow = (size_t)p->kW * g.wtap;
	g.act = p->act;
	g.alpha = p->alpha;
	g.beta = p->beta;
	g.res = p->res;
	g.ybase = y;

	/* output columns whose taps all lie inside the input row: [owl, owr);
	 * output rows whose taps all lie inside the image: [oht, ohb) */
	int owl = p->oW, owr = p->oW, oht = p->oH, ohb = p->oH;
	for (int ow = 0; ow < p->oW; ow++) {
		int v0, v1;
		rt_tap_range(ow * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);
		if (v0 == 0 && v1 == p->kW) {
			if (owl == p->oW)
				owl = ow;
			owr = ow + 1;
		}
	}
	for (int oh = 0; oh < p->oH; oh++) {
		int u0, u1;
		rt_tap_range(oh * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);
		if (u0 == 0 && u1 == p->kH) {
			if (oht == p->oH)
				oht = oh;
			ohb = oh + 1;
		}
	}

	struct rt_dvec_job_ j = {
		.p = p, .g = &g, .x = x, .w = w, .b = b, .y = y, .bs = bs, .vl = vl, .simd = simd,
		.mg = mg, .nvec = nvec, .cblocks = cblocks, .chunk = chunk, .full = full, .band = band,
		.owl = owl, .owr = owr, .oht = oht, .ohb = ohb, .ximg = ximg, .yimg = yimg,
		.xgrp = xgrp, .wgrp = wgrp,
	};
	/* threads take whole vector pairs (output channels) over a part of the
	 * output rows, so every output element gets the same arithmetic
	 * whoever computes it; the rows are cut into parts only where there
	 * are too few pairs to keep RT_PARALLEL_ITEMS threads busy (a layer of
	 * 16 or 32 channels is one pair) */
	const int gp = p->group * ((nvec + 1) / 2);
	j.rsplit = gp >= RT_PARALLEL_ITEMS ? 1 : (RT_PARALLEL_ITEMS + gp - 1) / gp;
	/* but parts of RT_DVEC_PART_ROWS_ rows or more: a part is a plane of
	 * its own, its border columns cut into short strips that run a pixel
	 * at a time (measured, one thread, AVX-512, CPU time, 3x3 layers cut
	 * as before against these parts: 8x8 x 64 -> 64 channels, 4 parts
	 * against 1, 25 -> 18.5 us; 16x16 x 32 -> 32, 8 against 2, 21 -> 17.7
	 * us; 7x7 x 128 -> 128, 2 against 1, 77 -> 61 us); and an even number
	 * of items, so that two threads still get equal shares */
	if (j.rsplit > p->oH / RT_DVEC_PART_ROWS_) {
		const int r0 = j.rsplit;
		j.rsplit = p->oH / RT_DVEC_PART_ROWS_ > 1 ? p->oH / RT_DVEC_PART_ROWS_ : 1;
		while (j.rsplit < r0 && gp * j.rsplit % 2)
			j.rsplit++;
	}
	if (j.rsplit > p->oH)
		j.rsplit = p->oH;
	const int items = gp * j.rsplit;
	const double work = (double)p->M * cg * taps * p->oH * p->oW;
	for (int n = 0; n < p->N; n++) {
		j.n = n;
		if (work < RT_PARALLEL_MIN_WORK)
			rt_dvec_items_(&j, 0, items);
		else
			rt_parallel(rt_dvec_items_, &j, items);
	}
}
