/* conv_depthwise_group_direct_hwc.c - direct grouped convolution on HWC
 * images, vectorised across output channels (rows
 * conv_depthwise_group_direct_hwc and conv_depthwise_group_narrow_hwc of
 * fam_depthwise.def).
 *
 * ONNX Conv with group g: output channel g*Mg + o reads only input channels
 * [g*Cg, (g+1)*Cg), Mg = M/group, Cg = C/group:
 *   y[i][j][g*Mg + o] = b[g*Mg + o] + sum over u, v, c < Cg of
 *       w[g*Mg + o][c][u][v] * x[i*sH - padT + u*dH][j*sW - padL + v*dW][g*Cg + c]
 * (reads outside the input are zero), then the epilogue.
 *
 * What changes (variant 0): the weights are packed at compile time as
 * [group][kH][kW][Cg][Mgp] (prep_dw_gdirect_hwc_pack; Mgp = Mg rounded up to
 * 16, zero past Mg), so for one tap and input channel the weights of 16
 * consecutive output channels are one vector load. A register tile of
 * 6 output pixels x 4 vectors (64 output channels) of one group, AVX-512
 * (4 pixels x 3 vectors of 8 with AVX2), accumulates over every tap and input
 * channel of the group: per step one broadcast per pixel, one load per
 * vector, 24 (12) FMAs, no extra memory. Loops, outermost first: image,
 * group, chunk of output channels (its weights stay in L2 while every pixel
 * is computed), pixels. Pixels are grouped into rectangles that share the
 * same window of taps inside the input (the interior, each border row and
 * column, the corners), so the tile never tests bounds; a rectangle is cut
 * into blocks of 6 (4) pixels in raster order across row ends. Any group,
 * kernel, stride, padding and dilation; no workspace.
 *
 * Variant 1 (row conv_depthwise_group_narrow_hwc) is for narrow groups as in
 * ResNeXt (Mg <= 8 dividing 16, Cg <= Mg), where a vector inside one group
 * would leave most lanes idle: a vector of 16 output channels covers 16/Mg
 * whole groups, whose Cg*16/Mg <= 16 input channels are loaded as one
 * vector per pixel and tap; each input channel c of the groups is then one
 * permute (lane l takes input lane (l/Mg)*Cg + c) and one FMA with full
 * lanes. Weights packed [ceil(M/16)][kH][kW][Cg][16]; 8 pixels per tile.
 * SIMD: AVX-512F when p->isa is RT_SGEMM_ISA_AVX512, AVX2 + FMA when it is
 * RT_SGEMM_ISA_AVX2 (variant 0 only), portable C otherwise. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
#include <immintrin.h>

/* First output index whose window starts inside the input, ceil(pad / s). */
static inline int rt_dw_gd_lo_(int pad, int s)
{
	return (pad + s - 1) / s;
}

/* One past the last output index whose window ends inside the input
 * (i*s - pad + span <= in), at least lo and at most o. */
static inline int rt_dw_gd_hi_(int in, int span, int pad, int s, int o, int lo)
{
	int hi = in - span + pad >= 0 ? (in - span + pad) / s + 1 : 0;
	hi = hi < o ? hi : o;
	return hi > lo ? hi : lo;
}
#endif

#if RT_SGEMM_HAVE_AVX512
/* ---- AVX-512: vectors of 16 output channels ---------------------------- */

static inline __attribute__((always_inline, target("avx512f"))) __mmask16
rt_dw_gd_mask_z_(int r)
{
	return (__mmask16)(r >= 16 ? 0xFFFF : r <= 0 ? 0 : (1u << r) - 1u);
}

static inline __attribute__((always_inline, target("avx512f"))) __m512
rt_dw_gd_act_z_(const struct rt_conv2d *p, __m512 v)
{
	switch (p->act) {
	case RT_ACT_RELU:
		return _mm512_max_ps(v, _mm512_setzero_ps());
	case RT_ACT_LEAKY_RELU:
		return _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), v,
		                          _mm512_set1_ps(p->alpha));
	case RT_ACT_CLIP:
		return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(p->alpha)),
		                     _mm512_set1_ps(p->beta));
	default:
		return v;
	}
}

/* Stores act of the V vectors of one output pixel: vector v gets the first
 * on[v] lanes (mask ko[v]) of y + 16v. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_gd_st_z_(const struct rt_conv2d *p, float *y, int V, const __mmask16 *ko, const int *on,
               __m512 v0, __m512 v1, __m512 v2, __m512 v3)
{
	const int scalar = p->act == RT_ACT_SIGMOID || p->act == RT_ACT_TANH;
	_mm512_mask_storeu_ps(y, ko[0], rt_dw_gd_act_z_(p, v0));
	if (V > 1) _mm512_mask_storeu_ps(y + 16, ko[1], rt_dw_gd_act_z_(p, v1));
	if (V > 2) _mm512_mask_storeu_ps(y + 32, ko[2], rt_dw_gd_act_z_(p, v2));
	if (V > 3) _mm512_mask_storeu_ps(y + 48, ko[3], rt_dw_gd_act_z_(p, v3));
	for (int v = 0; scalar && v < V; v++) /* no vector form: apply in place */
		for (int l = 0; l < on[v]; l++)
			y[16 * v + l] = rt_act_apply(p->act, p->alpha, p->beta, y[16 * v + l]);
}

/* R (1 or 6) pixels x V (1..4) vectors of 16 output channels of one
 * group (constants after inlining); the np <= R pixels share a window of
 * nu x nv taps inside the input.
 *   xp[r]: pixel r's first tap at the group's first input channel (pixels
 *          past np repeat the last one)
 *   yp[r]: output pixel r at the chunk's first output channel
 *   wq:    the chunk's packed weights at the first tap ([kW][Cg][Mgp] per
 *          tap row, see rt_conv_depthwise_gdirect_hwc)
 *   vb, ko, on: per vector, bias, store mask and output channels */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_gd_px_z_(int R, int V, const struct rt_conv2d *p, const float *const *xp,
               float *const *yp, int np, const float *wq, int nu, int nv, int cg, int mgp,
               const __m512 *vb, const __mmask16 *ko, const int *on)
{
	const float *x0 = xp[0], *x1 = xp[1], *x2 = xp[2], *x3 = xp[3], *x4 = xp[4], *x5 = xp[5];
	__m512 a00 = vb[0], a01 = vb[1], a02 = vb[2], a03 = vb[3];
	__m512 a10 = vb[0], a11 = vb[1], a12 = vb[2], a13 = vb[3];
	__m512 a20 = vb[0], a21 = vb[1], a22 = vb[2], a23 = vb[3];
	__m512 a30 = vb[0], a31 = vb[1], a32 = vb[2], a33 = vb[3];
	__m512 a40 = vb[0], a41 = vb[1], a42 = vb[2], a43 = vb[3];
	__m512 a50 = vb[0], a51 = vb[1], a52 = vb[2], a53 = vb[3];
	const size_t rs = (size_t)p->dH * p->W * p->C, cs = (size_t)p->dW * p->C;
	for (int du = 0; du < nu; du++) {
		for (int dv = 0; dv < nv; dv++) {
			const size_t t = du * rs + dv * cs; /* tap offset in the input */
			const float *wt = wq + ((size_t)du * p->kW + dv) * cg * mgp;
			for (int c = 0; c < cg; c++, wt += mgp) {
				const __m512 w0 = _mm512_loadu_ps(wt);
				const __m512 w1 = V > 1 ? _mm512_loadu_ps(wt + 16) : w0;
				const __m512 w2 = V > 2 ? _mm512_loadu_ps(wt + 32) : w0;
				const __m512 w3 = V > 3 ? _mm512_loadu_ps(wt + 48) : w0;
				__m512 xb = _mm512_set1_ps(x0[t + c]);
				a00 = _mm512_fmadd_ps(xb, w0, a00);
				if (V > 1) a01 = _mm512_fmadd_ps(xb, w1, a01);
				if (V > 2) a02 = _mm512_fmadd_ps(xb, w2, a02);
				if (V > 3) a03 = _mm512_fmadd_ps(xb, w3, a03);
				if (R > 1) {
					xb = _mm512_set1_ps(x1[t + c]);
					a10 = _mm512_fmadd_ps(xb, w0, a10);
					if (V > 1) a11 = _mm512_fmadd_ps(xb, w1, a11);
					if (V > 2) a12 = _mm512_fmadd_ps(xb, w2, a12);
					if (V > 3) a13 = _mm512_fmadd_ps(xb, w3, a13);
				}
				if (R > 2) {
					xb = _mm512_set1_ps(x2[t + c]);
					a20 = _mm512_fmadd_ps(xb, w0, a20);
					if (V > 1) a21 = _mm512_fmadd_ps(xb, w1, a21);
					if (V > 2) a22 = _mm512_fmadd_ps(xb, w2, a22);
					if (V > 3) a23 = _mm512_fmadd_ps(xb, w3, a23);
				}
				if (R > 3) {
					xb = _mm512_set1_ps(x3[t + c]);
					a30 = _mm512_fmadd_ps(xb, w0, a30);
					if (V > 1) a31 = _mm512_fmadd_ps(xb, w1, a31);
					if (V > 2) a32 = _mm512_fmadd_ps(xb, w2, a32);
					if (V > 3) a33 = _mm512_fmadd_ps(xb, w3, a33);
				}
				if (R > 4) {
					xb = _mm512_set1_ps(x4[t + c]);
					a40 = _mm512_fmadd_ps(xb, w0, a40);
					if (V > 1) a41 = _mm512_fmadd_ps(xb, w1, a41);
					if (V > 2) a42 = _mm512_fmadd_ps(xb, w2, a42);
					if (V > 3) a43 = _mm512_fmadd_ps(xb, w3, a43);
				}
				if (R > 5) {
					xb = _mm512_set1_ps(x5[t + c]);
					a50 = _mm512_fmadd_ps(xb, w0, a50);
					if (V > 1) a51 = _mm512_fmadd_ps(xb, w1, a51);
					if (V > 2) a52 = _mm512_fmadd_ps(xb, w2, a52);
					if (V > 3) a53 = _mm512_fmadd_ps(xb, w3, a53);
				}
			}
		}
	}
	rt_dw_gd_st_z_(p, yp[0], V, ko, on, a00, a01, a02, a03);
	if (R > 1 && np > 1)
		rt_dw_gd_st_z_(p, yp[1], V, ko, on, a10, a11, a12, a13);
	if (R > 2 && np > 2)
		rt_dw_gd_st_z_(p, yp[2], V, ko, on, a20, a21, a22, a23);
	if (R > 3 && np > 3)
		rt_dw_gd_st_z_(p, yp[3], V, ko, on, a30, a31, a32, a33);
	if (R > 4 && np > 4)
		rt_dw_gd_st_z_(p, yp[4], V, ko, on, a40, a41, a42, a43);
	if (R > 5 && np > 5)
		rt_dw_gd_st_z_(p, yp[5], V, ko, on, a50, a51, a52, a53);
}

/* Variant 1's tile: R (1 or 8) pixels x one vector of 16 output channels
 * that covers 16/Mg whole groups (Mg <= 8 divides 16, Cg <= Mg), so the
 * groups' Cg*16/Mg input channels are one vector: per tap one masked load per
 * pixel (kc), then per input channel c one permute (idx[c]: lane l takes
 * input lane (l/Mg)*Cg + c) and one FMA. wq: the vector's packed weights at
 * the first tap, [kW][Cg][16] per tap row. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_gd_pxn_z_(int R, const struct rt_conv2d *p, const float *const *xp, float *const *yp,
                int np, const float *wq, int nu, int nv, int cg, const __m512i *idx,
                __mmask16 kc, __m512 vb, __mmask16 ko, int on)
{
	const float *x0 = xp[0], *x1 = xp[1], *x2 = xp[2], *x3 = xp[3];
	const float *x4 = xp[4], *x5 = xp[5], *x6 = xp[6], *x7 = xp[7];
	const size_t rs = (size_t)p->dH * p->W * p->C, cs = (size_t)p->dW * p->C;
	__m512 a0 = vb, a1 = vb, a2 = vb, a3 = vb, a4 = vb, a5 = vb, a6 = vb, a7 = vb;
	for (int du = 0; du < nu; du++) {
		for (int dv = 0; dv < nv; dv++) {
			const size_t t = du * rs + dv * cs; /* tap offset in the input */
			const float *wt = wq + ((size_t)du * p->kW + dv) * cg * 16;
			const __m512 v0 = _mm512_maskz_loadu_ps(kc, x0 + t);
			const __m512 v1 = R > 1 ? _mm512_maskz_loadu_ps(kc, x1 + t) : v0;
			const __m512 v2 = R > 2 ? _mm512_maskz_loadu_ps(kc, x2 + t) : v0;
			const __m512 v3 = R > 3 ? _mm512_maskz_loadu_ps(kc, x3 + t) : v0;
			const __m512 v4 = R > 4 ? _mm512_maskz_loadu_ps(kc, x4 + t) : v0;
			const __m512 v5 = R > 5 ? _mm512_maskz_loadu_ps(kc, x5 + t) : v0;
			const __m512 v6 = R > 6 ? _mm512_maskz_loadu_ps(kc, x6 + t) : v0;
			const __m512 v7 = R > 7 ? _mm512_maskz_loadu_ps(kc, x7 + t) : v0;
			for (int c = 0; c < cg; c++, wt += 16) {
				const __m512 w = _mm512_loadu_ps(wt);
				const __m512i ic = idx[c];
				a0 = _mm512_fmadd_ps(_mm512_permutexvar_ps(ic, v0), w, a0);
				if (R > 1) a1 = _mm512_fmadd_ps(_mm512_permutexvar_ps(ic, v1), w, a1);
				if (R > 2) a2 = _mm512_fmadd_ps(_mm512_permutexvar_ps(ic, v2), w, a2);
				if (R > 3) a3 = _mm512_fmadd_ps(_mm512_permutexvar_ps(ic, v3), w, a3);
				if (R > 4) a4 = _mm512_fmadd_ps(_mm512_permutexvar_ps(ic, v4), w, a4);
				if (R > 5) a5 = _mm512_fmadd_ps(_mm512_permutexvar_ps(ic, v5), w, a5);
				if (R > 6) a6 = _mm512_fmadd_ps(_mm512_permutexvar_ps(ic, v6), w, a6);
				if (R > 7) a7 = _mm512_fmadd_ps(_mm512_permutexvar_ps(ic, v7), w, a7);
			}
		}
	}
	rt_dw_gd_st_z_(p, yp[0], 1, &ko, &on, a0, a0, a0, a0);
	if (R > 1 && np > 1)
		rt_dw_gd_st_z_(p, yp[1], 1, &ko, &on, a1, a1, a1, a1);
	if (R > 2 && np > 2)
		rt_dw_gd_st_z_(p, yp[2], 1, &ko, &on, a2, a2, a2, a2);
	if (R > 3 && np > 3)
		rt_dw_gd_st_z_(p, yp[3], 1, &ko, &on, a3, a3, a3, a3);
	if (R > 4 && np > 4)
		rt_dw_gd_st_z_(p, yp[4], 1, &ko, &on, a4, a4, a4, a4);
	if (R > 5 && np > 5)
		rt_dw_gd_st_z_(p, yp[5], 1, &ko, &on, a5, a5, a5, a5);
	if (R > 6 && np > 6)
		rt_dw_gd_st_z_(p, yp[6], 1, &ko, &on, a6, a6, a6, a6);
	if (R > 7 && np > 7)
		rt_dw_gd_st_z_(p, yp[7], 1, &ko, &on, a7, a7, a7, a7);
}

/* One block of np pixels (see rt_dw_gd_px_z_), V vectors: picks the tile.
 * narrow: variant 1's tile (rt_dw_gd_pxn_z_) with its index vectors idx and
 * input mask kc. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_gd_blk_z_(const struct rt_conv2d *p, int V, const float *const *xp, float *const *yp,
                int np, const float *wq, int nu, int nv, int cg, int mgp, const __m512 *vb,
                const __mmask16 *ko, const int *on, const __m512i *idx, __mmask16 kc,
                int narrow)
{
	if (narrow) {
		if (np > 1)
			rt_dw_gd_pxn_z_(8, p, xp, yp, np, wq, nu, nv, cg, idx, kc, vb[0], ko[0], on[0]);
		else
			rt_dw_gd_pxn_z_(1, p, xp, yp, np, wq, nu, nv, cg, idx, kc, vb[0], ko[0], on[0]);
		return;
	}
	if (np > 1) {
		switch (V) {
		case 1: rt_dw_gd_px_z_(6, 1, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		case 2: rt_dw_gd_px_z_(6, 2, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		case 3: rt_dw_gd_px_z_(6, 3, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		default: rt_dw_gd_px_z_(6, 4, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		}
	} else {
		switch (V) {
		case 1: rt_dw_gd_px_z_(1, 1, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		case 2: rt_dw_gd_px_z_(1, 2, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		case 3: rt_dw_gd_px_z_(1, 3, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		default: rt_dw_gd_px_z_(1, 4, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		}
	}
}

/* Output pixels [i0, i1) x [j0, j1), all with the same window of taps inside
 * the input, for one chunk of V vectors of group g's output channels from
 * o0 on: blocks of 6 pixels (8 for narrow groups) in raster order.
 *   xg: image at the group's first input channel, [H][W][C]
 *   yc: output image at the chunk's first channel, [oH][oW][M]
 *   wc: the chunk's packed weights at tap 0 */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_gd_rect_z_(const struct rt_conv2d *p, int V, const float *xg, float *yc,
                 const float *wc, int cg, int mgp, const __m512 *vb, const __mmask16 *ko,
                 const int *on, const __m512i *idx, __mmask16 kc, int narrow, int i0, int i1,
                 int j0, int j1)
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
	const float *wq = nu && nv ? wc + (size_t)(u0 * p->kW + v0) * cg * mgp : wc;
	const int bs = narrow ? 8 : 6; /* pixels per tile */
	const float *xp[8];
	float *yp[8];
	int np = 0;
	for (int i = i0; i < i1; i++) {
		for (int j = j0; j < j1; j++) {
			xp[np] = nu && nv ? xg + ((size_t)(i * p->sH - p->padT + u0 * p->dH) * p->W +
			                          (size_t)(j * p->sW - p->padL + v0 * p->dW)) * p->C
			                  : xg;
			yp[np] = yc + ((size_t)i * p->oW + j) * p->M;
			if (++np < bs && !(i == i1 - 1 && j == j1 - 1))
				continue;
			for (int r = np; r < 8; r++) { /* a short block repeats its last pixel */
				xp[r] = xp[np - 1];
				yp[r] = yp[np - 1];
			}
			rt_dw_gd_blk_z_(p, V, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on, idx, kc, narrow);
			np = 0;
		}
	}
}

/* Every output pixel of one slot (a chunk of V vectors, see
 * rt_dw_gd_rect_z_): the interior, the border columns of the interior rows,
 * then the border rows with their corners. */
static inline __attribute__((always_inline, target("avx512f"))) void
rt_dw_gd_slot_z_(const struct rt_conv2d *p, int V, const float *xg, float *yc,
                 const float *wc, int cg, int mgp, const __m512 *vb, const __mmask16 *ko,
                 const int *on, const __m512i *idx, __mmask16 kc, int narrow, int ia, int ib,
                 int ja, int jb)
{
	rt_dw_gd_rect_z_(p, V, xg, yc, wc, cg, mgp, vb, ko, on, idx, kc, narrow, ia, ib, ja,
	                 jb);
	for (int j = 0; j < p->oW; j++)
		if (j < ja || j >= jb)
			rt_dw_gd_rect_z_(p, V, xg, yc, wc, cg, mgp, vb, ko, on, idx, kc, narrow, ia, ib,
			                 j, j + 1);
	for (int i = 0; i < p->oH; i++) {
		if (i >= ia && i < ib)
			continue;
		rt_dw_gd_rect_z_(p, V, xg, yc, wc, cg, mgp, vb, ko, on, idx, kc, narrow, i, i + 1, ja,
		                 jb);
		for (int j = 0; j < p->oW; j++)
			if (j < ja || j >= jb)
				rt_dw_gd_rect_z_(p, V, xg, yc, wc, cg, mgp, vb, ko, on, idx, kc, narrow, i,
				                 i + 1, j, j + 1);
	}
}

/* All N images, group by group (variant 0), or for narrow groups
 * (variant 1) vector by vector of 16 output channels. */
static inline __attribute__((target("avx512f"))) void
rt_dw_gd_z_(const struct rt_conv2d *p, int variant, const float *x, const float *wp,
            const float *b, float *y)
{
	const int cg = p->C / p->group, mg = p->M / p->group, mgp = (mg + 15) / 16 * 16;
	const int oH = p->oH, oW = p->oW, kk = p->kH * p->kW;
	int ia = rt_dw_gd_lo_(p->padT, p->sH), ja = rt_dw_gd_lo_(p->padL, p->sW);
	ia = ia < oH ? ia : oH;
	ja = ja < oW ? ja : oW;
	const int ib = rt_dw_gd_hi_(p->H, (p->kH - 1) * p->dH + 1, p->padT, p->sH, oH, ia);
	const int jb = rt_dw_gd_hi_(p->W, (p->kW - 1) * p->dW + 1, p->padL, p->sW, oW, ja);
	__m512i idx[8]; /* variant 1: lane l of input channel c reads lane (l/Mg)*Cg + c */
	for (int c = 0; variant == 1 && c < cg; c++) {
		int t[16];
		for (int l = 0; l < 16; l++)
			t[l] = l / mg * cg + c;
		idx[c] = _mm512_loadu_si512(t);
	}
	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * p->H * p->W * p->C; /* [H][W][C] */
		float *yn = y + (size_t)n * oH * oW * p->M;            /* [oH][oW][M] */
		for (int ob = 0; variant == 1 && ob < (p->M + 15) / 16; ob++) {
			/* outputs 16ob .. 16ob + 15: groups g0 .. g0 + 16/Mg - 1, whose
			 * inputs start at channel g0*Cg and span at most 16 */
			const int g0 = 16 * ob / mg, ng = p->group - g0 < 16 / mg ? p->group - g0 : 16 / mg;
			int on = p->M - 16 * ob < 16 ? p->M - 16 * ob : 16;
			const __mmask16 ko = rt_dw_gd_mask_z_(on);
			const __m512 vb = b ? _mm512_maskz_loadu_ps(ko, b + 16 * ob) : _mm512_setzero_ps();
			rt_dw_gd_slot_z_(p, 1, xn + (size_t)g0 * cg, yn + (size_t)16 * ob,
			                 wp + (size_t)ob * kk * cg * 16, cg, 16, &vb, &ko, &on, idx,
			                 rt_dw_gd_mask_z_(ng * cg), 1, ia, ib, ja, jb);
		}
		if (variant == 1)
			continue;
		for (int g = 0; g < p->group; g++) {
			for (int o0 = 0; o0 < mg; o0 += 4 * 16) {
				/* the chunk: V vectors of output channels g*Mg + o0 .. */
				const int V = (mg - o0 + 16 - 1) / 16 < 4 ? (mg - o0 + 16 - 1) / 16 : 4;
				__m512 vb[4];
				__mmask16 ko[4];
				int on[4];
				for (int v = 0; v < 4; v++) {
					const int left = mg - o0 - 16 * v;
					on[v] = left < 0 ? 0 : left < 16 ? left : 16;
					ko[v] = rt_dw_gd_mask_z_(on[v]);
					vb[v] = b && on[v] ? _mm512_maskz_loadu_ps(ko[v], b + g * mg + o0 + 16 * v)
					                   : _mm512_setzero_ps();
				}
				rt_dw_gd_slot_z_(p, V, xn + (size_t)g * cg, yn + (size_t)g * mg + o0,
				                 wp + (size_t)g * kk * cg * mgp + o0, cg, mgp, vb, ko, on, NULL, 0,
				                 0, ia, ib, ja, jb);
			}
		}
	}
}
#endif /* RT_SGEMM_HAVE_AVX512 */

#if RT_SGEMM_HAVE_AVX2
/* ---- AVX2: vectors of 8 output channels -------------------------------- */

static inline __attribute__((always_inline, target("avx2,fma"))) __m256i
rt_dw_gd_mask_y_(int r)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __attribute__((always_inline, target("avx2,fma"))) __m256
rt_dw_gd_act_y_(const struct rt_conv2d *p, __m256 v)
{
	switch (p->act) {
	case RT_ACT_RELU:
		return _mm256_max_ps(v, _mm256_setzero_ps());
	case RT_ACT_LEAKY_RELU:
		return _mm256_blendv_ps(v, _mm256_mul_ps(v, _mm256_set1_ps(p->alpha)),
		                        _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ));
	case RT_ACT_CLIP:
		return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(p->alpha)),
		                     _mm256_set1_ps(p->beta));
	default:
		return v;
	}
}

static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_gd_st_y_(const struct rt_conv2d *p, float *y, int V, const __m256i *ko, const int *on,
               __m256 v0, __m256 v1, __m256 v2)
{
	const int scalar = p->act == RT_ACT_SIGMOID || p->act == RT_ACT_TANH;
	_mm256_maskstore_ps(y, ko[0], rt_dw_gd_act_y_(p, v0));
	if (V > 1) _mm256_maskstore_ps(y + 8, ko[1], rt_dw_gd_act_y_(p, v1));
	if (V > 2) _mm256_maskstore_ps(y + 16, ko[2], rt_dw_gd_act_y_(p, v2));
	for (int v = 0; scalar && v < V; v++)
		for (int l = 0; l < on[v]; l++)
			y[8 * v + l] = rt_act_apply(p->act, p->alpha, p->beta, y[8 * v + l]);
}

/* R (1 or 4) pixels x V (1..3) vectors of 8 output channels of one
 * group (constants after inlining); the np <= R pixels share a window of
 * nu x nv taps inside the input.
 *   xp[r]: pixel r's first tap at the group's first input channel (pixels
 *          past np repeat the last one)
 *   yp[r]: output pixel r at the chunk's first output channel
 *   wq:    the chunk's packed weights at the first tap ([kW][Cg][Mgp] per
 *          tap row, see rt_conv_depthwise_gdirect_hwc)
 *   vb, ko, on: per vector, bias, store mask and output channels */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_gd_px_y_(int R, int V, const struct rt_conv2d *p, const float *const *xp,
               float *const *yp, int np, const float *wq, int nu, int nv, int cg, int mgp,
               const __m256 *vb, const __m256i *ko, const int *on)
{
	const float *x0 = xp[0], *x1 = xp[1], *x2 = xp[2], *x3 = xp[3];
	__m256 a00 = vb[0], a01 = vb[1], a02 = vb[2];
	__m256 a10 = vb[0], a11 = vb[1], a12 = vb[2];
	__m256 a20 = vb[0], a21 = vb[1], a22 = vb[2];
	__m256 a30 = vb[0], a31 = vb[1], a32 = vb[2];
	const size_t rs = (size_t)p->dH * p->W * p->C, cs = (size_t)p->dW * p->C;
	for (int du = 0; du < nu; du++) {
		for (int dv = 0; dv < nv; dv++) {
			const size_t t = du * rs + dv * cs; /* tap offset in the input */
			const float *wt = wq + ((size_t)du * p->kW + dv) * cg * mgp;
			for (int c = 0; c < cg; c++, wt += mgp) {
				const __m256 w0 = _mm256_loadu_ps(wt);
				const __m256 w1 = V > 1 ? _mm256_loadu_ps(wt + 8) : w0;
				const __m256 w2 = V > 2 ? _mm256_loadu_ps(wt + 16) : w0;
				__m256 xb = _mm256_set1_ps(x0[t + c]);
				a00 = _mm256_fmadd_ps(xb, w0, a00);
				if (V > 1) a01 = _mm256_fmadd_ps(xb, w1, a01);
				if (V > 2) a02 = _mm256_fmadd_ps(xb, w2, a02);
				if (R > 1) {
					xb = _mm256_set1_ps(x1[t + c]);
					a10 = _mm256_fmadd_ps(xb, w0, a10);
					if (V > 1) a11 = _mm256_fmadd_ps(xb, w1, a11);
					if (V > 2) a12 = _mm256_fmadd_ps(xb, w2, a12);
				}
				if (R > 2) {
					xb = _mm256_set1_ps(x2[t + c]);
					a20 = _mm256_fmadd_ps(xb, w0, a20);
					if (V > 1) a21 = _mm256_fmadd_ps(xb, w1, a21);
					if (V > 2) a22 = _mm256_fmadd_ps(xb, w2, a22);
				}
				if (R > 3) {
					xb = _mm256_set1_ps(x3[t + c]);
					a30 = _mm256_fmadd_ps(xb, w0, a30);
					if (V > 1) a31 = _mm256_fmadd_ps(xb, w1, a31);
					if (V > 2) a32 = _mm256_fmadd_ps(xb, w2, a32);
				}
			}
		}
	}
	rt_dw_gd_st_y_(p, yp[0], V, ko, on, a00, a01, a02);
	if (R > 1 && np > 1)
		rt_dw_gd_st_y_(p, yp[1], V, ko, on, a10, a11, a12);
	if (R > 2 && np > 2)
		rt_dw_gd_st_y_(p, yp[2], V, ko, on, a20, a21, a22);
	if (R > 3 && np > 3)
		rt_dw_gd_st_y_(p, yp[3], V, ko, on, a30, a31, a32);
}

/* One block of np pixels (see rt_dw_gd_px_y_), V vectors: picks the tile. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_gd_blk_y_(const struct rt_conv2d *p, int V, const float *const *xp, float *const *yp,
                int np, const float *wq, int nu, int nv, int cg, int mgp, const __m256 *vb,
                const __m256i *ko, const int *on)
{
	if (np > 1) {
		switch (V) {
		case 1: rt_dw_gd_px_y_(4, 1, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		case 2: rt_dw_gd_px_y_(4, 2, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		default: rt_dw_gd_px_y_(4, 3, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		}
	} else {
		switch (V) {
		case 1: rt_dw_gd_px_y_(1, 1, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		case 2: rt_dw_gd_px_y_(1, 2, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		default: rt_dw_gd_px_y_(1, 3, p, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on); break;
		}
	}
}

/* Output pixels [i0, i1) x [j0, j1), all with the same window of taps inside
 * the input, for one chunk of V vectors of group g's output channels from
 * o0 on: blocks of 4 pixels in raster order.
 *   xg: image at the group's first input channel, [H][W][C]
 *   yc: output image at the chunk's first channel, [oH][oW][M]
 *   wc: the chunk's packed weights at tap 0 */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_gd_rect_y_(const struct rt_conv2d *p, int V, const float *xg, float *yc,
                 const float *wc, int cg, int mgp, const __m256 *vb, const __m256i *ko,
                 const int *on, int i0, int i1, int j0, int j1)
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
	const float *wq = nu && nv ? wc + (size_t)(u0 * p->kW + v0) * cg * mgp : wc;
	const int bs = 4; /* pixels per tile */
	const float *xp[8];
	float *yp[8];
	int np = 0;
	for (int i = i0; i < i1; i++) {
		for (int j = j0; j < j1; j++) {
			xp[np] = nu && nv ? xg + ((size_t)(i * p->sH - p->padT + u0 * p->dH) * p->W +
			                          (size_t)(j * p->sW - p->padL + v0 * p->dW)) * p->C
			                  : xg;
			yp[np] = yc + ((size_t)i * p->oW + j) * p->M;
			if (++np < bs && !(i == i1 - 1 && j == j1 - 1))
				continue;
			for (int r = np; r < 8; r++) { /* a short block repeats its last pixel */
				xp[r] = xp[np - 1];
				yp[r] = yp[np - 1];
			}
			rt_dw_gd_blk_y_(p, V, xp, yp, np, wq, nu, nv, cg, mgp, vb, ko, on);
			np = 0;
		}
	}
}

/* Every output pixel of one slot (a chunk of V vectors, see
 * rt_dw_gd_rect_y_): the interior, the border columns of the interior rows,
 * then the border rows with their corners. */
static inline __attribute__((always_inline, target("avx2,fma"))) void
rt_dw_gd_slot_y_(const struct rt_conv2d *p, int V, const float *xg, float *yc,
                 const float *wc, int cg, int mgp, const __m256 *vb, const __m256i *ko,
                 const int *on, int ia, int ib, int ja, int jb)
{
	rt_dw_gd_rect_y_(p, V, xg, yc, wc, cg, mgp, vb, ko, on, ia, ib, ja, jb);
	for (int j = 0; j < p->oW; j++)
		if (j < ja || j >= jb)
			rt_dw_gd_rect_y_(p, V, xg, yc, wc, cg, mgp, vb, ko, on, ia, ib, j, j + 1);
	for (int i = 0; i < p->oH; i++) {
		if (i >= ia && i < ib)
			continue;
		rt_dw_gd_rect_y_(p, V, xg, yc, wc, cg, mgp, vb, ko, on, i, i + 1, ja, jb);
		for (int j = 0; j < p->oW; j++)
			if (j < ja || j >= jb)
				rt_dw_gd_rect_y_(p, V, xg, yc, wc, cg, mgp, vb, ko, on, i, i + 1, j,
				                 j + 1);
	}
}

/* All N images, group by group (variant 0). */
static inline __attribute__((target("avx2,fma"))) void
rt_dw_gd_y_(const struct rt_conv2d *p, int variant, const float *x, const float *wp,
            const float *b, float *y)
{
	const int cg = p->C / p->group, mg = p->M / p->group, mgp = (mg + 15) / 16 * 16;
	const int oH = p->oH, oW = p->oW, kk = p->kH * p->kW;
	int ia = rt_dw_gd_lo_(p->padT, p->sH), ja = rt_dw_gd_lo_(p->padL, p->sW);
	ia = ia < oH ? ia : oH;
	ja = ja < oW ? ja : oW;
	const int ib = rt_dw_gd_hi_(p->H, (p->kH - 1) * p->dH + 1, p->padT, p->sH, oH, ia);
	const int jb = rt_dw_gd_hi_(p->W, (p->kW - 1) * p->dW + 1, p->padL, p->sW, oW, ja);
	(void)variant; /* AVX2 runs variant 0 only */
	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * p->H * p->W * p->C; /* [H][W][C] */
		float *yn = y + (size_t)n * oH * oW * p->M;            /* [oH][oW][M] */
		for (int g = 0; g < p->group; g++) {
			for (int o0 = 0; o0 < mg; o0 += 3 * 8) {
				/* the chunk: V vectors of output channels g*Mg + o0 .. */
				const int V = (mg - o0 + 8 - 1) / 8 < 3 ? (mg - o0 + 8 - 1) / 8 : 3;
				__m256 vb[3];
				__m256i ko[3];
				int on[3];
				for (int v = 0; v < 3; v++) {
					const int left = mg - o0 - 8 * v;
					on[v] = left < 0 ? 0 : left < 8 ? left : 8;
					ko[v] = rt_dw_gd_mask_y_(on[v]);
					vb[v] = b && on[v] ? _mm256_maskload_ps(b + g * mg + o0 + 8 * v, ko[v])
					                   : _mm256_setzero_ps();
				}
				rt_dw_gd_slot_y_(p, V, xn + (size_t)g * cg, yn + (size_t)g * mg + o0,
				                 wp + (size_t)g * kk * cg * mgp + o0, cg, mgp, vb, ko, on,
				                 ia, ib, ja, jb);
			}
		}
	}
}
#endif /* RT_SGEMM_HAVE_AVX2 */

/* Portable C: every output pixel and group, y = bias, then one multiply-add
 * pass over the group's output channels per tap and input channel. Weights
 * as either variant packed them: in variant 1 a group's Mg outputs are
 * consecutive lanes of one 16-lane block, as Mg divides 16. */
static inline void rt_dw_gd_c_(const struct rt_conv2d *p, int variant, const float *x,
                               const float *wp, const float *b, float *y)
{
	const int cg = p->C / p->group, mg = p->M / p->group, mgp = (mg + 15) / 16 * 16;
	const int kk = p->kH * p->kW;
	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * p->H * p->W * p->C;
		for (int i = 0; i < p->oH; i++) {
			for (int j = 0; j < p->oW; j++) {
				float *yp = y + (((size_t)n * p->oH + i) * p->oW + j) * p->M; /* [M] */
				for (int g = 0; g < p->group; g++) {
					float *restrict yo = yp + (size_t)g * mg;
					for (int o = 0; o < mg; o++)
						yo[o] = b ? b[g * mg + o] : 0.0f;
					for (int u = 0; u < p->kH; u++) {
						const int ih = i * p->sH - p->padT + u * p->dH;
						if (ih < 0 || ih >= p->H)
							continue;
						for (int v = 0; v < p->kW; v++) {
							const int iw = j * p->sW - p->padL + v * p->dW;
							if (iw < 0 || iw >= p->W)
								continue;
							const float *xt = xn + ((size_t)ih * p->W + iw) * p->C + (size_t)g * cg;
							const int t = u * p->kW + v;
							for (int c = 0; c < cg; c++) {
								/* the group's weights for tap t, input channel c */
								const float *restrict wc =
									variant == 0
										? wp + ((size_t)(g * kk + t) * cg + c) * mgp
										: wp + ((size_t)(g * mg / 16 * kk + t) * cg + c) * 16 +
										          g * mg % 16;
								const float xv = xt[c];
								for (int o = 0; o < mg; o++)
									yo[o] += xv * wc[o];
							}
						}
					}
					for (int o = 0; o < mg; o++)
						yo[o] = rt_act_apply(p->act, p->alpha, p->beta, yo[o]);
				}
			}
		}
	}
}

RT_FN void rt_conv_depthwise_gdirect_hwc(const struct rt_conv2d *p, int variant,
                                         const float *x, /* [N][H][W][C] */
                                         const float *w, /* [group][kH][kW][Cg][Mgp] or
                                                            (1) [M/16][kH][kW][Cg][16] */
                                         const float *b, /* [M] or NULL */
                                         float *y,       /* out: [N][oH][oW][M] */
                                         float *ws)      /* unused */
{
	(void)ws;
#if RT_SGEMM_HAVE_AVX512
	if (p->isa == RT_SGEMM_ISA_AVX512) {
		rt_dw_gd_z_(p, variant, x, w, b, y);
		return;
	}
#endif
#if RT_SGEMM_HAVE_AVX2
	if (p->isa == RT_SGEMM_ISA_AVX2 && variant == 0) {
		rt_dw_gd_y_(p, variant, x, w, b, y);
		return;
	}
#endif
	rt_dw_gd_c_(p, variant, x, w, b, y);
}
