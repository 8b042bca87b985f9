/* test_primitives.c - every row of the primitive table against the sum2d
 * baseline, and every layout transform against a naive index mapping.
 *
 * One parameterised test per convolution shape (so the reference is computed
 * once per shape): 200 random shapes (odd channel counts, 1x1 to 11x11 and
 * non-square kernels, strides 1 to 4, asymmetric padding, dilation, groups,
 * depthwise) plus every conv layer of AlexNet, VGG-16, GoogLeNet, ResNet-50
 * and MobileNetV2 (tests/conv_layers.h), and 64 depthwise shapes around the
 * register-tiled depthwise rows (3x3 and 5x5, strides 1 and 2, odd channel
 * counts, multipliers, tiny planes, every padding), and 48 first-layer shapes
 * (C 1 to 4, kernels 3 to 11, strides 1 to 4) around the stem rows. For each
 * shape every applicable
 * primitive runs through its real interface: weights packed by its PACK,
 * input converted into its layout, a workspace of WS floats with guard
 * values after it, output converted back to CHW and compared with sum2d.
 * Each shape runs once per instruction set the host executes (C always,
 * AVX2 + FMA, AVX-512F, NEON), as separate tests named by the ISA. On the
 * random shapes, rows that add a fused residual themselves also run with one
 * (check_residual).
 *
 * Tolerance (relative L2 error ||y - ref|| / ||ref||, and max abs error over
 * max |ref|) per family, from measured error: the GEMM- and direct-based
 * families only reorder float sums (K·eps-level differences, measured below
 * 1e-6); Winograd's transforms amplify rounding with the tile size (the
 * research brief measured 5e-7, 3e-6, 6e-6 relative L2 for F(2), F(4), F(6)
 * at C = 256), FFT's round-trip through the frequency domain loses about
 * log2(n)·eps per element. The worst error seen per primitive is printed at
 * the end of each shape with DNNCC_VERBOSE=1; DNNCC_PRIM_FILTER=SUBSTRING runs
 * only the rows whose name contains it. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/dnncc_rt.h"
#include "runtime/prep.h"
#include "runtime/sgemm.h"
#include "tests/conv_layers.h"
#include "tests/layout_ref.h"

#define N_RANDOM 200
#define GUARD 16 /* floats of guard values after every buffer */
#define GUARD_VALUE 1234.5f

struct shape {
	struct rt_conv2d p;
	const char *what; /* "random #k" or "net/layer" */
};

static unsigned long long rng_state;

static unsigned rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng_state >> 33);
}

static int rnd_in(int lo, int hi) { return lo + (int)(rnd() % (unsigned)(hi - lo + 1)); }
static float rnd_float(void) { return (float)(rnd() % 20001) / 10000.0f - 1.0f; }

static int out_dim(int in, int k, int s, int d, int pb, int pe)
{
	int span = (k - 1) * d + 1;
	return in + pb + pe < span ? 0 : (in + pb + pe - span) / s + 1;
}

/* Random shape k: deterministic per k. */
static struct shape random_shape(int k)
{
	struct shape s;
	struct rt_conv2d *p = &s.p;
	memset(&s, 0, sizeof s);
	rng_state = 0x9e3779b97f4a7c15ULL * (unsigned long long)(k + 1);
	do {
		static const int groups[] = {1, 1, 1, 1, 2, 3, 0 /* depthwise */};
		int g = groups[rnd() % 7];
		int cg = rnd_in(1, 9) * (rnd() % 4 == 0 ? 8 : 1);
		int mg = rnd_in(1, 9) * (rnd() % 4 == 0 ? 4 : 1);
		if (g == 0) { /* depthwise, channel multiplier 1 or 2 */
			g = rnd_in(2, 24);
			cg = 1;
			mg = rnd_in(1, 2);
		}
		p->N = k % 17 == 0 ? 2 : 1;
		p->group = g;
		p->C = g * cg;
		p->M = g * mg;
		p->kH = rnd_in(1, 11);
		p->kW = rnd() % 3 ? p->kH : rnd_in(1, 11);
		p->sH = rnd_in(1, 4);
		p->sW = rnd() % 3 ? p->sH : rnd_in(1, 4);
		p->dH = rnd() % 4 ? 1 : rnd_in(2, 3);
		p->dW = rnd() % 3 ? p->dH : rnd_in(1, 3);
		p->H = rnd_in(1, 40);
		p->W = rnd_in(1, 40);
		p->padT = rnd_in(0, p->kH / 2 + 1);
		p->padL = rnd_in(0, p->kW / 2 + 1);
		int padB = rnd_in(0, p->kH / 2 + 1), padR = rnd_in(0, p->kW / 2 + 1);
		if (p->padT >= p->kH) p->padT = p->kH - 1;
		if (p->padL >= p->kW) p->padL = p->kW - 1;
		if (padB >= p->kH) padB = p->kH - 1;
		if (padR >= p->kW) padR = p->kW - 1;
		p->oH = out_dim(p->H, p->kH, p->sH, p->dH, p->padT, padB);
		p->oW = out_dim(p->W, p->kW, p->sW, p->dW, p->padL, padR);
	} while (p->oH <= 0 || p->oW <= 0);
	static const int acts[] = {RT_ACT_NONE, RT_ACT_RELU, RT_ACT_NONE, RT_ACT_LEAKY_RELU,
	                           RT_ACT_CLIP, RT_ACT_SIGMOID};
	p->act = acts[rnd() % 6];
	p->alpha = p->act == RT_ACT_CLIP ? -0.5f : 0.1f;
	p->beta = 0.5f;
	s.what = "random";
	return s;
}

/* Depthwise shape k of N_DEPTHWISE: what the register-tiled depthwise rows
 * take (3x3 and 5x5, strides 1 and 2, dilation 1) with everything around
 * them varied: channel counts below, at, above and past the vector widths
 * (4, 8, 16), multipliers 1 to 3, planes from 1 pixel to wider than two
 * tiles of 8, every padding up to the kernel's reach on each side, batch 2
 * and every epilogue. Shapes 64 and up are narrow rows, oW 1 to 9 in turn
 * (the tiles of 2, 4, 6 and 7 pixels and the bands of rows of one call), with
 * planes up to 30 rows. Deterministic per k. */
#define N_DEPTHWISE 100
static struct shape depthwise_shape(int k)
{
	static const int channels[] = {2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 33, 40, 48};
	static const int acts[] = {RT_ACT_RELU, RT_ACT_NONE, RT_ACT_LEAKY_RELU, RT_ACT_CLIP,
	                           RT_ACT_SIGMOID};
	struct shape s;
	struct rt_conv2d *p = &s.p;
	memset(&s, 0, sizeof s);
	rng_state = 0x2545f4914f6cdd1dULL * (unsigned long long)(k + 7);
	do {
		p->N = k % 11 == 5 ? 2 : 1;
		p->C = p->group = channels[rnd() % (sizeof channels / sizeof channels[0])];
		p->M = p->C * (k % 4 == 3 ? rnd_in(2, 3) : 1);
		p->kH = p->kW = k % 2 ? 5 : 3;
		p->sH = p->sW = k % 4 < 2 ? 1 : 2;
		p->dH = p->dW = 1;
		p->H = k % 8 == 6 ? rnd_in(1, 3) : rnd_in(1, 21);
		p->W = k % 8 == 7 ? rnd_in(1, 3) : rnd_in(1, 21);
		p->padT = rnd_in(0, p->kH - 1);
		p->padL = rnd_in(0, p->kW - 1);
		int padR = -1; /* drawn after padB, as ever, unless narrow */
		if (k >= 64) { /* narrow: W for oW = 1 + (k - 64) % 9 */
			p->kH = p->kW = k % 5 == 4 ? 5 : 3;
			p->padT = rnd_in(0, p->kH - 1);
			p->padL = rnd_in(0, p->kW - 1);
			padR = rnd_in(0, p->kW - 1);
			p->W = (k - 64) % 9 * p->sW + p->kW - p->padL - padR;
			p->H = rnd_in(1, 30);
		}
		p->oH = out_dim(p->H, p->kH, p->sH, 1, p->padT, rnd_in(0, p->kH - 1));
		padR = padR < 0 ? rnd_in(0, p->kW - 1) : padR;
		p->oW = p->W > 0 ? out_dim(p->W, p->kW, p->sW, 1, p->padL, padR) : 0;
	} while (p->oH <= 0 || p->oW <= 0);
	if (k >= 64)
		cr_assert_eq(p->oW, 1 + (k - 64) % 9, "depthwise shape %d: oW %d", k, p->oW);
	p->act = acts[k % 5];
	p->alpha = p->act == RT_ACT_CLIP ? -0.5f : 0.1f;
	p->beta = 0.5f;
	s.what = "depthwise";
	return s;
}

/* Stem shape k of N_STEM: what the first-layer rows (conv_stem_chw_*) take,
 * C 1 to 4, with everything around their tiles varied: kernels 3, 5, 7 and
 * 11 (and one non-square), strides 1 to 4 (unequal ones too), dilation 2 now
 * and then, every padding, planes from 1 pixel to rows wider than the
 * longest register tile (24 pixels at stride 4), output channels below, at,
 * between and past the vector widths and the 4-vector tile (1 to 70), batch
 * 2, every epilogue, Clip with a positive minimum (padding lanes of the
 * blocked outputs must still be zero). Shapes 48 and up have narrow output
 * rows (oW 1 to 8 in turn, all in one tile of the padded-row path) under tall
 * kernels such as DS-CNN's 10x4. Deterministic per k. */
#define N_STEM 64
static struct shape stem_shape(int k)
{
	static const int kernels[] = {3, 5, 7, 11};
	static const int outs[] = {1, 3, 8, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 70};
	static const int acts[] = {RT_ACT_RELU, RT_ACT_NONE, RT_ACT_CLIP, RT_ACT_LEAKY_RELU,
	                           RT_ACT_SIGMOID, RT_ACT_CLIP};
	struct shape s;
	struct rt_conv2d *p = &s.p;
	memset(&s, 0, sizeof s);
	rng_state = 0x9e3779b97f4a7c15ULL * (unsigned long long)(k + 3);
	do {
		p->N = k % 13 == 4 ? 2 : 1;
		p->C = 1 + k % 4;
		p->group = 1;
		p->M = outs[rnd() % (sizeof outs / sizeof outs[0])];
		p->kH = p->kW = kernels[(k / 4) % 4];
		if (k % 17 == 9)
			p->kW = 3;
		p->sH = p->sW = 1 + (k / 2) % 4;
		if (k % 7 == 6)
			p->sW = 1 + (p->sH % 4);
		p->dH = p->dW = k % 9 == 8 ? 2 : 1;
		p->H = k % 8 == 6 ? rnd_in(1, 4) : rnd_in(p->kH / 2, 3 * p->kH);
		p->W = k % 8 == 7 ? rnd_in(1, 4)
		       : k % 3 == 0 ? rnd_in(24 * p->sW + p->kW, 28 * p->sW + 2 * p->kW)
		                    : rnd_in(1, 40);
		p->padT = rnd_in(0, p->kH - 1);
		p->padL = rnd_in(0, p->kW - 1);
		int padR = -1; /* drawn after padB, as ever, unless narrow */
		if (k >= 48) { /* narrow: W for oW = 1 + (k - 48) % 8 */
			p->kH = rnd_in(3, 11);
			p->kW = rnd_in(2, 5);
			p->sH = rnd_in(1, 2);
			p->sW = rnd_in(1, 3);
			p->H = rnd_in(p->kH, 4 * p->kH);
			p->padT = rnd_in(0, p->kH - 1);
			p->padL = rnd_in(0, p->kW - 1);
			padR = rnd_in(0, p->kW - 1);
			p->W = (k - 48) % 8 * p->sW + (p->kW - 1) * p->dW + 1 - p->padL - padR;
		}
		p->oH = out_dim(p->H, p->kH, p->sH, p->dH, p->padT, rnd_in(0, p->kH - 1));
		padR = padR < 0 ? rnd_in(0, p->kW - 1) : padR;
		p->oW = p->W > 0 ? out_dim(p->W, p->kW, p->sW, p->dW, p->padL, padR) : 0;
	} while (p->oH <= 0 || p->oW <= 0);
	if (k >= 48)
		cr_assert_eq(p->oW, 1 + (k - 48) % 8, "stem shape %d: oW %d", k, p->oW);
	p->act = acts[k % 6];
	p->alpha = p->act == RT_ACT_CLIP ? (k % 12 == 5 ? 0.1f : -0.5f) : 0.1f;
	p->beta = 0.5f;
	s.what = "stem";
	return s;
}

/* Small-plane shape k of N_SMALL: conv_direct_chw16c's small planes, which
 * it cuts into parts of rows only down to 8 rows (runtime/conv_direct_vec.c),
 * and every other row that takes them: output planes of 1 to 16 pixels a
 * side (7x7, 8x8, 14x14, 16x16 and odd ones), kernels 1, 3 and 5 (and one
 * non-square), strides 1 and 2, every padding, dilation 2 now and then,
 * input channels that are and are not a multiple of 16 (the partial block),
 * output channels from one vector (one pair: the most parts) to 9 (a lone
 * vector after the pairs, the last partly real), two groups of 64 now and
 * then, batch 2, every epilogue; run with a residual too. Deterministic
 * per k. */
#define N_SMALL 48
static struct shape smallplane_shape(int k)
{
	static const int cs[] = {16, 19, 32, 48, 64, 72, 128};
	static const int ms[] = {16, 32, 40, 64, 67, 80, 100, 144};
	static const int outs[] = {7, 8, 14, 16, 1, 2, 3, 5, 9, 11, 13, 15};
	static const int kernels[] = {3, 1, 3, 5};
	static const int acts[] = {RT_ACT_RELU, RT_ACT_NONE, RT_ACT_CLIP, RT_ACT_LEAKY_RELU,
	                           RT_ACT_SIGMOID, RT_ACT_RELU};
	struct shape s;
	struct rt_conv2d *p = &s.p;
	memset(&s, 0, sizeof s);
	rng_state = 0x2545f4914f6cdd1dULL * (unsigned long long)(k + 5);
	do {
		p->N = k % 11 == 3 ? 2 : 1;
		p->group = k % 9 == 4 ? 2 : 1;
		p->C = p->group == 2 ? 128 : cs[rnd() % (sizeof cs / sizeof cs[0])];
		p->M = p->group == 2 ? 128 : ms[rnd() % (sizeof ms / sizeof ms[0])];
		p->kH = p->kW = kernels[k % 4];
		if (k % 13 == 7)
			p->kW = 3, p->kH = 1;
		p->sH = p->sW = 1 + (k / 4) % 2;
		p->dH = p->dW = k % 10 == 9 ? 2 : 1;
		const int oh = outs[k < 24 ? (k + k / 4) % 4 : rnd() % (sizeof outs / sizeof outs[0])];
		const int ow = k % 5 == 2 ? outs[rnd() % (sizeof outs / sizeof outs[0])] : oh;
		p->padT = rnd_in(0, p->kH - 1);
		p->padL = rnd_in(0, p->kW - 1);
		const int padB = rnd_in(0, p->kH - 1), padR = rnd_in(0, p->kW - 1);
		/* the input that gives about oh x ow outputs with these pads */
		p->H = (oh - 1) * p->sH + p->dH * (p->kH - 1) + 1 - p->padT - padB;
		p->W = (ow - 1) * p->sW + p->dW * (p->kW - 1) + 1 - p->padL - padR;
		if (p->H < 1 || p->W < 1)
			continue;
		p->oH = out_dim(p->H, p->kH, p->sH, p->dH, p->padT, padB);
		p->oW = out_dim(p->W, p->kW, p->sW, p->dW, p->padL, padR);
	} while (p->H < 1 || p->W < 1 || p->oH <= 0 || p->oW <= 0);
	p->act = acts[k % 6];
	p->alpha = p->act == RT_ACT_CLIP ? (k % 12 == 2 ? 0.1f : -0.5f) : 0.1f;
	p->beta = 0.5f;
	s.what = "small plane";
	return s;
}

/* Pointwise shape k of N_POINTWISE: what the 1x1 rows (conv_pointwise_*)
 * take, with everything around their tiles varied: channel counts below, at,
 * above and past the blocks and vector widths (8, 16, two vectors of 16),
 * planes from 1 pixel to several register tiles (1 to 4 pixels wide and
 * rows that a stride-1 tile spans), strides 1 to 3 (ResNet's stride-2
 * shortcut), trailing padding that adds no pixel, batch 2, every epilogue
 * (check_shape runs odd M without bias). Deterministic per k. */
#define N_POINTWISE 48
static struct shape pointwise_shape(int k)
{
	static const int channels[] = {1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 48, 64, 96};
	static const int acts[] = {RT_ACT_RELU, RT_ACT_NONE, RT_ACT_CLIP, RT_ACT_LEAKY_RELU,
	                           RT_ACT_NONE, RT_ACT_SIGMOID, RT_ACT_RELU};
	static const int sides[] = {1, 2, 3, 5, 7, 12, 13, 14, 25};
	struct shape s;
	struct rt_conv2d *p = &s.p;
	memset(&s, 0, sizeof s);
	rng_state = 0x51afd7ed558ccd6dULL * (unsigned long long)(k + 3);
	p->N = k % 9 == 4 ? 2 : 1;
	p->group = 1;
	p->C = channels[rnd() % (sizeof channels / sizeof channels[0])];
	p->M = channels[rnd() % (sizeof channels / sizeof channels[0])];
	p->kH = p->kW = 1;
	p->sH = p->sW = k % 3 == 2 ? 2 : k % 8 == 7 ? 3 : 1;
	if (k % 10 == 9)
		p->sW = 1;
	p->dH = p->dW = 1;
	p->H = sides[rnd() % (sizeof sides / sizeof sides[0])];
	p->W = sides[rnd() % (sizeof sides / sizeof sides[0])];
	p->oH = out_dim(p->H, 1, p->sH, 1, 0, k % 5 == 1 && p->sH > 1 ? p->sH - 1 : 0);
	p->oW = out_dim(p->W, 1, p->sW, 1, 0, 0);
	p->act = acts[k % 7];
	p->alpha = p->act == RT_ACT_CLIP ? -0.5f : 0.1f;
	p->beta = 0.5f;
	s.what = "pointwise";
	return s;
}

static struct shape layer_shape(const struct conv_layer *l)
{
	struct shape s;
	memset(&s, 0, sizeof s);
	struct rt_conv2d *p = &s.p;
	p->N = 1;
	p->C = l->C;
	p->H = l->H;
	p->W = l->W;
	p->M = l->M;
	p->kH = p->kW = l->k;
	p->sH = p->sW = l->s;
	p->dH = p->dW = 1;
	p->padT = p->padL = l->pad;
	p->group = l->group;
	p->oH = out_dim(l->H, l->k, l->s, 1, l->pad, l->pad);
	p->oW = out_dim(l->W, l->k, l->s, 1, l->pad, l->pad);
	p->act = RT_ACT_RELU;
	s.what = l->name;
	return s;
}

/* 64-byte aligned buffer of n floats followed by GUARD guard values. */
static float *guarded(size_t n)
{
	size_t bytes = ((n + GUARD) * sizeof(float) + 63) / 64 * 64;
	float *p = aligned_alloc(64, bytes);
	cr_assert(p, "out of memory");
	for (size_t i = 0; i < GUARD; i++)
		p[n + i] = GUARD_VALUE;
	return p;
}

static int guard_intact(const float *p, size_t n)
{
	for (size_t i = 0; i < GUARD; i++)
		if (p[n + i] != GUARD_VALUE)
			return 0;
	return 1;
}

/* Tolerances on relative L2 error and on max abs error / max |ref|. */
static void tolerance(const struct rt_prim *pr, double *l2, double *maxrel)
{
	*l2 = 1e-5;
	*maxrel = 1e-4;
	if (pr->family == RT_FAM_WINOGRAD) {
		/* larger tiles amplify rounding (research brief, measured) */
		*l2 = strstr(pr->name, "f6") ? 2e-4 : strstr(pr->name, "f4") ? 5e-5 : 2e-5;
		*maxrel = strstr(pr->name, "f6") ? 2e-3 : 5e-4;
	} else if (pr->family == RT_FAM_FFT) {
		*l2 = 5e-5;
		*maxrel = 5e-4;
	}
}

static int in_place_checked; /* check_residual runs with y over r, this process */

/* A row that adds a fused residual in its store loop (rt_prim_fuses_residual,
 * the ResNet Add of passes/fuse.c): run with p->res = r, a random tensor in
 * the row's output layout, it must equal bit for bit the two-pass form every
 * other row gets (the row without its activation, then rt_conv_residual),
 * and act(sum2d + r) within the row's tolerance; and where the row may run
 * in place (rt_prim_residual_in_place), the same bits with y == r. */
static void check_residual(const struct shape *s, const struct rt_prim *pr, const float *xi,
                           const float *wp, const float *bias, float *ws,
                           const float *ref0, /* [N, M, oH, oW] sum2d without activation */
                           double tol)
{
	const struct rt_conv2d *p = &s->p;
	const char *isa = rt_sgemm_isa_name(p->isa);
	const size_t ny = (size_t)p->N * p->M * p->oH * p->oW;
	const size_t nyo = (size_t)p->N * rt_layout_size(pr->out, p->M, p->oH, p->oW);
	const int block = pr->out == RT_L_CHW16C ? 16 : pr->out == RT_L_CHW8C ? 8 : 0;
	float *r = malloc(ny * sizeof *r), *rl = guarded(nyo), *fused = guarded(nyo);
	float *two = guarded(nyo), *y = malloc(ny * sizeof *y);
	for (size_t i = 0; i < ny; i++)
		r[i] = rnd_float();
	to_layout(pr->out, p->N, p->M, p->oH, p->oW, r, rl);
	struct rt_conv2d q = *p;
	q.res = rl;
	for (size_t i = 0; i < nyo; i++)
		fused[i] = NAN;
	pr->run(&q, pr->variant, xi, wp, bias, fused, ws);
	cr_assert(guard_intact(fused, nyo), "%s [%s] with a residual wrote past its output (%s)",
	          pr->name, isa, s->what);
	q.res = NULL;
	q.act = RT_ACT_NONE;
	pr->run(&q, pr->variant, xi, wp, bias, two, ws);
	rt_conv_residual(rt_sgemm_isa_host(), p->N, p->M, p->oH * p->oW, block, p->act,
	                 p->alpha, p->beta, rl, two);
	for (size_t i = 0; i < nyo; i++)
		cr_assert(memcmp(&fused[i], &two[i], sizeof fused[i]) == 0,
		          "%s [%s] on %s (C=%d H=%d W=%d M=%d k=%dx%d s=%dx%d pad=%d,%d g=%d act=%d): "
		          "fused residual differs from conv then rt_conv_residual at %zu of %zu: %.9g, "
		          "want %.9g",
		          pr->name, isa, s->what, p->C, p->H, p->W, p->M, p->kH, p->kW, p->sH, p->sW,
		          p->padT, p->padL, p->group, p->act, i, nyo, fused[i], two[i]);
	if (rt_prim_residual_in_place(pr, p)) {
		/* y over the residual's own buffer (plan_memory's in-place carry):
		 * the same bits */
		float *inplace = guarded(nyo);
		memcpy(inplace, rl, nyo * sizeof *inplace);
		q = *p;
		q.res = inplace;
		pr->run(&q, pr->variant, xi, wp, bias, inplace, ws);
		cr_assert(guard_intact(inplace, nyo), "%s [%s] in place wrote past its output (%s)",
		          pr->name, isa, s->what);
		for (size_t i = 0; i < nyo; i++)
			cr_assert(memcmp(&inplace[i], &two[i], sizeof inplace[i]) == 0,
			          "%s [%s] on %s (C=%d H=%d W=%d M=%d k=%dx%d s=%dx%d pad=%d,%d g=%d): "
			          "output written over its residual differs at %zu of %zu: %.9g, want %.9g",
			          pr->name, isa, s->what, p->C, p->H, p->W, p->M, p->kH, p->kW, p->sH,
			          p->sW, p->padT, p->padL, p->group, i, nyo, inplace[i], two[i]);
		free(inplace);
		in_place_checked++;
	}
	from_layout(pr->out, p->N, p->M, p->oH, p->oW, fused, y);
	double err = 0, mag = 0;
	for (size_t i = 0; i < ny; i++) {
		float want = rt_act_apply(p->act, p->alpha, p->beta, ref0[i] + r[i]);
		err += ((double)y[i] - want) * ((double)y[i] - want);
		mag += (double)want * want;
	}
	cr_expect(sqrt(err) <= tol * (sqrt(mag) > 0 ? sqrt(mag) : 1),
	          "%s [%s] on %s: fused residual relative L2 error %.3g (tolerance %.1g)", pr->name,
	          isa, s->what, sqrt(err) / (sqrt(mag) > 0 ? sqrt(mag) : 1), tol);
	free(r);
	free(rl);
	free(fused);
	free(two);
	free(y);
}

static void check_shape(const struct shape *s, int residual)
{
	const struct rt_conv2d *p = &s->p;
	const char *isa = rt_sgemm_isa_name(p->isa);
	const int cg = p->C / p->group;
	const size_t nx = (size_t)p->N * p->C * p->H * p->W;
	const size_t nw = (size_t)p->M * cg * p->kH * p->kW;
	const size_t ny = (size_t)p->N * p->M * p->oH * p->oW;
	float *x = malloc(nx * sizeof *x), *w = malloc(nw * sizeof *w);
	float *b = malloc(p->M * sizeof *b), *ref = malloc(ny * sizeof *ref);
	float *y = malloc(ny * sizeof *y);
	rng_state = (unsigned long long)nx * 31 + nw;
	for (size_t i = 0; i < nx; i++)
		x[i] = rnd_float();
	/* weights scaled so activations stay O(1) whatever the fan-in */
	float scale = 1.0f / sqrtf((float)(cg * p->kH * p->kW));
	for (size_t i = 0; i < nw; i++)
		w[i] = rnd_float() * scale;
	for (int i = 0; i < p->M; i++)
		b[i] = rnd_float();
	const float *bias = p->M % 2 ? NULL : b; /* with and without bias */

	const struct rt_prim *base = rt_prim_find("conv_sum2d_chw");
	cr_assert(base, "the sum2d baseline is missing from the table");
	base->run(p, 0, x, w, bias, ref, NULL);
	float *ref0 = NULL; /* without the activation, for the residual rows */
	if (residual) {
		struct rt_conv2d q = *p;
		q.act = RT_ACT_NONE;
		ref0 = malloc(ny * sizeof *ref0);
		base->run(&q, 0, x, w, bias, ref0, NULL);
	}
	double ref_l2 = 0, ref_max = 0;
	for (size_t i = 0; i < ny; i++) {
		ref_l2 += (double)ref[i] * ref[i];
		if (fabs(ref[i]) > ref_max)
			ref_max = fabs(ref[i]);
	}
	ref_l2 = sqrt(ref_l2);

	int ran = 0;
	const char *only = getenv("DNNCC_PRIM_FILTER"); /* substring, for quick runs */
	for (int k = 0; k < rt_n_prims; k++) {
		const struct rt_prim *pr = &rt_prims[k];
		if (only && !strstr(pr->name, only))
			continue;
		if (!pr->applies(p, pr->variant))
			continue;
		ran++;
		size_t nxi = (size_t)p->N * rt_layout_size(pr->in, p->C, p->H, p->W);
		size_t nyo = (size_t)p->N * rt_layout_size(pr->out, p->M, p->oH, p->oW);
		float *xi = guarded(nxi), *yo = guarded(nyo);
		to_layout(pr->in, p->N, p->C, p->H, p->W, x, xi);
		const float *wp = w;
		float *packed = NULL;
		size_t npk = 0;
		if (pr->packed) {
			npk = pr->packed(p, pr->variant);
			packed = guarded(npk);
			pr->pack(p, pr->variant, w, packed);
			cr_assert(guard_intact(packed, npk), "%s [%s]: PACK wrote past its %zu floats (%s)",
			          pr->name, isa, npk, s->what);
			wp = packed;
		}
		size_t nws = pr->ws(p, pr->variant);
		float *ws = nws ? guarded(nws) : NULL;
		for (size_t i = 0; i < nyo; i++)
			yo[i] = NAN; /* unwritten outputs fail */
		pr->run(p, pr->variant, xi, wp, bias, yo, ws);
		cr_assert(guard_intact(yo, nyo), "%s [%s] wrote past its output (%s)", pr->name, isa,
		          s->what);
		cr_assert(!ws || guard_intact(ws, nws), "%s [%s] wrote past its %zu-float workspace (%s)",
		          pr->name, isa, nws, s->what);
		from_layout(pr->out, p->N, p->M, p->oH, p->oW, yo, y);
		if (pr->out == RT_L_CHW8C || pr->out == RT_L_CHW16C) {
			/* the blocked layouts' contract: channels past M are zero */
			const int bs = pr->out == RT_L_CHW8C ? 8 : 16, mb = (p->M + bs - 1) / bs;
			const size_t plane = (size_t)p->oH * p->oW;
			for (int n = 0; n < p->N; n++)
				for (size_t i = 0; i < plane; i++)
					for (int l = p->M % bs; l && l < bs; l++) {
						float v = yo[(((size_t)n * mb + mb - 1) * plane + i) * bs + l];
						cr_assert(v == 0.0f, "%s [%s]: padding channel %d of pixel %zu is %g, "
						          "not 0 (%s)", pr->name, isa, (mb - 1) * bs + l, i, v, s->what);
					}
		}

		double err_l2 = 0, err_max = 0;
		size_t worst = 0;
		for (size_t i = 0; i < ny; i++) {
			double e = fabs((double)y[i] - ref[i]);
			if (!(e <= err_max)) { /* also catches NaN */
				err_max = isnan(e) ? INFINITY : e;
				worst = i;
			}
			err_l2 += e * e;
		}
		err_l2 = sqrt(err_l2) / (ref_l2 > 0 ? ref_l2 : 1);
		double err_rel = err_max / (ref_max > 0 ? ref_max : 1);
		double tol_l2, tol_max;
		tolerance(pr, &tol_l2, &tol_max);
		if (getenv("DNNCC_VERBOSE"))
			fprintf(stderr, "%-36s %-6s %-24s relL2 %.2e maxrel %.2e\n", pr->name, isa, s->what,
			        err_l2, err_rel);
		cr_expect(err_l2 <= tol_l2 && err_rel <= tol_max,
		          "%s [%s] on %s (N=%d C=%d H=%d W=%d M=%d k=%dx%d s=%dx%d d=%dx%d pad=%d,%d g=%d "
		          "act=%d): relative L2 error %.3g (tolerance %.1g), max error %.3g of max |y| "
		          "%.3g (tolerance %.1g); worst element %zu: got %g, want %g",
		          pr->name, isa, s->what, p->N, p->C, p->H, p->W, p->M, p->kH, p->kW, p->sH, p->sW,
		          p->dH, p->dW, p->padT, p->padL, p->group, p->act, err_l2, tol_l2, err_max,
		          ref_max, tol_max, worst, y[worst], ref[worst]);
		if (residual && rt_prim_fuses_residual(pr))
			check_residual(s, pr, xi, wp, bias, ws, ref0, tol_l2);
		free(xi);
		free(yo);
		free(packed);
		free(ws);
	}
	cr_assert(ran >= 1 || only, "no primitive applies to %s", s->what);
	free(x);
	free(w);
	free(b);
	free(ref);
	free(ref0);
	free(y);
}

/* sum2d itself against a double-precision textbook sum, on the random shapes. */
static void check_baseline(const struct shape *s)
{
	const struct rt_conv2d *p = &s->p;
	const int cg = p->C / p->group, mg = p->M / p->group;
	const size_t nx = (size_t)p->N * p->C * p->H * p->W;
	const size_t nw = (size_t)p->M * cg * p->kH * p->kW;
	const size_t ny = (size_t)p->N * p->M * p->oH * p->oW;
	float *x = malloc(nx * sizeof *x), *w = malloc(nw * sizeof *w), *y = malloc(ny * sizeof *y);
	float b[4096];
	rng_state = 77;
	for (size_t i = 0; i < nx; i++)
		x[i] = rnd_float();
	for (size_t i = 0; i < nw; i++)
		w[i] = rnd_float();
	for (int i = 0; i < p->M; i++)
		b[i] = rnd_float();
	rt_conv_sum2d_chw(p, 0, x, w, b, y, NULL);
	for (int n = 0; n < p->N; n++)
		for (int m = 0; m < p->M; m++)
			for (int i = 0; i < p->oH; i++)
				for (int j = 0; j < p->oW; j++) {
					double sum = b[m], mag = fabs(b[m]);
					for (int c = 0; c < cg; c++)
						for (int u = 0; u < p->kH; u++)
							for (int v = 0; v < p->kW; v++) {
								int ih = i * p->sH - p->padT + u * p->dH;
								int iw = j * p->sW - p->padL + v * p->dW;
								if (ih < 0 || ih >= p->H || iw < 0 || iw >= p->W)
									continue;
								double t = (double)x[(((size_t)n * p->C + m / mg * cg + c) * p->H + ih) * p->W + iw] *
								           w[(((size_t)m * cg + c) * p->kH + u) * p->kW + v];
								sum += t;
								mag += fabs(t);
							}
					float want = rt_act_apply(p->act, p->alpha, p->beta, (float)sum);
					float got = y[(((size_t)n * p->M + m) * p->oH + i) * p->oW + j];
					double tol = (cg * p->kH * p->kW + 8) * 1.2e-7 * (mag + fabs(want)) + 1e-30;
					cr_assert(fabs(got - want) <= tol,
					          "sum2d at n=%d m=%d i=%d j=%d: got %.9g, want %.9g (C=%d k=%dx%d "
					          "s=%d d=%d g=%d)",
					          n, m, i, j, got, want, p->C, p->kH, p->kW, p->sH, p->dH, p->group);
				}
	free(x);
	free(w);
	free(y);
}

/* ---- the tests, one set per instruction set -------------------------------
 * Every row runs with every ISA the host executes (rt_sgemm_isa_supported):
 * p->isa picks the SGEMM micro-kernel and the SIMD paths of the direct,
 * depthwise, Winograd and FFT units, so a row is a different program per
 * ISA. The tests are named per ISA (primitives::random_shapes_avx2, ...) and
 * every failure message names the row and the ISA; an ISA the host lacks is
 * one skipped test. */

/* Network layers above this many flops run only with the host's best ISA:
 * the other ISAs take the rest (88 of the 117 layers, 11% of the flops), as
 * running every layer three times would triple a test that already takes
 * minutes. The random shapes run in full with every ISA. */
#define SECONDARY_ISA_MAX_FLOPS 2e8

static double layer_flops(const struct conv_layer *l)
{
	struct shape s = layer_shape(l);
	const struct rt_conv2d *p = &s.p;
	return 2.0 * p->M * (p->C / p->group) * p->kH * p->kW * p->oH * p->oW;
}

/* Fills idx with the parameters of one test: shapes 0..n-1 (network layers:
 * those that run with this ISA); a single one, which skips, when the host
 * cannot run the ISA. */
static struct criterion_test_params shape_params(int isa, int n, int layers, int *idx)
{
	int count = 0;
	for (int i = 0; i < n; i++)
		if (!layers || isa == rt_sgemm_isa_host() ||
		    layer_flops(&conv_layers[i]) <= SECONDARY_ISA_MAX_FLOPS)
			idx[count++] = i;
	if (!rt_sgemm_isa_supported(isa))
		count = 1;
	return cr_make_param_array(int, idx, count);
}

static void skip_unless_supported(int isa)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the %s kernels are not built for, or not run by, this CPU",
		             rt_sgemm_isa_name(isa));
}

#define PRIMITIVE_TESTS_FOR_ISA(ISA, sfx)                                              \
	ParameterizedTestParameters(primitives, random_shapes_##sfx)                      \
	{                                                                                 \
		static int idx[N_RANDOM];                                                     \
		return shape_params(ISA, N_RANDOM, 0, idx);                                   \
	}                                                                                 \
	ParameterizedTest(int *k, primitives, random_shapes_##sfx)                        \
	{                                                                                 \
		skip_unless_supported(ISA);                                                   \
		struct shape s = random_shape(*k);                                            \
		s.p.isa = ISA;                                                                \
		if (ISA == RT_SGEMM_ISA_C)                                                    \
			check_baseline(&s);                                                       \
		check_shape(&s, 1);                                                           \
	}                                                                                 \
	ParameterizedTestParameters(primitives, depthwise_shapes_##sfx)                   \
	{                                                                                 \
		static int idx[N_DEPTHWISE];                                                  \
		return shape_params(ISA, N_DEPTHWISE, 0, idx);                                \
	}                                                                                 \
	ParameterizedTest(int *k, primitives, depthwise_shapes_##sfx)                     \
	{                                                                                 \
		skip_unless_supported(ISA);                                                   \
		struct shape s = depthwise_shape(*k);                                         \
		const struct rt_prim *rows = rt_prim_find("conv_depthwise_rows_hwc");         \
		cr_assert(rows && rows->applies(&s.p, rows->variant),                         \
		          "depthwise shape %d is not one the rows take", *k);                 \
		s.p.isa = ISA;                                                                \
		check_shape(&s, 0);                                                           \
	}                                                                                 \
	ParameterizedTestParameters(primitives, pointwise_shapes_##sfx)                   \
	{                                                                                 \
		static int idx[N_POINTWISE];                                                  \
		return shape_params(ISA, N_POINTWISE, 0, idx);                                \
	}                                                                                 \
	ParameterizedTest(int *k, primitives, pointwise_shapes_##sfx)                     \
	{                                                                                 \
		skip_unless_supported(ISA);                                                   \
		struct shape s = pointwise_shape(*k);                                         \
		const struct rt_prim *pw = rt_prim_find("conv_pointwise_hwc");                \
		cr_assert(pw && pw->applies(&s.p, pw->variant),                               \
		          "pointwise shape %d is not one the 1x1 rows take", *k);             \
		s.p.isa = ISA;                                                                \
		check_shape(&s, 1);                                                           \
	}                                                                                 \
	ParameterizedTestParameters(primitives, stem_shapes_##sfx)                        \
	{                                                                                 \
		static int idx[N_STEM];                                                       \
		return shape_params(ISA, N_STEM, 0, idx);                                     \
	}                                                                                 \
	ParameterizedTest(int *k, primitives, stem_shapes_##sfx)                          \
	{                                                                                 \
		skip_unless_supported(ISA);                                                   \
		struct shape s = stem_shape(*k);                                              \
		const struct rt_prim *st = rt_prim_find("conv_stem_chw_chw16c");              \
		cr_assert(st && st->applies(&s.p, st->variant),                               \
		          "stem shape %d is not one the stem rows take", *k);                 \
		s.p.isa = ISA;                                                                \
		check_shape(&s, 0);                                                           \
	}                                                                                 \
	ParameterizedTestParameters(primitives, smallplane_shapes_##sfx)                  \
	{                                                                                 \
		static int idx[N_SMALL];                                                      \
		return shape_params(ISA, N_SMALL, 0, idx);                                    \
	}                                                                                 \
	ParameterizedTest(int *k, primitives, smallplane_shapes_##sfx)                    \
	{                                                                                 \
		skip_unless_supported(ISA);                                                   \
		struct shape s = smallplane_shape(*k);                                        \
		const struct rt_prim *dv = rt_prim_find("conv_direct_chw16c");                \
		cr_assert(dv && dv->applies(&s.p, dv->variant),                               \
		          "small-plane shape %d is not one conv_direct_chw16c takes", *k);    \
		s.p.isa = ISA;                                                                \
		check_shape(&s, 1);                                                           \
	}                                                                                 \
	ParameterizedTestParameters(primitives, network_layers_##sfx)                     \
	{                                                                                 \
		static int idx[N_CONV_LAYERS];                                                \
		return shape_params(ISA, N_CONV_LAYERS, 1, idx);                              \
	}                                                                                 \
	ParameterizedTest(int *k, primitives, network_layers_##sfx, .timeout = 600)       \
	{                                                                                 \
		skip_unless_supported(ISA);                                                   \
		struct shape s = layer_shape(&conv_layers[*k]);                               \
		s.p.isa = ISA;                                                                \
		check_shape(&s, 0);                                                           \
	}

PRIMITIVE_TESTS_FOR_ISA(RT_SGEMM_ISA_C, c)
PRIMITIVE_TESTS_FOR_ISA(RT_SGEMM_ISA_AVX2, avx2)
PRIMITIVE_TESTS_FOR_ISA(RT_SGEMM_ISA_AVX512, avx512)
PRIMITIVE_TESTS_FOR_ISA(RT_SGEMM_ISA_NEON, neon)

/* Which rows may write y over the residual (rt_prim_residual_in_place):
 * conv_pointwise always, conv_direct_vec where it runs in one chunk of input
 * channels; and on ResNet-50's bottleneck shapes (planes cut to 14 x 14)
 * those rows give the same bits in place, on every ISA this CPU runs. */
Test(primitives, residual_in_place_rows)
{
	static const struct conv_layer shapes[] = {
		{"resnet50", "layer1 conv3", 64, 14, 14, 256, 1, 1, 0, 1, 1},
		{"resnet50", "layer2 conv3", 128, 14, 14, 512, 1, 1, 0, 1, 1},
		{"resnet50", "layer3 conv3", 256, 14, 14, 1024, 1, 1, 0, 1, 1},
		{"resnet18", "layer1 conv2", 64, 14, 14, 64, 3, 1, 1, 1, 1},
		{"odd", "1x1 48 -> 40", 48, 9, 11, 40, 1, 1, 0, 1, 1},
	};
	const struct rt_prim *d16 = rt_prim_find("conv_direct_chw16c");
	const struct rt_prim *d8 = rt_prim_find("conv_direct_chw8c");
	const struct rt_prim *hwc = rt_prim_find("conv_direct_igemm_hwc");
	const struct rt_prim *pw = rt_prim_find("conv_pointwise_chw16c");
	cr_assert(d16 && d8 && hwc && pw, "a direct or pointwise row is missing from the table");
	struct shape s = layer_shape(&shapes[0]);
	cr_assert(rt_prim_residual_in_place(d16, &s.p) && rt_prim_residual_in_place(hwc, &s.p) &&
	          rt_prim_residual_in_place(pw, &s.p),
	          "a 64-channel 1x1 layer runs in one pass");
	s = layer_shape(&shapes[2]);
	cr_assert(!rt_prim_residual_in_place(hwc, &s.p) && rt_prim_residual_in_place(pw, &s.p),
	          "HWC cuts 256 input channels into chunks; pointwise never does");
	s = layer_shape(&shapes[3]);
	cr_assert(!rt_prim_residual_in_place(d16, &s.p) && rt_prim_residual_in_place(d8, &s.p),
	          "a 3x3 layer of 64 channels runs in chunks of 32 on CHW16c, in one on CHW8c");
	s.p.C = 128;
	cr_assert(!rt_prim_residual_in_place(d8, &s.p), "128 channels of 3x3 run in chunks on CHW8c");
	s.p.C = 17; /* a partial block is a chunk of its own */
	s.p.kH = s.p.kW = 1;
	cr_assert(!rt_prim_residual_in_place(d16, &s.p), "17 channels are two chunks");
	s.p.C = 16;
	cr_assert(rt_prim_residual_in_place(d16, &s.p), "16 channels of 1x1 are one chunk");
	cr_assert(!rt_prim_residual_in_place(rt_prim_find("conv_sum2d_chw"), &s.p),
	          "a row with a two-pass residual cannot run in place");

	static const int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512,
	                           RT_SGEMM_ISA_NEON};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
		for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
			if (!rt_sgemm_isa_supported(isas[i]))
				continue;
			s = layer_shape(&shapes[k]);
			s.p.isa = isas[i];
			check_shape(&s, 1);
		}
	cr_assert(in_place_checked > 0, "no row ran in place");
}

/* The table itself: unique names that state their layouts, predicates that
 * refuse what RUN cannot do are exercised above; here, structure. */
Test(primitives, table_is_well_formed)
{
	cr_assert(rt_n_prims >= 1);
	for (int i = 0; i < rt_n_prims; i++) {
		const struct rt_prim *p = &rt_prims[i];
		cr_assert(p->name && p->run && p->applies && p->ws, "row %d incomplete", i);
		cr_assert((p->packed == NULL) == (p->pack == NULL), "%s: PACKED without PACK", p->name);
		cr_assert(p->family >= 0 && p->family < RT_FAM_COUNT_);
		cr_assert(strstr(p->name, rt_layout_names[p->in]), "%s: name does not state layout %s",
		          p->name, rt_layout_names[p->in]);
		for (int j = 0; j < i; j++)
			cr_assert(strcmp(p->name, rt_prims[j].name) != 0, "duplicate row %s", p->name);
	}
}

/* ---- layout transforms --------------------------------------------------- */

Test(transforms, each_edge_matches_the_layout_definition)
{
	/* the last two split over threads block by block (planes too small to
	 * split, tensors large enough), the first of them at 1 and at 2 threads */
	static const int dims[][3] = {{1, 1, 1}, {3, 5, 7}, {8, 4, 4}, {16, 3, 9}, {17, 13, 11},
	                              {33, 7, 2}, {64, 14, 14}, {5, 1, 31}, {128, 28, 28},
	                              {131, 23, 29}};
	for (int t = 0; t < 2 * rt_n_transforms; t++) {
		if (t == rt_n_transforms)
			cr_assert(rt_pool_start(2) == 2, "2 threads did not start");
		const struct rt_transform *tr = &rt_transforms[t % rt_n_transforms];
		for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
			int N = d % 3 == 0 ? 2 : 1, C = dims[d][0], H = dims[d][1], W = dims[d][2];
			size_t n = (size_t)N * C * H * W;
			float *x = malloc(n * sizeof *x), *back = malloc(n * sizeof *back);
			for (size_t i = 0; i < n; i++)
				x[i] = (float)i;
			size_t nf = N * rt_layout_size(tr->from, C, H, W);
			size_t nt = N * rt_layout_size(tr->to, C, H, W);
			float *src = guarded(nf), *dst = guarded(nt), *want = guarded(nt);
			to_layout(tr->from, N, C, H, W, x, src);
			to_layout(tr->to, N, C, H, W, x, want);
			for (size_t i = 0; i < nt; i++)
				dst[i] = NAN;
			tr->run(N, C, H, W, src, dst);
			cr_assert(guard_intact(dst, nt), "%s wrote past its output", tr->name);
			cr_assert(memcmp(dst, want, nt * sizeof *dst) == 0,
			          "%s on N=%d C=%d H=%d W=%d differs from the layout definition", tr->name,
			          N, C, H, W);
			from_layout(tr->to, N, C, H, W, dst, back);
			cr_assert(memcmp(back, x, n * sizeof *x) == 0, "%s: round trip lost data",
			          tr->name);
			free(x);
			free(back);
			free(src);
			free(dst);
			free(want);
		}
	}
	rt_pool_stop();
}

/* Every pair of layouts is connected by some chain of edges (the DT graph is
 * strongly connected), so selection can always convert. */
Test(transforms, graph_is_strongly_connected)
{
	int reach[RT_L_COUNT_][RT_L_COUNT_] = {{0}};
	for (int a = 0; a < RT_L_COUNT_; a++)
		reach[a][a] = 1;
	for (int t = 0; t < rt_n_transforms; t++)
		reach[rt_transforms[t].from][rt_transforms[t].to] = 1;
	for (int k = 0; k < RT_L_COUNT_; k++)
		for (int a = 0; a < RT_L_COUNT_; a++)
			for (int b = 0; b < RT_L_COUNT_; b++)
				if (reach[a][k] && reach[k][b])
					reach[a][b] = 1;
	for (int a = 0; a < RT_L_COUNT_; a++)
		for (int b = 0; b < RT_L_COUNT_; b++)
			cr_expect(reach[a][b], "no chain of transforms from %s to %s", rt_layout_names[a],
			          rt_layout_names[b]);
}

/* Every 1-D Winograd algorithm the winograd rows build on satisfies the
 * minimal-filtering identity exactly (checked in integer arithmetic on the
 * generator's rational matrices, research brief a.2.6). */
Test(winograd, transforms_are_exact)
{
	for (int id = 0; id < prep_winograd_n_transforms(); id++)
		cr_expect(prep_winograd_identity_exact(id), "1-D Winograd algorithm %d is not exact", id);
}

/* Winograd layers built for 1 to 5 threads (p->threads: 1 to 4 sets of
 * blocks, 1 or RT_WINO_GEMM_SLOTS slots, struct rt_wino_cut) give the same
 * bits, run with the pool at 1 and at 2 threads, and stay inside the
 * workspace prep_winograd_ws sizes for the threads they were built for (its
 * guards intact): the layers of many blocks split into sets, the one-block
 * layer into parts, and a layer built for one thread must not take the parts'
 * slots even with a pool running. */
static void check_wino_threads(int isa)
{
	static const struct rt_conv2d shapes[] = {
		/* 60 x 60: 900, 225 and 100 tiles (19, 5 and 2 blocks) */
		{.N = 1, .C = 16, .H = 60, .W = 60, .M = 24, .oH = 60, .oW = 60, .kH = 3, .kW = 3,
		 .sH = 1, .sW = 1, .dH = 1, .dW = 1, .padT = 1, .padL = 1, .group = 1},
		/* two groups, no padding, channels off every vector width, batch 2 */
		{.N = 2, .C = 18, .H = 58, .W = 58, .M = 20, .oH = 56, .oW = 56, .kH = 3, .kW = 3,
		 .sH = 1, .sW = 1, .dH = 1, .dW = 1, .padT = 0, .padL = 0, .group = 2},
		/* 14 x 14: one block of 49, 16 or 9 tiles, 12.8 M multiply-adds at F(2) */
		{.N = 1, .C = 128, .H = 14, .W = 14, .M = 128, .oH = 14, .oW = 14, .kH = 3, .kW = 3,
		 .sH = 1, .sW = 1, .dH = 1, .dW = 1, .padT = 1, .padL = 1, .group = 1},
	};
	int most_sets = 0, ran = 0;
	for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
		struct rt_conv2d p = shapes[si];
		p.isa = isa;
		p.act = RT_ACT_RELU;
		const size_t nx = (size_t)p.N * p.C * p.H * p.W;
		const size_t nw = (size_t)p.M * (p.C / p.group) * p.kH * p.kW;
		float *x = malloc(nx * sizeof *x), *w = malloc(nw * sizeof *w), b[128];
		rng_state = 4242 + si;
		for (size_t i = 0; i < nx; i++)
			x[i] = rnd_float();
		for (size_t i = 0; i < nw; i++)
			w[i] = rnd_float();
		for (int i = 0; i < p.M; i++)
			b[i] = rnd_float();
		for (int k = 0; k < rt_n_prims; k++) {
			const struct rt_prim *pr = &rt_prims[k];
			if (pr->family != RT_FAM_WINOGRAD || !pr->applies(&p, pr->variant))
				continue;
			ran++;
			const size_t nxi = (size_t)p.N * rt_layout_size(pr->in, p.C, p.H, p.W);
			const size_t nyo = (size_t)p.N * rt_layout_size(pr->out, p.M, p.oH, p.oW);
			float *xi = malloc(nxi * sizeof *xi), *first = malloc(nyo * sizeof *first);
			float *packed = malloc(pr->packed(&p, pr->variant) * sizeof *packed);
			to_layout(pr->in, p.N, p.C, p.H, p.W, x, xi);
			pr->pack(&p, pr->variant, w, packed);
			for (int pool = 1; pool <= 2; pool++) {
				if (pool == 2)
					cr_assert(rt_pool_start(2) == 2, "2 threads did not start");
				for (int t = 1; t <= 5; t++) {
					p.threads = t;
					const size_t nws = pr->ws(&p, pr->variant);
					float *ws = guarded(nws), *y = guarded(nyo);
					for (size_t i = 0; i < nyo; i++)
						y[i] = NAN;
					pr->run(&p, pr->variant, xi, packed, b, y, ws);
					cr_assert(guard_intact(ws, nws) && guard_intact(y, nyo),
					          "%s [%s] built for %d threads, run on %d, wrote past its "
					          "%zu-float workspace or its output (shape %zu)", pr->name,
					          rt_sgemm_isa_name(isa), t, pool, nws, si);
					if (pool == 1 && t == 1)
						memcpy(first, y, nyo * sizeof *y);
					else
						cr_assert(memcmp(first, y, nyo * sizeof *y) == 0,
						          "%s [%s] built for %d threads, run on %d, differs from "
						          "1 thread (shape %zu)", pr->name, rt_sgemm_isa_name(isa), t,
						          pool, si);
					free(ws);
					free(y);
				}
				rt_pool_stop();
			}
			for (int t = 1; t <= 5; t++) {
				const int ah = pr->variant / 10 % 10 == 1 ? 4 : pr->variant / 10 % 10 == 2 ? 6 : 8;
				const int m = ah - 2, tiles = ((p.oH + m - 1) / m) * ((p.oW + m - 1) / m);
				const struct rt_wino_cut c = rt_wino_cut_of(tiles, ah * ah, p.C / p.group,
				                                            p.M / p.group, t);
				cr_assert(c.sets <= t && c.sets <= c.slots && (t > 1 || c.slots == 1),
				          "%s: %d sets, %d slots for %d threads", pr->name, c.sets, c.slots, t);
				if (c.sets > most_sets)
					most_sets = c.sets;
			}
			free(xi);
			free(first);
			free(packed);
		}
		free(x);
		free(w);
	}
	cr_assert(ran >= 6 && most_sets == RT_WINO_GEMM_SLOTS,
	          "the shapes ran %d rows, at most %d sets: not the cuts this test is for", ran,
	          most_sets);
}

Test(winograd, threads_built_for_give_the_same_bits_c)
{
	check_wino_threads(RT_SGEMM_ISA_C);
}

Test(winograd, threads_built_for_give_the_same_bits_avx2)
{
	skip_unless_supported(RT_SGEMM_ISA_AVX2);
	check_wino_threads(RT_SGEMM_ISA_AVX2);
}

Test(winograd, threads_built_for_give_the_same_bits_avx512)
{
	skip_unless_supported(RT_SGEMM_ISA_AVX512);
	check_wino_threads(RT_SGEMM_ISA_AVX512);
}
