/* test_nonconv.c - the layout-aware non-convolution kernels (pool_cl.c,
 * global_pool_cl.c, eltwise.c) against the textbook CHW kernels, in every
 * layout they run (HWC, CHW8c, CHW16c) and with every ISA the host executes
 * (rt_sgemm_isa_supported; one test per ISA, an ISA the host lacks skips),
 * the vectorised Relu/LeakyRelu (act_vec.c) against rt_unary, the
 * vectorised exp-based functions (unary_vec.c) against rt_unary_math, and the
 * per-channel binary ops (chan_binary.c) against rt_binary.
 *
 * Shapes: random sizes including 1, channels below, at, above and not a
 * multiple of the block or the SIMD width, kernels 1..5, strides 1..3,
 * dilation 1..2, asymmetric pads, the ceil_mode overhang (padB/padR past
 * what floor mode needs) and count_include_pad. The input is converted to
 * the layout here (our own loops, not the runtime's transforms), the kernel
 * runs, and the output, converted back, must match the reference within a
 * relative 1e-5 (averages multiply by a reciprocal). Blocked outputs must
 * keep the padding channels zero. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/dnncc_rt.h"
#include "runtime/sgemm.h"

static unsigned rng = 12345;
static int rnd(int lo, int hi) /* [lo, hi] */
{
	rng = rng * 1103515245u + 12345u;
	return lo + (int)((rng >> 8) % (unsigned)(hi - lo + 1));
}
static float rndf(void) { return (float)rnd(-10000, 10000) / 1000.0f; }

/* [N][C][H][W] -> the layout of block (0: HWC [N][H][W][C]; b: [N][C/b][H][W][b], zeros past C) */
static size_t lsize(int block, int C, int HW)
{
	return (size_t)(block ? (C + block - 1) / block * block : C) * HW;
}
static void to_layout(int block, int N, int C, int HW, const float *x, float *y)
{
	size_t is = lsize(block, C, HW);
	memset(y, 0, N * is * sizeof *y);
	for (int n = 0; n < N; n++)
		for (int c = 0; c < C; c++)
			for (int k = 0; k < HW; k++) {
				size_t o = block ? ((size_t)(c / block) * HW + k) * block + c % block
				                 : (size_t)k * C + c;
				y[n * is + o] = x[((size_t)n * C + c) * HW + k];
			}
}
/* back to CHW; returns 1 when a padding channel is not zero */
static int from_layout(int block, int N, int C, int HW, const float *x, float *y)
{
	size_t is = lsize(block, C, HW);
	int bad = 0;
	for (int n = 0; n < N; n++) {
		for (int c = 0; c < C; c++)
			for (int k = 0; k < HW; k++) {
				size_t o = block ? ((size_t)(c / block) * HW + k) * block + c % block
				                 : (size_t)k * C + c;
				y[((size_t)n * C + c) * HW + k] = x[n * is + o];
			}
		for (int c = C; block && c < (C + block - 1) / block * block; c++)
			for (int k = 0; k < HW; k++)
				bad |= x[n * is + ((size_t)(c / block) * HW + k) * block + c % block] != 0.0f;
	}
	return bad;
}

/* worst relative error of got against want (denominator at least 1) */
static double worst(const float *got, const float *want, size_t n, size_t *at)
{
	double w = 0;
	*at = 0;
	for (size_t i = 0; i < n; i++) {
		double e = fabs((double)got[i] - want[i]) / fmax(1.0, fabs((double)want[i]));
		if (isnan(got[i]) != isnan(want[i]) || isinf(got[i]) != isinf(want[i]))
			e = INFINITY;
		else if (isinf(got[i]) && got[i] == want[i])
			e = 0;
		if (!(e <= w)) {
			w = e;
			*at = i;
		}
	}
	return w;
}

/* 0: HWC; 8, 16: CHW8c, CHW16c; 1: CHW (pools only: blocks of one channel) */
static const int blocks[] = {0, 8, 16, 1};

static void random_pool(struct rt_pool2d *p)
{
	static const int cs[] = {1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 64};
	p->N = rnd(1, 2);
	p->C = cs[rnd(0, (int)(sizeof cs / sizeof cs[0]) - 1)];
	p->kH = rnd(1, 5);
	p->kW = rnd(1, 5);
	p->dH = rnd(1, 4) == 4 ? 2 : 1;
	p->dW = rnd(1, 4) == 4 ? 2 : 1;
	p->sH = rnd(1, 3);
	p->sW = rnd(1, 3);
	int ekH = (p->kH - 1) * p->dH + 1, ekW = (p->kW - 1) * p->dW + 1;
	p->H = ekH + rnd(0, 9);
	p->W = ekW + rnd(0, 9);
	/* ONNX: pads smaller than the kernel extent */
	p->padT = rnd(0, ekH - 1 < 2 ? ekH - 1 : 2);
	p->padL = rnd(0, ekW - 1 < 2 ? ekW - 1 : 2);
	p->padB = rnd(0, ekH - 1 < 2 ? ekH - 1 : 2);
	p->padR = rnd(0, ekW - 1 < 2 ? ekW - 1 : 2);
	int ceil_mode = rnd(0, 1);
	int nh = p->H + p->padT + p->padB - ekH, nw = p->W + p->padL + p->padR - ekW;
	p->oH = (ceil_mode ? (nh + p->sH - 1) / p->sH : nh / p->sH) + 1;
	p->oW = (ceil_mode ? (nw + p->sW - 1) / p->sW : nw / p->sW) + 1;
	/* ceil_mode: the last window must start inside the input or left pad */
	if ((p->oH - 1) * p->sH >= p->H + p->padT)
		p->oH--;
	if ((p->oW - 1) * p->sW >= p->W + p->padL)
		p->oW--;
	p->count_include_pad = rnd(0, 1);
}

/* One pooling layer x in CHW, both ops, every layout: against the textbook
 * kernels, padding channels kept zero. */
static void check_pool(int isa, const struct rt_pool2d *pp, const float *x)
{
	const struct rt_pool2d p = *pp;
	size_t ny = (size_t)p.N * p.C * p.oH * p.oW;
	float *ref = malloc(ny * sizeof *ref), *y = malloc(ny * sizeof *y);
	float *xl = malloc((size_t)p.N * lsize(16, p.C, p.H * p.W) * sizeof *xl);
	float *yl = malloc((size_t)p.N * lsize(16, p.C, p.oH * p.oW) * sizeof *yl);
	for (int avg = 0; avg < 2; avg++) {
		(avg ? rt_avgpool2d : rt_maxpool2d)(&p, x, ref);
		for (int b = 0; b < 4; b++) {
			to_layout(blocks[b], p.N, p.C, p.H * p.W, x, xl);
			memset(yl, 0x7f, (size_t)p.N * lsize(blocks[b], p.C, p.oH * p.oW) * sizeof *yl);
			rt_pool2d_cl(&p, isa, blocks[b], avg, xl, yl);
			int bad = from_layout(blocks[b], p.N, p.C, p.oH * p.oW, yl, y);
			size_t at;
			double e = worst(y, ref, ny, &at);
			cr_assert(!bad && e <= 1e-5,
			          "%s [%s] block %d: N %d C %d H %d W %d k %dx%d s %d,%d d %d,%d "
			          "pads %d,%d,%d,%d -> %dx%d cip %d: %s rel err %.3g at %zu "
			          "(got %g, want %g)",
			          avg ? "AveragePool" : "MaxPool", rt_sgemm_isa_name(isa), blocks[b], p.N,
			          p.C, p.H, p.W, p.kH, p.kW, p.sH, p.sW, p.dH, p.dW, p.padT, p.padL,
			          p.padB, p.padR, p.oH, p.oW, p.count_include_pad,
			          bad ? "padding channels not zero;" : "", e, at, y[at], ref[at]);
		}
	}
	free(ref), free(y), free(xl), free(yl);
}

static void pool_case(int isa, int n_shapes)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	rng = 777u + (unsigned)isa;
	for (int t = 0; t < n_shapes; t++) {
		struct rt_pool2d p;
		random_pool(&p);
		size_t nx = (size_t)p.N * p.C * p.H * p.W;
		float *x = malloc(nx * sizeof *x);
		for (size_t i = 0; i < nx; i++)
			x[i] = rndf();
		check_pool(isa, &p, x);
		free(x);
	}
}

/* Square kernel k, stride s, pad on every side, ceil_mode, as ONNX sizes
 * the output (the last window starts inside the input or the left pad). */
static struct rt_pool2d square_pool(int N, int C, int H, int W, int k, int s, int pad,
                                    int ceil_mode, int cip)
{
	struct rt_pool2d p;
	memset(&p, 0, sizeof p);
	p.N = N, p.C = C, p.H = H, p.W = W, p.kH = p.kW = k, p.sH = p.sW = s, p.dH = p.dW = 1;
	p.padT = p.padL = p.padB = p.padR = pad;
	int nh = H + 2 * pad - k, nw = W + 2 * pad - k;
	p.oH = (ceil_mode ? (nh + s - 1) / s : nh / s) + 1;
	p.oW = (ceil_mode ? (nw + s - 1) / s : nw / s) + 1;
	if ((p.oH - 1) * s >= H + pad)
		p.oH--;
	if ((p.oW - 1) * s >= W + pad)
		p.oW--;
	p.count_include_pad = cip;
	return p;
}

/* Every kernel 2, 3, 5 x stride 1, 2, 3 x pad below the kernel x ceil_mode
 * on odd and even sizes, channels not a multiple of 8 or 16 and multiples:
 * the interior/border split, the unrolled and the separable windows. */
static void pool_sweep(int isa)
{
	static const int ks[] = {2, 3, 5}, cs[] = {5, 16, 24, 35}, hw[][2] = {{7, 9}, {12, 13}};
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	rng = 31337u + (unsigned)isa;
	float *x = malloc((size_t)35 * 13 * 13 * sizeof *x);
	for (int i = 0; i < 35 * 13 * 13; i++)
		x[i] = rndf();
	for (int ki = 0; ki < 3; ki++)
		for (int s = 1; s <= 3; s++)
			for (int pad = 0; pad < ks[ki] && pad <= 2; pad++)
				for (int cm = 0; cm < 2; cm++)
					for (int h = 0; h < 2; h++)
						for (int ci = 0; ci < 4; ci++) {
							struct rt_pool2d p =
								square_pool(1, cs[ci], hw[h][0], hw[h][1], ks[ki],
								            s, pad, cm, (ci + cm + s) % 2);
							check_pool(isa, &p, x);
						}
	free(x);
}

/* The pooling layers of GoogLeNet, SqueezeNet 1.1, ResNet and VGG-16 (channels
 * cut to keep the test short where the count does not change the loops),
 * and rows wider than pool_cl.c's CHW buffer, at one thread and at two:
 * outputs bitwise identical. */
static void pool_networks(int isa)
{
	static const int L[][7] = {
		/* C, H, W, k, s, pad, ceil_mode */
		{64, 112, 112, 3, 2, 0, 1}, /* GoogLeNet maxpool1 */
		{48, 28, 28, 3, 1, 1, 1},   /* inception branch pool */
		{40, 14, 14, 2, 2, 0, 1},   /* maxpool4 */
		{24, 111, 111, 3, 2, 0, 1}, /* SqueezeNet features.2 */
		{32, 27, 27, 3, 2, 0, 1},   /* features.8 */
		{64, 112, 112, 3, 2, 1, 0}, /* ResNet maxpool */
		{32, 56, 56, 2, 2, 0, 0},   /* VGG-16 pool3 */
		{8, 224, 224, 2, 2, 0, 0},  /* VGG-16 pool1: CHW rows in two chunks */
		{9, 13, 301, 3, 1, 1, 1},   /* stride 1, three chunks */
	};
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	rng = 4711u + (unsigned)isa;
	for (size_t l = 0; l < sizeof L / sizeof L[0]; l++) {
		struct rt_pool2d p = square_pool(1, L[l][0], L[l][1], L[l][2], L[l][3], L[l][4],
		                                 L[l][5], L[l][6], 0);
		size_t nx = (size_t)p.C * p.H * p.W, ny = lsize(16, p.C, p.oH * p.oW);
		float *x = malloc(nx * sizeof *x), *xl = malloc(lsize(16, p.C, p.H * p.W) * sizeof *xl);
		float *y1 = malloc(ny * sizeof *y1), *y2 = malloc(ny * sizeof *y2);
		for (size_t i = 0; i < nx; i++)
			x[i] = rndf();
		check_pool(isa, &p, x);
		for (int b = 0; b < 4; b++)
			for (int avg = 0; avg < 2; avg++) {
				to_layout(blocks[b], 1, p.C, p.H * p.W, x, xl);
				rt_pool2d_cl(&p, isa, blocks[b], avg, xl, y1);
				cr_assert(rt_pool_start(2) == 2, "2 threads did not start");
				rt_pool2d_cl(&p, isa, blocks[b], avg, xl, y2);
				rt_pool_stop();
				cr_assert(!memcmp(y1, y2, lsize(blocks[b], p.C, p.oH * p.oW) * sizeof *y1),
				          "%s [%s] block %d, layer %zu: 2 threads differ from 1",
				          avg ? "AveragePool" : "MaxPool", rt_sgemm_isa_name(isa), blocks[b], l);
			}
		free(x), free(xl), free(y1), free(y2);
	}
}

/* Dilated windows wider than pool_cl.c's CHW buffer (128 columns; the ONNX
 * test MaxPool2d_stride_padding_dilation spans 791): every layout against
 * the textbook, with and without count_include_pad. */
static void pool_wide_window(int isa)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	rng = 31u + (unsigned)isa;
	for (int cip = 0; cip < 2; cip++) {
		struct rt_pool2d p;
		memset(&p, 0, sizeof p);
		p.N = 1, p.C = 3, p.H = 40, p.W = 263;
		p.kH = 5, p.kW = 20, p.dH = 3, p.dW = 10, p.sH = 2, p.sW = 3;
		p.padT = p.padB = 4, p.padL = 12, p.padR = 7;
		p.oH = (p.H + p.padT + p.padB - ((p.kH - 1) * p.dH + 1)) / p.sH + 1;
		p.oW = (p.W + p.padL + p.padR - ((p.kW - 1) * p.dW + 1)) / p.sW + 1;
		p.count_include_pad = cip;
		size_t nx = (size_t)p.C * p.H * p.W;
		float *x = malloc(nx * sizeof *x);
		for (size_t i = 0; i < nx; i++)
			x[i] = rndf();
		check_pool(isa, &p, x);
		free(x);
	}
}

static void global_case(int isa, int n_shapes)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	rng = 999u + (unsigned)isa;
	for (int t = 0; t < n_shapes; t++) {
		int N = rnd(1, 2), C = rnd(1, 70), HW = rnd(1, 60);
		float *x = malloc((size_t)N * C * HW * sizeof *x), *ref = malloc((size_t)N * C * sizeof *ref);
		float *xl = malloc((size_t)N * lsize(16, C, HW) * sizeof *xl);
		float *y = malloc(((size_t)N * C + 1) * sizeof *y);
		for (size_t i = 0; i < (size_t)N * C * HW; i++)
			x[i] = rndf();
		for (int avg = 0; avg < 2; avg++) {
			(avg ? rt_global_avgpool : rt_global_maxpool)(N * C, HW, x, ref);
			for (int b = 0; b < 3; b++) {
				to_layout(blocks[b], N, C, HW, x, xl);
				y[(size_t)N * C] = 42.0f; /* guard */
				rt_global_pool_cl(N, C, HW, isa, blocks[b], avg, xl, y);
				size_t at;
				double e = worst(y, ref, (size_t)N * C, &at);
				cr_assert(e <= 1e-5 && y[(size_t)N * C] == 42.0f,
				          "Global%sPool [%s] block %d: N %d C %d HW %d: rel err %.3g at %zu "
				          "(got %g, want %g)%s", avg ? "Average" : "Max",
				          rt_sgemm_isa_name(isa), blocks[b], N, C, HW, e, at, y[at], ref[at],
				          y[(size_t)N * C] == 42.0f ? "" : "; wrote past [N, C]");
			}
		}
		free(x), free(ref), free(xl), free(y);
	}
	/* inputs large enough to split over threads (SqueezeNet's and ResNet-50's
	 * last pools, and odd sizes with partial vectors and blocks): the reference,
	 * and 2 threads bitwise as 1 */
	static const int big[][3] = {{1, 1000, 169}, {1, 2048, 49}, {2, 1001, 67}, {1, 77, 900}};
	for (size_t t = 0; t < sizeof big / sizeof big[0]; t++) {
		const int N = big[t][0], C = big[t][1], HW = big[t][2];
		const size_t nx = (size_t)N * C * HW;
		float *x = malloc(nx * sizeof *x), *ref = malloc((size_t)N * C * sizeof *ref);
		float *xl = malloc((size_t)N * lsize(16, C, HW) * sizeof *xl);
		float *y1 = malloc((size_t)N * C * sizeof *y1), *y2 = malloc((size_t)N * C * sizeof *y2);
		for (size_t i = 0; i < nx; i++)
			x[i] = rndf();
		for (int avg = 0; avg < 2; avg++) {
			(avg ? rt_global_avgpool : rt_global_maxpool)(N * C, HW, x, ref);
			for (int b = 0; b < 3; b++) {
				to_layout(blocks[b], N, C, HW, x, xl);
				rt_global_pool_cl(N, C, HW, isa, blocks[b], avg, xl, y1);
				cr_assert(rt_pool_start(2) == 2, "2 threads did not start");
				rt_global_pool_cl(N, C, HW, isa, blocks[b], avg, xl, y2);
				rt_pool_stop();
				size_t at;
				double e = worst(y1, ref, (size_t)N * C, &at);
				cr_assert(e <= 1e-5, "Global%sPool [%s] block %d: N %d C %d HW %d: rel err %.3g",
				          avg ? "Average" : "Max", rt_sgemm_isa_name(isa), blocks[b], N, C, HW, e);
				cr_assert(!memcmp(y1, y2, (size_t)N * C * sizeof *y1),
				          "Global%sPool [%s] block %d: N %d C %d HW %d: 2 threads differ from 1",
				          avg ? "Average" : "Max", rt_sgemm_isa_name(isa), blocks[b], N, C, HW);
			}
		}
		free(x), free(ref), free(xl), free(y1), free(y2);
	}
}

static void eltwise_case(int isa)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	static const int ops[] = {RT_ADD, RT_SUB, RT_MUL, RT_MAX, RT_MIN};
	rng = 4242u + (unsigned)isa;
	for (int n = 0; n <= 70; n++) {
		float a[71], b[71], y[72], ref[71];
		for (int i = 0; i < n; i++)
			a[i] = rndf(), b[i] = rndf();
		for (int o = 0; o < 5; o++) {
			struct rt_bcast p = {1, {n}, {1}, {1}};
			rt_binary(ops[o], &p, a, b, ref);
			y[n] = 42.0f;
			rt_eltwise(ops[o], isa, (size_t)n, a, b, y);
			size_t at;
			double e = worst(y, ref, (size_t)n, &at);
			cr_assert(e == 0 && y[n] == 42.0f, "eltwise op %d [%s] n %d: err %.3g at %zu%s",
			          ops[o], rt_sgemm_isa_name(isa), n, e, at,
			          y[n] == 42.0f ? "" : "; wrote past n");
		}
	}
}

static void act_case(int isa)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	rng = 5151u + (unsigned)isa;
	for (int n = 0; n <= 70; n++) {
		float x[71], y[72], ref[71];
		for (int i = 0; i < n; i++)
			x[i] = rndf();
		for (int leaky = 0; leaky < 2; leaky++) {
			int act = leaky ? RT_ACT_LEAKY_RELU : RT_ACT_RELU;
			rt_unary(act, 0.125f, 0.0f, (size_t)n, x, ref);
			y[n] = 42.0f;
			rt_act_vec(act, 0.125f, isa, (size_t)n, x, y);
			size_t at;
			double e = worst(y, ref, (size_t)n, &at);
			cr_assert(e == 0 && y[n] == 42.0f, "%s [%s] n %d: err %.3g at %zu%s",
			          leaky ? "LeakyRelu" : "Relu", rt_sgemm_isa_name(isa), n, e, at,
			          y[n] == 42.0f ? "" : "; wrote past n");
		}
	}
}

/* Error of got in units in the last place of the float want (the spacing of
 * floats at max(|want|, floor), at least the smallest subnormal's); 0 when
 * both are the same NaN-ness and infinity, INFINITY when they differ there. */
static double ulps(float got, float want, float floor)
{
	if (isnan(got) || isnan(want))
		return isnan(got) && isnan(want) ? 0 : INFINITY;
	if (isinf(got) || isinf(want))
		return got == want ? 0 : INFINITY;
	int ex;
	frexpf(fmaxf(fabsf(want), floor), &ex); /* in [2^(ex-1), 2^ex) */
	double u = ldexp(1.0, (ex - 1 > FLT_MIN_EXP - 1 ? ex - 1 : FLT_MIN_EXP - 1) - (FLT_MANT_DIG - 1));
	return fabs((double)got - (double)want) / u;
}

/* unary_vec.c against unary_math.c's double-precision reference, rounded
 * to float once: every function on a sweep of x over [-12, 12] (steps of
 * 1e-4 near 0 and 1/128 elsewhere), 1000 random x in [-20, 20], values where exp over- and
 * underflows, subnormals, signed zeros, infinities and NaN, in calls of
 * every length 0..70 (vector tails) and in place. The bounds are over the
 * measured worst (printed; the same on every ISA here): exp 1 ulp, sigmoid
 * and erf 2, the hard functions 1 (counted in ulps of 1, below), all under
 * 4; gelu 2 for x >= 0 and 7 for x < 0, where 1 + erf is erfc(|x|/sqrt 2),
 * whose fit (1.2e-7) and float evaluation add up (x near -4, values near
 * 1e-4): under 8. */
static void unary_vec_case(int isa)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	static const int fns[] = {RT_MATH_SIGMOID, RT_MATH_EXP, RT_MATH_ERF, RT_MATH_GELU,
	                          RT_MATH_HARD_SIGMOID, RT_MATH_HARD_SWISH};
	static const float special[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-40f, -1e-40f, 0.5f,
	                                -0.5f, 0.4999999f, 0.5000001f, 88.37f, 88.7f, 88.73f,
	                                89.5f, -87.33f, -87.4f, -100.0f, -103.9f, -104.5f, 200.0f,
	                                -200.0f, 3.0f, -3.0f, 6.0f, -6.0f, 1e30f, -1e30f};
	size_t n = 0, cap = 4096 + 2 * 24 * 64 + sizeof special / sizeof special[0] + 3 + 1000;
	float *x = malloc(cap * sizeof *x), *y = malloc((cap + 1) * sizeof *y);
	float *ref = malloc(cap * sizeof *ref);
	cr_assert(x && y && ref);
	for (int i = -2048; i < 2048; i++) /* densely near 0 */
		x[n++] = (float)i * 1e-4f;
	for (int i = -24 * 64; i < 24 * 64; i++)
		x[n++] = (float)i / 128.0f + 1.0f / 1024.0f;
	for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
		x[n++] = special[i];
	x[n++] = INFINITY, x[n++] = -INFINITY, x[n++] = NAN;
	rng = 7171u + (unsigned)isa;
	for (int i = 0; i < 1000; i++) /* and anywhere in [-20, 20] */
		x[n++] = 2.0f * rndf() + (float)rnd(0, 999) * 1e-6f;
	for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
		const float a = 0.2f, b = 0.5f; /* HardSigmoid's defaults */
		rt_unary_math(fns[f], a, b, n, x, ref);
		y[n] = 42.0f;
		rt_unary_vec(fns[f], a, b, isa, n, x, y);
		/* the hard functions round alpha x + beta (x / 6 + 1/2) once in float
		 * and cancel near their corners, as float code does: their error is
		 * counted in ulps of 1, the scale of their terms */
		const float floor = fns[f] == RT_MATH_HARD_SIGMOID || fns[f] == RT_MATH_HARD_SWISH;
		double w = 0;
		size_t at = 0;
		for (size_t i = 0; i < n; i++)
			if (!(ulps(y[i], ref[i], floor) <= w))
				w = ulps(y[i], ref[i], floor), at = i;
		printf("unary_vec [%s] fn %d: worst %.2f ulp at x = %.9g (got %.9g, want %.9g)\n",
		       rt_sgemm_isa_name(isa), fns[f], w, x[at], y[at], ref[at]);
		cr_assert(w <= (fns[f] == RT_MATH_GELU ? 8.0 : 4.0) && y[n] == 42.0f, "unary_vec [%s] fn %d: %.3g ulp at x = %.9g: "
		          "got %.9g, want %.9g%s", rt_sgemm_isa_name(isa), fns[f], w, x[at], y[at],
		          ref[at], y[n] == 42.0f ? "" : "; wrote past n");
		/* short calls (vector tails), from an odd offset, and in place */
		for (size_t m = 0; m <= 70; m++) {
			float t[71];
			memcpy(t, x + 4001, m * sizeof *t);
			rt_unary_vec(fns[f], a, b, isa, m, t, t);
			for (size_t i = 0; i < m; i++)
				cr_assert(memcmp(&t[i], &y[4001 + i], sizeof t[i]) == 0,
				          "unary_vec [%s] fn %d: n %zu, element %zu differs from the long "
				          "call's: %.9g, %.9g", rt_sgemm_isa_name(isa), fns[f], m, i, t[i],
				          y[4001 + i]);
		}
	}
	free(x), free(y), free(ref);
}

/* chan_binary.c: x [N, C, H, W] op a per-channel p ([C], [N, C] or one
 * value) in CHW, HWC, CHW8c and CHW16c against rt_binary on CHW; exact
 * (the same float operation per element). */
static void chan_case(int isa)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the host cannot run %s", rt_sgemm_isa_name(isa));
	static const int ops[] = {RT_ADD, RT_SUB, RT_MUL, RT_MAX, RT_MIN, RT_PRELU};
	static const int cs[] = {1, 3, 4, 7, 8, 9, 15, 16, 17, 24, 31, 33, 40};
	static const int layouts[] = {-1, 0, 8, 16};
	rng = 6161u + (unsigned)isa;
	for (int t = 0; t < 60; t++) {
		int N = rnd(1, 2), C = cs[rnd(0, (int)(sizeof cs / sizeof cs[0]) - 1)];
		int H = rnd(1, 7), W = rnd(1, 9), HW = H * W, form = rnd(0, 2);
		int sn = form == 1 ? C : 0, sc = form == 2 ? 0 : 1; /* [C], [N, C], one value */
		size_t nx = (size_t)N * C * HW, big = (size_t)N * lsize(16, C, HW);
		float *x = malloc(nx * sizeof *x), *ref = malloc(nx * sizeof *ref);
		float *xl = malloc(big * sizeof *xl), *yl = malloc((big + 1) * sizeof *yl);
		float *y = malloc(nx * sizeof *y), p[2 * 40];
		for (size_t i = 0; i < nx; i++)
			x[i] = rndf();
		for (int i = 0; i < 2 * 40; i++)
			p[i] = rndf();
		for (int o = 0; o < 6; o++) {
			/* the reference: b of dims [N, C, 1] broadcast over HW */
			struct rt_bcast bc = {3, {N, C, HW}, {C * HW, HW, 1}, {sn, sc, 0}};
			rt_binary(ops[o], &bc, x, p, ref);
			for (int li = 0; li < 4; li++) {
				int blk = layouts[li];
				size_t ny = blk < 0 ? nx : (size_t)N * lsize(blk, C, HW);
				const float *xin = x;
				if (blk >= 0) {
					to_layout(blk, N, C, HW, x, xl);
					xin = xl;
				}
				yl[ny] = 42.0f; /* guard */
				rt_chan_binary(ops[o], isa, blk, N, C, (size_t)HW, xin, p, sn, sc, yl);
				int bad = 0;
				if (blk >= 0)
					bad = from_layout(blk, N, C, HW, yl, y);
				else
					memcpy(y, yl, nx * sizeof *y);
				size_t at;
				double e = worst(y, ref, nx, &at);
				cr_assert(!bad && e == 0 && yl[ny] == 42.0f,
				          "chan op %d [%s] layout %d: N %d C %d H %d W %d p form %d: %s"
				          "err %.3g at %zu (got %g, want %g)%s", ops[o],
				          rt_sgemm_isa_name(isa), blk, N, C, H, W, form,
				          bad ? "padding channels not zero; " : "", e, at, y[at], ref[at],
				          yl[ny] == 42.0f ? "" : "; wrote past y");
				/* in place, as the planner may alias y with x */
				if (blk >= 0) {
					rt_chan_binary(ops[o], isa, blk, N, C, (size_t)HW, xl, p, sn, sc, xl);
					from_layout(blk, N, C, HW, xl, y);
					e = worst(y, ref, nx, &at);
					cr_assert(e == 0, "chan op %d [%s] layout %d in place: err %.3g at %zu",
					          ops[o], rt_sgemm_isa_name(isa), blk, e, at);
				}
			}
		}
		free(x), free(ref), free(xl), free(yl), free(y);
	}
}

#define NONCONV_TESTS_FOR_ISA(ISA, sfx)                                   \
	Test(nonconv, pool_##sfx) { pool_case(ISA, 150); }                \
	Test(nonconv, pool_sweep_##sfx) { pool_sweep(ISA); }              \
	Test(nonconv, pool_networks_##sfx) { pool_networks(ISA); }        \
	Test(nonconv, pool_wide_window_##sfx) { pool_wide_window(ISA); }  \
	Test(nonconv, global_pool_##sfx) { global_case(ISA, 60); }        \
	Test(nonconv, eltwise_##sfx) { eltwise_case(ISA); }                \
	Test(nonconv, act_##sfx) { act_case(ISA); }                       \
	Test(nonconv, unary_vec_##sfx) { unary_vec_case(ISA); }           \
	Test(nonconv, chan_##sfx) { chan_case(ISA); }

NONCONV_TESTS_FOR_ISA(RT_SGEMM_ISA_C, c)
NONCONV_TESTS_FOR_ISA(RT_SGEMM_ISA_AVX2, avx2)
NONCONV_TESTS_FOR_ISA(RT_SGEMM_ISA_AVX512, avx512)
NONCONV_TESTS_FOR_ISA(RT_SGEMM_ISA_NEON, neon)
