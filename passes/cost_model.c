/* cost_model.c - the built-in cost model: estimated single-core time of a
 * primitive on a layer and of a layout transform on a tensor, used when no
 * measured cost table is given (DESIGN.md §2 "Cost table").
 *
 * One formula for every row, over the cost description the row carries in
 * its fam_*.def line (struct rt_prim_cost, primitives.h); nothing here knows
 * a row by name, so adding a row never touches this file:
 *
 *   t = flops / (eff x rate x shape) + xform_flops / (xform_eff x rate)
 *       + bytes / BANDWIDTH
 *
 *   - rate: the GEMM rate of the target's ISA (cost_gemm_gflops) when the
 *     row's inner loop is vectorised for it (cost.simd), else the portable C
 *     GEMM's rate: a scalar loop runs at the same speed whatever SIMD the
 *     CPU has;
 *   - eff: the row's fraction of that rate, per ISA class (cost.eff_*),
 *     fitted by bench/calibrate to measured times (above 1 where the flop
 *     count below overstates what the row really computes, e.g. Winograd's
 *     small tiles);
 *   - flops: by cost.work, the direct convolution's, kn2's GEMMs over the
 *     whole input grid, Winograd's element-wise products per tile, FFT's
 *     complex products; shape: where the work is a GEMM (cost.gemm), skinny
 *     or short products run below peak;
 *   - xform_flops: Winograd's and FFT's transforms; bytes: the input and the
 *     output once, plus the im2col patch (cost.patch bytes per element) and
 *     kn2's per-tap partial outputs (cost.accum).
 *
 * Policy, on top of the estimate: on a target with SIMD a row whose loop is
 * scalar there is never ranked ahead of a vectorised row that applies to the
 * same layer (its estimate is raised to just above the slowest of those).
 * Scalar rows are the fallback of portable targets; on an AVX2-only Zen 1 the
 * old name-keyed rates picked the scalar conv_direct_ijmuvc_hwc for 60% of
 * MobileNetV2's time. tests/test_passes.c checks this over many shapes. */
#include <math.h>

#include "passes/passes.h"
#include "runtime/primitives.h"
#include "runtime/sgemm.h"

#define GFLOP 1e9

/* Single-core SGEMM rate of each ISA's micro-kernel, GFLOP/s: bench/calibrate
 * on a Xeon (AVX-512) core, where it also runs the C and AVX2 kernels; NEON
 * is not measured here (a Cortex-A76-class core's 4-wide FMA rate). Figures
 * from one run; copy a new run's "peak" lines here. */
const double cost_gemm_gflops[RT_SGEMM_ISA_COUNT] = {
	[RT_SGEMM_ISA_C] = 9.6,
	[RT_SGEMM_ISA_AVX2] = 105.9,
	[RT_SGEMM_ISA_AVX512] = 184.9,
	[RT_SGEMM_ISA_NEON] = 20.0,
};

/* Bytes per second a single core moves through a transform or a primitive's
 * traffic (read + written; bench/calibrate: a 4 MiB copy, in L2/L3). */
const double cost_bandwidth = 28.2e9;

/* Fraction of the GEMM rate a GEMM with these dimensions reaches: skinny
 * products (small M or N) and short K run below peak. */
static double gemm_shape(double m, double n, double k)
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

int cost_vectorised(const struct rt_prim *r, int isa)
{
	return isa >= 0 && isa < RT_SGEMM_ISA_COUNT && (r->cost.simd >> isa & 1u);
}

double cost_efficiency(const struct rt_prim *r, int isa)
{
	if (!cost_vectorised(r, isa))
		return r->cost.eff_scalar;
	switch (isa) {
	case RT_SGEMM_ISA_AVX2: return r->cost.eff_avx2;
	case RT_SGEMM_ISA_AVX512: return r->cost.eff_avx512;
	case RT_SGEMM_ISA_NEON: return r->cost.eff_neon;
	default: return r->cost.eff_scalar;
	}
}

void cost_primitive_parts(const struct rt_prim *r, const struct rt_conv2d *p,
                          struct cost_parts *out)
{
	const struct rt_prim_cost *c = &r->cost;
	const double N = p->N, cg = p->C / p->group, mg = p->M / p->group;
	const double taps = (double)p->kH * p->kW, opix = (double)p->oH * p->oW;
	const double ipix = (double)p->H * p->W;
	double shape = 1;

	out->xform_flops = 0;
	out->bytes = 4.0 * N * (p->C * ipix + p->M * opix);
	out->wbytes = 4.0 * p->M * cg * taps; /* as packed by the direct, im2 and kn2 rows */
	switch (c->work) {
	case RT_CW_GRID:
		out->flops = 2.0 * N * p->M * cg * taps * ipix;
		shape = gemm_shape(mg, ipix, cg);
		out->bytes += c->accum * N * p->M * ipix * taps;
		break;
	case RT_CW_WINOGRAD: {
		/* F(m, r) per axis: alpha = m + r - 1 input points per m outputs */
		double ah = c->tile_h + p->kH - 1, aw = c->tile_w + p->kW - 1;
		double tiles = N * ceil((double)p->oH / c->tile_h) * ceil((double)p->oW / c->tile_w);
		out->flops = 2.0 * ah * aw * p->M * cg * tiles;
		out->xform_flops = 2.0 * (p->C + p->M) * tiles * ah * aw * (ah + aw);
		out->bytes += 4.0 * ah * aw * (p->C + p->M) * tiles;
		/* the transformed weights: alpha_h alpha_w per kernel instead of
		 * kH kW (16/9 of the direct rows' for F(2x2, 3x3)) */
		out->wbytes = 4.0 * ah * aw * p->M * cg;
		shape = gemm_shape(mg, tiles, cg);
		break;
	}
	case RT_CW_FFT: {
		/* tile x tile blocks, each giving (tile - k + 1)^2 outputs, or the
		 * whole image padded by the kernel */
		double th, tw, tiles;
		if (c->tile_h > 0) {
			int vh = c->tile_h - p->kH + 1, vw = c->tile_w - p->kW + 1;
			th = c->tile_h;
			tw = c->tile_w;
			tiles = vh > 0 && vw > 0 ? ceil(p->oH / (double)vh) * ceil(p->oW / (double)vw) : 1;
		} else {
			th = p->H + p->kH;
			tw = p->W + p->kW;
			tiles = 1;
		}
		double pts = th * tw, spectra = N * tiles * pts / 2; /* real input: half spectrum */
		out->flops = 8.0 * p->M * cg * spectra;
		out->xform_flops = N * tiles * (p->C + p->M) * 2.5 * pts * log2(pts);
		out->bytes += 8.0 * (p->C + p->M) * spectra;
		out->wbytes = 8.0 * p->M * cg * pts / 2; /* complex half spectra */
		shape = gemm_shape(mg, tiles * pts / 2, cg);
		break;
	}
	case RT_CW_DIRECT:
	default:
		out->flops = 2.0 * N * p->M * cg * taps * opix;
		shape = gemm_shape(mg, opix, cg * taps);
		out->bytes += c->patch * N * p->C * taps * opix;
		/* a blocked input with fewer channels than one block (a first
		 * layer's 3): the tile's innermost loop runs over those few, and
		 * the row runs below its rate (conv_direct_chw16c on ResNet's and
		 * GoogLeNet's 7x7 stems: 1.7-2.9x the estimate without this) */
		if (r->in == RT_L_CHW8C || r->in == RT_L_CHW16C) {
			const double bs = r->in == RT_L_CHW8C ? 8 : 16;
			if (cg < bs)
				shape *= 0.4 + 0.6 * cg / bs;
		}
		break;
	}
	out->shape = c->gemm ? shape : 1;
}

/* The estimate without the scalar-row policy, in seconds. */
static double estimate_s(const struct rt_prim *r, const struct rt_conv2d *p)
{
	struct cost_parts parts;
	cost_primitive_parts(r, p, &parts);
	const int vec = cost_vectorised(r, p->isa);
	const double rate = cost_gemm_gflops[vec ? p->isa : RT_SGEMM_ISA_C] * GFLOP;
	double eff = cost_efficiency(r, p->isa), xe = r->cost.xform_eff;
	if (!(eff > 1e-3))
		eff = 1e-3;
	if (!(xe > 1e-3))
		xe = 1e-3;
	return parts.flops / (eff * rate * parts.shape) + parts.xform_flops / (xe * rate) +
	       parts.bytes / cost_bandwidth + parts.wbytes / cost_stream_bandwidth;
}

double cost_primitive_us(const struct rt_prim *r, const struct rt_conv2d *p)
{
	double t = estimate_s(r, p);
	if (!cost_vectorised(r, p->isa)) {
		/* the policy above: behind every applicable vectorised row */
		double floor = 0;
		for (int k = 0; k < rt_n_prims; k++) {
			const struct rt_prim *v = &rt_prims[k];
			if (cost_vectorised(v, p->isa) && v->applies(p, v->variant)) {
				double tv = estimate_s(v, p);
				if (tv > floor)
					floor = tv;
			}
		}
		if (t <= floor)
			t = floor * 1.01;
	}
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
	return 2.0 * 4.0 * N * c * H * W / cost_bandwidth * 1e6 + 0.2;
}

/* Bytes per second at which a convolution's packed weights count, read once
 * per call (cost_parts.wbytes): 12 GB/s, the read bandwidth of the Xeon on
 * which it and the rows' efficiencies were fitted together (make bench-fc:
 * 11-13 GB/s), so it is a fitted penalty, not this machine's rate. Set to
 * the Zen 5's measured 36.5 GB/s (cost_fc_bandwidth) it moved VGG-16's six
 * 3x3 layers on 512 channels from conv_direct_chw16c to
 * conv_winograd_f2x2_3x3_chw and the network from 177 to 201 ms (process
 * CPU time, medians of 5 interleaved runs, load 4-5): the rows'
 * efficiencies need measuring again before this can change. */
const double cost_stream_bandwidth = 12e9;

/* Bytes per second one core streams a fully-connected layer's weights,
 * which no cache holds between calls: bench/calibrate's "stream" line
 * (rt_gemm_fc on AlexNet's first classifier layer, 151 MB packed; copy a new
 * run's here). 36.5 GB/s: the median of three runs on an AMD EPYC Zen 5
 * core (36.0-37.3 GB/s), where AlexNet's three classifier layers take 6.5 ms
 * in the network (--instrument, quiet) and are now predicted at 6.43 ms;
 * the 12 GB/s of the Xeon predicted them at 19.6 ms. */
const double cost_fc_bandwidth = 36.5e9;

double cost_fc_us(int isa, double M, double N, double K)
{
	/* a roofline: gemm_fc and the SGEMM overlap their loads with the FMAs,
	 * so the slower of the two bounds the call */
	if (isa < 0 || isa >= RT_SGEMM_ISA_COUNT)
		isa = RT_SGEMM_ISA_C;
	double flops = 2.0 * M * N * K;
	double compute = flops / (cost_gemm_gflops[isa] * GFLOP * gemm_shape(M, N, K));
	double memory = 4.0 * (N * K + M * K + M * N) / cost_fc_bandwidth;
	return 1e6 * (compute > memory ? compute : memory) + 0.2;
}

double cost_residual_us(double elements)
{
	/* runtime/residual.c: one pass reading the shortcut and the output and
	 * writing the output, at the bandwidth of data in L2/L3 */
	return 12.0 * elements / cost_bandwidth * 1e6;
}
