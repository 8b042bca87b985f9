/* calibrate.c - measures the rates of the built-in cost model
 * (passes/cost_model.c) on this machine and prints them as the values to
 * put in cost_model.c (cost_gemm_gflops) and in every row's RT_COST(...) of
 * runtime/fam_*.def (eff_scalar, eff_avx2, eff_avx512, eff_neon).
 *
 *   1. Peak: per ISA the CPU runs, rt_sgemm on a 384 x 960 x 384 product with
 *      packed A, GFLOP/s; bandwidth: a 4 MiB memcpy, bytes read + written;
 *      stream: rt_gemm_fc on 151 MB of packed weights (fc_stream_bandwidth).
 *   2. Rows: every row on every calibration layer (tests/conv_layers.h: the
 *      small and middle-sized layers of MobileNetV2, GoogLeNet, ResNet-50 and
 *      AlexNet, 3 to 1024 channels, 1x1 to 7x7, strides 1 and 2, depthwise,
 *      at most --max-mflops each) with p.isa = C, then AVX2, then AVX-512
 *      (a row scalar on an ISA only on every fourth layer: the same code).
 *      Time per call: the smallest of 3 samples of back-to-back calls lasting
 *      at least 10 ms each, on the process's CPU-time clock (the machines are
 *      shared).
 *   3. Fit: the model says t = flops / (eff rate shape) + rest, with rest the
 *      transform and memory terms (cost_primitive_parts), rate the peak of
 *      step 1 for the ISA when the row is vectorised for it, else of C. Per
 *      row and ISA, eff is the median over layers of
 *      flops / (rate shape (t - rest)), t - rest counted as at least t / 10.
 *      eff_neon, which this machine cannot measure, is printed as eff_avx2
 *      (both are fractions of their own ISA's GEMM rate). A row declared
 *      scalar (no RT_SIMD bit) that runs much faster under a SIMD ISA than
 *      under C is flagged: its simd bits are wrong.
 *   4. Check: with the fitted values, per ISA and layer, the measured time of
 *      the row the model ranks first over the measured best time.
 *
 * usage: calibrate [--max-mflops X (default 60)] [--filter SUBSTRING] [--times] [--rates]
 * Output: "peak ISA GFLOPS", "bandwidth GB/s", "stream GB/s" and "eff ROW SCALAR AVX2 AVX512
 * NEON" lines (the fitted values, to copy into cost_model.c and the rows' RT_COST; --rates
 * stops after the three machine rates, a few seconds), warnings,
 * the check table; with --times every measurement ("time ROW ISA LAYER"). See bench/README.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "passes/passes.h"
#include "runtime/dnncc_rt.h"
#include "runtime/prep.h"
#include "runtime/sgemm.h"
#include "tests/conv_layers.h"
#include "bench/bench_util.h"

#define MAX_LAYERS 64
#define SAMPLES 3
#define MIN_SAMPLE_S 0.01
#define SCALAR_FLAG_RATIO 1.6 /* declared scalar but this much faster with SIMD */

static double cpu_s(void) { return bench_clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static float *falloc(size_t n)
{
	float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64 + 64);
	if (!p) {
		fprintf(stderr, "calibrate: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		p[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
	return p;
}

/* Seconds per call of row r on layer p (already with p->isa set). */
static double time_row(const struct rt_prim *r, const struct rt_conv2d *p)
{
	size_t nx = rt_layout_size(r->in, p->C, p->H, p->W);
	size_t ny = rt_layout_size(r->out, p->M, p->oH, p->oW);
	size_t nw = (size_t)p->M * (p->C / p->group) * p->kH * p->kW;
	float *x = falloc(nx), *y = falloc(ny), *w = falloc(nw), *b = falloc(p->M);
	float *packed = NULL, *ws = NULL;
	const float *wp = w;
	if (r->packed) {
		packed = falloc(r->packed(p, r->variant));
		r->pack(p, r->variant, w, packed);
		wp = packed;
	}
	size_t nws = r->ws(p, r->variant);
	if (nws)
		ws = falloc(nws);
	double t0 = cpu_s();
	r->run(p, r->variant, x, wp, b, y, ws); /* warm-up */
	double first = cpu_s() - t0, best = first;
	if (first < 0.3) {
		long calls = first > 0 ? (long)(MIN_SAMPLE_S / first) + 1 : 1000;
		for (int s = 0; s < SAMPLES; s++) {
			t0 = cpu_s();
			for (long c = 0; c < calls; c++)
				r->run(p, r->variant, x, wp, b, y, ws);
			double t = (cpu_s() - t0) / calls;
			if (t < best)
				best = t;
		}
	}
	free(x);
	free(y);
	free(w);
	free(b);
	free(packed);
	free(ws);
	return best;
}

static double gemm_peak(int isa)
{
	const int M = 384, N = 960, K = 384;
	float *a = falloc((size_t)M * K), *bm = falloc((size_t)K * N), *c = falloc((size_t)M * N);
	float *ap = falloc(rt_sgemm_pack_a_size(isa, M, K));
	float *ws = falloc(rt_sgemm_workspace_size(isa, M, N, K));
	rt_sgemm_pack_a(isa, M, K, a, K, 1, ap);
	double best = 1e30;
	for (int s = 0; s < 5; s++) {
		double t0 = cpu_s();
		int calls = 0;
		do {
			rt_sgemm(isa, M, N, K, NULL, 0, 0, ap, bm, N, 1, c, N, 0, ws);
			calls++;
		} while (cpu_s() - t0 < 0.05);
		double t = (cpu_s() - t0) / calls;
		if (t < best)
			best = t;
	}
	free(a);
	free(bm);
	free(c);
	free(ap);
	free(ws);
	return 2.0 * M * N * K / best / 1e9;
}

/* Bytes per second one core moves copying a 4 MiB buffer (read + write):
 * the activations of the layers above, which live in L2 or L3. */
static double stream_bandwidth(void)
{
	const size_t n = (size_t)1 << 20;
	float *a = falloc(n), *b = falloc(n);
	double best = 1e30;
	for (int s = 0; s < 5; s++) {
		double t0 = cpu_s();
		int calls = 0;
		do {
			memcpy(b, a, n * sizeof *a);
			a[calls % n] += b[(calls * 7) % n]; /* keep the copies */
			calls++;
		} while (cpu_s() - t0 < 0.05);
		double t = (cpu_s() - t0) / calls;
		if (t < best)
			best = t;
	}
	free(a);
	free(b);
	return 2.0 * n * sizeof(float) / best;
}

/* Bytes per second rt_gemm_fc streams weights that no cache holds between
 * calls (cost_fc_bandwidth): AlexNet's first classifier layer at batch 1
 * (K = 9216 -> N = 4096, 151 MB packed, over any last-level cache), ReLU and
 * a bias as the emitter calls it, packed for the host's ISA; the median of
 * 7 calls after one warm-up, bytes of weights read per second of CPU time. */
static double fc_stream_bandwidth(int isa)
{
	const int N = 4096, K = 9216;
	const struct rt_gemm g = {.M = 1, .N = N, .K = K, .alpha = 1.0f, .beta = 1.0f,
	                          .c_sm = 0, .c_sn = 1, .act = RT_ACT_RELU};
	size_t nw = rt_gemm_fc_pack_size(isa, N, K);
	float *x = falloc(K), *w = falloc(nw), *b = falloc(N), *y = falloc(N);
	double t[7];
	rt_gemm_fc(&g, isa, x, w, b, y);
	for (int s = 0; s < 7; s++) {
		double t0 = cpu_s();
		rt_gemm_fc(&g, isa, x, w, b, y);
		t[s] = cpu_s() - t0;
	}
	qsort(t, 7, sizeof *t, bench_cmp_double);
	free(x);
	free(w);
	free(b);
	free(y);
	return (double)nw * sizeof(float) / t[3];
}

static const int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512};
#define N_ISAS 3

int main(int argc, char **argv)
{
	double max_mflops = 60;
	const char *filter = NULL;
	int print_times = 0, rates_only = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--max-mflops") && i + 1 < argc)
			max_mflops = atof(argv[++i]);
		else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
			filter = argv[++i];
		else if (!strcmp(argv[i], "--times"))
			print_times = 1;
		else if (!strcmp(argv[i], "--rates"))
			rates_only = 1;
		else {
			fprintf(stderr, "usage: %s [--max-mflops X] [--filter SUBSTRING] [--times] [--rates]\n", argv[0]);
			return 2;
		}
	}

	double peak[RT_SGEMM_ISA_COUNT] = {0};
	for (int i = 0; i < N_ISAS; i++)
		if (rt_sgemm_isa_supported(isas[i])) {
			peak[isas[i]] = gemm_peak(isas[i]);
			printf("peak %-7s %6.1f GFLOP/s\n", rt_sgemm_isa_name(isas[i]), peak[isas[i]]);
		}

	printf("bandwidth %.1f GB/s\n", stream_bandwidth() / 1e9);
	printf("stream %.1f GB/s\n", fc_stream_bandwidth(rt_sgemm_isa_host()) / 1e9);
	if (rates_only)
		return 0;

	struct rt_conv2d layers[MAX_LAYERS];
	const char *names[MAX_LAYERS];
	int nl = 0;
	for (int k = 0; k < N_CONV_LAYERS && nl < MAX_LAYERS; k++) {
		const struct conv_layer *l = &conv_layers[k];
		struct rt_conv2d p = bench_layer_conv(l);
		if (bench_conv_flops(&p) > max_mflops * 1e6 || !strcmp(l->net, "vgg16"))
			continue;
		/* every depthwise and first layer, the first layer of each
		 * kernel size and stride, every fourth other layer */
		int first_of_kind = 1;
		for (int j = 0; j < nl; j++)
			if (layers[j].kH == p.kH && layers[j].sH == p.sH && layers[j].group == 1)
				first_of_kind = 0;
		if (l->group == 1 && l->C > 3 && k % 4 && !first_of_kind)
			continue;
		layers[nl] = p;
		names[nl++] = l->name;
	}
	/* the networks have square kernels only: a 1x3 and a 3x1 layer too
	 * (Inception-v3's factorised 7x7 and 3x3 at 3 taps) */
	for (int v = 0; v < 2 && nl < MAX_LAYERS; v++) {
		struct rt_conv2d p = bench_layer_conv(&(struct conv_layer){"", "", 64, 28, 28, 64, 1, 1, 0, 1, 1});
		if (v == 0) {
			p.kW = 3;
			p.padL = 1;
		} else {
			p.kH = 3;
			p.padT = 1;
		}
		layers[nl] = p;
		names[nl++] = v == 0 ? "1x3 (64, 28x28)" : "3x1 (64, 28x28)";
	}
	fprintf(stderr, "calibrate: %d layers, %d rows\n", nl, rt_n_prims);

	/* t[row][isa][layer], 0 where the row does not apply */
	double(*t)[N_ISAS][MAX_LAYERS] = calloc(rt_n_prims, sizeof *t);
	for (int r = 0; r < rt_n_prims; r++) {
		const struct rt_prim *pr = &rt_prims[r];
		if (filter && !strstr(pr->name, filter))
			continue;
		fprintf(stderr, "  %s\n", pr->name);
		for (int i = 0; i < N_ISAS; i++) {
			if (!rt_sgemm_isa_supported(isas[i]))
				continue;
			for (int l = 0; l < nl; l++) {
				struct rt_conv2d p = layers[l];
				p.isa = isas[i];
				/* a row scalar on this ISA runs its C code: a few layers
				 * suffice to check that claim, the rest reuse the C times */
				if (i > 0 && !cost_vectorised(pr, isas[i]) && l % 4)
					continue;
				if (!pr->applies(&p, pr->variant))
					continue;
				t[r][i][l] = time_row(pr, &p);
				if (print_times)
					printf("time %-34s %-7s %-22s %10.1f us\n", pr->name,
					       rt_sgemm_isa_name(isas[i]), names[l], t[r][i][l] * 1e6);
			}
		}
	}

	for (int r = 0; r < rt_n_prims; r++) {
		const struct rt_prim *pr = &rt_prims[r];
		double eff[N_ISAS] = {0};
		int any = 0;
		for (int i = 0; i < N_ISAS; i++) {
			double v[MAX_LAYERS];
			int n = 0;
			for (int l = 0; l < nl; l++) {
				if (!t[r][i][l])
					continue;
				struct rt_conv2d p = layers[l];
				p.isa = isas[i];
				struct cost_parts parts;
				cost_primitive_parts(pr, &p, &parts);
				int vec = cost_vectorised(pr, isas[i]);
				double rate = peak[vec ? isas[i] : RT_SGEMM_ISA_C] * 1e9;
				double xe = pr->cost.xform_eff > 1e-3 ? pr->cost.xform_eff : 1e-3;
				double rest = parts.xform_flops / (xe * rate) + parts.bytes / cost_bandwidth;
				/* work hidden under the memory traffic: count it as at
				 * least a tenth of the time (eff then comes out high) */
				double work_s = t[r][i][l] - rest;
				if (work_s < 0.1 * t[r][i][l])
					work_s = 0.1 * t[r][i][l];
				v[n++] = parts.flops / (rate * parts.shape * work_s);
			}
			if (n) {
				qsort(v, n, sizeof v[0], bench_cmp_double);
				eff[i] = n % 2 ? v[n / 2] : sqrt(v[n / 2 - 1] * v[n / 2]);
				any = 1;
			}
		}
		if (!any)
			continue;
		/* a scalar row's SIMD-ISA columns are unused: print 0 there */
		double e2 = cost_vectorised(pr, RT_SGEMM_ISA_AVX2) ? eff[1] : 0;
		double e5 = cost_vectorised(pr, RT_SGEMM_ISA_AVX512) ? eff[2] : 0;
		double en = cost_vectorised(pr, RT_SGEMM_ISA_NEON) ? eff[1] : 0;
		printf("eff %-34s %.3g %.3g %.3g %.3g\n", pr->name, eff[0], e2, e5, en);
		/* declared scalar but faster with SIMD: the row's simd bits are wrong */
		for (int i = 1; i < N_ISAS; i++) {
			if (cost_vectorised(pr, isas[i]))
				continue;
			double ratio = 0;
			int n = 0;
			for (int l = 0; l < nl; l++)
				if (t[r][0][l] && t[r][i][l]) {
					ratio += log(t[r][0][l] / t[r][i][l]);
					n++;
				}
			if (n && exp(ratio / n) > SCALAR_FLAG_RATIO)
				printf("warning %s: declared scalar on %s but %.1fx faster than with C\n",
				       pr->name, rt_sgemm_isa_name(isas[i]), exp(ratio / n));
		}
	}

	/* how good the current model's first choice is, per ISA and layer */
	for (int i = 0; i < N_ISAS; i++) {
		if (!rt_sgemm_isa_supported(isas[i]))
			continue;
		double logsum = 0;
		int n = 0;
		printf("check %s: measured time of the model's pick / measured best\n",
		       rt_sgemm_isa_name(isas[i]));
		for (int l = 0; l < nl; l++) {
			struct rt_conv2d p = layers[l];
			p.isa = isas[i];
			int best = -1, pick = -1;
			double pick_cost = 0;
			for (int r = 0; r < rt_n_prims; r++) {
				if (!t[r][i][l] && !cost_vectorised(&rt_prims[r], isas[i]))
					t[r][i][l] = t[r][0][l]; /* its C code, timed with p.isa = C */
				if (!t[r][i][l])
					continue;
				if (best < 0 || t[r][i][l] < t[best][i][l])
					best = r;
				double c = cost_primitive_us(&rt_prims[r], &p);
				if (pick < 0 || c < pick_cost) {
					pick = r;
					pick_cost = c;
				}
			}
			if (best < 0)
				continue;
			double ratio = t[pick][i][l] / t[best][i][l];
			logsum += log(ratio);
			n++;
			printf("  %-22s best %-32s %9.1f us  model %-32s %5.2fx\n", names[l],
			       rt_prims[best].name, t[best][i][l] * 1e6, rt_prims[pick].name, ratio);
		}
		if (n)
			printf("  geometric mean %.2fx over %d layers\n", exp(logsum / n), n);
	}
	free(t);
	return 0;
}
