/* conv_depthwise_rows.c - depthwise convolution register-tiled along the
 * output row, vectorised across channels, on HWC and blocked CHW16c / CHW8c
 * (rows conv_depthwise_rows_hwc, conv_depthwise_rows_chw16c and
 * conv_depthwise_rows_chw8c of fam_depthwise.def).
 *
 * Depthwise means group == C; output channel o reads input channel o/m,
 * m = M/C the channel multiplier (ONNX Conv with group = C). Textbook:
 *   y[o][i][j] = b[o] + sum over u, v < K of
 *                w[o][0][u][v] * x[o/m][i*S - padT + u][j*S - padL + v]
 * (reads outside the input are zero), then the epilogue.
 *
 * What changes against that loop nest and against conv_depthwise_cvec.c:
 * - K (3 or 5) and S (1 or 2) are constants of the kernel (square kernel,
 *   equal strides, dilation 1), so a tile of T output pixels of one row
 *   (T = 8) reads the (T-1)*S + K input columns of a tap row once each and
 *   feeds every tap that reads it from registers: for 3x3 stride 1, 10 loads
 *   for 24 multiply-adds, with T accumulators, K weights and one input in
 *   registers.
 * - Padding costs no separate border code: a tap row outside the input is
 *   skipped for the whole output row; a tile whose columns outside the input
 *   are one on the left and/or one on the right (a pad of 1) takes zero
 *   vectors for them at compile time and loads the rest plainly; any other
 *   tile that reaches a border, or a channel tail, tests each column (one
 *   outside the input is zero, and no memory is touched). The last tile of a
 *   row ends on its last pixel (recomputing a few of the tile before it)
 *   where the row has T pixels or more; otherwise it computes T pixels and
 *   stores the ones that exist. So a 7x7 plane is 7 tile calls per vector of
 *   channels, against 9 rectangles of special cases in conv_depthwise_cvec.c;
 *   that per-call overhead is what made the small late layers of MobileNets
 *   slow.
 * - The image is seen as a "view": input pixel (h, w) at xb[(h*W + w)*xs],
 *   output pixel (i, j) at yb[(i*oW + j)*ys], channels contiguous from
 *   there. HWC is one view (xs = C, ys = M); a blocked image is one view per
 *   block of B channels (xs = ys = B), whose output lanes past M are written
 *   as zero. Inside a view, tiles go in raster order and, for each tile, the
 *   vectors of channels (slots) one after the other, so a tile's input rows
 *   stay in L1 while every slot reads them.
 * - A multiplier m > 1 (HWC only): output slot o0 .. o0+VL-1 reads input
 *   channels (o0 + l)/m, a window starting at o0/m; the loaded window is
 *   permuted into place (one permute per input load).
 * Weights: packed tap-major as for conv_depthwise_cvec.c, [K*K][Mp] with Mp =
 * M rounded up to 16 (prep_dw_cvec_pack), so a tap's weights for a slot are
 * one load. No workspace.
 *
 * One source for every ISA: the tile, the view and the image loops are
 * written once (RT_DWR_DEFINE_) over a thin SIMD layer of static inline
 * functions with an ISA suffix (vector type V, mask type K, VL lanes):
 *   z  AVX-512F, 16 lanes, masks __mmask16 (masked loads suppress faults)
 *   y  AVX2 + FMA, 8 lanes, masks as vectors (vmaskmovps suppresses faults);
 *      also the 8-channel blocks (CHW8c) of an AVX-512 target
 *   n  NEON (AArch64), 4 lanes; a mask is a lane count, partial loads go
 *      lane by lane
 *   c  portable C, 1 lane (the tile is then a scalar loop nest with T
 *      accumulators), used for RT_SGEMM_ISA_C and Cortex-M
 * chosen by p->isa (a constant in generated code). */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

#include <stddef.h>

#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
#include <immintrin.h>
#endif
#if RT_SGEMM_HAVE_NEON
#include <arm_neon.h>
#endif

/* The SIMD layer's functions. Not spelled "static inline" at the start of a
 * line: the emitter keeps such a function only where kept text calls it by
 * name, and these are called through names the macros below paste. */
#define RT_DWR_FN_ static inline RT_DWR_INLINE_

#ifdef __GNUC__
#define RT_DWR_INLINE_ __attribute__((always_inline))
#define RT_DWR_UNROLL_ _Pragma("GCC unroll 32")
#else
#define RT_DWR_INLINE_
#define RT_DWR_UNROLL_
#endif

/* Floats of one channel block's input plane (H * W * B) above which a
 * blocked layer that splits cuts its rows, not its channel blocks, over the
 * threads: band k of every block goes to the same thread. The pointwise
 * layers around such a plane cut it by pixels (conv_pointwise.c: a band of
 * their input holds RT_PW_BAND, 131072 floats, and the threads take runs of
 * bands), so each thread then reads and writes its own rows. Below it, the
 * expansion before the layer is cut by output channels (its plane fits one
 * band and runs pair by pair), and the depthwise layer keeps to the same
 * channel blocks. At 2 threads (2-core Xeon VM, CPUID family 6
 * model 167, one plan, 150 calls a side, CPU time), MobileNetV2's 112 x 112
 * layers (200704 floats a block) spent 8-14% less cut into row halves, the
 * network 1% less; its 56 x 56 and 28 x 28 ones spent 10-70% more so, in 2
 * to 16 bands. The bands are as many as the most threads (RT_THREADS): a
 * row computes the same whatever band it is in. */
#define RT_DWR_BAND_FLOATS 131072

/* The identity permutation's index vector (multiplier 1). */
static const int rt_dwr_zidx_[16] = {0};

/* Output pixels per tile: T accumulators. */
#define RT_DWR_T_ 8
/* 3x3 stride 1 on AVX-512 also has a tile of 14 pixels (14 accumulators, 3
 * weights and the input in 18 of the 32 registers; 16 loads per 42
 * multiply-adds per tap row against 10 per 24), used where it computes no
 * more pixels than the tile of 8 (output rows of 14, 28, 56, 112: not 7).
 * Each accumulator takes its taps in the same order whatever the tile width,
 * so the outputs are the same bits. 1 thread, CPU time, medians of 200 calls
 * (load 6-8), CHW16c, T = 8 -> 14: 32 ch 112 x 112 110 -> 100 us, 144 ch 56 x
 * 56 121 -> 104, 64 ch 28 x 28 12.7 -> 9.4, 576 ch 14 x 14 28 -> 24. The
 * other ISAs keep 8 (AVX2 has 16 registers; NEON not measured). */
#define RT_DWR_T31_z 14
#define RT_DWR_T31_y RT_DWR_T_
#define RT_DWR_T31_n RT_DWR_T_
#define RT_DWR_T31_c RT_DWR_T_
#define RT_DWR_WIDE31_z(X, VL) RT_DWR_TILE_(X, VL, 3, 1, RT_DWR_T31_z, 31w)
#define RT_DWR_WIDE31_y(X, VL)
#define RT_DWR_WIDE31_n(X, VL)
#define RT_DWR_WIDE31_c(X, VL)
#define RT_DWR_ROW31W_z rt_dwr_row_z_31w
#define RT_DWR_ROW31W_y rt_dwr_row_y_31
#define RT_DWR_ROW31W_n rt_dwr_row_n_31
#define RT_DWR_ROW31W_c rt_dwr_row_c_31

/* 3x3 kernels on AVX-512 and AVX2 also have tiles of 2, 4, 6 and 7 pixels,
 * used where a row has at most 7 output pixels: a tile of 8 there computes up
 * to 8 pixels to store 1 to 7 (MobileNetV1's 6 x 6 and 3 x 3 planes, DS-CNN's
 * 25 x 5, the 7 x 7 planes of MobileNetV2), and a tile as wide as the row
 * reads only its padding columns outside it (see the edges of RT_DWR_TILE_).
 * Same bits, as for the tile of 14. NEON and plain C keep 8 (their code size
 * matters more than these planes; not measured). */
#define RT_DWR_NARROW_z 1
#define RT_DWR_NARROW_y 1
#define RT_DWR_NARROW_n 0
#define RT_DWR_NARROW_c 0
#define RT_DWR_NARROWS_(X, VL)                                                              \
	RT_DWR_TILE_(X, VL, 3, 1, 2, 31n2)                                                      \
	RT_DWR_TILE_(X, VL, 3, 1, 4, 31n4)                                                      \
	RT_DWR_TILE_(X, VL, 3, 1, 6, 31n6)                                                      \
	RT_DWR_TILE_(X, VL, 3, 1, 7, 31n7)                                                      \
	RT_DWR_TILE_(X, VL, 3, 2, 2, 32n2)                                                      \
	RT_DWR_TILE_(X, VL, 3, 2, 4, 32n4)                                                      \
	RT_DWR_TILE_(X, VL, 3, 2, 6, 32n6)                                                      \
	RT_DWR_TILE_(X, VL, 3, 2, 7, 32n7)
#define RT_DWR_NARROWS_z(X, VL) RT_DWR_NARROWS_(X, VL)
#define RT_DWR_NARROWS_y(X, VL) RT_DWR_NARROWS_(X, VL)
#define RT_DWR_NARROWS_n(X, VL)
#define RT_DWR_NARROWS_c(X, VL)
#define RT_DWR_ROW31N2_z rt_dwr_row_z_31n2
#define RT_DWR_ROW31N4_z rt_dwr_row_z_31n4
#define RT_DWR_ROW31N6_z rt_dwr_row_z_31n6
#define RT_DWR_ROW31N7_z rt_dwr_row_z_31n7
#define RT_DWR_ROW32N2_z rt_dwr_row_z_32n2
#define RT_DWR_ROW32N4_z rt_dwr_row_z_32n4
#define RT_DWR_ROW32N6_z rt_dwr_row_z_32n6
#define RT_DWR_ROW32N7_z rt_dwr_row_z_32n7
#define RT_DWR_ROW31N2_y rt_dwr_row_y_31n2
#define RT_DWR_ROW31N4_y rt_dwr_row_y_31n4
#define RT_DWR_ROW31N6_y rt_dwr_row_y_31n6
#define RT_DWR_ROW31N7_y rt_dwr_row_y_31n7
#define RT_DWR_ROW32N2_y rt_dwr_row_y_32n2
#define RT_DWR_ROW32N4_y rt_dwr_row_y_32n4
#define RT_DWR_ROW32N6_y rt_dwr_row_y_32n6
#define RT_DWR_ROW32N7_y rt_dwr_row_y_32n7
#define RT_DWR_ROW31N2_n rt_dwr_row_n_31
#define RT_DWR_ROW31N4_n rt_dwr_row_n_31
#define RT_DWR_ROW31N6_n rt_dwr_row_n_31
#define RT_DWR_ROW31N7_n rt_dwr_row_n_31
#define RT_DWR_ROW32N2_n rt_dwr_row_n_32
#define RT_DWR_ROW32N4_n rt_dwr_row_n_32
#define RT_DWR_ROW32N6_n rt_dwr_row_n_32
#define RT_DWR_ROW32N7_n rt_dwr_row_n_32
#define RT_DWR_ROW31N2_c rt_dwr_row_c_31
#define RT_DWR_ROW31N4_c rt_dwr_row_c_31
#define RT_DWR_ROW31N6_c rt_dwr_row_c_31
#define RT_DWR_ROW31N7_c rt_dwr_row_c_31
#define RT_DWR_ROW32N2_c rt_dwr_row_c_32
#define RT_DWR_ROW32N4_c rt_dwr_row_c_32
#define RT_DWR_ROW32N6_c rt_dwr_row_c_32
#define RT_DWR_ROW32N7_c rt_dwr_row_c_32

/* The tile width of a convolution's rows, as a code: 2, 4, 6, 7 the narrow
 * tiles, 1 the tile of RT_DWR_T31_X (where it computes no more pixels than
 * the tile of 8), 0 the tile of 8. */
#define RT_DWR_WIDTH_(X)                                                                    \
	static inline RT_DWR_INLINE_ int rt_dwr_width_##X(const struct rt_conv2d *p)             \
	{                                                                                       \
		const int ow = p->oW, tw = RT_DWR_T31_##X;                                          \
		if (p->kH != 3)                                                                     \
			return 0;                                                                       \
		if (RT_DWR_NARROW_##X && ow <= 7)                                                   \
			return ow <= 2 ? 2 : ow <= 4 ? 4 : ow <= 6 ? 6 : 7;                             \
		if (p->sH == 1 && tw > RT_DWR_T_ &&                                                 \
		    (ow + tw - 1) / tw * tw <= (ow + RT_DWR_T_ - 1) / RT_DWR_T_ * RT_DWR_T_)           \
			return 1;                                                                       \
		return 0;                                                                           \
	}

/* ---- the SIMD layer ------------------------------------------------------ */

#if RT_SGEMM_HAVE_AVX512
#define RT_DWR_ATTR_z __attribute__((target("avx512f")))
typedef __m512 rt_dwr_v_z;
typedef __mmask16 rt_dwr_k_z;
typedef __m512i rt_dwr_p_z; /* permutation */
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_k_z rt_dwr_kmask_z(int n)
{
	return (__mmask16)(n >= 16 ? 0xFFFFu : n <= 0 ? 0u : (1u << n) - 1u);
}
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_v_z rt_dwr_zero_z(void) { return _mm512_setzero_ps(); }
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_v_z rt_dwr_set1_z(float a) { return _mm512_set1_ps(a); }
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_v_z rt_dwr_load_z(const float *q) { return _mm512_loadu_ps(q); }
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_v_z rt_dwr_loadk_z(rt_dwr_k_z k, const float *q)
{
	return _mm512_maskz_loadu_ps(k, q);
}
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_v_z rt_dwr_fma_z(rt_dwr_v_z a, rt_dwr_v_z b, rt_dwr_v_z c)
{
	return _mm512_fmadd_ps(a, b, c);
}
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_v_z rt_dwr_max_z(rt_dwr_v_z a, rt_dwr_v_z b) { return _mm512_max_ps(a, b); }
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_v_z rt_dwr_min_z(rt_dwr_v_z a, rt_dwr_v_z b) { return _mm512_min_ps(a, b); }
RT_DWR_FN_ RT_DWR_ATTR_z void rt_dwr_store_z(float *q, rt_dwr_v_z v) { _mm512_storeu_ps(q, v); }
RT_DWR_FN_ RT_DWR_ATTR_z void rt_dwr_storek_z(float *q, rt_dwr_k_z k, rt_dwr_v_z v)
{
	_mm512_mask_storeu_ps(q, k, v);
}
/* all lanes, zero outside k */
RT_DWR_FN_ RT_DWR_ATTR_z void rt_dwr_storez_z(float *q, rt_dwr_k_z k, rt_dwr_v_z v)
{
	_mm512_storeu_ps(q, _mm512_maskz_mov_ps(k, v));
}
/* lane l of the result is lane idx[l] of v */
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_p_z rt_dwr_pidx_z(const int *idx)
{
	return _mm512_loadu_si512(idx);
}
RT_DWR_FN_ RT_DWR_ATTR_z rt_dwr_v_z rt_dwr_perm_z(rt_dwr_p_z p, rt_dwr_v_z v)
{
	return _mm512_permutexvar_ps(p, v);
}
#endif

#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
#define RT_DWR_ATTR_y __attribute__((target("avx2,fma")))
typedef __m256 rt_dwr_v_y;
typedef __m256i rt_dwr_k_y;
typedef __m256i rt_dwr_p_y;
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_k_y rt_dwr_kmask_y(int n)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_v_y rt_dwr_zero_y(void) { return _mm256_setzero_ps(); }
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_v_y rt_dwr_set1_y(float a) { return _mm256_set1_ps(a); }
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_v_y rt_dwr_load_y(const float *q) { return _mm256_loadu_ps(q); }
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_v_y rt_dwr_loadk_y(rt_dwr_k_y k, const float *q)
{
	return _mm256_maskload_ps(q, k);
}
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_v_y rt_dwr_fma_y(rt_dwr_v_y a, rt_dwr_v_y b, rt_dwr_v_y c)
{
	return _mm256_fmadd_ps(a, b, c);
}
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_v_y rt_dwr_max_y(rt_dwr_v_y a, rt_dwr_v_y b) { return _mm256_max_ps(a, b); }
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_v_y rt_dwr_min_y(rt_dwr_v_y a, rt_dwr_v_y b) { return _mm256_min_ps(a, b); }
RT_DWR_FN_ RT_DWR_ATTR_y void rt_dwr_store_y(float *q, rt_dwr_v_y v) { _mm256_storeu_ps(q, v); }
RT_DWR_FN_ RT_DWR_ATTR_y void rt_dwr_storek_y(float *q, rt_dwr_k_y k, rt_dwr_v_y v)
{
	_mm256_maskstore_ps(q, k, v);
}
RT_DWR_FN_ RT_DWR_ATTR_y void rt_dwr_storez_y(float *q, rt_dwr_k_y k, rt_dwr_v_y v)
{
	_mm256_storeu_ps(q, _mm256_and_ps(v, _mm256_castsi256_ps(k)));
}
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_p_y rt_dwr_pidx_y(const int *idx)
{
	return _mm256_loadu_si256((const __m256i *)(const void *)idx);
}
RT_DWR_FN_ RT_DWR_ATTR_y rt_dwr_v_y rt_dwr_perm_y(rt_dwr_p_y p, rt_dwr_v_y v)
{
	return _mm256_permutevar8x32_ps(v, p);
}
#endif

#if RT_SGEMM_HAVE_NEON
#define RT_DWR_ATTR_n
typedef float32x4_t rt_dwr_v_n;
typedef int rt_dwr_k_n;      /* lanes 0 .. k-1 */
typedef uint8x16_t rt_dwr_p_n; /* byte table of the permutation */
RT_DWR_FN_ rt_dwr_k_n rt_dwr_kmask_n(int n) { return n >= 4 ? 4 : n <= 0 ? 0 : n; }
RT_DWR_FN_ rt_dwr_v_n rt_dwr_zero_n(void) { return vdupq_n_f32(0.0f); }
RT_DWR_FN_ rt_dwr_v_n rt_dwr_set1_n(float a) { return vdupq_n_f32(a); }
RT_DWR_FN_ rt_dwr_v_n rt_dwr_load_n(const float *q) { return vld1q_f32(q); }
RT_DWR_FN_ rt_dwr_v_n rt_dwr_loadk_n(rt_dwr_k_n k, const float *q)
{
	if (k >= 4)
		return vld1q_f32(q);
	float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
	for (int l = 0; l < k; l++)
		t[l] = q[l];
	return vld1q_f32(t);
}
RT_DWR_FN_ rt_dwr_v_n rt_dwr_fma_n(rt_dwr_v_n a, rt_dwr_v_n b, rt_dwr_v_n c)
{
	return vfmaq_f32(c, a, b);
}
RT_DWR_FN_ rt_dwr_v_n rt_dwr_max_n(rt_dwr_v_n a, rt_dwr_v_n b) { return vmaxq_f32(a, b); }
RT_DWR_FN_ rt_dwr_v_n rt_dwr_min_n(rt_dwr_v_n a, rt_dwr_v_n b) { return vminq_f32(a, b); }
RT_DWR_FN_ void rt_dwr_store_n(float *q, rt_dwr_v_n v) { vst1q_f32(q, v); }
RT_DWR_FN_ void rt_dwr_storek_n(float *q, rt_dwr_k_n k, rt_dwr_v_n v)
{
	float t[4];
	vst1q_f32(t, v);
	for (int l = 0; l < k; l++)
		q[l] = t[l];
}
RT_DWR_FN_ void rt_dwr_storez_n(float *q, rt_dwr_k_n k, rt_dwr_v_n v)
{
	float t[4];
	vst1q_f32(t, v);
	for (int l = 0; l < 4; l++)
		q[l] = l < k ? t[l] : 0.0f;
}
RT_DWR_FN_ rt_dwr_p_n rt_dwr_pidx_n(const int *idx)
{
	unsigned char b[16];
	for (int l = 0; l < 16; l++)
		b[l] = (unsigned char)(4 * idx[l / 4] + l % 4);
	return vld1q_u8(b);
}
RT_DWR_FN_ rt_dwr_v_n rt_dwr_perm_n(rt_dwr_p_n p, rt_dwr_v_n v)
{
	return vreinterpretq_f32_u8(vqtbl1q_u8(vreinterpretq_u8_f32(v), p));
}
#endif

#if RT_SGEMM_HAVE_C
#define RT_DWR_ATTR_c
typedef float rt_dwr_v_c;
typedef int rt_dwr_k_c; /* 1: the lane, 0: none */
typedef int rt_dwr_p_c; /* one lane: nothing to permute */
RT_DWR_FN_ rt_dwr_k_c rt_dwr_kmask_c(int n) { return n > 0; }
RT_DWR_FN_ rt_dwr_v_c rt_dwr_zero_c(void) { return 0.0f; }
RT_DWR_FN_ rt_dwr_v_c rt_dwr_set1_c(float a) { return a; }
RT_DWR_FN_ rt_dwr_v_c rt_dwr_load_c(const float *q) { return *q; }
RT_DWR_FN_ rt_dwr_v_c rt_dwr_loadk_c(rt_dwr_k_c k, const float *q) { return k ? *q : 0.0f; }
RT_DWR_FN_ rt_dwr_v_c rt_dwr_fma_c(rt_dwr_v_c a, rt_dwr_v_c b, rt_dwr_v_c c) { return a * b + c; }
RT_DWR_FN_ rt_dwr_v_c rt_dwr_max_c(rt_dwr_v_c a, rt_dwr_v_c b) { return a > b ? a : b; }
RT_DWR_FN_ rt_dwr_v_c rt_dwr_min_c(rt_dwr_v_c a, rt_dwr_v_c b) { return a < b ? a : b; }
RT_DWR_FN_ void rt_dwr_store_c(float *q, rt_dwr_v_c v) { *q = v; }
RT_DWR_FN_ void rt_dwr_storek_c(float *q, rt_dwr_k_c k, rt_dwr_v_c v)
{
	if (k)
		*q = v;
}
RT_DWR_FN_ void rt_dwr_storez_c(float *q, rt_dwr_k_c k, rt_dwr_v_c v) { *q = k ? v : 0.0f; }
RT_DWR_FN_ rt_dwr_p_c rt_dwr_pidx_c(const int *idx) { return idx[0]; }
RT_DWR_FN_ rt_dwr_v_c rt_dwr_perm_c(rt_dwr_p_c p, rt_dwr_v_c v)
{
	(void)p;
	return v;
}
#endif

/* ---- the kernel, once, for ISA suffix X with VL lanes ------------------- */

/* RT_DWR_TILE_(X, VL, KS, SS): T output pixels j0 .. j0+T-1 of one output row
 * and one slot (vector of output channels), kernel KS x KS, stride SS.
 *   x:    the input at tap row u0's row, column 0, the slot's first input
 *         channel; tap row u0 + u at x + u*rs
 *   nu:   tap rows inside the input (u0 .. u0+nu-1)
 *   col0: input column of tap 0 of pixel j0 (j0*SS - padL; may be < 0)
 *   wq:   packed weights at tap (u0, 0), the slot's first output channel
 *   vb:   the bias vector (zero lanes outside the slot)
 *   ki:   lanes of input to load (masked loads only)   pm: permutation
 *   y:    out: output pixel j0 at the slot's first channel; pixel j0+t at
 *         y + t*ys, for t < np
 *   ko, on: output lanes   full: write all lanes, zero outside ko
 *   masked, tail, perm, edge: constants after inlining: masked tiles test
 *         each column against the row (a predictable branch; columns outside
 *         are zero, their memory is not touched); tail: load only the ki
 *         lanes (channel tail); perm: permute the input (multiplier > 1);
 *         tail and perm imply masked. edge (unmasked tiles): bit 0, column 0
 *         lies left of the row; bit 1, column NC-1 lies right of it; those
 *         columns are zero vectors known at compile time, the others plain
 *         loads. A pad of 1 on a side (3x3 "same" convolutions) puts every
 *         tile of a row in one of these four kinds, the last one shifted to
 *         end on the row's last pixel: where the masked tile kept a flag and
 *         an offset per column on the stack (gcc hoisted them out of the tap
 *         rows), MobileNetV2's 14 x 14 layers, all border tiles at T = 8,
 *         ran at 0.54-0.65x oneDNN's speed on AVX2, now 0.84-0.97x
 *         (bench/primitives --isa avx2 on the Xeon, 384 x 14 x 14, 0.065 ->
 *         0.027-0.035 ms; 144 x 56 x 56 0.69-0.79x -> 1.03-1.05x; AVX-512,
 *         576 x 14 x 14, 0.72-0.95x -> 1.16-1.40x)
 * The input columns are walked with one pointer or offset, so the only
 * integer state is that and the column bits. */
#define RT_DWR_TILE_(X, VL, KS, SS, TT, NM)                                                         \
	static inline RT_DWR_INLINE_ RT_DWR_ATTR_##X void rt_dwr_tile_##X##_##NM(             \
	    const struct rt_conv2d *p, const float *x, size_t rs, int xs, int nu, int col0,        \
	    const float *wq, int Mp, rt_dwr_v_##X vb, rt_dwr_k_##X ki, rt_dwr_p_##X pm, float *y, \
	    int ys, int np, rt_dwr_k_##X ko, int on, int full, int masked, int tail, int perm,     \
	    int edge)                                                                              \
	{                                                                                       \
		enum { T = TT, NC = (TT - 1) * SS + KS };                                           \
		rt_dwr_v_##X a[TT];                                                          \
		RT_DWR_UNROLL_                                                                      \
		for (int t = 0; t < T; t++)                                                         \
			a[t] = vb;                                                                      \
		/* bit k: input column col0 + k lies inside the row (NC <= 19 bits) */              \
		const int klo = col0 < 0 ? -col0 : 0, khi = p->W - col0;                            \
		const unsigned okb = (khi >= NC ? (1u << NC) - 1u : khi <= 0 ? 0u : (1u << khi) - 1u) & \
		                     ~(klo >= NC ? (1u << NC) - 1u : (1u << klo) - 1u);             \
		const float *xu = x;                         /* input row of tap row u0 + u */      \
		const float *wu = wq;                        /* its weights */                      \
		for (int u = 0; u < nu; u++, xu += rs, wu += (size_t)KS * Mp) {                     \
			rt_dwr_v_##X w[KS];                                                             \
			RT_DWR_UNROLL_                                                                  \
			for (int v = 0; v < KS; v++)                                                    \
				w[v] = rt_dwr_load_##X(wu + (size_t)v * Mp);                                \
			const float *xc = masked ? xu : xu + (ptrdiff_t)(col0 + (edge & 1)) * xs;       \
			ptrdiff_t off = (ptrdiff_t)col0 * xs;      /* column col0 + k, masked */         \
			RT_DWR_UNROLL_                                                                  \
			for (int k = 0; k < NC; k++) {                                                  \
				/* input column col0 + k feeds pixel t through tap v = k - t*SS */          \
				rt_dwr_v_##X xv;                                                            \
				if (masked) {                                                               \
					if ((okb >> k) & 1u) {                                                  \
						xv = tail ? rt_dwr_loadk_##X(ki, xu + off) : rt_dwr_load_##X(xu + off); \
						if (perm)                                                           \
							xv = rt_dwr_perm_##X(pm, xv);                                   \
					} else {                                                                \
						xv = rt_dwr_zero_##X();                                             \
					}                                                                       \
					off += xs;                                                              \
				} else if (((edge & 1) && k == 0) || ((edge & 2) && k == NC - 1)) {        \
					xv = rt_dwr_zero_##X();                                                 \
				} else {                                                                    \
					xv = rt_dwr_load_##X(xc);                                               \
					xc += xs;                                                               \
				}                                                                           \
				RT_DWR_UNROLL_                                                              \
				for (int v = 0; v < KS; v++) {                                              \
					const int d = k - v;                                                    \
					if (d >= 0 && d % SS == 0 && d / SS < T)                                \
						a[d / SS] = rt_dwr_fma_##X(xv, w[v], a[d / SS]);                    \
				}                                                                           \
			}                                                                               \
		}                                                                                   \
		RT_DWR_EPI_(X, VL);                                                                 \
	}                                                                                       \
	/* Every tile of output rows [i0, i1) for one slot (arguments as above, but  \
	 * x: the view's input at row 0, column 0, the slot's first input channel;   \
	 * wq: packed weights at tap (0, 0); y: the view's output pixel (0, 0) at    \
	 * the slot's first channel; mode 2: multiplier > 1, 1: masked, 0: plain     \
	 * where the tile lies inside the input). A band of rows per call keeps the  \
	 * slot's set-up out of the row loop (a 25 x 5 plane of DS-CNN is 25 rows of \
	 * one tile each). Not inlined: one small function per kernel keeps its      \
	 * accumulators in registers. */                                              \
	static RT_DWR_ATTR_##X void rt_dwr_row_##X##_##NM(                                   \
	    const struct rt_conv2d *p, const float *x, size_t rs, int xs, const float *wq,        \
	    int Mp, rt_dwr_v_##X vb, rt_dwr_k_##X ki, rt_dwr_p_##X pm, float *y, int ys,         \
	    rt_dwr_k_##X ko, int on, int full, int mode, int i0, int i1)                           \
	{                                                                                       \
		enum { T = TT, NC = (TT - 1) * SS + KS };                                           \
		for (int i = i0; i < i1; i++) {                                                     \
			/* tap rows u0 .. u1-1 inside the input */                                      \
			const int ih = i * SS - p->padT;                                                \
			const int u0 = ih < 0 ? -ih : 0, u1 = p->H - ih < KS ? p->H - ih : KS;          \
			const int nu = u1 > u0 ? u1 - u0 : 0;                                           \
			const float *xr = nu ? x + (size_t)(ih + u0) * rs : x;                          \
			const float *wr = wq + (size_t)(nu ? u0 : 0) * KS * Mp;                         \
			float *yr = y + (size_t)i * p->oW * ys;                                         \
			for (int j0 = 0; j0 < p->oW; j0 += T) {                                         \
				/* the last tile ends on the row's last pixel, recomputing some of    \
				 * the tile before it (the same bits), so its columns past the row  \
				 * are the right padding only */                                     \
				if (j0 + T > p->oW && p->oW >= T)                                           \
					j0 = p->oW - T;                                                         \
				const int np = p->oW - j0 < T ? p->oW - j0 : T;                             \
				const int col0 = j0 * SS - p->padL;                                         \
				const int lo = col0 < 0 ? -col0 : 0, hi = col0 + NC - p->W;                 \
				float *yt = yr + (size_t)j0 * ys;                                           \
				if (mode == 2)                                                              \
					rt_dwr_tile_##X##_##NM(p, xr, rs, xs, nu, col0, wr, Mp, vb, ki, pm, yt, \
					                       ys, np, ko, on, full, 1, 1, 1, 0);               \
				else if (mode == 1)                                                         \
					rt_dwr_tile_##X##_##NM(p, xr, rs, xs, nu, col0, wr, Mp, vb, ki, pm, yt, \
					                       ys, np, ko, on, full, 1, 1, 0, 0);               \
				else if (lo == 0 && hi <= 0)                                                \
					rt_dwr_tile_##X##_##NM(p, xr, rs, xs, nu, col0, wr, Mp, vb, ki, pm, yt, \
					                       ys, np, ko, on, full, 0, 0, 0, 0);               \
				else if (lo == 1 && hi <= 0)                                                \
					rt_dwr_tile_##X##_##NM(p, xr, rs, xs, nu, col0, wr, Mp, vb, ki, pm, yt, \
					                       ys, np, ko, on, full, 0, 0, 0, 1);               \
				else if (lo == 0 && hi == 1)                                                \
					rt_dwr_tile_##X##_##NM(p, xr, rs, xs, nu, col0, wr, Mp, vb, ki, pm, yt, \
					                       ys, np, ko, on, full, 0, 0, 0, 2);               \
				else if (lo == 1 && hi == 1)                                                \
					rt_dwr_tile_##X##_##NM(p, xr, rs, xs, nu, col0, wr, Mp, vb, ki, pm, yt, \
					                       ys, np, ko, on, full, 0, 0, 0, 3);               \
				else                                                                        \
					rt_dwr_tile_##X##_##NM(p, xr, rs, xs, nu, col0, wr, Mp, vb, ki, pm, yt, \
					                       ys, np, ko, on, full, 1, 0, 0, 0);               \
			}                                                                               \
		}                                                                                   \
	}

/* One output vector stored under the mask ko: with `full` the lanes past
 * it written as zero (a block's padding channels), else left alone. */
#define RT_DWR_STORE_(X, VL)                                                                \
	static inline RT_DWR_INLINE_ RT_DWR_ATTR_##X void rt_dwr_stm_##X(                        \
	    float *y, rt_dwr_v_##X v, rt_dwr_k_##X ko, int full)                                 \
	{                                                                                       \
		if (full)                                                                           \
			rt_dwr_storez_##X(y, ko, v);                                                    \
		else                                                                                \
			rt_dwr_storek_##X(y, ko, v);                                                    \
	}                                                                                       \
	/* one output vector of a tile whose activation has no vector form       */         \
	/* (RT_DWR_EPI_ applies the others): stored, then the activation applied */         \
	/* in place to its `on` valid lanes                                       */        \
	static inline RT_DWR_INLINE_ RT_DWR_ATTR_##X void rt_dwr_st_##X(                         \
	    const struct rt_conv2d *p, float *y, rt_dwr_v_##X v, rt_dwr_k_##X ko, int on, int full) \
	{                                                                                       \
		rt_dwr_stm_##X(y, v, ko, full);                                                     \
		for (int l = 0; l < on; l++)                                                        \
			y[l] = rt_act_apply(p->act, p->alpha, p->beta, y[l]);                           \
	}

/* The epilogue and stores of a tile (a statement inside RT_DWR_TILE_, on its
 * accumulators a[T], its first np pixels stored, pixel t at y + t*ys): the
 * activation's vector form applied to all of them, then one kind of store
 * for all, as straight code, where a switch and a choice of store per pixel
 * had gcc branch to out-of-line blocks (about a fifth of the AVX2 plain
 * tile's samples; perf, 112 x 112 x 32, CHW8c). A statement and not a
 * function taking a[] by address: that way gcc kept a[] in a stack frame
 * and the tile ran 20-30% slower (MobileNetV2's depthwise shapes against
 * oneDNN, bench/primitives). The lanes get the same operations as when
 * each pixel was stored with its own switch, so the same bits; activations
 * without a vector form go pixel by pixel through rt_dwr_st_X. */
#define RT_DWR_EPI_(X, VL)                                                                  \
	do {                                                                                    \
		const rt_dwr_v_##X z_ = rt_dwr_zero_##X();                                          \
		int st_ = 1; /* 0: stored pixel by pixel (no vector form) */                        \
		switch (p->act) {                                                                   \
		case RT_ACT_NONE:                                                                   \
			break;                                                                          \
		case RT_ACT_RELU:                                                                   \
			RT_DWR_UNROLL_                                                                  \
			for (int t = 0; t < T; t++)                                                     \
				a[t] = rt_dwr_max_##X(a[t], z_);                                            \
			break;                                                                          \
		case RT_ACT_LEAKY_RELU: { /* max(v, 0) + alpha * min(v, 0) */                     \
			const rt_dwr_v_##X al_ = rt_dwr_set1_##X(p->alpha);                             \
			RT_DWR_UNROLL_                                                                  \
			for (int t = 0; t < T; t++)                                                     \
				a[t] = rt_dwr_fma_##X(rt_dwr_min_##X(a[t], z_), al_, rt_dwr_max_##X(a[t], z_)); \
			break;                                                                          \
		}                                                                                   \
		case RT_ACT_CLIP: {                                                                 \
			const rt_dwr_v_##X lo_ = rt_dwr_set1_##X(p->alpha);                             \
			const rt_dwr_v_##X hi_ = rt_dwr_set1_##X(p->beta);                              \
			RT_DWR_UNROLL_                                                                  \
			for (int t = 0; t < T; t++)                                                     \
				a[t] = rt_dwr_min_##X(rt_dwr_max_##X(a[t], lo_), hi_);                      \
			break;                                                                          \
		}                                                                                   \
		default:                                                                            \
			RT_DWR_UNROLL_                                                                  \
			for (int t = 0; t < T; t++)                                                     \
				if (t < np)                                                                 \
					rt_dwr_st_##X(p, y + (size_t)t * ys, a[t], ko, on, full);               \
			st_ = 0;                                                                        \
			break;                                                                          \
		}                                                                                   \
		if (st_ && on >= VL && np == T) {                                                   \
			RT_DWR_UNROLL_                                                                  \
			for (int t = 0; t < T; t++)                                                     \
				rt_dwr_store_##X(y + (size_t)t * ys, a[t]);                                 \
		} else if (st_ && on >= VL) {                                                       \
			RT_DWR_UNROLL_                                                                  \
			for (int t = 0; t < T; t++)                                                     \
				if (t < np)                                                                 \
					rt_dwr_store_##X(y + (size_t)t * ys, a[t]);                             \
		} else if (st_) {                                                                   \
			RT_DWR_UNROLL_                                                                  \
			for (int t = 0; t < T; t++)                                                     \
				if (t < np)                                                                 \
					rt_dwr_stm_##X(y + (size_t)t * ys, a[t], ko, full);                     \
		}                                                                                   \
	} while (0)

/* The type of the row functions of RT_DWR_TILE_ (one per kernel, stride and
 * tile width), so that a view picks its one before the loops. */
#define RT_DWR_ROWFN_(X)                                                                    \
	typedef void (*rt_dwr_rowfn_##X)(const struct rt_conv2d *, const float *, size_t, int,   \
	                                 const float *, int, rt_dwr_v_##X, rt_dwr_k_##X,         \
	                                 rt_dwr_p_##X, float *, int, rt_dwr_k_##X, int, int, int,  \
	                                 int, int);

/* Output rows [i0, i1) of one view (see the top): row by row, slot by slot,
 * or, with one slot (a blocked view of one vector), the whole band in one
 * call.
 *   xb: input [H][W], pixel stride xs      yb: out: [oH][oW], pixel stride ys
 *   wb: packed weights [K*K][Mp] at the view's first output channel
 *   bb: bias at the view's first output channel, or NULL
 *   cv, mv: input and output channels of the view (cv <= 0: an all-padding
 *   half block)   nslot: vectors of VL output channels per pixel
 *   m: multiplier   full: blocked output */
#define RT_DWR_VIEW_(X, VL)                                                                 \
	static RT_DWR_ATTR_##X void rt_dwr_view_##X(                                             \
	    const struct rt_conv2d *p, const float *xb, int xs, float *yb, int ys,                 \
	    const float *wb, int Mp, const float *bb, int cv, int mv, int nslot, int m, int full,  \
	    int i0, int i1)                                                                        \
	{                                                                                       \
		/* the row function: kernel and stride, then the tile width */                  \
		rt_dwr_rowfn_##X row;                                                               \
		switch ((10 * p->kH + p->sH) * 100 + rt_dwr_width_##X(p)) {                         \
		case 3101: row = RT_DWR_ROW31W_##X; break;                                          \
		case 3102: row = RT_DWR_ROW31N2_##X; break;                                         \
		case 3104: row = RT_DWR_ROW31N4_##X; break;                                         \
		case 3106: row = RT_DWR_ROW31N6_##X; break;                                         \
		case 3107: row = RT_DWR_ROW31N7_##X; break;                                         \
		case 3202: row = RT_DWR_ROW32N2_##X; break;                                         \
		case 3204: row = RT_DWR_ROW32N4_##X; break;                                         \
		case 3206: row = RT_DWR_ROW32N6_##X; break;                                         \
		case 3207: row = RT_DWR_ROW32N7_##X; break;                                         \
		case 3100: row = rt_dwr_row_##X##_31; break;                                        \
		case 3200: row = rt_dwr_row_##X##_32; break;                                        \
		case 5100: row = rt_dwr_row_##X##_51; break;                                        \
		default: row = rt_dwr_row_##X##_52; break;                                          \
		}                                                                                   \
		const size_t rs = (size_t)p->W * xs;                                                \
		const int band = nslot == 1 ? i1 - i0 : 1;                                          \
		for (int i = i0; i < i1; i += band)                                                 \
			for (int s = 0; s < nslot; s++) {                                               \
				/* first output channel o0, first input c0, input lanes read ci; */         \
				/* the divisions (a third of a 7 x 7 row's time) only where m > 1  */         \
				const int o0 = VL * s;                                                      \
				int c0 = o0, ci = VL;                                                       \
				rt_dwr_p_##X pm = rt_dwr_pidx_##X(rt_dwr_zidx_);                            \
				if (m > 1) {                                                                \
					int idx[16] = {0};                                                      \
					c0 = o0 / m;                                                            \
					ci = (o0 + VL - 1) / m - c0 + 1;                                        \
					for (int l = 0; l < VL; l++)                                            \
						idx[l] = (o0 + l) / m - c0;                                         \
					pm = rt_dwr_pidx_##X(idx);                                              \
				}                                                                           \
				int oc = mv - o0 < VL ? mv - o0 : VL;    /* output lanes */                \
				ci = cv - c0 < ci ? cv - c0 : ci;                                           \
				oc = oc > 0 ? oc : 0;                                                       \
				const rt_dwr_k_##X ko = rt_dwr_kmask_##X(oc), ki = rt_dwr_kmask_##X(ci);     \
				const rt_dwr_v_##X vb =                                                     \
				    bb && oc > 0 ? rt_dwr_loadk_##X(ko, bb + o0) : rt_dwr_zero_##X();       \
				const int mode = m > 1 ? 2 : ci < VL || oc < VL ? 1 : 0;                    \
				const float *xt = xb + c0;                                                  \
				const float *wt = wb + o0;                                                  \
				float *yt = yb + o0;                                                        \
				row(p, xt, rs, xs, wt, Mp, vb, ki, pm, yt, ys, ko, oc, full, mode, i, i + band);   \
			}                                                                               \
	}

/* Slices of 16 channels an HWC image is cut into for the threads: a 7 x 7
 * or 14 x 14 output has too few rows to share evenly (7 rows: 4 against 3),
 * so those images are also cut across channels, into at least 16 pieces in
 * all. A slice is a view of its own (the same pixel strides, channels from
 * a multiple of 16), and every lane computes its channel alone, so outputs
 * do not depend on the cut. Multipliers m > 1 and blocked images keep one. */
static inline int rt_dwr_slices_(const struct rt_conv2d *p, int variant)
{
	const int groups = (p->M + 15) / 16, want = (16 + p->oH - 1) / p->oH;
	if (variant == 8 || variant == 16 || p->M != p->C || p->oH >= 16)
		return 1;
	return groups < want ? groups : want;
}

/* Items [begin, end) of the whole convolution: item k is output row
 * k % oH of view k / oH, the views being, image after image, the image's
 * channel slices (HWC, variant 0; rt_dwr_slices_) or its blocks of B
 * channels (variants 8, 16), xcb floats apart in x and ycb in y. */
#define RT_DWR_ALL_(X, VL)                                                                  \
	static RT_DWR_ATTR_##X void rt_dwr_all_##X(const struct rt_conv2d *p, int variant,       \
	                                          const float *x, size_t xcb, const float *wp,   \
	                                          const float *b, float *y, size_t ycb,          \
	                                          int begin, int end)                            \
	{                                                                                       \
		const int Mp = (p->M + 15) / 16 * 16;                                               \
		const size_t xi = (size_t)p->H * p->W, yi = (size_t)p->oH * p->oW;                  \
		const int B = variant == 8 || variant == 16 ? variant : 0;                          \
		const int nb = B ? (p->C + B - 1) / B : 1;                                          \
		const int S = rt_dwr_slices_(p, variant), g = (p->M + 15) / 16;                     \
		for (int k = begin; k < end;) {                                                     \
			const int v = k / p->oH, i0 = k % p->oH;                                        \
			const int i1 = end - (k - i0) < p->oH ? end - (k - i0) : p->oH;                 \
			const int n = v / nb, cb = v % nb;                                              \
			if (B)                                                                          \
				rt_dwr_view_##X(p, x + ((size_t)n * nb + cb) * xcb, B,                      \
				                y + ((size_t)n * nb + cb) * ycb, B, wp + B * cb, Mp,        \
				                b ? b + B * cb : NULL, p->C - B * cb, p->C - B * cb,       \
				                B / VL, 1, 1, i0, i1);                                      \
			else if (S == 1)                                                                \
				rt_dwr_view_##X(p, x + (size_t)n * xi * p->C, p->C,                         \
				                y + (size_t)n * yi * p->M, p->M, wp, Mp, b, p->C, p->M,     \
				                (p->M + VL - 1) / VL, p->M / p->C, 0, i0, i1);              \
			else {                                                                          \
				const int sn = v / S, sl = v % S; /* image, slice (M == C) */               \
				const int c0 = 16 * (g * sl / S);                                           \
				int c1 = 16 * (g * (sl + 1) / S);                                           \
				c1 = c1 < p->M ? c1 : p->M;                                                 \
				rt_dwr_view_##X(p, x + (size_t)sn * xi * p->C + c0, p->C,                   \
				                y + (size_t)sn * yi * p->M + c0, p->M, wp + c0, Mp,         \
				                b ? b + c0 : NULL, c1 - c0, c1 - c0, (c1 - c0 + VL - 1) / VL, \
				                1, 0, i0, i1);                                              \
			}                                                                               \
			k += i1 - i0;                                                                   \
		}                                                                                   \
	}

#define RT_DWR_DEFINE_(X, VL)                                                               \
	RT_DWR_STORE_(X, VL)                                                                    \
	RT_DWR_TILE_(X, VL, 3, 1, RT_DWR_T_, 31)                                                \
	RT_DWR_TILE_(X, VL, 3, 2, RT_DWR_T_, 32)                                                \
	RT_DWR_TILE_(X, VL, 5, 1, RT_DWR_T_, 51)                                                \
	RT_DWR_TILE_(X, VL, 5, 2, RT_DWR_T_, 52)                                                \
	RT_DWR_WIDE31_##X(X, VL)                                                                \
	RT_DWR_NARROWS_##X(X, VL)                                                               \
	RT_DWR_WIDTH_(X)                                                                        \
	RT_DWR_ROWFN_(X)                                                                        \
	RT_DWR_VIEW_(X, VL)                                                                     \
	RT_DWR_ALL_(X, VL)

#if RT_SGEMM_HAVE_AVX512
RT_DWR_DEFINE_(z, 16)
#endif
#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
RT_DWR_DEFINE_(y, 8)
#endif
#if RT_SGEMM_HAVE_NEON
RT_DWR_DEFINE_(n, 4)
#endif
#if RT_SGEMM_HAVE_C
RT_DWR_DEFINE_(c, 1)
#endif

struct rt_dwr_job_ {
	const struct rt_conv2d *p;
	int variant;
	const float *x, *w, *b;
	float *y;
	size_t xcb, ycb; /* blocked: floats between channel blocks of x and of y */
	int views, bands; /* rt_dwr_bands_: views (blocks of every image), row bands of each */
};

/* Output rows [begin, end) of every view (RT_DWR_ALL_), on the ISA's code. */
static void rt_dwr_items_(void *ctx, int begin, int end)
{
	const struct rt_dwr_job_ *j = ctx;
	const struct rt_conv2d *p = j->p;
	(void)p;
#if RT_SGEMM_HAVE_AVX512
	if (p->isa == RT_SGEMM_ISA_AVX512 && j->variant != 8) {
		rt_dwr_all_z(p, j->variant, j->x, j->xcb, j->w, j->b, j->y, j->ycb, begin, end);
		return;
	}
#endif
#if RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2
	if (p->isa == RT_SGEMM_ISA_AVX512 || p->isa == RT_SGEMM_ISA_AVX2) {
		rt_dwr_all_y(p, j->variant, j->x, j->xcb, j->w, j->b, j->y, j->ycb, begin, end);
		return;
	}
#endif
#if RT_SGEMM_HAVE_NEON
	if (p->isa == RT_SGEMM_ISA_NEON) {
		rt_dwr_all_n(p, j->variant, j->x, j->xcb, j->w, j->b, j->y, j->ycb, begin, end);
		return;
	}
#endif
#if RT_SGEMM_HAVE_C
	rt_dwr_all_c(p, j->variant, j->x, j->xcb, j->w, j->b, j->y, j->ycb, begin, end);
#endif
}

#ifdef RT_THREADS
/* Item k of a job cut into row bands: band k / views of view k % views,
 * so that a run of consecutive items covers the same rows of every
 * channel block (RT_DWR_BAND_FLOATS). */
static void rt_dwr_bands_(void *ctx, int begin, int end)
{
	const struct rt_dwr_job_ *j = ctx;
	const int oH = j->p->oH;
	for (int k = begin; k < end; k++) {
		const int band = k / j->views, v = k % j->views;
		rt_dwr_items_(ctx, v * oH + oH * band / j->bands, v * oH + oH * (band + 1) / j->bands);
	}
}
#endif

/* Threads take whole output rows of a view (rt_parallel), so every output
 * element gets the same arithmetic whoever computes it. The blocked
 * variants take the distance between channel blocks (0: the dense H*W*B and
 * oH*oW*B), so a caller can run a band of output rows on an input that is a
 * short image of its own (conv_pw_dw.c): y then points at the band's first
 * row in block 0 of the output, ycb = oH*oW*B of the whole output. Images
 * lie ceil(C/B)*xcb and ceil(M/B)*ycb floats apart; HWC ignores both. */
RT_FN void rt_conv_depthwise_rows_blocks(const struct rt_conv2d *p, int variant,
                                         const float *x, /* [N][H][W][C] (0) or
                                                            [N][ceil(C/B)] blocks, xcb
                                                            apart, of [H][W][B] (B = 8, 16) */
                                         size_t xcb,
                                         const float *w, /* packed [K*K][Mp], Mp = M
                                                            rounded up to 16 */
                                         const float *b, /* [M] or NULL */
                                         float *y,       /* out: [N][oH][oW][M] or
                                                            [N][ceil(M/B)] blocks, ycb
                                                            apart, of [oH][oW][B] */
                                         size_t ycb)
{
	const int B = variant == 8 || variant == 16 ? variant : 0;
	struct rt_dwr_job_ j = {p, variant, x, w, b, y,
	                        xcb ? xcb : (size_t)p->H * p->W * B,
	                        ycb ? ycb : (size_t)p->oH * p->oW * B, 0, 0};
	const int items = p->N * (B ? (p->C + B - 1) / B : rt_dwr_slices_(p, variant)) * p->oH;
	/* a depthwise multiply-add counts 4 (it runs at about a quarter of a
	 * dense convolution's rate: MobileNetV2's 28 x 28 x 144 layer, 1 M of
	 * them, took about 100 us) */
	if (4.0 * p->M * p->kH * p->kW * p->oH * p->oW * p->N < RT_PARALLEL_MIN_WORK)
		rt_dwr_items_(&j, 0, items);
#ifdef RT_THREADS
	else if (B && (size_t)p->H * p->W * B > RT_DWR_BAND_FLOATS) {
		j.views = items / p->oH;
		j.bands = p->oH < RT_THREADS ? p->oH : RT_THREADS;
		rt_parallel(rt_dwr_bands_, &j, j.views * j.bands);
	}
#endif
	else
		rt_parallel(rt_dwr_items_, &j, items);
}

RT_FN void rt_conv_depthwise_rows(const struct rt_conv2d *p, int variant,
                                  const float *x, /* [N][H][W][C] (0) or
                                                     [N][ceil(C/B)][H][W][B] (B = 8, 16) */
                                  const float *w, /* packed [K*K][Mp], Mp = M rounded up to 16 */
                                  const float *b, /* [M] or NULL */
                                  float *y,       /* out: [N][oH][oW][M] or
                                                     [N][ceil(M/B)][oH][oW][B] */
                                  float *ws)      /* unused */
{
	(void)ws;
	rt_conv_depthwise_rows_blocks(p, variant, x, 0, w, b, y, 0);
}
