/* conv_stem.c - the direct convolution of a network's first layer: few input
 * channels (C <= 4, no groups), any kernel, stride and dilation, reading the
 * CHW graph input as it is and writing the blocked or channels-last output
 * the next layers want.
 *
 * Textbook form (ONNX Conv, a cross-correlation):
 *   y[m][i][j] = b[m] + sum over c, u, v of
 *                w[m][c][u][v] * x[c][i*sH - padT + u*dH][j*sW - padL + v*dW]
 * With 3 input channels the reduction is short (C kH kW: 147 for a 7x7, 27
 * for a 3x3) and the rows of conv_direct_vec.c lose to it: they need the
 * input in the output's layout (a CHW -> CHW16c pass first, 16 lanes of
 * which 13 are padding) and their tiles hold 2 vectors of output channels.
 * Here output channels are the vector lanes and a register tile holds NB
 * vectors (up to 64 channels) x NW output pixels of one output row: per tap
 * (c, u, v) it loads NB weight vectors and broadcasts NW input values
 * straight from the CHW rows (stride sW apart), NB x NW FMAs. All NB vectors
 * share the broadcasts, so the input is read once per tap, not once per
 * pair of vectors; the weights of every channel (C kH kW Mp floats: 37 KiB
 * for ResNet's 7x7 x 64) stay in L1 across a row.
 *
 * Rows (variant = output layout):
 *   16  conv_stem_chw_chw16c   x [C][H][W] -> y [M/16][oH][oW][16]
 *    8  conv_stem_chw_chw8c    x [C][H][W] -> y [M/8][oH][oW][8]
 *    0  conv_stem_chw_hwc      x [C][H][W] -> y [oH][oW][M]
 * Weights packed [C][kH][kW][Mp] (Mp = M rounded up to 16, padding zero);
 * blocked outputs write the channels past M as zero.
 *
 * Padding: for each output row the taps u whose input row is inside the
 * image are a range [u0, u1); the output columns whose every tap v lies
 * inside the row, [owl, owr), go through full tiles of NW pixels (the last
 * one shifted left to end at owr, recomputing a few pixels with the same
 * arithmetic); the border columns run one pixel at a time over their own
 * range of taps v. No branch in the inner loops.
 *
 * Epilogue in the store: bias is the accumulators' start, ReLU and Clip are
 * vector max/min; other activations, and a last vector holding fewer than VL
 * real channels, go through a lane buffer.
 *
 * One source over the SIMD layer (rt_simd.h): AVX-512 (VL 16, tiles of up to
 * 24 accumulators: 4 x 6, 3 x 8, 2 x 12, 1 x 24), AVX2 + FMA (VL 8, 12
 * accumulators), NEON (VL 4, 24) and portable C (VL 1, 8). The FMA and the
 * function attribute are per ISA here (rt_simd.h's AVX2 attribute has no
 * FMA). Threads take whole output rows (rt_parallel), so every output
 * element gets the same arithmetic for any thread count. */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

/* What the rows of one call share. */
struct rt_stem_job_ {
	const struct rt_conv2d *p;
	const float *x, *w, *b; /* one image [C][H][W]; packed weights; bias [M] or NULL */
	float *y;               /* one image of the output, in the row's layout */
	int bs;                 /* output channel block: 16, 8, or 0 for HWC */
	int mp;                 /* M rounded up to 16: floats per weight tap */
	int owl, owr;           /* output columns whose taps v all lie in the row */
};

/* Output float of channel m at pixel (oh, ow). */
static inline size_t rt_stem_yoff_(const struct rt_stem_job_ *j, int m, int oh, int ow)
{
	const struct rt_conv2d *p = j->p;
	const size_t pix = (size_t)oh * p->oW + ow;
	if (j->bs)
		return (size_t)(m / j->bs) * p->oH * p->oW * j->bs + pix * j->bs + m % j->bs;
	return pix * p->M + m;
}

/* Stores lanes t[0..vl) of channels m.. at dst: the activation on the real
 * channels (m + l < M); the rest zero in a blocked layout, unwritten in
 * HWC. */
static inline void rt_stem_store_lanes_(const struct rt_stem_job_ *j, int m, int vl,
                                        const float *t, float *dst)
{
	const struct rt_conv2d *p = j->p;
	for (int l = 0; l < vl; l++) {
		if (m + l < p->M)
			dst[l] = rt_act_apply(p->act, p->alpha, p->beta, t[l]);
		else if (j->bs)
			dst[l] = 0.0f;
	}
}

/* Per-ISA FMA (a * b + c) and function attribute. */
#define RT_STEM_FMA_avx512(a, b, c) _mm512_fmadd_ps(a, b, c)
#define RT_STEM_FMA_avx2(a, b, c) _mm256_fmadd_ps(a, b, c)
#define RT_STEM_FMA_neon(a, b, c) vfmaq_f32(c, a, b)
#define RT_STEM_FMA_c(a, b, c) ((a) * (b) + (c))
#define RT_STEM_ATTR_avx512 __attribute__((target("avx512f")))
#define RT_STEM_ATTR_avx2 __attribute__((target("avx2,fma")))
#define RT_STEM_ATTR_neon
#define RT_STEM_ATTR_c
/* accumulators of a full tile: NB x NW <= ACC */
#define RT_STEM_ACC_avx512 24
#define RT_STEM_ACC_avx2 12
#define RT_STEM_ACC_neon 24
#define RT_STEM_ACC_c 8
/* vectors of output channels per tile, at most */
#define RT_STEM_NB_avx512 4
#define RT_STEM_NB_avx2 4
#define RT_STEM_NB_neon 4
#define RT_STEM_NB_c 4

/* Which of the tile widths a (the most accumulators allow), (2a + 2) / 3 and
 * (a + 2) / 3 covers n inner columns best: 0, 1 or 2, or 3 for none (every
 * column by itself, as the border columns go). A row's n columns take
 * ceil(n / w) tiles of w pixels (the last shifted left, recomputing), and a
 * tile costs its w pixels plus about one pixel's worth of weight loads and
 * set-up per tap row; a w above n cannot be used; by pixels costs 2n, and
 * wins ties (DS-CNN's 10x4 stem: 3 inner columns of 5, 64 channels, was
 * slower in 2 tiles of 2). ResNet-8's 3x3 stem (30
 * inner columns, a = 24) takes 2 tiles of 16, not 2 of 24 (48 pixels for 30);
 * on Zen 4 (one 512-bit FMA a cycle, latency 4) 8 accumulators already keep
 * the FMA pipes busy, so narrower tiles lose little. */
static inline int rt_stem_pick_nw_(int n, int a)
{
	int best = 3, best_cost = 2 * n;
	for (int c = 0; c < 3; c++) {
		const int w = c == 0 ? a : c == 1 ? (2 * a + 2) / 3 : (a + 2) / 3;
		if (w > n)
			continue;
		const int cost = (n + w - 1) / w * (w + 1);
		if (cost < best_cost) {
			best = c;
			best_cost = cost;
		}
	}
	return best;
}

/* Floats per buffered tap row of a tile of nw pixels (rt_stem_prow_SUF). */
static inline int rt_stem_pwidth_(const struct rt_conv2d *p, int nw)
{
	return (nw - 1) * p->sW + (p->kW - 1) * p->dW + 1;
}

/* Floats of the stack buffer of rt_stem_prow_SUF: 2 KiB on the host ISAs,
 * 512 bytes in the portable kernel, whose users include Cortex-M firmware
 * with a default stack of 1 KiB (as pool_cl.c's buffer). */
#define RT_STEM_PBUF_avx512 512
#define RT_STEM_PBUF_avx2 512
#define RT_STEM_PBUF_neon 512
#define RT_STEM_PBUF_c 128

/* Whether rows go through rt_stem_prow_SUF with tiles of nw pixels: the whole
 * output row fits one tile and its tap rows fit the buffer. */
static inline int rt_stem_padded_(const struct rt_conv2d *p, int nw, int bufsz)
{
	return p->oW <= nw && (size_t)p->C * p->kH * rt_stem_pwidth_(p, nw) <= (size_t)bufsz;
}

/* A row function of one tile shape: nb vectors of channels x nw pixels. */
#define RT_STEM_ROW_FN_(SUF, ID, NB, NW)                                                           \
	static __attribute__((noinline)) RT_STEM_ATTR_##SUF void rt_stem_row_##SUF##_##ID(          \
	    const struct rt_stem_job_ *j, int oh, int q)                                               \
	{                                                                                            \
		rt_stem_row_##SUF(j, NB, NW, oh, q);                                                     \
	}

/* The same for the rows of rt_stem_prow_SUF (every pixel in one tile of nw). */
#define RT_STEM_PROW_FN_(SUF, ID, NB, NW)                                                          \
	static __attribute__((noinline)) RT_STEM_ATTR_##SUF void rt_stem_row_##SUF##_##ID(          \
	    const struct rt_stem_job_ *j, int oh, int q)                                               \
	{                                                                                            \
		rt_stem_prow_##SUF(j, NB, NW, oh, q);                                                    \
	}

/* The template: rt_stem_tile_SUF (one tile, nb x nw constants after
 * inlining), rt_stem_rows_SUF (output rows [r0, r1) of one image). */
#define RT_STEM_KERNEL_(SUF, ATTR_UNUSED, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN) \
	static inline __attribute__((always_inline)) RT_STEM_ATTR_##SUF void rt_stem_tile_##SUF(      \
	    const struct rt_stem_job_ *j, int nb, int nw, int m0,                                      \
	    const float *x,  /* input at channel 0, tap (u0, v0) of the tile's first pixel */         \
	    size_t xc,       /* floats between input channels */                                     \
	    size_t xu,       /* floats between tap rows */                                           \
	    int nu, int nv,  /* taps u0.. and v0.. that lie in the input */                          \
	    const float *w,  /* packed weights at channel 0, tap (u0, v0), output channel m0 */       \
	    int oh, int ow0, /* the tile's first output pixel */                                     \
	    int nst)         /* pixels to store, nst <= nw */                                        \
	{                                                                                            \
		const struct rt_conv2d *p = j->p;                                                        \
		const size_t wc = (size_t)p->kH * p->kW * j->mp, wu = (size_t)p->kW * j->mp;             \
		const int sw = p->sW, dw = p->dW;                                                        \
		V acc[RT_STEM_ACC_##SUF];                                                                \
		_Pragma("GCC unroll 4") for (int q = 0; q < nb; q++)                                     \
		{                                                                                        \
			V b0 = ZERO;                                                                         \
			if (j->b && m0 + q * VL + VL <= p->M)                                                \
				b0 = LOAD(j->b + m0 + q * VL);                                                   \
			else if (j->b) {                                                                     \
				float t[VL];                                                                     \
				for (int l = 0; l < VL; l++)                                                     \
					t[l] = m0 + q * VL + l < p->M ? j->b[m0 + q * VL + l] : 0.0f;                \
				b0 = LOAD(t);                                                                    \
			}                                                                                    \
			_Pragma("GCC unroll 28") for (int k = 0; k < nw; k++) acc[q * nw + k] = b0;          \
		}                                                                                        \
		for (int c = 0; c < p->C; c++)                                                           \
			for (int u = 0; u < nu; u++) {                                                       \
				const float *xr = x + c * xc + u * xu;                                           \
				const float *wr = w + c * wc + u * wu;                                           \
				for (int v = 0; v < nv; v++) {                                                   \
					V wv[RT_STEM_NB_##SUF];                                                      \
					_Pragma("GCC unroll 4") for (int q = 0; q < nb; q++) wv[q] =                 \
					    LOAD(wr + (size_t)v * j->mp + q * VL);                                   \
					_Pragma("GCC unroll 28") for (int k = 0; k < nw; k++)                        \
					{                                                                            \
						const V xb = SET1(xr[v * dw + k * sw]);                                  \
						_Pragma("GCC unroll 4") for (int q = 0; q < nb; q++) acc[q * nw + k] =   \
						    RT_STEM_FMA_##SUF(wv[q], xb, acc[q * nw + k]);                       \
					}                                                                            \
				}                                                                                \
			}                                                                                    \
		const int act = p->act;                                                                  \
		const V lo = SET1(act == RT_ACT_CLIP ? p->alpha : 0.0f), hi = SET1(p->beta);             \
		/* activations done on vectors; whether they keep a zero sum zero */                     \
		const int vec_act = act == RT_ACT_NONE || act == RT_ACT_RELU || act == RT_ACT_CLIP;      \
		const int zero_pad = act != RT_ACT_CLIP || (p->alpha <= 0.0f && p->beta >= 0.0f);        \
		/* Vectors stored as they are (ReLU / Clip in registers) go out first; the others        \
		 * (HWC's last partial vector, activations without a vector form) are parked in lb and   \
		 * finished lane by lane after every accumulator is dead: those paths call functions   \
		 * (memset, expf, tanhf), which clobber every vector register, and an accumulator live \
		 * across such a call was kept in memory by gcc's allocator in the FMA loop too (a     \
		 * load-FMA-store chain per tap; 2 x 8 tiles of MobileNetV2's stem, Zen 5). */         \
		float lb[RT_STEM_ACC_##SUF][VL];                                                         \
		unsigned parked = 0; /* bit q: vector q went to lb */                                    \
		_Pragma("GCC unroll 4") for (int q = 0; q < nb; q++)                                     \
		{                                                                                        \
			const int m = m0 + q * VL;                                                           \
			const int whole = m + VL <= p->M;                                                    \
			/* whole vectors, and a blocked layout's padding lanes: act(0 + 0) = 0 */           \
			const int direct = vec_act && (whole || (j->bs && zero_pad));                        \
			parked |= (unsigned)!direct << q;                                                    \
			float *const yq = j->y + rt_stem_yoff_(j, m, oh, ow0);                               \
			const size_t ypix = j->bs ? (size_t)j->bs : (size_t)p->M;                            \
			_Pragma("GCC unroll 28") for (int k = 0; k < nw; k++)                                \
			{                                                                                    \
				if (k >= nst)                                                                    \
					break;                                                                       \
				V a = acc[q * nw + k];                                                           \
				if (act == RT_ACT_RELU)                                                          \
					a = MAX(a, lo);                                                              \
				else if (act == RT_ACT_CLIP)                                                     \
					a = MIN(MAX(a, lo), hi);                                                     \
				STORE(direct ? yq + k * ypix : lb[q * nw + k], a);                               \
			}                                                                                    \
		}                                                                                        \
		for (int q = 0; parked && q < nb; q++) {                                                 \
			const int m = m0 + q * VL;                                                           \
			if (!(parked >> q & 1u))                                                             \
				continue;                                                                        \
			float *const yq = j->y + rt_stem_yoff_(j, m, oh, ow0);                               \
			const size_t ypix = j->bs ? (size_t)j->bs : (size_t)p->M;                            \
			for (int k = 0; k < nst; k++) {                                                      \
				float *dst = yq + k * ypix;                                                      \
				const float *t = lb[q * nw + k];                                                 \
				if (vec_act) { /* HWC: the real channels only (activation applied) */            \
					for (int l = 0; l < VL && m + l < p->M; l++)                                 \
						dst[l] = t[l];                                                           \
					if (j->bs)                                                                   \
						for (int l = p->M - m; l < VL; l++)                                      \
							dst[l] = 0.0f;                                                       \
				} else {                                                                         \
					rt_stem_store_lanes_(j, m, VL, t, dst);                                      \
				}                                                                                \
			}                                                                                    \
		}                                                                                        \
	}                                                                                            \
                                                                                                 \
	/* One row, the vectors [q0, q0 + nb), inner columns in tiles of nw pixels (nb and nw      \
	 * constants after inlining). */                                                             \
	static inline __attribute__((always_inline)) RT_STEM_ATTR_##SUF void rt_stem_row_##SUF(       \
	    const struct rt_stem_job_ *j, int nb, int nw, int oh, int q0)                              \
	{                                                                                            \
		const struct rt_conv2d *p = j->p;                                                        \
		const int m0 = q0 * VL;                                                                  \
		const size_t xc = (size_t)p->H * p->W, xu = (size_t)p->dH * p->W;                        \
		int u0, u1;                                                                              \
		rt_tap_range(oh * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);                        \
		const int ih = oh * p->sH - p->padT + u0 * p->dH;                                        \
		const float *xr = j->x + (size_t)(u1 > u0 ? ih : 0) * p->W;                              \
		const float *wr = j->w + (size_t)u0 * p->kW * j->mp + m0;                                \
		int owl = j->owl, owr = j->owr;                                                          \
		if (owr - owl < nw) /* too few for a full tile: all by pixels */                         \
			owl = owr = p->oW;                                                                   \
		for (int ow = 0; ow < p->oW; ow++) {                                                     \
			if (ow == owl) { /* the inner columns, in full tiles */                              \
				for (int t = owl; t < owr; t += nw) {                                            \
					const int s = t + nw <= owr ? t : owr - nw;                                  \
					rt_stem_tile_##SUF(j, nb, nw, m0, xr + (s * p->sW - p->padL), xc, xu,        \
					                   u1 - u0, p->kW, wr, oh, s, nw);                           \
				}                                                                                \
				ow = owr - 1;                                                                    \
				continue;                                                                        \
			}                                                                                    \
			int v0, v1;                                                                          \
			rt_tap_range(ow * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);                    \
			rt_stem_tile_##SUF(j, nb, 1, m0, xr + (ow * p->sW - p->padL + v0 * p->dW), xc, xu,   \
			                   u1 - u0, v1 - v0, wr + (size_t)v0 * j->mp, oh, ow, 1);            \
		}                                                                                        \
	}                                                                                            \
                                                                                                 \
	/* One row whose oW <= nw pixels all fit one tile, the vectors [q0, q0 + nb): the tap      \
	 * rows inside the input are copied, with zero columns for the padding, into a buffer      \
	 * [C][u1 - u0][wp] that the tile reads as its input, every tap v of every pixel (a zero   \
	 * column adds a zero product); pixels past oW are computed and not stored. DS-CNN's 10x4  \
	 * stem (5 output columns, 2 of them on the border) went by pixels, 5 loads per 4 FMAs. */ \
	static inline __attribute__((always_inline)) RT_STEM_ATTR_##SUF void rt_stem_prow_##SUF(      \
	    const struct rt_stem_job_ *j, int nb, int nw, int oh, int q0)                              \
	{                                                                                            \
		const struct rt_conv2d *p = j->p;                                                        \
		const int wp = rt_stem_pwidth_(p, nw);                                                   \
		float buf[RT_STEM_PBUF_##SUF];                                                           \
		int u0, u1;                                                                              \
		rt_tap_range(oh * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);                        \
		const int nu = u1 > u0 ? u1 - u0 : 0;                                                    \
		const int ih = oh * p->sH - p->padT + u0 * p->dH;                                        \
		/* buffer columns [kl, kr) hold input columns [kl - padL, kr - padL) */                  \
		const int kl = p->padL < wp ? p->padL : wp;                                              \
		const int kr = p->padL + p->W < wp ? p->padL + p->W : wp;                                \
		for (int c = 0; c < p->C; c++)                                                           \
			for (int u = 0; u < nu; u++) {                                                       \
				const float *row = j->x + ((size_t)c * p->H + ih + u * p->dH) * p->W;            \
				float *dst = buf + (size_t)(c * nu + u) * wp;                                    \
				int k = 0;                                                                       \
				for (; k < kl; k++) /* the left padding */                                       \
					dst[k] = 0.0f;                                                               \
				for (; k < kr; k++)                                                              \
					dst[k] = row[k - p->padL];                                                   \
				for (; k < wp; k++) /* the right padding, and columns past the row's end */      \
					dst[k] = 0.0f;                                                               \
			}                                                                                    \
		rt_stem_tile_##SUF(j, nb, nw, q0 * VL, buf, (size_t)nu * wp, (size_t)wp, nu, p->kW,      \
		                   j->w + (size_t)(nu ? u0 : 0) * p->kW * j->mp + q0 * VL, oh, 0, p->oW); \
	}                                                                                            \
                                                                                                 \
	/* One function per tile shape (nb vectors x nw pixels; a: the most accumulators, b: two  \
	 * thirds, c: a third), so that each gets its own register allocation: inlined into one   \
	 * function, twelve shapes left gcc spilling the accumulators of every one. */             \
	RT_STEM_ROW_FN_(SUF, 1a, 1, RT_STEM_ACC_##SUF)                                               \
	RT_STEM_ROW_FN_(SUF, 1b, 1, (2 * RT_STEM_ACC_##SUF + 2) / 3)                                 \
	RT_STEM_ROW_FN_(SUF, 1c, 1, (RT_STEM_ACC_##SUF + 2) / 3)                                     \
	RT_STEM_ROW_FN_(SUF, 2a, 2, RT_STEM_ACC_##SUF / 2)                                           \
	RT_STEM_ROW_FN_(SUF, 2b, 2, (2 * (RT_STEM_ACC_##SUF / 2) + 2) / 3)                           \
	RT_STEM_ROW_FN_(SUF, 2c, 2, (RT_STEM_ACC_##SUF / 2 + 2) / 3)                                 \
	RT_STEM_ROW_FN_(SUF, 3a, 3, RT_STEM_ACC_##SUF / 3)                                           \
	RT_STEM_ROW_FN_(SUF, 3b, 3, (2 * (RT_STEM_ACC_##SUF / 3) + 2) / 3)                           \
	RT_STEM_ROW_FN_(SUF, 3c, 3, (RT_STEM_ACC_##SUF / 3 + 2) / 3)                                 \
	RT_STEM_ROW_FN_(SUF, 4a, 4, RT_STEM_ACC_##SUF / 4)                                           \
	RT_STEM_ROW_FN_(SUF, 4b, 4, (2 * (RT_STEM_ACC_##SUF / 4) + 2) / 3)                           \
	RT_STEM_ROW_FN_(SUF, 4c, 4, (RT_STEM_ACC_##SUF / 4 + 2) / 3)                                 \
	RT_STEM_PROW_FN_(SUF, 1p, 1, RT_STEM_ACC_##SUF)                                              \
	RT_STEM_PROW_FN_(SUF, 2p, 2, RT_STEM_ACC_##SUF / 2)                                          \
	RT_STEM_PROW_FN_(SUF, 3p, 3, RT_STEM_ACC_##SUF / 3)                                          \
	RT_STEM_PROW_FN_(SUF, 4p, 4, RT_STEM_ACC_##SUF / 4)                                          \
                                                                                                 \
	static RT_STEM_ATTR_##SUF void rt_stem_rows_##SUF(const struct rt_stem_job_ *j, int r0,       \
	                                                  int r1)                                    \
	{                                                                                            \
		/* channels to write: a blocked layout's last block in full */                          \
		const int mo = j->bs ? (j->p->M + j->bs - 1) / j->bs * j->bs : j->p->M;               \
		const int nvec = (mo + VL - 1) / VL, NB = RT_STEM_NB_##SUF, A = RT_STEM_ACC_##SUF;       \
		/* tile width of a group of NB vectors and of the last, shorter one: A / nb, two      \
		 * thirds or a third of it (rt_stem_pick_nw_), the same for every row */               \
		const int nb_last = nvec % NB ? nvec % NB : NB;                                          \
		const int c_full = rt_stem_pick_nw_(j->owr - j->owl, A / NB);                            \
		const int c_last = rt_stem_pick_nw_(j->owr - j->owl, A / nb_last);                       \
		/* whole rows in one tile over a padded copy (rt_stem_prow_SUF), likewise */            \
		const int p_full = rt_stem_padded_(j->p, A / NB, RT_STEM_PBUF_##SUF);                    \
		const int p_last = rt_stem_padded_(j->p, A / nb_last, RT_STEM_PBUF_##SUF);               \
		struct rt_stem_job_ jp = *j; /* c == 3: no inner columns, all by pixels */               \
		jp.owl = jp.owr = j->p->oW;                                                              \
		for (int oh = r0; oh < r1; oh++)                                                         \
			for (int q = 0; q < nvec; q += NB) {                                                 \
				const int nb = nvec - q < NB ? nvec - q : NB;                                    \
				const int c = nb == NB ? c_full : c_last;                                        \
				const struct rt_stem_job_ *jr = c == 3 ? &jp : j;                                \
				if (nb == NB ? p_full : p_last) {                                                \
					switch (nb) {                                                                \
					case 1: rt_stem_row_##SUF##_1p(j, oh, q); break;                              \
					case 2: rt_stem_row_##SUF##_2p(j, oh, q); break;                              \
					case 3: rt_stem_row_##SUF##_3p(j, oh, q); break;                              \
					default: rt_stem_row_##SUF##_4p(j, oh, q); break;                             \
					}                                                                            \
					continue;                                                                    \
				}                                                                                \
				switch (nb * 4 + c % 3) {                                                        \
				case 4: rt_stem_row_##SUF##_1a(jr, oh, q); break;                                 \
				case 5: rt_stem_row_##SUF##_1b(jr, oh, q); break;                                 \
				case 6: rt_stem_row_##SUF##_1c(jr, oh, q); break;                                 \
				case 8: rt_stem_row_##SUF##_2a(jr, oh, q); break;                                 \
				case 9: rt_stem_row_##SUF##_2b(jr, oh, q); break;                                 \
				case 10: rt_stem_row_##SUF##_2c(jr, oh, q); break;                                \
				case 12: rt_stem_row_##SUF##_3a(jr, oh, q); break;                                \
				case 13: rt_stem_row_##SUF##_3b(jr, oh, q); break;                                \
				case 14: rt_stem_row_##SUF##_3c(jr, oh, q); break;                                \
				case 16: rt_stem_row_##SUF##_4a(jr, oh, q); break;                                \
				case 17: rt_stem_row_##SUF##_4b(jr, oh, q); break;                                \
				default: rt_stem_row_##SUF##_4c(jr, oh, q); break;                                \
				}                                                                                \
			}                                                                                    \
	}

RT_SIMD_EACH(RT_STEM_KERNEL_)

/* Output rows [r0, r1) of the job's image, on the ISA the call picked. */
static void rt_stem_items_(void *ctx, int r0, int r1)
{
	const struct rt_stem_job_ *j = ctx;
	/* HWC: 16-lane vectors when M leaves no more than half a vector idle */
	const int m16 = j->p->M % 16;
	const int isa = rt_simd_isa(j->p->isa, j->bs ? j->bs : m16 == 0 || m16 > 8 ? 16 : 8);
	(void)isa;
#if RT_SIMD_HAVE_AVX512
	if (isa == RT_SGEMM_ISA_AVX512) {
		rt_stem_rows_avx512(j, r0, r1);
		return;
	}
#endif
#if RT_SIMD_HAVE_AVX2
	if (isa == RT_SGEMM_ISA_AVX2 || isa == RT_SGEMM_ISA_AVX512) {
		rt_stem_rows_avx2(j, r0, r1);
		return;
	}
#endif
#if RT_SIMD_HAVE_NEON
	if (isa == RT_SGEMM_ISA_NEON) {
		rt_stem_rows_neon(j, r0, r1);
		return;
	}
#endif
#if RT_SIMD_HAVE_C
	rt_stem_rows_c(j, r0, r1);
#endif
}

RT_FN void rt_conv_stem(const struct rt_conv2d *p, int variant,
                        const float *x, /* [N] images [C][H][W] */
                        const float *w, /* packed [C][kH][kW][Mp] */
                        const float *b, /* [M] or NULL */
                        float *y,       /* out: [N] images [M/bs][oH][oW][bs] (variant bs = 16
                                           or 8), or [oH][oW][M] (variant 0) */
                        float *ws)      /* unused */
{
	struct rt_stem_job_ j;
	(void)ws;
	j.p = p;
	j.w = w;
	j.b = b;
	j.bs = variant;
	j.mp = (p->M + 15) / 16 * 16;
	/* output columns whose taps all lie inside the input row: [owl, owr) */
	j.owl = p->oW;
	j.owr = p->oW;
	for (int ow = 0; ow < p->oW; ow++) {
		int v0, v1;
		rt_tap_range(ow * p->sW - p->padL, p->dW, p->W, p->kW, &v0, &v1);
		if (v0 == 0 && v1 == p->kW) {
			if (j.owl == p->oW)
				j.owl = ow;
			j.owr = ow + 1;
		}
	}
	const size_t ximg = (size_t)p->C * p->H * p->W;
	const size_t yimg = variant ? (size_t)(p->M + variant - 1) / variant * variant * p->oH * p->oW
	                            : (size_t)p->M * p->oH * p->oW;
	const double work = (double)p->M * p->C * p->kH * p->kW * p->oH * p->oW;
	for (int n = 0; n < p->N; n++) {
		j.x = x + n * ximg;
		j.y = y + n * yimg;
		if (work < RT_PARALLEL_MIN_WORK)
			rt_stem_items_(&j, 0, p->oH);
		else
			rt_parallel(rt_stem_items_, &j, p->oH);
	}
}
