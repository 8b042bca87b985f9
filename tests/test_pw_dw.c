/* test_pw_dw.c - the fused 1x1 + depthwise kernel (runtime/conv_pw_dw.c)
 * against the unfused pair it replaces and against the textbook loops.
 *
 * For every shape and every instruction set the host executes (C, AVX2 +
 * FMA, AVX-512F; one test per ISA): the 1x1 (rt_conv_pointwise, HWC) then
 * the depthwise (rt_conv_depthwise_rows, HWC) give the unfused output; the
 * fused kernel must write the same bits (it runs those kernels on bands of
 * rows, and each element's arithmetic does not depend on the band), must
 * not write past its workspace (prep_pw_dw_ws, guard values after it) or its
 * output, and both must be within 1e-5 relative L2 of the textbook loops
 * computed in double. Shapes: MobileNetV2's expand -> depthwise pairs (stride
 * 1 and 2, 112 x 112 down to 7 x 7), odd sizes and channel counts, 5x5,
 * padding 0 to 2, planes of one to three rows, batches of 2, and a buffer
 * that holds only a band of one output row. */
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

static void run_shape(const struct pwdw_shape *s, int isa)
{
	const int N = s->N, C = s->C, H = s->H, W = s->W, Me = s->Me, K = s->K, S = s->S;
	const int oH = (H + 2 * s->pad - K) / S + 1, oW = (W + 2 * s->pad - K) / S + 1;
	struct rt_conv2d e = {N, C, H, W, Me, H, W, 1, 1, 1, 1, 1, 1, 0, 0, 1,
	                      RT_ACT_CLIP, 0.0f, 6.0f, isa, NULL};
	struct rt_conv2d d = {N, Me, H, W, Me, oH, oW, K, K, S, S, 1, 1, s->pad, s->pad, Me,
	                      RT_ACT_CLIP, 0.0f, 6.0f, isa, NULL};
	cr_assert(prep_pw_dw_applies(&e, &d));
	const size_t nx = (size_t)N * H * W * C, ne = (size_t)N * H * W * Me,
	             ny = (size_t)N * oH * oW * Me, nws = prep_pw_dw_ws(&d);
	float *x = malloc(nx * sizeof *x), *we = malloc((size_t)Me * C * sizeof *we);
	float *be = malloc((size_t)Me * sizeof *be), *wd = malloc((size_t)Me * K * K * sizeof *wd);
	float *bd = malloc((size_t)Me * sizeof *bd);
	float *wep = malloc(prep_pointwise_packed(&e, 0) * sizeof *wep);
	float *wdp = malloc(prep_dw_cvec_packed(&d, 0) * sizeof *wdp);
	float *t = malloc(ne * sizeof *t), *y0 = malloc(ny * sizeof *y0);
	float *y1 = malloc((ny + 64) * sizeof *y1), *ws = malloc((nws + 64) * sizeof *ws);
	double *eref = malloc(ne * sizeof *eref);
	unsigned seed = 12345u + (unsigned)(C * 31 + H * 7 + Me);
	cr_assert(x && we && be && wd && bd && wep && wdp && t && y0 && y1 && ws && eref);
	for (size_t i = 0; i < nx; i++)
		x[i] = 2.0f * frand(&seed);
	for (int i = 0; i < Me * C; i++)
		we[i] = frand(&seed) / (float)sqrt((double)C);
	for (int i = 0; i < Me; i++)
		be[i] = 0.5f * frand(&seed) + 1.0f, bd[i] = 0.5f * frand(&seed);
	for (int i = 0; i < Me * K * K; i++)
		wd[i] = frand(&seed) / (float)K;
	prep_pointwise_pack(&e, 0, we, wep);
	prep_dw_cvec_pack(&d, 0, wd, wdp);

	/* unfused */
	rt_conv_pointwise(&e, 0, x, wep, be, t, NULL);
	rt_conv_depthwise_rows(&d, 0, t, wdp, bd, y0, NULL);
	/* fused, with guards after output and workspace */
	for (size_t i = 0; i < ny + 64; i++)
		y1[i] = i < ny ? -1234.5f : 7777.0f;
	for (size_t i = 0; i < nws + 64; i++)
		ws[i] = i < nws ? -999.0f : 8888.0f;
	rt_conv_pw_dw(&e, &d, x, wep, be, wdp, bd, y1, ws);
	for (int i = 0; i < 64; i++) {
		cr_assert(y1[ny + i] == 7777.0f, "[%s] wrote past its output", rt_sgemm_isa_name(isa));
		cr_assert(ws[nws + i] == 8888.0f, "[%s] wrote past its workspace of %zu floats",
		          rt_sgemm_isa_name(isa), nws);
	}
	for (size_t i = 0; i < ny; i++)
		cr_assert(memcmp(&y0[i], &y1[i], sizeof *y1) == 0,
		          "[%s] N%d C%d %dx%d Me%d K%d S%d pad%d: fused %.9g != unfused %.9g at %zu",
		          rt_sgemm_isa_name(isa), N, C, H, W, Me, K, S, s->pad, y1[i], y0[i], i);

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
					const double dv = y1[(((size_t)n * oH + i) * oW + j) * Me + c] - r;
					err += dv * dv;
					mag += r * r;
				}
	cr_assert(sqrt(err) <= 1e-5 * (sqrt(mag) > 0 ? sqrt(mag) : 1.0),
	          "[%s] N%d C%d %dx%d Me%d K%d S%d pad%d: relative L2 error %.3g",
	          rt_sgemm_isa_name(isa), N, C, H, W, Me, K, S, s->pad,
	          sqrt(err) / (sqrt(mag) > 0 ? sqrt(mag) : 1.0));
	free(x), free(we), free(be), free(wd), free(bd), free(wep), free(wdp);
	free(t), free(y0), free(y1), free(ws), free(eref);
}

static void run_all(int isa)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
		run_shape(&shapes[k], isa);
}

Test(pw_dw, fused_equals_pair_c) { run_all(RT_SGEMM_ISA_C); }
Test(pw_dw, fused_equals_pair_avx2) { run_all(RT_SGEMM_ISA_AVX2); }
Test(pw_dw, fused_equals_pair_avx512) { run_all(RT_SGEMM_ISA_AVX512); }
Test(pw_dw, fused_equals_pair_neon) { run_all(RT_SGEMM_ISA_NEON); }
