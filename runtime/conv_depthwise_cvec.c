/* conv_depthwise_cvec.c - depthwise convolution vectorised across channels,
 * on HWC and on blocked CHW16c / CHW8c images (rows conv_depthwise_hwc,
 * conv_depthwise_3x3s1_hwc, conv_depthwise_chw16c, conv_depthwise_chw8c of
 * fam_depthwise.def).
 *
 * Depthwise means group == C; output channel o reads input channel o/m,
 * m = M/C the channel multiplier (ONNX Conv with group = C). Textbook:
 *   y[o][i][j] = b[o] + sum over u < kH, v < kW of
 *                w[o][0][u][v] * x[o/m][i*sH - padT + u*dH][j*sW - padL + v*dW]
 * (reads outside the input are zero), then the epilogue.
 *
 * What changes: in these layouts the channels of a pixel are contiguous, so
 * a vector holds 16 (AVX-512) or 8 (AVX2) channels of one pixel and every
 * tap is one vector multiply-add with the matching vector of weights; no
 * extra memory at all. The weights are packed tap-major, wp[t][Mp] with
 * t = u*kW + v and Mp = M rounded up to 16 (zero past M), so the weights of a
 * tap for 16 channels are one load. Both layouts are seen as a "view": input
 * pixel (h, w) at xb[(h*W + w)*xs], channel c at offset c; output pixel
 * (i, j) at yb[(i*oW + j)*ys]. HWC is one view with xs = C, ys = M; a
 * blocked image is one view per block of B channels with xs = ys = B.
 *
 * Output pixels are grouped into rectangles whose pixels share one window
 * of taps inside the input (the interior, each border row and column, the
 * corners), so no tile tests bounds. A rectangle is computed 8 pixels at a
 * time (4 or 1 for a short rest): 8 accumulators, one weight load and 8
 * input loads per tap, any kernel, stride and dilation. The 8 pixels are
 * taken in raster order across row ends, so narrow planes (7x7) keep all 8
 * accumulators busy.
 * Variants:
 *   0   HWC, any kernel, stride, dilation, multiplier.
 *   1   HWC, 3x3 stride 1 fast path: interior rows in strips of 8 (AVX-512)
 *       or 4 (AVX2) adjacent pixels; each input vector is loaded once and
 *       used by the 3 taps that read it (30 loads for 72 FMAs, against 81
 *       for variant 0); weights of a tap row stay in registers.
 *   8   CHW8c, 16   CHW16c: blocked in and out ([ceil(C/B)][H][W][B],
 *       channels past C zero in the input and written as zero in the
 *       output); multiplier 1; one block's plane stays hot while it is
 *       computed; the 3x3 stride-1 fast path is used where it applies.
 * A multiplier m > 1 (HWC only) makes the output vector q of an input block
 * of VL channels hold outputs c0*m + VL*q + l, which read input lane
 * (VL*q + l)/m of that block: one permute after each input load, with the
 * index vector computed once per q (the image is swept m times).
 * SIMD: AVX-512F when p->isa is RT_SGEMM_ISA_AVX512 (CHW8c then uses the
 * AVX2 code on ymm), AVX2 + FMA when it is RT_SGEMM_ISA_AVX2 (CHW16c as two
 * 8-channel halves), portable C otherwise. No workspace. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
#include <immintrin.h>

/* First output index whose window starts inside the input, ceil(pad / s). */
static inline int rt_dw_cv_lo_(int pad, int s)
{
	return (pad + s - 1) / s;
}

/* One past the last output index whose window ends inside the input
 * (i*s - pad + span <= in), at least lo and at most o. */
static inline int rt_dw_cv_hi_(int in, int span, int pad, int s, int o, int lo)
{
	int hi = in - span + pad >= 0 ? (in - span + pad) / s + 1 : 0;
	hi = hi < o ? hi : o;
	return hi > lo ? hi : lo;
}
#endif

#if RT_SGEMM_HAVE_AVX512
/* ---- AVX-512: 16 channels per vector ----------------------------------- */

/* Mask of the first r lanes (r may be <= 0 or > 16). */
static inline __attribute__((always_inline, target("avx512f"))) __mmask16
rt_dw_cv_mask_z_(int r)
{
	return (__mmask16)(r >= 16 ? 0xFFFF : r <= 0 ? 0 : (1u << r) - 1u);
}

/* Input vector: the channels of kc at xp, permuted for a multiplier. */
static inline __attribute__((always_inline, target("avx512f"))) __m512
rt_dw_cv_ld_z_(int perm, __m512i idx, __mmask16 kc, const float *xp)
{
	const __m512 v = _mm512_maskz_loadu_ps(kc, xp);
	return perm ? _mm512_permutexvar_ps(idx, v) : v;
}

/* Bias of the lanes of ko at bb, zero without bias. */
static inline __attribute__((always_inline, target("avx512f"))) __m512
rt_dw_cv_bias_z_(const float *bb, __mmask16 ko)
{
	return bb ? _mm512_maskz_loadu_ps(ko, bb) : _mm512_setzero_ps();
}

/* Permutation of pass q for multiplier m: lane l reads input lane (16q + l)/m. */
static inline __attribute__((always_inline, target("avx512f"))) __m512i
rt_dw_cv_idx_z_(int m, int q)
{
	int t[16];
	for (int l = 0; l < 16; l++)
		t[l] = (16 * q + l) / m;
	return _mm512_loadu_si512(t);
}

/* Stores act(v): the first `on` lanes (ko = their mask), or with `full` all
 * 16 lanes, those from `on` on as zeros (blocked layouts). */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_cv_st_z_(const struct rt_conv2d *p, float *y, int full, __mmask16 ko, int on, __m512 v)
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
		if (full)
			_mm512_storeu_ps(y, _mm512_maskz_mov_ps(ko, v));
		else
			_mm512_mask_storeu_ps(y, ko, v);
		for (int l = 0; l < on; l++)
			y[l] = rt_act_apply(p->act, p->alpha, p->beta, y[l]);
		return;
	}
	if (full)
		_mm512_storeu_ps(y, _mm512_maskz_mov_ps(ko, v));
	else
		_mm512_mask_storeu_ps(y, ko, v);
}

/* One vector of channels of np <= R pixels (R = 8, 4 or 1, a constant after
 * inlining) that share a window of nu x nv taps inside the input.
 *   xp[r]: pixel r's first tap at the slot's first channel (pixels past np
 *          repeat the last one)   yp[r]: output pixel r at the slot's first
 *          output channel   wq: the slot's packed weights at the first tap */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_cv_px_z_(int R, const struct rt_conv2d *p, int perm, __m512i idx, int xs, int Mp,
               const float *const *xp, float *const *yp, int np, const float *wq, int nu,
               int nv, __m512 vb, __mmask16 kc, int full, __mmask16 ko, int on)
{
	const float *x0 = xp[0], *x1 = xp[R > 1 ? 1 : 0], *x2 = xp[R > 2 ? 2 : 0];
	const float *x3 = xp[R > 3 ? 3 : 0], *x4 = xp[R > 4 ? 4 : 0], *x5 = xp[R > 5 ? 5 : 0];
	const float *x6 = xp[R > 6 ? 6 : 0], *x7 = xp[R > 7 ? 7 : 0];
	const size_t rs = (size_t)p->dH * p->W * xs, cs = (size_t)p->dW * xs; /* tap steps */
	__m512 a0 = vb, a1 = vb, a2 = vb, a3 = vb, a4 = vb, a5 = vb, a6 = vb, a7 = vb;
	for (int du = 0; du < nu; du++) {
		const float *wt = wq + (size_t)du * p->kW * Mp;
		size_t t = du * rs;
		for (int dv = 0; dv < nv; dv++, wt += Mp, t += cs) {
			const __m512 wv = _mm512_loadu_ps(wt);
			a0 = _mm512_fmadd_ps(rt_dw_cv_ld_z_(perm, idx, kc, x0 + t), wv, a0);
			if (R > 1) a1 = _mm512_fmadd_ps(rt_dw_cv_ld_z_(perm, idx, kc, x1 + t), wv, a1);
			if (R > 2) a2 = _mm512_fmadd_ps(rt_dw_cv_ld_z_(perm, idx, kc, x2 + t), wv, a2);
			if (R > 3) a3 = _mm512_fmadd_ps(rt_dw_cv_ld_z_(perm, idx, kc, x3 + t), wv, a3);
			if (R > 4) a4 = _mm512_fmadd_ps(rt_dw_cv_ld_z_(perm, idx, kc, x4 + t), wv, a4);
			if (R > 5) a5 = _mm512_fmadd_ps(rt_dw_cv_ld_z_(perm, idx, kc, x5 + t), wv, a5);
			if (R > 6) a6 = _mm512_fmadd_ps(rt_dw_cv_ld_z_(perm, idx, kc, x6 + t), wv, a6);
			if (R > 7) a7 = _mm512_fmadd_ps(rt_dw_cv_ld_z_(perm, idx, kc, x7 + t), wv, a7);
		}
	}
	rt_dw_cv_st_z_(p, yp[0], full, ko, on, a0);
	if (R > 1 && np > 1) rt_dw_cv_st_z_(p, yp[1], full, ko, on, a1);
	if (R > 2 && np > 2) rt_dw_cv_st_z_(p, yp[2], full, ko, on, a2);
	if (R > 3 && np > 3) rt_dw_cv_st_z_(p, yp[3], full, ko, on, a3);
	if (R > 4 && np > 4) rt_dw_cv_st_z_(p, yp[4], full, ko, on, a4);
	if (R > 5 && np > 5) rt_dw_cv_st_z_(p, yp[5], full, ko, on, a5);
	if (R > 6 && np > 6) rt_dw_cv_st_z_(p, yp[6], full, ko, on, a6);
	if (R > 7 && np > 7) rt_dw_cv_st_z_(p, yp[7], full, ko, on, a7);
}

/* 3x3 stride 1, 8 adjacent interior pixels of a row: each input vector is
 * loaded once for the 3 taps that read it. x: the first pixel's top-left tap
 * at the slot's first channel; y: the first output pixel; wq: the slot's
 * packed weights. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_cv_3x3s1_z_(const struct rt_conv2d *p, int perm, __m512i idx, int xs, int ys, int Mp,
                  const float *x, float *y, const float *wq, __m512 vb, __mmask16 kc,
                  int full, __mmask16 ko, int on)
{
	__m512 a0 = vb, a1 = vb, a2 = vb, a3 = vb, a4 = vb, a5 = vb, a6 = vb, a7 = vb;
	for (int u = 0; u < 3; u++) {
		const float *r = x + (size_t)u * p->W * xs; /* input row of tap row u */
		const __m512 w0 = _mm512_loadu_ps(wq + (size_t)(3 * u) * Mp);
		const __m512 w1 = _mm512_loadu_ps(wq + (size_t)(3 * u + 1) * Mp);
		const __m512 w2 = _mm512_loadu_ps(wq + (size_t)(3 * u + 2) * Mp);
		__m512 c;
		/* input column k feeds pixel k with tap 0, k - 1 with tap 1, k - 2 with tap 2 */
		c = rt_dw_cv_ld_z_(perm, idx, kc, r);
		a0 = _mm512_fmadd_ps(c, w0, a0);
		c = rt_dw_cv_ld_z_(perm, idx, kc, r + xs);
		a0 = _mm512_fmadd_ps(c, w1, a0);
		a1 = _mm512_fmadd_ps(c, w0, a1);
		c = rt_dw_cv_ld_z_(perm, idx, kc, r + 2 * (size_t)xs);
		a0 = _mm512_fmadd_ps(c, w2, a0);
		a1 = _mm512_fmadd_ps(c, w1, a1);
		a2 = _mm512_fmadd_ps(c, w0, a2);
		c = rt_dw_cv_ld_z_(perm, idx, kc, r + 3 * (size_t)xs);
		a1 = _mm512_fmadd_ps(c, w2, a1);
		a2 = _mm512_fmadd_ps(c, w1, a2);
		a3 = _mm512_fmadd_ps(c, w0, a3);
		c = rt_dw_cv_ld_z_(perm, idx, kc, r + 4 * (size_t)xs);
		a2 = _mm512_fmadd_ps(c, w2, a2);
		a3 = _mm512_fmadd_ps(c, w1, a3);
		a4 = _mm512_fmadd_ps(c, w0, a4);
		c = rt_dw_cv_ld_z_(perm, idx, kc, r + 5 * (size_t)xs);
		a3 = _mm512_fmadd_ps(c, w2, a3);
		a4 = _mm512_fmadd_ps(c, w1, a4);
		a5 = _mm512_fmadd_ps(c, w0, a5);
		c = rt_dw_cv_ld_z_(perm, idx, kc, r + 6 * (size_t)xs);
		a4 = _mm512_fmadd_ps(c, w2, a4);
		a5 = _mm512_fmadd_ps(c, w1, a5);
		a6 = _mm512_fmadd_ps(c, w0, a6);
		c = rt_dw_cv_ld_z_(perm, idx, kc, r + 7 * (size_t)xs);
		a5 = _mm512_fmadd_ps(c, w2, a5);
		a6 = _mm512_fmadd_ps(c, w1, a6);
		a7 = _mm512_fmadd_ps(c, w0, a7);
		c = rt_dw_cv_ld_z_(perm, idx, kc, r + 8 * (size_t)xs);
		a6 = _mm512_fmadd_ps(c, w2, a6);
		a7 = _mm512_fmadd_ps(c, w1, a7);
		c = rt_dw_cv_ld_z_(perm, idx, kc, r + 9 * (size_t)xs);
		a7 = _mm512_fmadd_ps(c, w2, a7);
	}
	rt_dw_cv_st_z_(p, y, full, ko, on, a0);
	rt_dw_cv_st_z_(p, y + ys, full, ko, on, a1);
	rt_dw_cv_st_z_(p, y + 2 * (size_t)ys, full, ko, on, a2);
	rt_dw_cv_st_z_(p, y + 3 * (size_t)ys, full, ko, on, a3);
	rt_dw_cv_st_z_(p, y + 4 * (size_t)ys, full, ko, on, a4);
	rt_dw_cv_st_z_(p, y + 5 * (size_t)ys, full, ko, on, a5);
	rt_dw_cv_st_z_(p, y + 6 * (size_t)ys, full, ko, on, a6);
	rt_dw_cv_st_z_(p, y + 7 * (size_t)ys, full, ko, on, a7);
}

/* One block of np (1..8) pixels sharing a window of nu x nv taps: every
 * vector of channels (slot) of the view. xp[r], yp[r]: pixel r's first tap
 * and output, at channel 0 of the view; wq: the weights of the first tap. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_cv_blk_z_(const struct rt_conv2d *p, int perm, __m512i idx, int m, int q, int xs, int Mp,
                const float *const *xp, float *const *yp, int np, const float *wq,
                const float *bb, int cv, int nslot, int full, int nu, int nv)
{
	for (int s = 0; s < nslot; s++) {
		const int c0 = 16 * s, o0 = c0 * m + 16 * q;
		const int ci = cv - c0 < 16 ? cv - c0 : 16;                 /* input channels */
		const int oc = ci * m - 16 * q < 16 ? ci * m - 16 * q : 16; /* output channels */
		if (oc <= 0 && !full)
			continue;
		const __mmask16 ko = rt_dw_cv_mask_z_(oc), kc = rt_dw_cv_mask_z_(ci);
		const __m512 vb = rt_dw_cv_bias_z_(bb && oc > 0 ? bb + o0 : NULL, ko);
		const float *xq[8] = {xp[0] + c0, xp[1] + c0, xp[2] + c0, xp[3] + c0,
		                      xp[4] + c0, xp[5] + c0, xp[6] + c0, xp[7] + c0};
		float *yq[8] = {yp[0] + o0, yp[1] + o0, yp[2] + o0, yp[3] + o0,
		                yp[4] + o0, yp[5] + o0, yp[6] + o0, yp[7] + o0};
		const int on = oc > 0 ? oc : 0;
		if (np > 4)
			rt_dw_cv_px_z_(8, p, perm, idx, xs, Mp, xq, yq, np, wq + o0, nu, nv, vb, kc, full,
			               ko, on);
		else if (np > 1)
			rt_dw_cv_px_z_(4, p, perm, idx, xs, Mp, xq, yq, np, wq + o0, nu, nv, vb, kc, full,
			               ko, on);
		else
			rt_dw_cv_px_z_(1, p, perm, idx, xs, Mp, xq, yq, np, wq + o0, nu, nv, vb, kc, full,
			               ko, on);
	}
}

/* Output pixels [i0, i1) x [j0, j1) of a view, all with the same window of
 * taps inside the input (the interior, one border row or column, a corner),
 * in blocks of up to 8 in raster order; with `fast` (3x3 stride 1) a full
 * window goes in strips of 8 adjacent pixels, the last strip of a row
 * overlapping the one before. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_cv_rect_z_(const struct rt_conv2d *p, int fast, int perm, __m512i idx, int m, int q,
                 const float *xb, int xs, float *yb, int ys, const float *wb, int Mp,
                 const float *bb, int cv, int nslot, int full, int i0, int i1, int j0, int j1)
{
	if (i0 >= i1 || j0 >= j1)
		return;
	/* the window of the rectangle's first pixel: taps u0 <= u < u1, v0 <= v < v1 */
	const int bi = i0 * p->sH - p->padT, bj = j0 * p->sW - p->padL;
	const int u0 = bi >= 0 ? 0 : (p->dH - 1 - bi) / p->dH;
	const int v0 = bj >= 0 ? 0 : (p->dW - 1 - bj) / p->dW;
	int u1 = bi < p->H ? (p->H - 1 - bi) / p->dH + 1 : 0;
	int v1 = bj < p->W ? (p->W - 1 - bj) / p->dW + 1 : 0;
	u1 = u1 < p->kH ? u1 : p->kH;
	v1 = v1 < p->kW ? v1 : p->kW;
	const int nu = u1 > u0 ? u1 - u0 : 0, nv = v1 > v0 ? v1 - v0 : 0;
	const float *wq = nu && nv ? wb + (size_t)(u0 * p->kW + v0) * Mp : wb;
	if (fast && nu == 3 && nv == 3 && j1 - j0 >= 8) {
		for (int i = i0; i < i1; i++) {
			for (int jj = j0; jj < j1; jj += 8) {
				const int j = jj + 8 <= j1 ? jj : j1 - 8;
				const float *x = xb + ((size_t)(i - p->padT) * p->W + (j - p->padL)) * xs;
				float *y = yb + ((size_t)i * p->oW + j) * ys;
				for (int s = 0; s < nslot; s++) {
					const int c0 = 16 * s, o0 = c0 * m + 16 * q;
					const int ci = cv - c0 < 16 ? cv - c0 : 16;
					const int oc = ci * m - 16 * q < 16 ? ci * m - 16 * q : 16;
					if (oc <= 0 && !full)
						continue;
					const __mmask16 ko = rt_dw_cv_mask_z_(oc);
					const __m512 vb = rt_dw_cv_bias_z_(bb && oc > 0 ? bb + o0 : NULL, ko);
					rt_dw_cv_3x3s1_z_(p, perm, idx, xs, ys, Mp, x + c0, y + o0, wb + o0, vb,
					                  rt_dw_cv_mask_z_(ci), full, ko, oc > 0 ? oc : 0);
				}
			}
		}
		return;
	}
	const float *xp[8];
	float *yp[8];
	int np = 0;
	for (int i = i0; i < i1; i++) {
		for (int j = j0; j < j1; j++) {
			xp[np] = nu && nv ? xb + ((size_t)(i * p->sH - p->padT + u0 * p->dH) * p->W +
			                          (size_t)(j * p->sW - p->padL + v0 * p->dW)) * xs
			                  : xb;
			yp[np] = yb + ((size_t)i * p->oW + j) * ys;
			if (++np < 8 && !(i == i1 - 1 && j == j1 - 1))
				continue;
			for (int r = np; r < 8; r++) { /* a short block repeats its last pixel */
				xp[r] = xp[np - 1];
				yp[r] = yp[np - 1];
			}
			rt_dw_cv_blk_z_(p, perm, idx, m, q, xs, Mp, xp, yp, np, wq, bb, cv, nslot, full,
			                nu, nv);
			np = 0;
		}
	}
}

/* One view (see the top), pass q of the multiplier m.
 *   xb: input [H][W], pixel stride xs     yb: out: [oH][oW], pixel stride ys
 *   wb: packed weights [kH*kW][Mp] at the view's first output channel
 *   bb: bias at the view's first output channel, or NULL
 *   cv: input channels in the view (<= 0 for an all-padding half block)
 *   nslot: vectors of 16 channels to compute per pixel
 *   full: blocked output (all lanes written, zero past the channels) */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_cv_view_z_(const struct rt_conv2d *p, int fast, int perm, int m, int q,
                 const float *xb, int xs, float *yb, int ys, const float *wb, int Mp,
                 const float *bb, int cv, int nslot, int full)
{
	const int oH = p->oH, oW = p->oW;
	int ia = rt_dw_cv_lo_(p->padT, p->sH), ja = rt_dw_cv_lo_(p->padL, p->sW);
	ia = ia < oH ? ia : oH;
	ja = ja < oW ? ja : oW;
	const int ib = rt_dw_cv_hi_(p->H, (p->kH - 1) * p->dH + 1, p->padT, p->sH, oH, ia);
	const int jb = rt_dw_cv_hi_(p->W, (p->kW - 1) * p->dW + 1, p->padL, p->sW, oW, ja);
	const __m512i idx = perm ? rt_dw_cv_idx_z_(m, q) : _mm512_setzero_si512();
	/* interior, border columns of the interior rows, border rows with their corners */
	rt_dw_cv_rect_z_(p, fast, perm, idx, m, q, xb, xs, yb, ys, wb, Mp, bb, cv, nslot, full, ia,
	                 ib, ja, jb);
	for (int j = 0; j < oW; j++)
		if (j < ja || j >= jb)
			rt_dw_cv_rect_z_(p, 0, perm, idx, m, q, xb, xs, yb, ys, wb, Mp, bb, cv, nslot,
			                 full, ia, ib, j, j + 1);
	for (int i = 0; i < oH; i++) {
		if (i >= ia && i < ib)
			continue;
		rt_dw_cv_rect_z_(p, 0, perm, idx, m, q, xb, xs, yb, ys, wb, Mp, bb, cv, nslot, full,
		                 i, i + 1, ja, jb);
		for (int j = 0; j < oW; j++)
			if (j < ja || j >= jb)
				rt_dw_cv_rect_z_(p, 0, perm, idx, m, q, xb, xs, yb, ys, wb, Mp, bb, cv, nslot,
				                 full, i, i + 1, j, j + 1);
	}
}

/* All N images: HWC (variants 0, 1) as one view per image and pass of the
 * multiplier; blocked (variants 8, 16) as one view per block of B channels. */
static inline __attribute__((target("avx512f"))) void
rt_dw_cv_z_(const struct rt_conv2d *p, int variant, const float *x, const float *wp,
            const float *b, float *y)
{
	const int m = p->M / p->C, Mp = (p->M + 15) / 16 * 16;
	const int fast = variant != 0 && p->kH == 3 && p->kW == 3 && p->sH == 1 && p->sW == 1 &&
	                 p->dH == 1 && p->dW == 1;
	const size_t xi = (size_t)p->H * p->W, yi = (size_t)p->oH * p->oW;
	for (int n = 0; n < p->N; n++) {
		if (variant == 8 || variant == 16) {
			const int B = variant, nb = (p->C + B - 1) / B;
			for (int cb = 0; cb < nb; cb++)
				rt_dw_cv_view_z_(p, fast, 0, 1, 0, x + ((size_t)n * nb + cb) * xi * B, B,
				                 y + ((size_t)n * nb + cb) * yi * B, B, wp + B * cb, Mp,
				                 b ? b + B * cb : NULL, p->C - B * cb, B / 16, 1);
			continue;
		}
		const float *xn = x + (size_t)n * xi * p->C;
		float *yn = y + (size_t)n * yi * p->M;
		const int nslot = (p->C + 16 - 1) / 16;
		if (m == 1)
			rt_dw_cv_view_z_(p, fast, 0, 1, 0, xn, p->C, yn, p->M, wp, Mp, b, p->C, nslot, 0);
		else
			for (int q = 0; q < m; q++)
				rt_dw_cv_view_z_(p, fast, 1, m, q, xn, p->C, yn, p->M, wp, Mp, b, p->C,
				                 nslot, 0);
	}
}
#endif /* RT_SGEMM_HAVE_AVX512 */

#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
/* ---- AVX2: 8 channels per vector ---------------------------------------- */

/* Lanes l < r set (r may be <= 0 or > 8), as maskload and maskstore want. */
static inline __attribute__((always_inline, target("avx2,fma"))) __m256i
rt_dw_cv_mask_y_(int r)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __attribute__((always_inline, target("avx2,fma"))) __m256
rt_dw_cv_ld_y_(int perm, __m256i idx, __m256i kc, const float *xp)
{
	const __m256 v = _mm256_maskload_ps(xp, kc);
	return perm ? _mm256_permutevar8x32_ps(v, idx) : v;
}

static inline __attribute__((always_inline, target("avx2,fma"))) __m256
rt_dw_cv_bias_y_(const float *bb, __m256i ko)
{
	return bb ? _mm256_maskload_ps(bb, ko) : _mm256_setzero_ps();
}

static inline __attribute__((always_inline, target("avx2,fma"))) __m256i
rt_dw_cv_idx_y_(int m, int q)
{
	int t[8];
	for (int l = 0; l < 8; l++)
		t[l] = (8 * q + l) / m;
	return _mm256_loadu_si256((const __m256i *)(const void *)t);
}

static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_cv_st_y_(const struct rt_conv2d *p, float *y, int full, __m256i ko, int on, __m256 v)
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
	default:
		if (full)
			_mm256_storeu_ps(y, _mm256_and_ps(v, _mm256_castsi256_ps(ko)));
		else
			_mm256_maskstore_ps(y, ko, v);
		for (int l = 0; l < on; l++)
			y[l] = rt_act_apply(p->act, p->alpha, p->beta, y[l]);
		return;
	}
	if (full)
		_mm256_storeu_ps(y, _mm256_and_ps(v, _mm256_castsi256_ps(ko)));
	else
		_mm256_maskstore_ps(y, ko, v);
}

/* As rt_dw_cv_px_z_, 8 channels per vector. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_cv_px_y_(int R, const struct rt_conv2d *p, int perm, __m256i idx, int xs, int Mp,
               const float *const *xp, float *const *yp, int np, const float *wq, int nu,
               int nv, __m256 vb, __m256i kc, int full, __m256i ko, int on)
{
	const float *x0 = xp[0], *x1 = xp[R > 1 ? 1 : 0], *x2 = xp[R > 2 ? 2 : 0];
	const float *x3 = xp[R > 3 ? 3 : 0], *x4 = xp[R > 4 ? 4 : 0], *x5 = xp[R > 5 ? 5 : 0];
	const float *x6 = xp[R > 6 ? 6 : 0], *x7 = xp[R > 7 ? 7 : 0];
	const size_t rs = (size_t)p->dH * p->W * xs, cs = (size_t)p->dW * xs; /* tap steps */
	__m256 a0 = vb, a1 = vb, a2 = vb, a3 = vb, a4 = vb, a5 = vb, a6 = vb, a7 = vb;
	for (int du = 0; du < nu; du++) {
		const float *wt = wq + (size_t)du * p->kW * Mp;
		size_t t = du * rs;
		for (int dv = 0; dv < nv; dv++, wt += Mp, t += cs) {
			const __m256 wv = _mm256_loadu_ps(wt);
			a0 = _mm256_fmadd_ps(rt_dw_cv_ld_y_(perm, idx, kc, x0 + t), wv, a0);
			if (R > 1) a1 = _mm256_fmadd_ps(rt_dw_cv_ld_y_(perm, idx, kc, x1 + t), wv, a1);
			if (R > 2) a2 = _mm256_fmadd_ps(rt_dw_cv_ld_y_(perm, idx, kc, x2 + t), wv, a2);
			if (R > 3) a3 = _mm256_fmadd_ps(rt_dw_cv_ld_y_(perm, idx, kc, x3 + t), wv, a3);
			if (R > 4) a4 = _mm256_fmadd_ps(rt_dw_cv_ld_y_(perm, idx, kc, x4 + t), wv, a4);
			if (R > 5) a5 = _mm256_fmadd_ps(rt_dw_cv_ld_y_(perm, idx, kc, x5 + t), wv, a5);
			if (R > 6) a6 = _mm256_fmadd_ps(rt_dw_cv_ld_y_(perm, idx, kc, x6 + t), wv, a6);
			if (R > 7) a7 = _mm256_fmadd_ps(rt_dw_cv_ld_y_(perm, idx, kc, x7 + t), wv, a7);
		}
	}
	rt_dw_cv_st_y_(p, yp[0], full, ko, on, a0);
	if (R > 1 && np > 1) rt_dw_cv_st_y_(p, yp[1], full, ko, on, a1);
	if (R > 2 && np > 2) rt_dw_cv_st_y_(p, yp[2], full, ko, on, a2);
	if (R > 3 && np > 3) rt_dw_cv_st_y_(p, yp[3], full, ko, on, a3);
	if (R > 4 && np > 4) rt_dw_cv_st_y_(p, yp[4], full, ko, on, a4);
	if (R > 5 && np > 5) rt_dw_cv_st_y_(p, yp[5], full, ko, on, a5);
	if (R > 6 && np > 6) rt_dw_cv_st_y_(p, yp[6], full, ko, on, a6);
	if (R > 7 && np > 7) rt_dw_cv_st_y_(p, yp[7], full, ko, on, a7);
}

/* 3x3 stride 1, 4 adjacent interior pixels of a row (as rt_dw_cv_3x3s1_z_;
 * 4 accumulators, 6 inputs and 3 weights fill the 16 ymm registers). */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_cv_3x3s1_y_(const struct rt_conv2d *p, int perm, __m256i idx, int xs, int ys, int Mp,
                  const float *x, float *y, const float *wq, __m256 vb, __m256i kc, int full,
                  __m256i ko, int on)
{
	__m256 a0 = vb, a1 = vb, a2 = vb, a3 = vb;
	for (int u = 0; u < 3; u++) {
		const float *r = x + (size_t)u * p->W * xs;
		const __m256 w0 = _mm256_loadu_ps(wq + (size_t)(3 * u) * Mp);
		const __m256 w1 = _mm256_loadu_ps(wq + (size_t)(3 * u + 1) * Mp);
		const __m256 w2 = _mm256_loadu_ps(wq + (size_t)(3 * u + 2) * Mp);
		__m256 c;
		c = rt_dw_cv_ld_y_(perm, idx, kc, r);
		a0 = _mm256_fmadd_ps(c, w0, a0);
		c = rt_dw_cv_ld_y_(perm, idx, kc, r + xs);
		a0 = _mm256_fmadd_ps(c, w1, a0);
		a1 = _mm256_fmadd_ps(c, w0, a1);
		c = rt_dw_cv_ld_y_(perm, idx, kc, r + 2 * (size_t)xs);
		a0 = _mm256_fmadd_ps(c, w2, a0);
		a1 = _mm256_fmadd_ps(c, w1, a1);
		a2 = _mm256_fmadd_ps(c, w0, a2);
		c = rt_dw_cv_ld_y_(perm, idx, kc, r + 3 * (size_t)xs);
		a1 = _mm256_fmadd_ps(c, w2, a1);
		a2 = _mm256_fmadd_ps(c, w1, a2);
		a3 = _mm256_fmadd_ps(c, w0, a3);
		c = rt_dw_cv_ld_y_(perm, idx, kc, r + 4 * (size_t)xs);
		a2 = _mm256_fmadd_ps(c, w2, a2);
		a3 = _mm256_fmadd_ps(c, w1, a3);
		c = rt_dw_cv_ld_y_(perm, idx, kc, r + 5 * (size_t)xs);
		a3 = _mm256_fmadd_ps(c, w2, a3);
	}
	rt_dw_cv_st_y_(p, y, full, ko, on, a0);
	rt_dw_cv_st_y_(p, y + ys, full, ko, on, a1);
	rt_dw_cv_st_y_(p, y + 2 * (size_t)ys, full, ko, on, a2);
	rt_dw_cv_st_y_(p, y + 3 * (size_t)ys, full, ko, on, a3);
}

/* One block of np (1..8) pixels sharing a window of nu x nv taps: every
 * vector of channels (slot) of the view. xp[r], yp[r]: pixel r's first tap
 * and output, at channel 0 of the view; wq: the weights of the first tap. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_cv_blk_y_(const struct rt_conv2d *p, int perm, __m256i idx, int m, int q, int xs, int Mp,
                const float *const *xp, float *const *yp, int np, const float *wq,
                const float *bb, int cv, int nslot, int full, int nu, int nv)
{
	for (int s = 0; s < nslot; s++) {
		const int c0 = 8 * s, o0 = c0 * m + 8 * q;
		const int ci = cv - c0 < 8 ? cv - c0 : 8;                 /* input channels */
		const int oc = ci * m - 8 * q < 8 ? ci * m - 8 * q : 8; /* output channels */
		if (oc <= 0 && !full)
			continue;
		const __m256i ko = rt_dw_cv_mask_y_(oc), kc = rt_dw_cv_mask_y_(ci);
		const __m256 vb = rt_dw_cv_bias_y_(bb && oc > 0 ? bb + o0 : NULL, ko);
		const float *xq[8] = {xp[0] + c0, xp[1] + c0, xp[2] + c0, xp[3] + c0,
		                      xp[4] + c0, xp[5] + c0, xp[6] + c0, xp[7] + c0};
		float *yq[8] = {yp[0] + o0, yp[1] + o0, yp[2] + o0, yp[3] + o0,
		                yp[4] + o0, yp[5] + o0, yp[6] + o0, yp[7] + o0};
		const int on = oc > 0 ? oc : 0;
		if (np > 4)
			rt_dw_cv_px_y_(8, p, perm, idx, xs, Mp, xq, yq, np, wq + o0, nu, nv, vb, kc, full,
			               ko, on);
		else if (np > 1)
			rt_dw_cv_px_y_(4, p, perm, idx, xs, Mp, xq, yq, np, wq + o0, nu, nv, vb, kc, full,
			               ko, on);
		else
			rt_dw_cv_px_y_(1, p, perm, idx, xs, Mp, xq, yq, np, wq + o0, nu, nv, vb, kc, full,
			               ko, on);
	}
}

/* Output pixels [i0, i1) x [j0, j1) of a view, all with the same window of
 * taps inside the input (the interior, one border row or column, a corner),
 * in blocks of up to 8 in raster order; with `fast` (3x3 stride 1) a full
 * window goes in strips of 4 adjacent pixels, the last strip of a row
 * overlapping the one before. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_cv_rect_y_(const struct rt_conv2d *p, int fast, int perm, __m256i idx, int m, int q,
                 const float *xb, int xs, float *yb, int ys, const float *wb, int Mp,
                 const float *bb, int cv, int nslot, int full, int i0, int i1, int j0, int j1)
{
	if (i0 >= i1 || j0 >= j1)
		return;
	/* the window of the rectangle's first pixel: taps u0 <= u < u1, v0 <= v < v1 */
	const int bi = i0 * p->sH - p->padT, bj = j0 * p->sW - p->padL;
	const int u0 = bi >= 0 ? 0 : (p->dH - 1 - bi) / p->dH;
	const int v0 = bj >= 0 ? 0 : (p->dW - 1 - bj) / p->dW;
	int u1 = bi < p->H ? (p->H - 1 - bi) / p->dH + 1 : 0;
	int v1 = bj < p->W ? (p->W - 1 - bj) / p->dW + 1 : 0;
	u1 = u1 < p->kH ? u1 : p->kH;
	v1 = v1 < p->kW ? v1 : p->kW;
	const int nu = u1 > u0 ? u1 - u0 : 0, nv = v1 > v0 ? v1 - v0 : 0;
	const float *wq = nu && nv ? wb + (size_t)(u0 * p->kW + v0) * Mp : wb;
	if (fast && nu == 3 && nv == 3 && j1 - j0 >= 4) {
		for (int i = i0; i < i1; i++) {
			for (int jj = j0; jj < j1; jj += 4) {
				const int j = jj + 4 <= j1 ? jj : j1 - 4;
				const float *x = xb + ((size_t)(i - p->padT) * p->W + (j - p->padL)) * xs;
				float *y = yb + ((size_t)i * p->oW + j) * ys;
				for (int s = 0; s < nslot; s++) {
					const int c0 = 8 * s, o0 = c0 * m + 8 * q;
					const int ci = cv - c0 < 8 ? cv - c0 : 8;
					const int oc = ci * m - 8 * q < 8 ? ci * m - 8 * q : 8;
					if (oc <= 0 && !full)
						continue;
					const __m256i ko = rt_dw_cv_mask_y_(oc);
					const __m256 vb = rt_dw_cv_bias_y_(bb && oc > 0 ? bb + o0 : NULL, ko);
					rt_dw_cv_3x3s1_y_(p, perm, idx, xs, ys, Mp, x + c0, y + o0, wb + o0, vb,
					                  rt_dw_cv_mask_y_(ci), full, ko, oc > 0 ? oc : 0);
				}
			}
		}
		return;
	}
	const float *xp[8];
	float *yp[8];
	int np = 0;
	for (int i = i0; i < i1; i++) {
		for (int j = j0; j < j1; j++) {
			xp[np] = nu && nv ? xb + ((size_t)(i * p->sH - p->padT + u0 * p->dH) * p->W +
			                          (size_t)(j * p->sW - p->padL + v0 * p->dW)) * xs
			                  : xb;
			yp[np] = yb + ((size_t)i * p->oW + j) * ys;
			if (++np < 8 && !(i == i1 - 1 && j == j1 - 1))
				continue;
			for (int r = np; r < 8; r++) { /* a short block repeats its last pixel */
				xp[r] = xp[np - 1];
				yp[r] = yp[np - 1];
			}
			rt_dw_cv_blk_y_(p, perm, idx, m, q, xs, Mp, xp, yp, np, wq, bb, cv, nslot, full,
			                nu, nv);
			np = 0;
		}
	}
}

/* One view (see the top), pass q of the multiplier m.
 *   xb: input [H][W], pixel stride xs     yb: out: [oH][oW], pixel stride ys
 *   wb: packed weights [kH*kW][Mp] at the view's first output channel
 *   bb: bias at the view's first output channel, or NULL
 *   cv: input channels in the view (<= 0 for an all-padding half block)
 *   nslot: vectors of 8 channels to compute per pixel
 *   full: blocked output (all lanes written, zero past the channels) */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_cv_view_y_(const struct rt_conv2d *p, int fast, int perm, int m, int q,
                 const float *xb, int xs, float *yb, int ys, const float *wb, int Mp,
                 const float *bb, int cv, int nslot, int full)
{
	const int oH = p->oH, oW = p->oW;
	int ia = rt_dw_cv_lo_(p->padT, p->sH), ja = rt_dw_cv_lo_(p->padL, p->sW);
	ia = ia < oH ? ia : oH;
	ja = ja < oW ? ja : oW;
	const int ib = rt_dw_cv_hi_(p->H, (p->kH - 1) * p->dH + 1, p->padT, p->sH, oH, ia);
	const int jb = rt_dw_cv_hi_(p->W, (p->kW - 1) * p->dW + 1, p->padL, p->sW, oW, ja);
	const __m256i idx = perm ? rt_dw_cv_idx_y_(m, q) : _mm256_setzero_si256();
	/* interior, border columns of the interior rows, border rows with their corners */
	rt_dw_cv_rect_y_(p, fast, perm, idx, m, q, xb, xs, yb, ys, wb, Mp, bb, cv, nslot, full, ia,
	                 ib, ja, jb);
	for (int j = 0; j < oW; j++)
		if (j < ja || j >= jb)
			rt_dw_cv_rect_y_(p, 0, perm, idx, m, q, xb, xs, yb, ys, wb, Mp, bb, cv, nslot,
			                 full, ia, ib, j, j + 1);
	for (int i = 0; i < oH; i++) {
		if (i >= ia && i < ib)
			continue;
		rt_dw_cv_rect_y_(p, 0, perm, idx, m, q, xb, xs, yb, ys, wb, Mp, bb, cv, nslot, full,
		                 i, i + 1, ja, jb);
		for (int j = 0; j < oW; j++)
			if (j < ja || j >= jb)
				rt_dw_cv_rect_y_(p, 0, perm, idx, m, q, xb, xs, yb, ys, wb, Mp, bb, cv, nslot,
				                 full, i, i + 1, j, j + 1);
	}
}

/* All N images: HWC (variants 0, 1) as one view per image and pass of the
 * multiplier; blocked (variants 8, 16) as one view per block of B channels. */
static inline __attribute__((target("avx2,fma"))) void
rt_dw_cv_y_(const struct rt_conv2d *p, int variant, const float *x, const float *wp,
            const float *b, float *y)
{
	const int m = p->M / p->C, Mp = (p->M + 15) / 16 * 16;
	const int fast = variant != 0 && p->kH == 3 && p->kW == 3 && p->sH == 1 && p->sW == 1 &&
	                 p->dH == 1 && p->dW == 1;
	const size_t xi = (size_t)p->H * p->W, yi = (size_t)p->oH * p->oW;
	for (int n = 0; n < p->N; n++) {
		if (variant == 8 || variant == 16) {
			const int B = variant, nb = (p->C + B - 1) / B;
			for (int cb = 0; cb < nb; cb++)
				rt_dw_cv_view_y_(p, fast, 0, 1, 0, x + ((size_t)n * nb + cb) * xi * B, B,
				                 y + ((size_t)n * nb + cb) * yi * B, B, wp + B * cb, Mp,
				                 b ? b + B * cb : NULL, p->C - B * cb, B / 8, 1);
			continue;
		}
		const float *xn = x + (size_t)n * xi * p->C;
		float *yn = y + (size_t)n * yi * p->M;
		const int nslot = (p->C + 8 - 1) / 8;
		if (m == 1)
			rt_dw_cv_view_y_(p, fast, 0, 1, 0, xn, p->C, yn, p->M, wp, Mp, b, p->C, nslot, 0);
		else
			for (int q = 0; q < m; q++)
				rt_dw_cv_view_y_(p, fast, 1, m, q, xn, p->C, yn, p->M, wp, Mp, b, p->C,
				                 nslot, 0);
	}
}
#endif /* RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2 */

/* One view in portable C, every output pixel: y = bias, then one
 * multiply-add pass over the channels per tap inside the input. With `full`
 * the output has B lanes per pixel and those past the channels are zero. */
static inline void rt_dw_cv_view_c_(const struct rt_conv2d *p, int m,
                                    const float *xb, int xs, /* input view */
                                    float *yb, int ys,       /* out: output view */
                                    const float *wb, int Mp, const float *bb, int cv,
                                    int full)
{
	const int mo = cv * m; /* output channels in the view */
	for (int i = 0; i < p->oH; i++) {
		for (int j = 0; j < p->oW; j++) {
			float *restrict yo = yb + ((size_t)i * p->oW + j) * ys;
			for (int o = 0; o < mo; o++)
				yo[o] = bb ? bb[o] : 0.0f;
			for (int u = 0; u < p->kH; u++) {
				const int ih = i * p->sH - p->padT + u * p->dH;
				if (ih < 0 || ih >= p->H)
					continue;
				for (int v = 0; v < p->kW; v++) {
					const int iw = j * p->sW - p->padL + v * p->dW;
					if (iw < 0 || iw >= p->W)
						continue;
					const float *restrict xt = xb + ((size_t)ih * p->W + iw) * xs;
					const float *restrict wt = wb + (size_t)(u * p->kW + v) * Mp;
					if (m == 1)
						for (int c = 0; c < cv; c++)
							yo[c] += xt[c] * wt[c];
					else
						for (int o = 0; o < mo; o++)
							yo[o] += xt[o / m] * wt[o];
				}
			}
			for (int o = 0; o < mo; o++)
				yo[o] = rt_act_apply(p->act, p->alpha, p->beta, yo[o]);
			for (int o = mo > 0 ? mo : 0; full && o < ys; o++)
				yo[o] = 0.0f;
		}
	}
}

RT_FN void rt_conv_depthwise_cvec(const struct rt_conv2d *p, int variant,
                                  const float *x, /* [N][H][W][C] (0, 1) or
                                                     [N][ceil(C/B)][H][W][B] (B = 8, 16) */
                                  const float *w, /* packed [kH*kW][Mp], Mp = M rounded up to 16 */
                                  const float *b, /* [M] or NULL */
                                  float *y,       /* out: [N][oH][oW][M] or
                                                     [N][ceil(M/B)][oH][oW][B] */
                                  float *ws)      /* unused */
{
	(void)ws;
#if RT_SGEMM_HAVE_AVX512
	if (p->isa == RT_SGEMM_ISA_AVX512 && variant != 8) {
		rt_dw_cv_z_(p, variant, x, w, b, y);
		return;
	}
#endif
#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
	if (p->isa == RT_SGEMM_ISA_AVX512 || p->isa == RT_SGEMM_ISA_AVX2) {
		rt_dw_cv_y_(p, variant, x, w, b, y);
		return;
	}
#endif
	const int Mp = (p->M + 15) / 16 * 16;
	const size_t xi = (size_t)p->H * p->W, yi = (size_t)p->oH * p->oW;
	for (int n = 0; n < p->N; n++) {
		if (variant == 8 || variant == 16) {
			const int B = variant, nb = (p->C + B - 1) / B;
			for (int cb = 0; cb < nb; cb++) {
				const int cv = p->C - B * cb < B ? p->C - B * cb : B;
				rt_dw_cv_view_c_(p, 1, x + ((size_t)n * nb + cb) * xi * B, B,
				                 y + ((size_t)n * nb + cb) * yi * B, B, w + B * cb, Mp,
				                 b ? b + B * cb : NULL, cv, 1);
			}
			continue;
		}
		rt_dw_cv_view_c_(p, p->M / p->C, x + (size_t)n * xi * p->C, p->C,
		                 y + (size_t)n * yi * p->M, p->M, w, Mp, b, p->C, 0);
	}
}
