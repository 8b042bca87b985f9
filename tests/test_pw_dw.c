/* test_pw_dw.c - the fused 1x1 + depthwise kernel (runtime/conv_pw_dw.c)
 * against the unfused pair it replaces and against the textbook loops.
 *
 * For every shape, every layout the kernel takes (HWC, CHW16c, CHW8c) and
 * every instruction set the host executes (C, AVX2 + FMA, AVX-512F; one test
 * per ISA and layout): the 1x1 (rt_conv_pointwise) then the depthwise
 * (rt_conv_depthwise_rows) of that layout give the unfused output, which
 * the pair must also give on the pool's 2 and 3 threads (a depthwise layer
 * whose channel blocks hold more than RT_DWR_BAND_FLOATS input floats cuts
 * its rows over the threads, not its blocks); the fused kernel must write
 * the same bits (it runs those kernels on bands of
 * rows, and each element's arithmetic does not depend on the band), on one
 * thread and on the pool's 2 and 3, must not write past its workspace
 * (prep_pw_dw_ws, guard values after it) or its output, and both must be
 * within 1e-5 relative L2 of the textbook loops computed in double. Shapes:
 * MobileNetV2's expand -> depthwise pairs (stride 1 and 2, 112 x 112 down to
 * 7 x 7), odd sizes and channel counts (not multiples of 8 or 16), 5x5,
 * padding 0 to 2, planes of one to three rows, batches of 2 (large enough
 * to run on the threads: chunks of both images at once), one chunk and
 * RT_PARALLEL_ITEMS of them, chunks of many bands whose kept rows move to
 * the buffer's start, a last band shorter than the others, buffers that
 * hold only a band of one output row, and planes past RT_DWR_BAND_FLOATS
 * a block at 16 and at 8 lanes, of one image and of two. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/dnncc_rt.h"
#include "runtime/prep.h"
#include "runtime/prep_depthwise.h"
#include "runtime/prep_pointwise.h"
#include "runtime/sgemm.h"

struct pwdw_shape {
	int N, C, H, W, Me, K, S, pad;
};

static const struct pwdw_shape shapes[] = {
	{1, 16, 112, 112, 96, 3, 2, 1},  /* MobileNetV2 features.2 */
	{1, 24, 56, 56, 144, 3, 1, 1},   /* features.3 */
	{1, 24, 56, 56, 144, 3, 2, 1},   /* features.4 */
	{1, 32, 28, 28, 192, 3, 1, 1},   /* features.5 */
	{1, 64, 14, 14, 384, 3, 1, 1},   /* features.8 */
	{1, 96, 14, 14, 576, 3, 2, 1},   /* features.14 */
	{1, 160, 7, 7, 960, 3, 1, 1},    /* features.15 */
	{1, 3, 9, 11, 17, 3, 1, 1},
	{2, 5, 13, 7, 33, 3, 2, 1},
	{1, 7, 10, 10, 20, 5, 1, 2},
	{1, 7, 11, 9, 19, 5, 2, 2},
	{2, 4, 8, 8, 16, 3, 1, 0},
	{1, 9, 12, 15, 40, 3, 2, 0},
	{1, 6, 1, 5, 8, 3, 1, 1},
	{1, 6, 2, 9, 24, 3, 2, 1},
	{1, 6, 3, 3, 31, 5, 1, 2},
	{1, 8, 2, 2, 16, 3, 2, 1},
	{1, 12, 31, 200, 300, 3, 1, 1}, /* a row of e bigger than the band buffer */
	{1, 11, 23, 17, 64, 5, 2, 1},
	{1, 24, 56, 56, 40, 3, 1, 1},   /* Me 40: the 1x1's half vector (AVX-512) */
	{1, 5, 29, 31, 20, 3, 2, 1},    /* blocks of 16 and 4 */
	{1, 17, 30, 13, 8, 3, 1, 1},    /* one block of 8, half a block of 16 */
	{2, 33, 19, 21, 49, 5, 1, 2},
	{1, 3, 60, 250, 70, 3, 2, 1},   /* a blocked row of e bigger than the band buffer */
	{1, 16, 100, 40, 96, 3, 1, 1},  /* several rows a band, 8 chunks */
	{1, 16, 101, 40, 96, 3, 2, 1},
	{2, 5, 93, 90, 20, 3, 2, 1},    /* row bands at 16 lanes, 2 images, 47 rows */
	{1, 8, 130, 131, 24, 3, 1, 1},  /* row bands at 8 lanes, 130 rows */
};

static float frand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (float)((*s >> 9) & 0xFFFF) / 32768.0f - 1.0f;
}

static float clip6(double v)
{
	return (float)(v < 0.0 ? 0.0 : v > 6.0 ? 6.0 : v);
}

/* [N][H][W][C] -> [N][ceil(C/B)][H][W][B], the lanes past C zero (B = 0: a copy) */
static void to_layout(int N, int C, int HW, int B, const float *x, float *y)
{
	if (!B) {
		memcpy(y, x, (size_t)N * HW * C * sizeof *y);
		return;
	}
	const int nb = (C + B - 1) / B;
	for (int n = 0; n < N; n++)
		for (int cb = 0; cb < nb; cb++)
			for (int p = 0; p < HW; p++)
				for (int l = 0; l < B; l++) {
					const int c = cb * B + l;
					y[(((size_t)n * nb + cb) * HW + p) * B + l] =
					    c < C ? x[((size_t)n * HW + p) * C + c] : 0.0f;
				}
}

/* element (n, p, c) of an [N][HW][C] tensor in layout B (0: HWC) */
static size_t at(int C, int HW, int B, int n, int p, int c)
{
	if (!B)
		return ((size_t)n * HW + p) * C + c;
	const int nb = (C + B - 1) / B;
	return (((size_t)n * nb + c / B) * HW + p) * B + c % B;
}

static void run_shape(const struct pwdw_shape *s, int isa, int B)
{
	const int N = s->N, C = s->C, H = s->H, W = s->W, Me = s->Me, K = s->K, S = s->S;
	const int oH = (H + 2 * s->pad - K) / S + 1, oW = (W + 2 * s->pad - K) / S + 1;
	struct rt_conv2d e = {N, C, H, W, Me, H, W, 1, 1, 1, 1, 1, 1, 0, 0, 1,
	                      RT_ACT_CLIP, 0.0f, 6.0f, isa, NULL, 1};
	struct rt_conv2d d = {N, Me, H, W, Me, oH, oW, K, K, S, S, 1, 1, s->pad, s->pad, Me,
	                      RT_ACT_CLIP, 0.0f, 6.0f, isa, NULL, 1};
	cr_assert(prep_pw_dw_applies(&e, &d, B));
	const int Cp = B ? (C + B - 1) / B * B : C, Mp = B ? (Me + B - 1) / B * B : Me;
	const size_t nx = (size_t)N * H * W * C, ne = (size_t)N * H * W * Mp,
	             ny = (size_t)N * oH * oW * Mp, nws = prep_pw_dw_ws(&d, B);
	float *x = malloc(nx * sizeof *x), *we = malloc((size_t)Me * C * sizeof *we);
	float *xb = malloc((size_t)N * H * W * Cp * sizeof *xb);
	float *be = malloc((size_t)Me * sizeof *be), *wd = malloc((size_t)Me * K * K * sizeof *wd);
	float *bd = malloc((size_t)Me * sizeof *bd);
	float *wep = malloc(prep_pointwise_packed(&e, B) * sizeof *wep);
	float *wdp = malloc(prep_dw_cvec_packed(&d, B) * sizeof *wdp);
	float *t = malloc(ne * sizeof *t), *y0 = malloc(ny * sizeof *y0);
	float *y1 = malloc((ny + 64) * sizeof *y1), *ws = malloc((nws + 64) * sizeof *ws);
	double *eref = malloc((size_t)N * H * W * Me * sizeof *eref);
	unsigned seed = 12345u + (unsigned)(C * 31 + H * 7 + Me);
	cr_assert(x && xb && we && be && wd && bd && wep && wdp && t && y0 && y1 && ws && eref);
	for (size_t i = 0; i < nx; i++)
		x[i] = 2.0f * frand(&seed);
	for (int i = 0; i < Me * C; i++)
		we[i] = frand(&seed) / (float)sqrt((double)C);
	for (int i = 0; i < Me; i++)
		be[i] = 0.5f * frand(&seed) + 1.0f, bd[i] = 0.5f * frand(&seed);
	for (int i = 0; i < Me * K * K; i++)
		wd[i] = frand(&seed) / (float)K;
	prep_pointwise_pack(&e, B, we, wep);
	prep_dw_cvec_pack(&d, B, wd, wdp);
	to_layout(N, C, H * W, B, x, xb);

	/* unfused */
	rt_conv_pointwise(&e, B, xb, wep, be, t, NULL);
	rt_conv_depthwise_rows(&d, B, t, wdp, bd, y0, NULL);
	/* the unfused pair on 2 and 3 threads: the same bits (the threads cut
	 * the 1x1 by pixels or by channels, the depthwise layer by channel
	 * blocks or, on a plane of more than RT_DWR_BAND_FLOATS a block, by
	 * rows: features.2's 112 x 112 plane and the last two shapes) */
	for (int th = 2; th <= 3; th++) {
		cr_assert_eq(rt_pool_start(th), th);
		for (size_t i = 0; i < ny + 64; i++)
			y1[i] = i < ny ? -1234.5f : 7777.0f;
		rt_conv_pointwise(&e, B, xb, wep, be, t, NULL);
		rt_conv_depthwise_rows(&d, B, t, wdp, bd, y1, NULL);
		rt_pool_stop();
		for (int i = 0; i < 64; i++)
			cr_assert(y1[ny + i] == 7777.0f, "[%s B%d] unfused, %d threads: wrote past its "
			          "output", rt_sgemm_isa_name(isa), B, th);
		cr_assert(memcmp(y0, y1, ny * sizeof *y1) == 0,
		          "[%s B%d] N%d C%d %dx%d Me%d K%d S%d pad%d: unfused on %d threads differs "
		          "from 1 thread", rt_sgemm_isa_name(isa), B, N, C, H, W, Me, K, S, s->pad, th);
	}
	/* fused on 1, 2 and 3 threads, with guards after output and workspace */
	for (int th = 1; th <= 3; th++) {
		cr_assert_eq(rt_pool_start(th), th);
		for (size_t i = 0; i < ny + 64; i++)
			y1[i] = i < ny ? -1234.5f : 7777.0f;
		for (size_t i = 0; i < nws + 64; i++)
			ws[i] = i < nws ? -999.0f : 8888.0f;
		rt_conv_pw_dw(&e, &d, B, xb, wep, be, wdp, bd, y1, ws);
		rt_pool_stop();
		for (int i = 0; i < 64; i++) {
			cr_assert(y1[ny + i] == 7777.0f, "[%s B%d] wrote past its output",
			          rt_sgemm_isa_name(isa), B);
			cr_assert(ws[nws + i] == 8888.0f, "[%s B%d] wrote past its workspace of %zu floats",
			          rt_sgemm_isa_name(isa), B, nws);
		}
		for (size_t i = 0; i < ny; i++)
			cr_assert(memcmp(&y0[i], &y1[i], sizeof *y1) == 0,
			          "[%s B%d, %d threads] N%d C%d %dx%d Me%d K%d S%d pad%d: fused %.9g != "
			          "unfused %.9g at %zu",
			          rt_sgemm_isa_name(isa), B, th, N, C, H, W, Me, K, S, s->pad, y1[i], y0[i],
			          i);
	}

	/* textbook, in double: e = clip(be + we x), y = clip(bd + wd * e) */
	for (int n = 0; n < N; n++)
		for (int p = 0; p < H * W; p++)
			for (int c = 0; c < Me; c++) {
				double a = be[c];
				for (int k = 0; k < C; k++)
					a += (double)we[c * C + k] * x[((size_t)n * H * W + p) * C + k];
				eref[((size_t)n * H * W + p) * Me + c] = clip6(a);
			}
	double err = 0.0, mag = 0.0;
	for (int n = 0; n < N; n++)
		for (int i = 0; i < oH; i++)
			for (int j = 0; j < oW; j++)
				for (int c = 0; c < Me; c++) {
					double a = bd[c];
					for (int u = 0; u < K; u++)
						for (int v = 0; v < K; v++) {
							const int h = i * S - s->pad + u, w = j * S - s->pad + v;
							if (h >= 0 && h < H && w >= 0 && w < W)
								a += (double)wd[c * K * K + u * K + v] *
								     eref[(((size_t)n * H + h) * W + w) * Me + c];
						}
					const double r = clip6(a);
					const double dv = y1[at(Me, oH * oW, B, n, i * oW + j, c)] - r;
					err += dv * dv;
					mag += r * r;
				}
	cr_assert(sqrt(err) <= 1e-5 * (sqrt(mag) > 0 ? sqrt(mag) : 1.0),
	          "[%s B%d] N%d C%d %dx%d Me%d K%d S%d pad%d: relative L2 error %.3g",
	          rt_sgemm_isa_name(isa), B, N, C, H, W, Me, K, S, s->pad,
	          sqrt(err) / (sqrt(mag) > 0 ? sqrt(mag) : 1.0));
	free(x), free(xb), free(we), free(be), free(wd), free(bd), free(wep), free(wdp);
	free(t), free(y0), free(y1), free(ws), free(eref);
}

static void run_all(int isa, int B)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
		run_shape(&shapes[k], isa, B);
}

Test(pw_dw, fused_equals_pair_c) { run_all(RT_SGEMM_ISA_C, 0); }
Test(pw_dw, fused_equals_pair_avx2) { run_all(RT_SGEMM_ISA_AVX2, 0); }
Test(pw_dw, fused_equals_pair_avx512) { run_all(RT_SGEMM_ISA_AVX512, 0); }
Test(pw_dw, fused_equals_pair_neon) { run_all(RT_SGEMM_ISA_NEON, 0); }
Test(pw_dw, fused_equals_pair_chw16c_c) { run_all(RT_SGEMM_ISA_C, 16); }
Test(pw_dw, fused_equals_pair_chw16c_avx2) { run_all(RT_SGEMM_ISA_AVX2, 16); }
Test(pw_dw, fused_equals_pair_chw16c_avx512) { run_all(RT_SGEMM_ISA_AVX512, 16); }
Test(pw_dw, fused_equals_pair_chw16c_neon) { run_all(RT_SGEMM_ISA_NEON, 16); }
Test(pw_dw, fused_equals_pair_chw8c_c) { run_all(RT_SGEMM_ISA_C, 8); }
Test(pw_dw, fused_equals_pair_chw8c_avx2) { run_all(RT_SGEMM_ISA_AVX2, 8); }
Test(pw_dw, fused_equals_pair_chw8c_avx512) { run_all(RT_SGEMM_ISA_AVX512, 8); }
Test(pw_dw, fused_equals_pair_chw8c_neon) { run_all(RT_SGEMM_ISA_NEON, 8); }
