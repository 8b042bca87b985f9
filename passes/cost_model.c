/* cost_model.c - the built-in cost model: estimated single-core time of a
 * primitive on a layer and of a layout transform on a tensor, used when no
 * measured cost table is given (DESIGN.md §2 "Cost table").
 *
 * Each estimate is work over a sustained rate plus memory traffic over a
 * bandwidth, with rates per family set from bench/primitives runs on an
 * AVX-512 Xeon core (GEMM-based rows at about 60-70% of the sgemm rate, the
 * blocked direct rows near it, loop-order variants far below). The rates only
 * have to rank primitives sensibly on a typical CPU; `dnncc profile` (a later
 * issue) replaces them with measurements of the machine itself. Where the
 * target's GEMM kernel is portable C, every vectorised rate drops to what
 * plain C reaches. */
#include <math.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/primitives.h"
#include "runtime/sgemm.h"

#define GFLOP 1e9
#define BANDWIDTH 8e9 /* bytes/s a single core streams through a transform */

static double direct_flops(const struct rt_conv2d *p)
{
	return 2.0 * p->N * p->M * (double)(p->C / p->group) * p->kH * p->kW * p->oH * p->oW;
}

/* Sustained GFLOP/s of a family's vectorised GEMM-like inner loop. */
static double vector_rate(int isa)
{
	switch (isa) {
	case RT_SGEMM_ISA_AVX512: return 90;
	case RT_SGEMM_ISA_AVX2: return 50;
	case RT_SGEMM_ISA_NEON: return 20;
	default: return 3;
	}
}

/* Fraction of the GEMM rate a GEMM with these dimensions reaches: skinny
 * products (small M or N) and short K run below peak. */
static double gemm_efficiency(double m, double n, double k)
{
	double e = 1.0;
	if (m < 64)
		e *= 0.4 + 0.6 * m / 64;
	if (n < 64)
		e *= 0.4 + 0.6 * n / 64;
	if (k < 64)
		e *= 0.3 + 0.7 * k / 64;
	return e;
}

static int name_has(const struct rt_prim *r, const char *s) { return strstr(r->name, s) != NULL; }

double cost_primitive_us(const struct rt_prim *r, const struct rt_conv2d *p)
{
	const double flops = direct_flops(p);
	const double vr = vector_rate(p->isa) * GFLOP;
	const double cg = p->C / p->group, out = (double)p->N * p->M * p->oH * p->oW;
	const double in_bytes = 4.0 * p->N * p->C * p->H * p->W, out_bytes = 4.0 * out;
	double t; /* seconds */

	switch (r->family) {
	case RT_FAM_SUM2D:
		t = flops / (1.5 * GFLOP);
		break;
	case RT_FAM_DIRECT:
		if (name_has(r, "chw16c") || name_has(r, "chw8c"))
			t = flops / (0.85 * vr * gemm_efficiency(p->M, p->oW * 16.0, cg * p->kH * p->kW));
		else if (name_has(r, "implicit") || name_has(r, "hwc"))
			t = flops / (0.35 * vr);
		else
			t = flops / (0.08 * vr + 1.5 * GFLOP);
		break;
	case RT_FAM_IM2: {
		double k = cg * p->kH * p->kW, n = (double)p->oH * p->oW;
		double patch = p->kH * p->kW == 1 && p->sH == 1 && p->sW == 1 ? 0 : 8.0 * k * n * p->N;
		t = flops / (0.75 * vr * gemm_efficiency(p->M / p->group, n, k)) + patch / BANDWIDTH;
		break;
	}
	case RT_FAM_KN2: {
		double taps = p->kH * p->kW, n = (double)p->H * p->W;
		/* GEMMs on the full input grid, then a shift-add pass per tap */
		t = 2.0 * p->N * p->M * cg * taps * n / (0.75 * vr * gemm_efficiency(p->M, n, cg)) +
		    8.0 * p->N * p->M * n * taps / BANDWIDTH;
		break;
	}
	case RT_FAM_WINOGRAD: {
		/* F(m x m, r x r) or 1-D F(m, r): alpha = m + r - 1 points per axis */
		int m = name_has(r, "f6") ? 6 : name_has(r, "f4") ? 4 : name_has(r, "f3") ? 3 : 2;
		int two_d = p->kH > 1 && p->kW > 1;
		double ah = two_d || p->kH > 1 ? m + p->kH - 1 : 1, aw = two_d || p->kW > 1 ? m + p->kW - 1 : 1;
		double mh = p->kH > 1 ? m : 1, mw = p->kW > 1 ? m : 1;
		double tiles = p->N * ceil((double)p->oH / mh) * ceil((double)p->oW / mw);
		double gemm = 2.0 * ah * aw * p->M * cg * tiles;
		double transforms = (p->C + p->M) * tiles * ah * aw * (ah + aw) * 2;
		t = gemm / (0.8 * vr * gemm_efficiency(p->M, tiles, cg)) + transforms / (0.15 * vr) +
		    4.0 * ah * aw * (p->C + p->M) * tiles / BANDWIDTH;
		break;
	}
	case RT_FAM_FFT: {
		double hp = p->H + p->kH, wp = p->W + p->kW, pts = hp * wp;
		double ffts = (double)p->N * (p->C + p->M) * 2.5 * pts * log2(pts);
		double pointwise = 8.0 * p->N * p->M * cg * pts / 2;
		t = ffts / (0.1 * vr + GFLOP) + pointwise / (0.3 * vr + GFLOP);
		break;
	}
	case RT_FAM_DEPTHWISE:
		if (name_has(r, "gemm") || name_has(r, "im2"))
			t = flops / (0.6 * vr * gemm_efficiency(p->M / p->group, (double)p->oH * p->oW,
			                                       cg * p->kH * p->kW));
		else if (name_has(r, "chw16c") || name_has(r, "chw8c") || name_has(r, "hwc"))
			t = flops / (0.25 * vr + GFLOP);
		else
			t = flops / (0.1 * vr + GFLOP);
		break;
	default:
		t = flops / GFLOP;
	}
	/* every primitive reads its input and writes its output once at least */
	t += (in_bytes + out_bytes) / (4 * BANDWIDTH);
	return t * 1e6;
}

double cost_transform_us(const struct rt_transform *tr, int N, int C, int H, int W)
{
	/* a transpose moves every element once in and once out; the blocked
	 * layouts pad the channel count */
	double c = C;
	if (tr->from == RT_L_CHW16C || tr->to == RT_L_CHW16C)
		c = (C + 15) / 16 * 16;
	else if (tr->from == RT_L_CHW8C || tr->to == RT_L_CHW8C)
		c = (C + 7) / 8 * 8;
	return 2.0 * 4.0 * N * c * H * W / BANDWIDTH * 1e6 + 0.2;
}
