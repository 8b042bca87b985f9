/* conv_depthwise_chw.c - depthwise convolution on CHW images, one channel
 * plane at a time (rows conv_depthwise_chw, conv_depthwise_3x3s1_chw and
 * conv_depthwise_3x3s2_chw of fam_depthwise.def).
 *
 * Depthwise means group == C; the channel multiplier m = M/C may be any
 * positive integer. By ONNX Conv with group = C, output channel o belongs to
 * group o/m, whose single input channel is o/m, so the textbook loop is
 *   y[o][i][j] = b[o] + sum over u < kH, v < kW of
 *                w[o][0][u][v] * x[o/m][i*sH - padT + u*dH][j*sW - padL + v*dW]
 * with reads outside the input counting as zero, then the epilogue.
 *
 * What changes here: each input plane is first copied into the workspace
 * with its zero padding made explicit, as the padded plane P of Hp x Wp
 * floats holding exactly the window the outputs read (P[r][q] =
 * x[r - padT][q - padL], zero outside the input; a trailing pad smaller than
 * zero simply leaves input rows out). The kernels then run without bounds
 * checks, and the plane stays hot in L1/L2 while its m output planes are
 * computed. Variants:
 *   0  any kernel, stride, dilation: per output row, 16 columns per vector
 *      with every tap accumulated in registers; a column stride above 1
 *      gathers.
 *   1  3x3, stride 1, dilation 1: blocks of 4 output rows x 16 columns. Each
 *      of the 6 input rows is loaded once at its 3 column shifts and feeds the
 *      up to 3 output rows it touches: 18 loads for 36 FMAs.
 *   2  3x3, stride 2, dilation 1: the copy splits every padded row into its
 *      even and odd columns (planes E and O), so the three taps of 16
 *      outputs are three contiguous vectors, E[j], O[j] and E[j + 1], with no
 *      shuffles in the kernel; blocks of 4 output rows read 9 input rows.
 * SIMD: AVX-512F when p->isa is RT_SGEMM_ISA_AVX512 (16 columns per vector,
 * masked tails), AVX2 + FMA when it is RT_SGEMM_ISA_AVX2 (8 columns; the
 * copies then run in C); portable C otherwise, written as row-wise
 * multiply-adds a compiler can vectorise.
 * Workspace (floats): variants 0 and 1: Hp * Wp; variant 2: 2 * Hp * We + Wp
 * with We = ceil(Wp / 2) (E, O and one padded row). Raw weights. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
#include <immintrin.h>
#endif

/* Copies one input row into padded row d [Wp]: d[q] = xr[q - padL], zero
 * outside the row; xr is NULL for a row outside the input. */
static inline void rt_dw_chw_pad_row_(const struct rt_conv2d *p, int Wp,
                                      const float *xr, /* [W] or NULL */
                                      float *d)        /* out: [Wp] */
{
	const int q0 = p->padL < Wp ? p->padL : Wp;  /* leading zeros */
	const int nc = xr ? (p->W < Wp - q0 ? p->W : Wp - q0) : 0; /* copied columns */
	memset(d, 0, (size_t)q0 * sizeof *d);
	if (nc > 0)
		memcpy(d + q0, xr, (size_t)nc * sizeof *d);
	memset(d + q0 + nc, 0, (size_t)(Wp - q0 - nc) * sizeof *d);
}

/* The padded plane (variants 0, 1) or its even and odd column planes
 * (variant 2) of input channel xc [H][W], in C. */
static inline void rt_dw_chw_plane_c_(const struct rt_conv2d *p, int variant, const float *xc,
                                      float *ws)
{
	const int Hp = (p->oH - 1) * p->sH + (p->kH - 1) * p->dH + 1;
	const int Wp = (p->oW - 1) * p->sW + (p->kW - 1) * p->dW + 1, We = (Wp + 1) / 2;
	float *pe = ws, *po = ws + (size_t)Hp * We, *row = po + (size_t)Hp * We;
	for (int r = 0; r < Hp; r++) {
		const int ih = r - p->padT;
		const float *xr = ih >= 0 && ih < p->H ? xc + (size_t)ih * p->W : NULL;
		if (variant != 2) {
			rt_dw_chw_pad_row_(p, Wp, xr, ws + (size_t)r * Wp);
			continue;
		}
		float *e = pe + (size_t)r * We, *o = po + (size_t)r * We;
		rt_dw_chw_pad_row_(p, Wp, xr, row);
		for (int q = 0; q < We; q++) {
			e[q] = row[2 * q];
			o[q] = 2 * q + 1 < Wp ? row[2 * q + 1] : 0.0f;
		}
	}
}

#if RT_SGEMM_HAVE_AVX512
/* Mask of the first r lanes (r may be <= 0 or > 16). */
static inline __attribute__((always_inline, target("avx512f"))) __mmask16
rt_dw_chw_mask_(int r)
{
	return (__mmask16)(r >= 16 ? 0xFFFF : r <= 0 ? 0 : (1u << r) - 1u);
}

/* Stores act(v) to the first n (1..16) floats of y; k = mask of n lanes. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_chw_store_(const struct rt_conv2d *p, float *y, __mmask16 k, int n, __m512 v)
{
	switch (p->act) {
	case RT_ACT_NONE:
		break;
	case RT_ACT_RELU:
		v = _mm512_max_ps(v, _mm512_setzero_ps());
		break;
	case RT_ACT_LEAKY_RELU:
		v = _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), v,
		                       _mm512_set1_ps(p->alpha));
		break;
	case RT_ACT_CLIP:
		v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(p->alpha)), _mm512_set1_ps(p->beta));
		break;
	default: /* no vector form: store, then apply in place */
		_mm512_mask_storeu_ps(y, k, v);
		for (int l = 0; l < n; l++)
			y[l] = rt_act_apply(p->act, p->alpha, p->beta, y[l]);
		return;
	}
	_mm512_mask_storeu_ps(y, k, v);
}

/* acc + x0*w0 + x1*w1 + x2*w2: one row of a 3x3 kernel. */
static inline __attribute__((always_inline, target("avx512f"))) __m512
rt_dw_chw_fma3_(__m512 acc, __m512 x0, __m512 x1, __m512 x2, __m512 w0, __m512 w1, __m512 w2)
{
	acc = _mm512_fmadd_ps(x0, w0, acc);
	acc = _mm512_fmadd_ps(x1, w1, acc);
	return _mm512_fmadd_ps(x2, w2, acc);
}

/* Variant 0 on one plane: any kernel, stride and dilation. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_chw_any_avx512_(const struct rt_conv2d *p,
                      const float *pp, /* padded plane [Hp][Wp] */
                      int Wp,
                      const float *k,  /* [kH][kW] */
                      float bias,
                      float *yo)       /* out: [oH][oW] */
{
	const __m512i gidx = _mm512_mullo_epi32(
		_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
		_mm512_set1_epi32(p->sW));
	for (int i = 0; i < p->oH; i++) {
		float *yr = yo + (size_t)i * p->oW;
		for (int j = 0; j < p->oW; j += 16) {
			const int n = p->oW - j < 16 ? p->oW - j : 16;
			const __mmask16 m = rt_dw_chw_mask_(n);
			/* two accumulators halve the dependency chain */
			__m512 a0 = _mm512_set1_ps(bias), a1 = _mm512_setzero_ps();
			for (int u = 0; u < p->kH; u++) {
				/* padded row of tap row u, at output column j */
				const float *r = pp + (size_t)(i * p->sH + u * p->dH) * Wp + (size_t)j * p->sW;
				for (int v = 0; v < p->kW; v++) {
					const __m512 wv = _mm512_set1_ps(k[u * p->kW + v]);
					const float *rv = r + (size_t)v * p->dW;
					const __m512 xv = p->sW == 1
						? _mm512_maskz_loadu_ps(m, rv)
						: _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, gidx, rv, 4);
					if (v & 1)
						a1 = _mm512_fmadd_ps(xv, wv, a1);
					else
						a0 = _mm512_fmadd_ps(xv, wv, a0);
				}
			}
			rt_dw_chw_store_(p, yr + j, m, n, _mm512_add_ps(a0, a1));
		}
	}
}

/* Variant 1 on one plane: 3x3, stride 1, dilation 1 (Wp = oW + 2). */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_chw_3x3s1_avx512_(const struct rt_conv2d *p,
                        const float *pp, /* padded plane [oH + 2][Wp] */
                        int Wp,
                        const float *k,  /* [3][3] */
                        float bias,
                        float *yo)       /* out: [oH][oW] */
{
	const __m512 k00 = _mm512_set1_ps(k[0]), k01 = _mm512_set1_ps(k[1]);
	const __m512 k02 = _mm512_set1_ps(k[2]), k10 = _mm512_set1_ps(k[3]);
	const __m512 k11 = _mm512_set1_ps(k[4]), k12 = _mm512_set1_ps(k[5]);
	const __m512 k20 = _mm512_set1_ps(k[6]), k21 = _mm512_set1_ps(k[7]);
	const __m512 k22 = _mm512_set1_ps(k[8]), vb = _mm512_set1_ps(bias);
	const int oW = p->oW;
	int i = 0;
	for (; i + 4 <= p->oH; i += 4) {
		const float *r = pp + (size_t)i * Wp; /* input rows i .. i + 5 */
		float *yr = yo + (size_t)i * oW;      /* output rows i .. i + 3 */
		for (int j = 0; j < oW; j += 16) {
			const int n = oW - j < 16 ? oW - j : 16;
			const __mmask16 m = rt_dw_chw_mask_(n);
			const float *t = r + j;
			__m512 a0 = vb, a1 = vb, a2 = vb, a3 = vb, x0, x1, x2;
			/* input row 0: tap row 0 of output row 0 */
			x0 = _mm512_maskz_loadu_ps(m, t);
			x1 = _mm512_maskz_loadu_ps(m, t + 1);
			x2 = _mm512_maskz_loadu_ps(m, t + 2);
			a0 = rt_dw_chw_fma3_(a0, x0, x1, x2, k00, k01, k02);
			/* input row 1: tap row 1 of output 0, tap row 0 of output 1 */
			t += Wp;
			x0 = _mm512_maskz_loadu_ps(m, t);
			x1 = _mm512_maskz_loadu_ps(m, t + 1);
			x2 = _mm512_maskz_loadu_ps(m, t + 2);
			a0 = rt_dw_chw_fma3_(a0, x0, x1, x2, k10, k11, k12);
			a1 = rt_dw_chw_fma3_(a1, x0, x1, x2, k00, k01, k02);
			/* input row 2: outputs 0, 1, 2 */
			t += Wp;
			x0 = _mm512_maskz_loadu_ps(m, t);
			x1 = _mm512_maskz_loadu_ps(m, t + 1);
			x2 = _mm512_maskz_loadu_ps(m, t + 2);
			a0 = rt_dw_chw_fma3_(a0, x0, x1, x2, k20, k21, k22);
			a1 = rt_dw_chw_fma3_(a1, x0, x1, x2, k10, k11, k12);
			a2 = rt_dw_chw_fma3_(a2, x0, x1, x2, k00, k01, k02);
			/* input row 3: outputs 1, 2, 3 */
			t += Wp;
			x0 = _mm512_maskz_loadu_ps(m, t);
			x1 = _mm512_maskz_loadu_ps(m, t + 1);
			x2 = _mm512_maskz_loadu_ps(m, t + 2);
			a1 = rt_dw_chw_fma3_(a1, x0, x1, x2, k20, k21, k22);
			a2 = rt_dw_chw_fma3_(a2, x0, x1, x2, k10, k11, k12);
			a3 = rt_dw_chw_fma3_(a3, x0, x1, x2, k00, k01, k02);
			/* input row 4: outputs 2, 3 */
			t += Wp;
			x0 = _mm512_maskz_loadu_ps(m, t);
			x1 = _mm512_maskz_loadu_ps(m, t + 1);
			x2 = _mm512_maskz_loadu_ps(m, t + 2);
			a2 = rt_dw_chw_fma3_(a2, x0, x1, x2, k20, k21, k22);
			a3 = rt_dw_chw_fma3_(a3, x0, x1, x2, k10, k11, k12);
			/* input row 5: output 3 */
			t += Wp;
			x0 = _mm512_maskz_loadu_ps(m, t);
			x1 = _mm512_maskz_loadu_ps(m, t + 1);
			x2 = _mm512_maskz_loadu_ps(m, t + 2);
			a3 = rt_dw_chw_fma3_(a3, x0, x1, x2, k20, k21, k22);
			rt_dw_chw_store_(p, yr + j, m, n, a0);
			rt_dw_chw_store_(p, yr + oW + j, m, n, a1);
			rt_dw_chw_store_(p, yr + 2 * oW + j, m, n, a2);
			rt_dw_chw_store_(p, yr + 3 * oW + j, m, n, a3);
		}
	}
	for (; i < p->oH; i++) { /* the last oH % 4 rows, one at a time */
		const float *r = pp + (size_t)i * Wp;
		for (int j = 0; j < oW; j += 16) {
			const int n = oW - j < 16 ? oW - j : 16;
			const __mmask16 m = rt_dw_chw_mask_(n);
			const float *t0 = r + j, *t1 = t0 + Wp, *t2 = t1 + Wp;
			__m512 a = rt_dw_chw_fma3_(vb, _mm512_maskz_loadu_ps(m, t0),
			                           _mm512_maskz_loadu_ps(m, t0 + 1),
			                           _mm512_maskz_loadu_ps(m, t0 + 2), k00, k01, k02);
			a = rt_dw_chw_fma3_(a, _mm512_maskz_loadu_ps(m, t1), _mm512_maskz_loadu_ps(m, t1 + 1),
			                    _mm512_maskz_loadu_ps(m, t1 + 2), k10, k11, k12);
			a = rt_dw_chw_fma3_(a, _mm512_maskz_loadu_ps(m, t2), _mm512_maskz_loadu_ps(m, t2 + 1),
			                    _mm512_maskz_loadu_ps(m, t2 + 2), k20, k21, k22);
			rt_dw_chw_store_(p, yo + (size_t)i * oW + j, m, n, a);
		}
	}
}

/* The 16 floats of padded row r starting at column q (lane l holds
 * x[r - padT][q - padL + l], zero outside the input); xr is the input row
 * r - padT or NULL. Never reads outside the row: a block that starts in the
 * left padding expands the row's first floats into its upper lanes. */
static inline __attribute__((always_inline, target("avx512f"))) __m512
rt_dw_chw_ld16_(const struct rt_conv2d *p, const float *xr, int q)
{
	const int s = q - p->padL; /* input column of lane 0 */
	if (!xr || s >= p->W || s <= -16)
		return _mm512_setzero_ps();
	if (s >= 0)
		return _mm512_maskz_loadu_ps(rt_dw_chw_mask_(p->W - s), xr + s);
	return _mm512_maskz_expandloadu_ps(
		(__mmask16)(rt_dw_chw_mask_(p->W - s) & ~rt_dw_chw_mask_(-s)), xr);
}

/* Writes padded row d [Wp] from input row xr (NULL: a row of zeros). */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_chw_pad_row_avx512_(const struct rt_conv2d *p, int Wp, const float *xr, float *d)
{
	for (int q = 0; q < Wp; q += 16)
		_mm512_mask_storeu_ps(d + q, rt_dw_chw_mask_(Wp - q), rt_dw_chw_ld16_(p, xr, q));
}

/* Writes the even columns e [We] and odd columns o [We] of padded row r
 * (We = ceil(Wp / 2); o's last float is zero when Wp is odd). */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_chw_split_row_avx512_(const struct rt_conv2d *p, int Wp, const float *xr, float *e,
                            float *o)
{
	const __m512i ie = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
	const __m512i io = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
	const int We = (Wp + 1) / 2;
	for (int q = 0; q < We; q += 16) {
		/* padded columns 2q .. 2q + 31, those past Wp zero */
		const __m512 lo = _mm512_maskz_mov_ps(rt_dw_chw_mask_(Wp - 2 * q),
		                                      rt_dw_chw_ld16_(p, xr, 2 * q));
		const __m512 hi = _mm512_maskz_mov_ps(rt_dw_chw_mask_(Wp - 2 * q - 16),
		                                      rt_dw_chw_ld16_(p, xr, 2 * q + 16));
		const __mmask16 k = rt_dw_chw_mask_(We - q);
		_mm512_mask_storeu_ps(e + q, k, _mm512_permutex2var_ps(lo, ie, hi));
		_mm512_mask_storeu_ps(o + q, k, _mm512_permutex2var_ps(lo, io, hi));
	}
}

/* Variant 2 on one plane: 3x3, stride 2, dilation 1, on the split planes
 * (We = oW + 1 columns, 2*oH + 1 rows). */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_chw_3x3s2_avx512_(const struct rt_conv2d *p,
                        const float *pe, /* even columns [2*oH + 1][We] */
                        const float *po, /* odd columns [2*oH + 1][We] */
                        int We,
                        const float *k,  /* [3][3] */
                        float bias,
                        float *yo)       /* out: [oH][oW] */
{
	const __m512 k00 = _mm512_set1_ps(k[0]), k01 = _mm512_set1_ps(k[1]);
	const __m512 k02 = _mm512_set1_ps(k[2]), k10 = _mm512_set1_ps(k[3]);
	const __m512 k11 = _mm512_set1_ps(k[4]), k12 = _mm512_set1_ps(k[5]);
	const __m512 k20 = _mm512_set1_ps(k[6]), k21 = _mm512_set1_ps(k[7]);
	const __m512 k22 = _mm512_set1_ps(k[8]), vb = _mm512_set1_ps(bias);
	const int oW = p->oW;
	int i = 0;
	for (; i + 4 <= p->oH; i += 4) {
		const size_t r = (size_t)2 * i * We; /* input rows 2i .. 2i + 8 */
		float *yr = yo + (size_t)i * oW;     /* output rows i .. i + 3 */
		for (int j = 0; j < oW; j += 16) {
			const int n = oW - j < 16 ? oW - j : 16;
			const __mmask16 m = rt_dw_chw_mask_(n);
			const float *e = pe + r + j, *o = po + r + j;
			__m512 a0 = vb, a1 = vb, a2 = vb, a3 = vb, x0, x1, x2;
			/* input row t feeds output row r with tap row t - 2r */
			/* input row 0: output 0 tap row 0 */
			x0 = _mm512_maskz_loadu_ps(m, e);
			x1 = _mm512_maskz_loadu_ps(m, o);
			x2 = _mm512_maskz_loadu_ps(m, e + 1);
			a0 = rt_dw_chw_fma3_(a0, x0, x1, x2, k00, k01, k02);
			/* input row 1: output 0 tap row 1 */
			e += We;
			o += We;
			x0 = _mm512_maskz_loadu_ps(m, e);
			x1 = _mm512_maskz_loadu_ps(m, o);
			x2 = _mm512_maskz_loadu_ps(m, e + 1);
			a0 = rt_dw_chw_fma3_(a0, x0, x1, x2, k10, k11, k12);
			/* input row 2: output 0 tap row 2, output 1 tap row 0 */
			e += We;
			o += We;
			x0 = _mm512_maskz_loadu_ps(m, e);
			x1 = _mm512_maskz_loadu_ps(m, o);
			x2 = _mm512_maskz_loadu_ps(m, e + 1);
			a0 = rt_dw_chw_fma3_(a0, x0, x1, x2, k20, k21, k22);
			a1 = rt_dw_chw_fma3_(a1, x0, x1, x2, k00, k01, k02);
			/* input row 3: output 1 tap row 1 */
			e += We;
			o += We;
			x0 = _mm512_maskz_loadu_ps(m, e);
			x1 = _mm512_maskz_loadu_ps(m, o);
			x2 = _mm512_maskz_loadu_ps(m, e + 1);
			a1 = rt_dw_chw_fma3_(a1, x0, x1, x2, k10, k11, k12);
			/* input row 4: output 1 tap row 2, output 2 tap row 0 */
			e += We;
			o += We;
			x0 = _mm512_maskz_loadu_ps(m, e);
			x1 = _mm512_maskz_loadu_ps(m, o);
			x2 = _mm512_maskz_loadu_ps(m, e + 1);
			a1 = rt_dw_chw_fma3_(a1, x0, x1, x2, k20, k21, k22);
			a2 = rt_dw_chw_fma3_(a2, x0, x1, x2, k00, k01, k02);
			/* input row 5: output 2 tap row 1 */
			e += We;
			o += We;
			x0 = _mm512_maskz_loadu_ps(m, e);
			x1 = _mm512_maskz_loadu_ps(m, o);
			x2 = _mm512_maskz_loadu_ps(m, e + 1);
			a2 = rt_dw_chw_fma3_(a2, x0, x1, x2, k10, k11, k12);
			/* input row 6: output 2 tap row 2, output 3 tap row 0 */
			e += We;
			o += We;
			x0 = _mm512_maskz_loadu_ps(m, e);
			x1 = _mm512_maskz_loadu_ps(m, o);
			x2 = _mm512_maskz_loadu_ps(m, e + 1);
			a2 = rt_dw_chw_fma3_(a2, x0, x1, x2, k20, k21, k22);
			a3 = rt_dw_chw_fma3_(a3, x0, x1, x2, k00, k01, k02);
			/* input row 7: output 3 tap row 1 */
			e += We;
			o += We;
			x0 = _mm512_maskz_loadu_ps(m, e);
			x1 = _mm512_maskz_loadu_ps(m, o);
			x2 = _mm512_maskz_loadu_ps(m, e + 1);
			a3 = rt_dw_chw_fma3_(a3, x0, x1, x2, k10, k11, k12);
			/* input row 8: output 3 tap row 2 */
			e += We;
			o += We;
			x0 = _mm512_maskz_loadu_ps(m, e);
			x1 = _mm512_maskz_loadu_ps(m, o);
			x2 = _mm512_maskz_loadu_ps(m, e + 1);
			a3 = rt_dw_chw_fma3_(a3, x0, x1, x2, k20, k21, k22);
			rt_dw_chw_store_(p, yr + j, m, n, a0);
			rt_dw_chw_store_(p, yr + oW + j, m, n, a1);
			rt_dw_chw_store_(p, yr + 2 * oW + j, m, n, a2);
			rt_dw_chw_store_(p, yr + 3 * oW + j, m, n, a3);
		}
	}
	for (; i < p->oH; i++) { /* the last oH % 4 rows, one at a time */
		for (int j = 0; j < oW; j += 16) {
			const int n = oW - j < 16 ? oW - j : 16;
			const __mmask16 m = rt_dw_chw_mask_(n);
			const float *e = pe + (size_t)2 * i * We + j, *o = po + (size_t)2 * i * We + j;
			__m512 a = rt_dw_chw_fma3_(vb, _mm512_maskz_loadu_ps(m, e), _mm512_maskz_loadu_ps(m, o),
			                           _mm512_maskz_loadu_ps(m, e + 1), k00, k01, k02);
			e += We;
			o += We;
			a = rt_dw_chw_fma3_(a, _mm512_maskz_loadu_ps(m, e), _mm512_maskz_loadu_ps(m, o),
			                    _mm512_maskz_loadu_ps(m, e + 1), k10, k11, k12);
			e += We;
			o += We;
			a = rt_dw_chw_fma3_(a, _mm512_maskz_loadu_ps(m, e), _mm512_maskz_loadu_ps(m, o),
			                    _mm512_maskz_loadu_ps(m, e + 1), k20, k21, k22);
			rt_dw_chw_store_(p, yo + (size_t)i * oW + j, m, n, a);
		}
	}
}
/* One input channel: its padded (or split) plane, then its m output planes.
 *   xc: [H][W]   wc: [m][kH][kW]   bc: [m] or NULL   yc: out: [m][oH][oW] */
static inline __attribute__((target("avx512f"))) void
rt_dw_chw_chan_avx512_(const struct rt_conv2d *p, int variant, int m, const float *xc,
                       const float *wc, const float *bc, float *yc, float *ws)
{
	const int Hp = (p->oH - 1) * p->sH + (p->kH - 1) * p->dH + 1;
	const int Wp = (p->oW - 1) * p->sW + (p->kW - 1) * p->dW + 1, We = (Wp + 1) / 2;
	const size_t kk = (size_t)p->kH * p->kW, ohw = (size_t)p->oH * p->oW;
	float *pe = ws, *po = ws + (size_t)Hp * We; /* variant 2 */
	for (int r = 0; r < Hp; r++) {
		const int ih = r - p->padT;
		const float *xr = ih >= 0 && ih < p->H ? xc + (size_t)ih * p->W : NULL;
		if (variant == 2)
			rt_dw_chw_split_row_avx512_(p, Wp, xr, pe + (size_t)r * We, po + (size_t)r * We);
		else
			rt_dw_chw_pad_row_avx512_(p, Wp, xr, ws + (size_t)r * Wp);
	}
	for (int k = 0; k < m; k++) {
		const float bias = bc ? bc[k] : 0.0f;
		if (variant == 1)
			rt_dw_chw_3x3s1_avx512_(p, ws, Wp, wc + k * kk, bias, yc + k * ohw);
		else if (variant == 2)
			rt_dw_chw_3x3s2_avx512_(p, pe, po, We, wc + k * kk, bias, yc + k * ohw);
		else
			rt_dw_chw_any_avx512_(p, ws, Wp, wc + k * kk, bias, yc + k * ohw);
	}
}
#endif /* RT_SGEMM_HAVE_AVX512 */

#if RT_SGEMM_HAVE_AVX2
/* Lanes l < r set (r may be <= 0 or > 8), as maskload and maskstore want. */
static inline __attribute__((always_inline, target("avx2,fma"))) __m256i
rt_dw_chw_mask8_(int r)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Stores act(v) to the first n (1..8) floats of y; k = mask of n lanes. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_chw_store8_(const struct rt_conv2d *p, float *y, __m256i k, int n, __m256 v)
{
	switch (p->act) {
	case RT_ACT_NONE:
		break;
	case RT_ACT_RELU:
		v = _mm256_max_ps(v, _mm256_setzero_ps());
		break;
	case RT_ACT_LEAKY_RELU:
		v = _mm256_blendv_ps(v, _mm256_mul_ps(v, _mm256_set1_ps(p->alpha)),
		                     _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ));
		break;
	case RT_ACT_CLIP:
		v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(p->alpha)), _mm256_set1_ps(p->beta));
		break;
	default: /* no vector form: store, then apply in place */
		_mm256_maskstore_ps(y, k, v);
		for (int l = 0; l < n; l++)
			y[l] = rt_act_apply(p->act, p->alpha, p->beta, y[l]);
		return;
	}
	_mm256_maskstore_ps(y, k, v);
}

static inline __attribute__((always_inline, target("avx2,fma"))) __m256
rt_dw_chw_fma3y_(__m256 acc, __m256 x0, __m256 x1, __m256 x2, __m256 w0, __m256 w1, __m256 w2)
{
	acc = _mm256_fmadd_ps(x0, w0, acc);
	acc = _mm256_fmadd_ps(x1, w1, acc);
	return _mm256_fmadd_ps(x2, w2, acc);
}

/* The AVX2 + FMA versions of the three kernels, 8 columns per vector. */

/* Variant 0 on one plane, AVX2. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_chw_any_avx2_(const struct rt_conv2d *p,
                    const float *pp, /* padded plane [Hp][Wp] */
                    int Wp,
                    const float *k,  /* [kH][kW] */
                    float bias,
                    float *yo)       /* out: [oH][oW] */
{
	const __m256i gidx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
	                                        _mm256_set1_epi32(p->sW));
	for (int i = 0; i < p->oH; i++) {
		float *yr = yo + (size_t)i * p->oW;
		for (int j = 0; j < p->oW; j += 8) {
			const int n = p->oW - j < 8 ? p->oW - j : 8;
			const __m256i m = rt_dw_chw_mask8_(n);
			/* two accumulators halve the dependency chain */
			__m256 a0 = _mm256_set1_ps(bias), a1 = _mm256_setzero_ps();
			for (int u = 0; u < p->kH; u++) {
				/* padded row of tap row u, at output column j */
				const float *r = pp + (size_t)(i * p->sH + u * p->dH) * Wp + (size_t)j * p->sW;
				for (int v = 0; v < p->kW; v++) {
					const __m256 wv = _mm256_set1_ps(k[u * p->kW + v]);
					const float *rv = r + (size_t)v * p->dW;
					const __m256 xv = p->sW == 1
						? _mm256_maskload_ps(rv, m)
						: _mm256_mask_i32gather_ps(_mm256_setzero_ps(), rv, gidx,
					                           _mm256_castsi256_ps(m), 4);
					if (v & 1)
						a1 = _mm256_fmadd_ps(xv, wv, a1);
					else
						a0 = _mm256_fmadd_ps(xv, wv, a0);
				}
			}
			rt_dw_chw_store8_(p, yr + j, m, n, _mm256_add_ps(a0, a1));
		}
	}
}

/* Variant 1 on one plane, AVX2. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_chw_3x3s1_avx2_(const struct rt_conv2d *p,
                      const float *pp, /* padded plane [oH + 2][Wp] */
                      int Wp,
                      const float *k,  /* [3][3] */
                      float bias,
                      float *yo)       /* out: [oH][oW] */
{
	const __m256 k00 = _mm256_set1_ps(k[0]), k01 = _mm256_set1_ps(k[1]);
	const __m256 k02 = _mm256_set1_ps(k[2]), k10 = _mm256_set1_ps(k[3]);
	const __m256 k11 = _mm256_set1_ps(k[4]), k12 = _mm256_set1_ps(k[5]);
	const __m256 k20 = _mm256_set1_ps(k[6]), k21 = _mm256_set1_ps(k[7]);
	const __m256 k22 = _mm256_set1_ps(k[8]), vb = _mm256_set1_ps(bias);
	const int oW = p->oW;
	int i = 0;
	for (; i + 4 <= p->oH; i += 4) {
		const float *r = pp + (size_t)i * Wp; /* input rows i .. i + 5 */
		float *yr = yo + (size_t)i * oW;      /* output rows i .. i + 3 */
		for (int j = 0; j < oW; j += 8) {
			const int n = oW - j < 8 ? oW - j : 8;
			const __m256i m = rt_dw_chw_mask8_(n);
			const float *t = r + j;
			__m256 a0 = vb, a1 = vb, a2 = vb, a3 = vb, x0, x1, x2;
			/* input row 0: tap row 0 of output row 0 */
			x0 = _mm256_maskload_ps(t, m);
			x1 = _mm256_maskload_ps(t + 1, m);
			x2 = _mm256_maskload_ps(t + 2, m);
			a0 = rt_dw_chw_fma3y_(a0, x0, x1, x2, k00, k01, k02);
			/* input row 1: tap row 1 of output 0, tap row 0 of output 1 */
			t += Wp;
			x0 = _mm256_maskload_ps(t, m);
			x1 = _mm256_maskload_ps(t + 1, m);
			x2 = _mm256_maskload_ps(t + 2, m);
			a0 = rt_dw_chw_fma3y_(a0, x0, x1, x2, k10, k11, k12);
			a1 = rt_dw_chw_fma3y_(a1, x0, x1, x2, k00, k01, k02);
			/* input row 2: outputs 0, 1, 2 */
			t += Wp;
			x0 = _mm256_maskload_ps(t, m);
			x1 = _mm256_maskload_ps(t + 1, m);
			x2 = _mm256_maskload_ps(t + 2, m);
			a0 = rt_dw_chw_fma3y_(a0, x0, x1, x2, k20, k21, k22);
			a1 = rt_dw_chw_fma3y_(a1, x0, x1, x2, k10, k11, k12);
			a2 = rt_dw_chw_fma3y_(a2, x0, x1, x2, k00, k01, k02);
			/* input row 3: outputs 1, 2, 3 */
			t += Wp;
			x0 = _mm256_maskload_ps(t, m);
			x1 = _mm256_maskload_ps(t + 1, m);
			x2 = _mm256_maskload_ps(t + 2, m);
			a1 = rt_dw_chw_fma3y_(a1, x0, x1, x2, k20, k21, k22);
			a2 = rt_dw_chw_fma3y_(a2, x0, x1, x2, k10, k11, k12);
			a3 = rt_dw_chw_fma3y_(a3, x0, x1, x2, k00, k01, k02);
			/* input row 4: outputs 2, 3 */
			t += Wp;
			x0 = _mm256_maskload_ps(t, m);
			x1 = _mm256_maskload_ps(t + 1, m);
			x2 = _mm256_maskload_ps(t + 2, m);
			a2 = rt_dw_chw_fma3y_(a2, x0, x1, x2, k20, k21, k22);
			a3 = rt_dw_chw_fma3y_(a3, x0, x1, x2, k10, k11, k12);
			/* input row 5: output 3 */
			t += Wp;
			x0 = _mm256_maskload_ps(t, m);
			x1 = _mm256_maskload_ps(t + 1, m);
			x2 = _mm256_maskload_ps(t + 2, m);
			a3 = rt_dw_chw_fma3y_(a3, x0, x1, x2, k20, k21, k22);
			rt_dw_chw_store8_(p, yr + j, m, n, a0);
			rt_dw_chw_store8_(p, yr + oW + j, m, n, a1);
			rt_dw_chw_store8_(p, yr + 2 * oW + j, m, n, a2);
			rt_dw_chw_store8_(p, yr + 3 * oW + j, m, n, a3);
		}
	}
	for (; i < p->oH; i++) { /* the last oH % 4 rows, one at a time */
		const float *r = pp + (size_t)i * Wp;
		for (int j = 0; j < oW; j += 8) {
			const int n = oW - j < 8 ? oW - j : 8;
			const __m256i m = rt_dw_chw_mask8_(n);
			const float *t0 = r + j, *t1 = t0 + Wp, *t2 = t1 + Wp;
			__m256 a = rt_dw_chw_fma3y_(vb, _mm256_maskload_ps(t0, m),
			                           _mm256_maskload_ps(t0 + 1, m),
			                           _mm256_maskload_ps(t0 + 2, m), k00, k01, k02);
			a = rt_dw_chw_fma3y_(a, _mm256_maskload_ps(t1, m), _mm256_maskload_ps(t1 + 1, m),
			                    _mm256_maskload_ps(t1 + 2, m), k10, k11, k12);
			a = rt_dw_chw_fma3y_(a, _mm256_maskload_ps(t2, m), _mm256_maskload_ps(t2 + 1, m),
			                    _mm256_maskload_ps(t2 + 2, m), k20, k21, k22);
			rt_dw_chw_store8_(p, yo + (size_t)i * oW + j, m, n, a);
		}
	}
}

/* Variant 2 on one plane, AVX2. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_chw_3x3s2_avx2_(const struct rt_conv2d *p,
                      const float *pe, /* even columns [2*oH + 1][We] */
                      const float *po, /* odd columns [2*oH + 1][We] */
                      int We,
                      const float *k,  /* [3][3] */
                      float bias,
                      float *yo)       /* out: [oH][oW] */
{
	const __m256 k00 = _mm256_set1_ps(k[0]), k01 = _mm256_set1_ps(k[1]);
	const __m256 k02 = _mm256_set1_ps(k[2]), k10 = _mm256_set1_ps(k[3]);
	const __m256 k11 = _mm256_set1_ps(k[4]), k12 = _mm256_set1_ps(k[5]);
	const __m256 k20 = _mm256_set1_ps(k[6]), k21 = _mm256_set1_ps(k[7]);
	const __m256 k22 = _mm256_set1_ps(k[8]), vb = _mm256_set1_ps(bias);
	const int oW = p->oW;
	int i = 0;
	for (; i + 4 <= p->oH; i += 4) {
		const size_t r = (size_t)2 * i * We; /* input rows 2i .. 2i + 8 */
		float *yr = yo + (size_t)i * oW;     /* output rows i .. i + 3 */
		for (int j = 0; j < oW; j += 8) {
			const int n = oW - j < 8 ? oW - j : 8;
			const __m256i m = rt_dw_chw_mask8_(n);
			const float *e = pe + r + j, *o = po + r + j;
			__m256 a0 = vb, a1 = vb, a2 = vb, a3 = vb, x0, x1, x2;
			/* input row t feeds output row r with tap row t - 2r */
			x0 = _mm256_maskload_ps(e, m);
			x1 = _mm256_maskload_ps(o, m);
			x2 = _mm256_maskload_ps(e + 1, m);
			a0 = rt_dw_chw_fma3y_(a0, x0, x1, x2, k00, k01, k02);
			e += We;
			o += We;
			x0 = _mm256_maskload_ps(e, m);
			x1 = _mm256_maskload_ps(o, m);
			x2 = _mm256_maskload_ps(e + 1, m);
			a0 = rt_dw_chw_fma3y_(a0, x0, x1, x2, k10, k11, k12);
			e += We;
			o += We;
			x0 = _mm256_maskload_ps(e, m);
			x1 = _mm256_maskload_ps(o, m);
			x2 = _mm256_maskload_ps(e + 1, m);
			a0 = rt_dw_chw_fma3y_(a0, x0, x1, x2, k20, k21, k22);
			a1 = rt_dw_chw_fma3y_(a1, x0, x1, x2, k00, k01, k02);
			e += We;
			o += We;
			x0 = _mm256_maskload_ps(e, m);
			x1 = _mm256_maskload_ps(o, m);
			x2 = _mm256_maskload_ps(e + 1, m);
			a1 = rt_dw_chw_fma3y_(a1, x0, x1, x2, k10, k11, k12);
			e += We;
			o += We;
			x0 = _mm256_maskload_ps(e, m);
			x1 = _mm256_maskload_ps(o, m);
			x2 = _mm256_maskload_ps(e + 1, m);
			a1 = rt_dw_chw_fma3y_(a1, x0, x1, x2, k20, k21, k22);
			a2 = rt_dw_chw_fma3y_(a2, x0, x1, x2, k00, k01, k02);
			e += We;
			o += We;
			x0 = _mm256_maskload_ps(e, m);
			x1 = _mm256_maskload_ps(o, m);
			x2 = _mm256_maskload_ps(e + 1, m);
			a2 = rt_dw_chw_fma3y_(a2, x0, x1, x2, k10, k11, k12);
			e += We;
			o += We;
			x0 = _mm256_maskload_ps(e, m);
			x1 = _mm256_maskload_ps(o, m);
			x2 = _mm256_maskload_ps(e + 1, m);
			a2 = rt_dw_chw_fma3y_(a2, x0, x1, x2, k20, k21, k22);
			a3 = rt_dw_chw_fma3y_(a3, x0, x1, x2, k00, k01, k02);
			e += We;
			o += We;
			x0 = _mm256_maskload_ps(e, m);
			x1 = _mm256_maskload_ps(o, m);
			x2 = _mm256_maskload_ps(e + 1, m);
			a3 = rt_dw_chw_fma3y_(a3, x0, x1, x2, k10, k11, k12);
			e += We;
			o += We;
			x0 = _mm256_maskload_ps(e, m);
			x1 = _mm256_maskload_ps(o, m);
			x2 = _mm256_maskload_ps(e + 1, m);
			a3 = rt_dw_chw_fma3y_(a3, x0, x1, x2, k20, k21, k22);
			rt_dw_chw_store8_(p, yr + j, m, n, a0);
			rt_dw_chw_store8_(p, yr + oW + j, m, n, a1);
			rt_dw_chw_store8_(p, yr + 2 * oW + j, m, n, a2);
			rt_dw_chw_store8_(p, yr + 3 * oW + j, m, n, a3);
		}
	}
	for (; i < p->oH; i++) { /* the last oH % 4 rows, one at a time */
		for (int j = 0; j < oW; j += 8) {
			const int n = oW - j < 8 ? oW - j : 8;
			const __m256i m = rt_dw_chw_mask8_(n);
			const float *e = pe + (size_t)2 * i * We + j, *o = po + (size_t)2 * i * We + j;
			__m256 a = rt_dw_chw_fma3y_(vb, _mm256_maskload_ps(e, m), _mm256_maskload_ps(o, m),
			                           _mm256_maskload_ps(e + 1, m), k00, k01, k02);
			e += We;
			o += We;
			a = rt_dw_chw_fma3y_(a, _mm256_maskload_ps(e, m), _mm256_maskload_ps(o, m),
			                    _mm256_maskload_ps(e + 1, m), k10, k11, k12);
			e += We;
			o += We;
			a = rt_dw_chw_fma3y_(a, _mm256_maskload_ps(e, m), _mm256_maskload_ps(o, m),
			                    _mm256_maskload_ps(e + 1, m), k20, k21, k22);
			rt_dw_chw_store8_(p, yo + (size_t)i * oW + j, m, n, a);
		}
	}
}
/* One input channel, AVX2 kernels (see rt_dw_chw_chan_avx512_). */
static inline __attribute__((target("avx2,fma"))) void
rt_dw_chw_chan_avx2_(const struct rt_conv2d *p, int variant, int m, const float *xc,
                     const float *wc, const float *bc, float *yc, float *ws)
{
	const int Hp = (p->oH - 1) * p->sH + (p->kH - 1) * p->dH + 1;
	const int Wp = (p->oW - 1) * p->sW + (p->kW - 1) * p->dW + 1, We = (Wp + 1) / 2;
	const size_t kk = (size_t)p->kH * p->kW, ohw = (size_t)p->oH * p->oW;
	rt_dw_chw_plane_c_(p, variant, xc, ws);
	for (int k = 0; k < m; k++) {
		const float bias = bc ? bc[k] : 0.0f;
		if (variant == 1)
			rt_dw_chw_3x3s1_avx2_(p, ws, Wp, wc + k * kk, bias, yc + k * ohw);
		else if (variant == 2)
			rt_dw_chw_3x3s2_avx2_(p, ws, ws + (size_t)Hp * We, We, wc + k * kk, bias,
			                      yc + k * ohw);
		else
			rt_dw_chw_any_avx2_(p, ws, Wp, wc + k * kk, bias, yc + k * ohw);
	}
}
#endif /* RT_SGEMM_HAVE_AVX2 */

/* Variants 0 and 1 on one plane in portable C: per output row, one
 * multiply-add pass over the row per tap. */
static inline void rt_dw_chw_any_c_(const struct rt_conv2d *p,
                                    const float *pp, /* padded plane [Hp][Wp] */
                                    int Wp,
                                    const float *k,  /* [kH][kW] */
                                    float bias,
                                    float *yo)       /* out: [oH][oW] */
{
	const int oW = p->oW, sW = p->sW;
	for (int i = 0; i < p->oH; i++) {
		float *restrict yr = yo + (size_t)i * oW;
		for (int j = 0; j < oW; j++)
			yr[j] = bias;
		for (int u = 0; u < p->kH; u++) {
			const float *r = pp + (size_t)(i * p->sH + u * p->dH) * Wp;
			for (int v = 0; v < p->kW; v++) {
				const float wv = k[u * p->kW + v];
				const float *restrict s = r + (size_t)v * p->dW;
				if (sW == 1)
					for (int j = 0; j < oW; j++)
						yr[j] += wv * s[j];
				else
					for (int j = 0; j < oW; j++)
						yr[j] += wv * s[(size_t)j * sW];
			}
		}
		for (int j = 0; j < oW; j++)
			yr[j] = rt_act_apply(p->act, p->alpha, p->beta, yr[j]);
	}
}

/* Variant 2 on one plane in portable C, on the split planes. */
static inline void rt_dw_chw_3x3s2_c_(const struct rt_conv2d *p,
                                      const float *pe, /* even columns [2*oH + 1][We] */
                                      const float *po, /* odd columns [2*oH + 1][We] */
                                      int We,
                                      const float *k,  /* [3][3] */
                                      float bias,
                                      float *yo)       /* out: [oH][oW] */
{
	const int oW = p->oW;
	for (int i = 0; i < p->oH; i++) {
		float *restrict yr = yo + (size_t)i * oW;
		for (int j = 0; j < oW; j++)
			yr[j] = bias;
		for (int u = 0; u < 3; u++) {
			const float *restrict e = pe + (size_t)(2 * i + u) * We;
			const float *restrict o = po + (size_t)(2 * i + u) * We;
			const float k0 = k[3 * u], k1 = k[3 * u + 1], k2 = k[3 * u + 2];
			for (int j = 0; j < oW; j++)
				yr[j] += k0 * e[j] + k1 * o[j] + k2 * e[j + 1];
		}
		for (int j = 0; j < oW; j++)
			yr[j] = rt_act_apply(p->act, p->alpha, p->beta, yr[j]);
	}
}

RT_FN void rt_conv_depthwise_chw(const struct rt_conv2d *p, int variant,
                                 const float *x, /* [N][C][H][W] */
                                 const float *w, /* [M, 1, kH, kW] */
                                 const float *b, /* [M] or NULL */
                                 float *y,       /* out: [N][M][oH][oW] */
                                 float *ws)      /* padded plane(s), see the top */
{
	const int m = p->M / p->C;
	const int Hp = (p->oH - 1) * p->sH + (p->kH - 1) * p->dH + 1; /* padded window */
	const int Wp = (p->oW - 1) * p->sW + (p->kW - 1) * p->dW + 1;
	const int We = (Wp + 1) / 2;
	const size_t hw = (size_t)p->H * p->W, ohw = (size_t)p->oH * p->oW;
	const size_t kk = (size_t)p->kH * p->kW;
	for (int n = 0; n < p->N; n++) {
		for (int c = 0; c < p->C; c++) {
			const float *xc = x + ((size_t)n * p->C + c) * hw;           /* [H][W] */
			const float *wc = w + (size_t)c * m * kk;                     /* [m][kH][kW] */
			const float *bc = b ? b + (size_t)c * m : NULL;               /* [m] */
			float *yc = y + ((size_t)n * p->M + (size_t)c * m) * ohw;     /* [m][oH][oW] */
#if RT_SGEMM_HAVE_AVX512
			if (p->isa == RT_SGEMM_ISA_AVX512) {
				rt_dw_chw_chan_avx512_(p, variant, m, xc, wc, bc, yc, ws);
				continue;
			}
#endif
#if RT_SGEMM_HAVE_AVX2
			if (p->isa == RT_SGEMM_ISA_AVX2) {
				rt_dw_chw_chan_avx2_(p, variant, m, xc, wc, bc, yc, ws);
				continue;
			}
#endif
			rt_dw_chw_plane_c_(p, variant, xc, ws);
			for (int k = 0; k < m; k++) {
				if (variant == 2)
					rt_dw_chw_3x3s2_c_(p, ws, ws + (size_t)Hp * We, We, wc + k * kk,
					                   bc ? bc[k] : 0.0f, yc + k * ohw);
				else
					rt_dw_chw_any_c_(p, ws, Wp, wc + k * kk, bc ? bc[k] : 0.0f, yc + k * ohw);
			}
		}
	}
}
