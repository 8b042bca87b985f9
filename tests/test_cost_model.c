/* test_cost_model.c - the built-in cost model (passes/cost_model.c) over the
 * rows' own cost descriptions (RT_COST in runtime/fam_*.def):
 *   - every row's description is well formed;
 *   - the model reads the description, not the name;
 *   - on every SIMD ISA and every layer shape (random shapes, every conv
 *     layer of tests/conv_layers.h, and MobileNet's first layers: 3x3 stride
 *     2 on 3 channels, depthwise 3x3, 1x1), no row whose loop is scalar on
 *     that ISA is ranked ahead of a vectorised row that applies;
 *   - on clear-cut cases measured with bench/calibrate on an AVX-512 Xeon
 *     core (one row at least 3x faster than the other, on every ISA listed),
 *     the model ranks the rows the same way. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/prep.h"
#include "runtime/sgemm.h"
#include "tests/conv_layers.h"

static int out_dim(int in, int k, int s, int d, int pb, int pe)
{
	int span = (k - 1) * d + 1;
	return in + pb + pe < span ? 0 : (in + pb + pe - span) / s + 1;
}

static struct rt_conv2d conv(int C, int H, int W, int M, int k, int s, int pad, int group, int isa)
{
	struct rt_conv2d p;
	memset(&p, 0, sizeof p);
	p.N = 1;
	p.C = C;
	p.H = H;
	p.W = W;
	p.M = M;
	p.kH = p.kW = k;
	p.sH = p.sW = s;
	p.dH = p.dW = 1;
	p.padT = p.padL = pad;
	p.group = group;
	p.oH = out_dim(H, k, s, 1, pad, pad);
	p.oW = out_dim(W, k, s, 1, pad, pad);
	p.act = RT_ACT_RELU;
	p.isa = isa;
	return p;
}

static unsigned long long rng;
static int rnd_in(int lo, int hi)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return lo + (int)((rng >> 33) % (unsigned)(hi - lo + 1));
}

/* Shape k of the sweep: the network layers, MobileNet's first layers at
 * several sizes, then random shapes (groups, depthwise, strides, dilation,
 * non-square kernels). */
#define N_EXTRA 12
#define N_RANDOM 400
#define N_SHAPES (N_CONV_LAYERS + N_EXTRA + N_RANDOM)

static struct rt_conv2d shape(int k, int isa)
{
	if (k < N_CONV_LAYERS) {
		const struct conv_layer *l = &conv_layers[k];
		return conv(l->C, l->H, l->W, l->M, l->k, l->s, l->pad, l->group, isa);
	}
	k -= N_CONV_LAYERS;
	if (k < N_EXTRA) {
		static const int size[3] = {224, 96, 17};
		int n = size[k % 3];
		switch (k / 3) {
		case 0: return conv(3, n, n, 32, 3, 2, 1, 1, isa);      /* MobileNet conv 0 */
		case 1: return conv(32, n, n, 32, 3, 1, 1, 32, isa);    /* depthwise 3x3 s1 */
		case 2: return conv(96, n, n, 96, 3, 2, 1, 96, isa);    /* depthwise 3x3 s2 */
		default: return conv(32, n, n, 16, 1, 1, 0, 1, isa);    /* 1x1 projection */
		}
	}
	rng = 0x2545F4914F6CDD1DULL * (unsigned long long)(k + 1);
	struct rt_conv2d p;
	do {
		int g = rnd_in(0, 5) == 0 ? rnd_in(2, 4) : 1, cg, mg;
		if (rnd_in(0, 4) == 0) { /* depthwise */
			g = rnd_in(2, 64);
			cg = 1;
			mg = rnd_in(1, 2);
		} else {
			cg = rnd_in(1, 64);
			mg = rnd_in(1, 96);
		}
		int kk = rnd_in(0, 3) == 0 ? 1 : rnd_in(0, 2) ? 3 : rnd_in(1, 11);
		p = conv(g * cg, rnd_in(1, 80), rnd_in(1, 80), g * mg, kk, rnd_in(1, 3), kk / 2, g, isa);
		if (rnd_in(0, 4) == 0) { /* non-square kernels, dilation */
			p.kW = rnd_in(1, 7);
			p.dH = rnd_in(1, 2);
			p.oH = out_dim(p.H, p.kH, p.sH, p.dH, p.padT, p.padT);
			p.oW = out_dim(p.W, p.kW, p.sW, p.dW, p.padL, p.padL);
		}
	} while (p.oH <= 0 || p.oW <= 0);
	return p;
}

Test(cost_model, every_row_has_a_description)
{
	for (int r = 0; r < rt_n_prims; r++) {
		const struct rt_prim *pr = &rt_prims[r];
		const struct rt_prim_cost *c = &pr->cost;
		cr_expect((c->simd & ~(unsigned)(RT_SIMD_AVX2 | RT_SIMD_AVX512 | RT_SIMD_NEON)) == 0,
		          "%s: simd bits 0x%x", pr->name, c->simd);
		cr_expect(c->eff_scalar > 0 && c->eff_scalar <= 50, "%s: eff_scalar %g", pr->name,
		          c->eff_scalar);
		for (int isa = RT_SGEMM_ISA_AVX2; isa < RT_SGEMM_ISA_COUNT; isa++)
			if (cost_vectorised(pr, isa))
				cr_expect(cost_efficiency(pr, isa) > 0 && cost_efficiency(pr, isa) <= 50,
				          "%s: efficiency %g on %s", pr->name, cost_efficiency(pr, isa),
				          rt_sgemm_isa_name(isa));
		if (c->work == RT_CW_WINOGRAD)
			cr_expect(c->tile_h >= 1 && c->tile_w >= 1 && c->xform_eff > 0,
			          "%s: Winograd tile %dx%d", pr->name, c->tile_h, c->tile_w);
		if (c->work == RT_CW_FFT)
			cr_expect(c->tile_h >= 0 && c->tile_h == c->tile_w && c->xform_eff > 0,
			          "%s: FFT tile %d", pr->name, c->tile_h);
		cr_expect(c->patch >= 0 && c->accum >= 0, "%s: negative traffic", pr->name);
	}
}

/* A copy of a row under another name costs the same: the model keys on the
 * description only. */
Test(cost_model, ignores_row_names)
{
	for (int r = 0; r < rt_n_prims; r++) {
		struct rt_prim copy = rt_prims[r];
		copy.name = "renamed_chw16c_winograd_f6x6_gemm_im2_hwc";
		for (int isa = 0; isa < RT_SGEMM_ISA_COUNT; isa++)
			for (int k = 0; k < N_CONV_LAYERS; k += 7) {
				struct rt_conv2d p = shape(k, isa);
				if (!copy.applies(&p, copy.variant))
					continue;
				cr_assert_eq(cost_primitive_us(&copy, &p), cost_primitive_us(&rt_prims[r], &p),
				             "%s costs differently under another name", rt_prims[r].name);
			}
	}
}

static void check_scalar_behind_vectorised(int isa)
{
	int compared = 0;
	for (int k = 0; k < N_SHAPES; k++) {
		struct rt_conv2d p = shape(k, isa);
		double worst_vec = -1, best_scalar = INFINITY;
		const char *wv = NULL, *bs = NULL;
		for (int r = 0; r < rt_n_prims; r++) {
			const struct rt_prim *pr = &rt_prims[r];
			if (!pr->applies(&p, pr->variant))
				continue;
			double c = cost_primitive_us(pr, &p);
			cr_assert(c > 0 && isfinite(c), "%s: cost %g", pr->name, c);
			if (cost_vectorised(pr, isa) && c > worst_vec) {
				worst_vec = c;
				wv = pr->name;
			} else if (!cost_vectorised(pr, isa) && c < best_scalar) {
				best_scalar = c;
				bs = pr->name;
			}
		}
		if (!wv || !bs)
			continue;
		compared++;
		cr_expect(best_scalar > worst_vec,
		          "%s: scalar %s (%.1f us) ranked ahead of vectorised %s (%.1f us) on C=%d "
		          "H=%d W=%d M=%d k=%dx%d s=%d g=%d",
		          rt_sgemm_isa_name(isa), bs, best_scalar, wv, worst_vec, p.C, p.H, p.W, p.M,
		          p.kH, p.kW, p.sH, p.group);
	}
	cr_assert_gt(compared, N_SHAPES / 2, "too few shapes with both kinds of rows (%d)", compared);
}

Test(cost_model, scalar_rows_behind_vectorised_avx2) { check_scalar_behind_vectorised(RT_SGEMM_ISA_AVX2); }
Test(cost_model, scalar_rows_behind_vectorised_avx512) { check_scalar_behind_vectorised(RT_SGEMM_ISA_AVX512); }
Test(cost_model, scalar_rows_behind_vectorised_neon) { check_scalar_behind_vectorised(RT_SGEMM_ISA_NEON); }

/* Clear-cut cases measured with `bench/calibrate --times` on one Xeon core
 * (AVX-512), microseconds per call: on each, the first row is at least 5x
 * faster than the second, and the model must rank them that way. */
static const struct {
	const char *net, *layer;
	int isa;
	const char *fast, *slow;
	double fast_us, slow_us; /* measured, for the message */
} measured[] = {
	{"mobilenetv2", "features.0", RT_SGEMM_ISA_AVX512, "conv_direct_igemm_hwc",
	 "conv_im2_col_copy_ki_chw", 143.8, 931.9},
	{"mobilenetv2", "features.0", RT_SGEMM_ISA_AVX512, "conv_direct_igemm_hwc",
	 "conv_direct_s2_chw", 143.8, 1404.2},
	{"mobilenetv2", "features.0", RT_SGEMM_ISA_AVX512, "conv_direct_igemm_hwc",
	 "conv_fft_whole_chw", 143.8, 9333.9},
	{"mobilenetv2", "b1.dw", RT_SGEMM_ISA_AVX2, "conv_depthwise_3x3s1_chw",
	 "conv_depthwise_group_gemm_chw", 168.0, 2070.3},
	{"mobilenetv2", "b1.dw", RT_SGEMM_ISA_AVX2, "conv_depthwise_3x3s1_chw",
	 "conv_depthwise_group_direct_hwc", 168.0, 3976.6},
	{"mobilenetv2", "b2.dw", RT_SGEMM_ISA_AVX512, "conv_depthwise_chw16c",
	 "conv_depthwise_group_gemm_hwc", 243.7, 16922.8},
	{"googlenet", "4a/1x1", RT_SGEMM_ISA_C, "conv_im2_1x1_ki_chw", "conv_sum2d_chw", 3683.6,
	 53571.9},
};

Test(cost_model, agrees_with_measured_clear_cut_cases)
{
	for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++) {
		const struct conv_layer *l = NULL;
		for (int k = 0; k < N_CONV_LAYERS; k++)
			if (!strcmp(conv_layers[k].net, measured[i].net) &&
			    !strcmp(conv_layers[k].name, measured[i].layer))
				l = &conv_layers[k];
		cr_assert(l, "no layer %s/%s", measured[i].net, measured[i].layer);
		struct rt_conv2d p = conv(l->C, l->H, l->W, l->M, l->k, l->s, l->pad, l->group,
		                          measured[i].isa);
		const struct rt_prim *fast = rt_prim_find(measured[i].fast);
		const struct rt_prim *slow = rt_prim_find(measured[i].slow);
		cr_assert(fast && slow, "case %zu names a missing row", i);
		cr_assert(fast->applies(&p, fast->variant) && slow->applies(&p, slow->variant));
		double cf = cost_primitive_us(fast, &p), cs = cost_primitive_us(slow, &p);
		cr_expect(cf < cs,
		          "%s/%s on %s: measured %s %.0f us, %s %.0f us; the model says %.0f us and "
		          "%.0f us",
		          measured[i].net, measured[i].layer, rt_sgemm_isa_name(measured[i].isa),
		          fast->name, measured[i].fast_us, slow->name, measured[i].slow_us, cf, cs);
	}
}
