/* conv_direct_s2_chw.c - direct convolution on CHW specialised for a
 * horizontal stride of 2 (the stride-2 layers of ResNet and GoogLeNet:
 * 7x7/2 stems, 3x3/2 and 1x1/2 down-sampling).
 *
 * Textbook form (ONNX Conv, a cross-correlation), with sW = 2:
 *   y[m][i][j] = b[m] + sum over c, u, v of
 *                w[m][c][u][v] * x[c0(m) + c][i*sH - padT + u*dH][2j - padL + v*dW]
 * Loop order: image, group, block of 8 output channels, output row i, strip
 * of output columns; then input channel c, tap row u, tap v. For a tap the
 * strip's inputs are every other element of one input row, from 2*j0 - padL
 * + v*dW on: SIMD loads two consecutive vectors and keeps their even lanes
 * (one permute; AVX-512 masks the loads and lanes that fall in the padding),
 * and that one input vector meets the weights of all 8 output channels of
 * the block (broadcasts), so each input load serves 8 FMAs.
 * Register tile: AVX-512 8 channels x 32 columns (16 zmm accumulators),
 * AVX2 8 x 8 (8 ymm), portable C 8 x 8 in arrays. Strips that start in the
 * left padding (AVX2), and all strips in C, gather their inputs one by one,
 * zero in the padding.
 * Weights packed [group][ceil(M/group / 8)][C/group][kH][kW][8] (zero past
 * M/group). Any sH, padding, dilation, group; no workspace. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_AVX512
#define RT_DS2_AVX512_ 1
#else
#define RT_DS2_AVX512_ 0
#endif
#if RT_SGEMM_HAVE_AVX2 || RT_SGEMM_HAVE_AVX512
#define RT_DS2_AVX2_ 1
#else
#define RT_DS2_AVX2_ 0
#endif
#if RT_DS2_AVX512_ || RT_DS2_AVX2_
#include <immintrin.h>
#endif

/* t[k] = row[base + 2k] for k < n, zero where that lies outside [0, W). */
static inline void rt_ds2_gather_(const float *row, /* [W] */
                                  int W, int base, int n, float *t /* out: [n] */)
{
	for (int k = 0; k < n; k++) {
		const int iw = base + 2 * k;
		t[k] = iw >= 0 && iw < W ? row[iw] : 0.0f;
	}
}

/* The epilogue and the store of one strip row of one output channel. */
static inline void rt_ds2_store_(const struct rt_conv2d *p, const float *acc, /* [n] */
                                 float *yr, int n /* out: yr[0..n) */)
{
	for (int k = 0; k < n; k++)
		yr[k] = rt_act_apply(p->act, p->alpha, p->beta, acc[k]);
}

#if RT_DS2_AVX512_
/* Where the 16 inputs of one strip vector lie in an input row: lane t reads
 * row[off + 2t] when 0 <= off + 2t < W, else 0 (the padding). Fixed for a
 * tap v over all channels and rows, so it is worked out once per tap. */
struct rt_ds2_lanes_ {
	int s;             /* first element loaded: row[s..s+32) */
	__mmask16 k0, k1;  /* elements of row[s..s+16) and row[s+16..s+32) inside the row */
	__mmask16 kv;      /* lanes not in the left padding */
	__m512i idx;       /* lane t takes element idx[t] of the 32 loaded */
};

static inline __attribute__((always_inline, target("avx512f"))) struct rt_ds2_lanes_
rt_ds2_lanes16_(int W, int off)
{
	struct rt_ds2_lanes_ l;
	const int n = W - (off > 0 ? off : 0), skip = off >= 0 ? 0 : (-off + 1) / 2;
	l.s = off > 0 ? off : 0;
	l.k0 = (__mmask16)(n >= 16 ? 0xFFFF : n <= 0 ? 0 : (1u << n) - 1u);
	l.k1 = (__mmask16)(n >= 32 ? 0xFFFF : n <= 16 ? 0 : (1u << (n - 16)) - 1u);
	l.kv = (__mmask16)(skip >= 16 ? 0 : 0xFFFFu << skip);
	l.idx = _mm512_add_epi32(_mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
	                                           28, 30),
	                         _mm512_set1_epi32(off < 0 ? off : 0));
	return l;
}

/* Two masked loads (they read nothing outside the row) and one two-source
 * permute. */
static inline __attribute__((always_inline, target("avx512f"))) __m512
rt_ds2_load16_(const float *row, /* [W] */
               const struct rt_ds2_lanes_ *l)
{
	const __m512 a = l->k0 ? _mm512_maskz_loadu_ps(l->k0, row + l->s) : _mm512_setzero_ps();
	const __m512 b = l->k1 ? _mm512_maskz_loadu_ps(l->k1, row + l->s + 16) : _mm512_setzero_ps();
	return _mm512_maskz_permutex2var_ps(l->kv, a, l->idx, b);
}

/* One strip: nb8 blocks of 8 output channels (nm real in all) x nv vectors
 * of 16 columns from j0 (nj real); nb8 x nv is 2 x 1 or 1 x 2, constants
 * after inlining, so the 16 accumulators stay in registers. Tap column v is
 * the outer loop so that its lane masks are set up once. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_ds2_tile16_(int nb8, int nv, const struct rt_conv2d *p, int cg,
               const float *x,  /* the group's input channels, [cg][H][W] */
               const float *w,  /* the first block's weights, [cg][kH][kW][8]; wblk floats
                                   further the second's */
               size_t wblk,
               const float *b,  /* [nm] bias or NULL */
               float *y,        /* out: channel m0's plane [oH][oW]; nm planes follow */
               int nm, int i, int j0, int nj)
{
	const size_t plane = (size_t)p->H * p->W, wc = (size_t)p->kH * p->kW * 8;
	__m512 a[16][2];
	float t[32];
	int u0, u1;
	rt_tap_range(i * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);
#pragma GCC unroll 16
	for (int k = 0; k < 8 * nb8; k++)
		a[k][0] = a[k][1] = _mm512_set1_ps(b && k < nm ? b[k] : 0.0f);
	for (int v = 0; v < p->kW; v++) {
		const int base = 2 * j0 - p->padL + v * p->dW;
		const struct rt_ds2_lanes_ l0 = rt_ds2_lanes16_(p->W, base);
		const struct rt_ds2_lanes_ l1 = rt_ds2_lanes16_(p->W, base + 32);
		for (int u = u0; u < u1; u++) {
			const float *row = x + (size_t)(i * p->sH - p->padT + u * p->dH) * p->W;
			const float *wr = w + ((size_t)u * p->kW + v) * 8; /* [8] */
			for (int c = 0; c < cg; c++, row += plane, wr += wc) {
				const __m512 x0 = rt_ds2_load16_(row, &l0);
				const __m512 x1 = nv > 1 && nj > 16 ? rt_ds2_load16_(row, &l1) : _mm512_setzero_ps();
#pragma GCC unroll 16
				for (int k = 0; k < 8 * nb8; k++) {
					const __m512 wk = _mm512_set1_ps(wr[k < 8 ? (size_t)k : wblk + (size_t)k - 8]);
					a[k][0] = _mm512_fmadd_ps(x0, wk, a[k][0]);
					if (nv > 1)
						a[k][1] = _mm512_fmadd_ps(x1, wk, a[k][1]);
				}
			}
		}
	}
#pragma GCC unroll 16
	for (int k = 0; k < 8 * nb8; k++) {
		if (k >= nm)
			break;
		_mm512_storeu_ps(t, a[k][0]);
		if (nv > 1)
			_mm512_storeu_ps(t + 16, a[k][1]);
		rt_ds2_store_(p, t, y + (size_t)k * p->oH * p->oW + (size_t)i * p->oW + j0, nj);
	}
}

/* A strip of up to 32 columns of 8 channels, or of up to 16 columns of 16
 * channels (nm > 8: narrow outputs, so lanes are not wasted on columns
 * past the row's end). */
static inline __attribute__((target("avx512f"))) void
rt_ds2_strip16_(const struct rt_conv2d *p, int cg, const float *x, const float *w, size_t wblk,
                const float *b, float *y, int nm, int i, int j0, int nj)
{
	if (nm > 8)
		rt_ds2_tile16_(2, 1, p, cg, x, w, wblk, b, y, nm, i, j0, nj);
	else
		rt_ds2_tile16_(1, 2, p, cg, x, w, wblk, b, y, nm, i, j0, nj);
}
#endif

#if RT_DS2_AVX2_
/* All-ones in the first r lanes (r > 0). */
static inline __attribute__((always_inline, target("avx2,fma"))) __m256i
rt_ds2_mask8_(int r)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* One strip: 8 output channels (nm real) x nj <= 8 columns from j0. */
static inline __attribute__((target("avx2,fma"))) void
rt_ds2_strip8_(const struct rt_conv2d *p, int cg,
               const float *x, /* the group's input channels, [cg][H][W] */
               const float *w, /* the block's weights, [cg][kH][kW][8] */
               const float *b, /* [nm] bias or NULL */
               float *y,       /* out: channel m0's plane [oH][oW]; nm planes follow */
               int nm, int i, int j0, int nj)
{
	const size_t plane = (size_t)p->H * p->W;
	__m256 a[8];
	float t[8];
	int u0, u1;
	rt_tap_range(i * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);
#pragma GCC unroll 8
	for (int k = 0; k < 8; k++)
		a[k] = _mm256_set1_ps(b && k < nm ? b[k] : 0.0f);
	for (int c = 0; c < cg; c++) {
		for (int u = u0; u < u1; u++) {
			const float *row = x + c * plane + (size_t)(i * p->sH - p->padT + u * p->dH) * p->W;
			const float *wr = w + ((size_t)c * p->kH + u) * p->kW * 8; /* [kW][8] */
			for (int v = 0; v < p->kW; v++, wr += 8) {
				const int base = 2 * j0 - p->padL + v * p->dW;
				__m256 x0;
				if (base >= 0) {
					/* masked loads stop at the row's end (zero there, as the
					 * padding); even lanes of the two vectors: [a0 a2 b0 b2 |
					 * a4 a6 b4 b6], then swap the middle 64-bit pairs */
					const int n = p->W - base;
					const __m256 lo = n >= 8 ? _mm256_loadu_ps(row + base)
					                  : n > 0 ? _mm256_maskload_ps(row + base, rt_ds2_mask8_(n))
					                          : _mm256_setzero_ps();
					const __m256 hi = n >= 16 ? _mm256_loadu_ps(row + base + 8)
					                  : n > 8 ? _mm256_maskload_ps(row + base + 8, rt_ds2_mask8_(n - 8))
					                          : _mm256_setzero_ps();
					const __m256 e = _mm256_shuffle_ps(lo, hi, 0x88);
					x0 = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8));
				} else { /* a strip starting in the left padding: one by one */
					rt_ds2_gather_(row, p->W, base, nj, t);
					for (int k = nj; k < 8; k++)
						t[k] = 0.0f;
					x0 = _mm256_loadu_ps(t);
				}
#pragma GCC unroll 8
				for (int k = 0; k < 8; k++)
					a[k] = _mm256_fmadd_ps(x0, _mm256_broadcast_ss(wr + k), a[k]);
			}
		}
	}
#pragma GCC unroll 8
	for (int k = 0; k < nm; k++) {
		_mm256_storeu_ps(t, a[k]);
		rt_ds2_store_(p, t, y + (size_t)k * p->oH * p->oW + (size_t)i * p->oW + j0, nj);
	}
}
#endif

/* One strip in portable C: 8 output channels (nm real) x nj <= 8 columns. */
static inline void rt_ds2_stripc_(const struct rt_conv2d *p, int cg,
                                  const float *x, /* the group's input channels, [cg][H][W] */
                                  const float *w, /* the block's weights, [cg][kH][kW][8] */
                                  const float *b, /* [nm] bias or NULL */
                                  float *y,       /* out: channel m0's plane; nm planes follow */
                                  int nm, int i, int j0, int nj)
{
	const size_t plane = (size_t)p->H * p->W;
	float a[8][8], t[8];
	int u0, u1;
	rt_tap_range(i * p->sH - p->padT, p->dH, p->H, p->kH, &u0, &u1);
	for (int k = 0; k < 8; k++)
		for (int j = 0; j < 8; j++)
			a[k][j] = b && k < nm ? b[k] : 0.0f;
	for (int c = 0; c < cg; c++) {
		for (int u = u0; u < u1; u++) {
			const float *row = x + c * plane + (size_t)(i * p->sH - p->padT + u * p->dH) * p->W;
			const float *wr = w + ((size_t)c * p->kH + u) * p->kW * 8; /* [kW][8] */
			for (int v = 0; v < p->kW; v++, wr += 8) {
				rt_ds2_gather_(row, p->W, 2 * j0 - p->padL + v * p->dW, nj, t);
				for (int k = 0; k < 8; k++)
					for (int j = 0; j < nj; j++)
						a[k][j] += wr[k] * t[j];
			}
		}
	}
	for (int k = 0; k < nm; k++)
		rt_ds2_store_(p, a[k], y + (size_t)k * p->oH * p->oW + (size_t)i * p->oW + j0, nj);
}

RT_FN void rt_conv_direct_s2_chw(const struct rt_conv2d *p, int variant,
                                 const float *x, /* [N][C][H][W] */
                                 const float *w, /* [group][ceil(mg/8)][cg][kH][kW][8] (packed) */
                                 const float *b, /* [M] or NULL */
                                 float *y,       /* out: [N][M][oH][oW] */
                                 float *ws)      /* unused */
{
	const int cg = p->C / p->group, mg = p->M / p->group, mb = (mg + 7) / 8;
	const size_t wblk = (size_t)cg * p->kH * p->kW * 8; /* floats per block of 8 */
	const size_t plane = (size_t)p->oH * p->oW, iplane = (size_t)p->H * p->W;
	const int avx512 = p->isa == RT_SGEMM_ISA_AVX512 && RT_DS2_AVX512_;
	/* AVX-512: two blocks at a time when a row fits one vector */
	const int wide = avx512 && p->oW <= 16 ? 2 : 1;
	const int strip = avx512 ? 32 / wide : 8;
	(void)variant;
	(void)ws;
	for (int n = 0; n < p->N; n++) {
		for (int g = 0; g < p->group; g++) {
			const float *xg = x + ((size_t)n * p->C + (size_t)g * cg) * iplane;
			for (int k = 0; k < mb; k += avx512 ? wide : 1) {
				const int m0 = g * mg + k * 8;
				const int nm = mg - k * 8 < 8 * (avx512 ? wide : 1) ? mg - k * 8 : 8 * (avx512 ? wide : 1);
				const float *wk = w + ((size_t)g * mb + k) * wblk;
				const float *bk = b ? b + m0 : NULL;
				float *yk = y + ((size_t)n * p->M + m0) * plane;
				for (int i = 0; i < p->oH; i++) {
					for (int j0 = 0; j0 < p->oW; j0 += strip) {
						const int nj = p->oW - j0 < strip ? p->oW - j0 : strip;
#if RT_DS2_AVX512_
						if (avx512) {
							rt_ds2_strip16_(p, cg, xg, wk, wblk, bk, yk, nm, i, j0, nj);
							continue;
						}
#endif
#if RT_DS2_AVX2_
						if (p->isa == RT_SGEMM_ISA_AVX2 || p->isa == RT_SGEMM_ISA_AVX512) {
							rt_ds2_strip8_(p, cg, xg, wk, bk, yk, nm, i, j0, nj);
							continue;
						}
#endif
						rt_ds2_stripc_(p, cg, xg, wk, bk, yk, nm, i, j0, nj);
					}
				}
			}
		}
	}
}
