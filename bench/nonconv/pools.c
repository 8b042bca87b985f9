/* pools.c - every 2-D pooling layer of GoogLeNet, SqueezeNet 1.1, ResNet-18/50,
 * AlexNet and VGG-16 (torchvision, 224x224, batch 1) timed in each layout
 * dnncc has a kernel for, against a memory-speed bound measured in the same
 * run: one pass that reads the input and writes the output (a sum of the
 * input in 64 independent lanes, which gcc -O2 vectorises, and a memset of
 * the output) on the same buffers.
 *
 *   bench/pools [--runs N] [--threads T] [--filter SUBSTR] [--isa c|avx2|avx512]
 *
 * Time per call: the median over --runs samples (default 15) of the thread's
 * CPU time of a batch of calls at least 2 ms long, after one warm-up call;
 * with --threads T > 1 the process's CPU time divided by the calls, and the
 * wall time beside it. Inputs are random; the buffers stay in cache as far as
 * they fit, as a pool's input does right after the layer that wrote it.
 * Columns: layer, layout, µs, GB/s of (input + output bytes), the bound's µs,
 * and the ratio of the two. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200112L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/dnncc_rt.h"
#include "runtime/sgemm.h"
#include "bench/bench_util.h"

struct pool_layer {
	const char *name;
	int C, H, W, k, s, pad, ceil_mode, avg;
};

static const struct pool_layer layers[] = {
	{"googlenet maxpool1", 64, 112, 112, 3, 2, 0, 1, 0},
	{"googlenet maxpool2", 192, 56, 56, 3, 2, 0, 1, 0},
	{"googlenet 3a.branch4", 192, 28, 28, 3, 1, 1, 1, 0},
	{"googlenet 3b.branch4", 256, 28, 28, 3, 1, 1, 1, 0},
	{"googlenet maxpool3", 480, 28, 28, 3, 2, 0, 1, 0},
	{"googlenet 4a.branch4", 480, 14, 14, 3, 1, 1, 1, 0},
	{"googlenet 4b-d.branch4", 512, 14, 14, 3, 1, 1, 1, 0},
	{"googlenet 4e.branch4", 528, 14, 14, 3, 1, 1, 1, 0},
	{"googlenet maxpool4", 832, 14, 14, 2, 2, 0, 1, 0},
	{"googlenet 5a/b.branch4", 832, 7, 7, 3, 1, 1, 1, 0},
	{"squeezenet features.2", 64, 111, 111, 3, 2, 0, 1, 0},
	{"squeezenet features.5", 128, 55, 55, 3, 2, 0, 1, 0},
	{"squeezenet features.8", 256, 27, 27, 3, 2, 0, 1, 0},
	{"resnet maxpool", 64, 112, 112, 3, 2, 1, 0, 0},
	{"alexnet features.2", 64, 55, 55, 3, 2, 0, 0, 0},
	{"alexnet features.5", 192, 27, 27, 3, 2, 0, 0, 0},
	{"alexnet features.12", 256, 13, 13, 3, 2, 0, 0, 0},
	{"vgg16 pool1", 64, 224, 224, 2, 2, 0, 0, 0},
	{"vgg16 pool2", 128, 112, 112, 2, 2, 0, 0, 0},
	{"vgg16 pool3", 256, 56, 56, 2, 2, 0, 0, 0},
	{"vgg16 pool4", 512, 28, 28, 2, 2, 0, 0, 0},
	{"vgg16 pool5", 512, 14, 14, 2, 2, 0, 0, 0},
	{"avg 3x3 s1 p1 (cip 0)", 192, 28, 28, 3, 1, 1, 0, 1},
	{"avg 2x2 s2", 256, 56, 56, 2, 2, 0, 0, 1},
};

/* ONNX's output size, with the ceil_mode rule that the last window starts
 * inside the input or the left pad. */
static struct rt_pool2d params(const struct pool_layer *l)
{
	struct rt_pool2d p;
	memset(&p, 0, sizeof p);
	p.N = 1, p.C = l->C, p.H = l->H, p.W = l->W, p.kH = p.kW = l->k, p.sH = p.sW = l->s;
	p.dH = p.dW = 1;
	p.padT = p.padL = p.padB = p.padR = l->pad;
	int n = l->H + 2 * l->pad - l->k;
	p.oH = p.oW = (l->ceil_mode ? (n + l->s - 1) / l->s : n / l->s) + 1;
	if ((p.oH - 1) * l->s >= l->H + l->pad)
		p.oH--, p.oW--;
	p.count_include_pad = 0;
	return p;
}

struct run {
	const struct rt_pool2d *p;
	int layout; /* -1: CHW textbook; 1: CHW, 0: HWC, 8, 16: blocked (pool_cl.c); 99: bound */
	int isa, avg;
	const float *x;
	float *y;
	double sink;
};

static void call(struct run *r)
{
	const struct rt_pool2d *p = r->p;
	if (r->layout == 99) {
		size_t nx = (size_t)p->C * p->H * p->W, ny = (size_t)p->C * p->oH * p->oW;
		float s[64] = {0};
		size_t i = 0;
		for (; i + 64 <= nx; i += 64)
			for (int k = 0; k < 64; k++)
				s[k] += r->x[i + k];
		for (; i < nx; i++)
			s[0] += r->x[i];
		memset(r->y, 0, ny * sizeof *r->y);
		for (int k = 0; k < 64; k++)
			r->sink += s[k];
	} else if (r->layout < 0) {
		(r->avg ? rt_avgpool2d : rt_maxpool2d)(p, r->x, r->y);
	} else {
		rt_pool2d_cl(p, r->isa, r->layout, r->avg, r->x, r->y);
	}
}

/* µs per call (CPU time; *wall_us: wall clock) */
static double time_it(struct run *r, int runs, int threads, double *wall_us)
{
	clockid_t id = threads > 1 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
	call(r);
	int reps = 1;
	for (;;) {
		double t0 = bench_clock_s(id);
		for (int i = 0; i < reps; i++)
			call(r);
		if (bench_clock_s(id) - t0 > 2e-3)
			break;
		reps *= 2;
	}
	double *v = malloc(runs * sizeof *v), *w = malloc(runs * sizeof *w);
	for (int k = 0; k < runs; k++) {
		double w0 = bench_clock_s(CLOCK_MONOTONIC), t0 = bench_clock_s(id);
		for (int i = 0; i < reps; i++)
			call(r);
		v[k] = (bench_clock_s(id) - t0) / reps * 1e6;
		w[k] = (bench_clock_s(CLOCK_MONOTONIC) - w0) / reps * 1e6;
	}
	qsort(v, runs, sizeof *v, bench_cmp_double);
	qsort(w, runs, sizeof *w, bench_cmp_double);
	double m = bench_median_sorted(v, runs);
	*wall_us = bench_median_sorted(w, runs);
	free(v), free(w);
	return m;
}

int main(int argc, char **argv)
{
	int runs = 15, threads = 1, isa = rt_sgemm_isa_host();
	const char *filter = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
			filter = argv[++i];
		else if (!strcmp(argv[i], "--isa") && i + 1 < argc) {
			++i;
			isa = !strcmp(argv[i], "c") ? RT_SGEMM_ISA_C :
			      !strcmp(argv[i], "avx2") ? RT_SGEMM_ISA_AVX2 : RT_SGEMM_ISA_AVX512;
		} else {
			fprintf(stderr, "usage: %s [--runs N] [--threads T] [--filter S] [--isa I]\n",
			        argv[0]);
			return 2;
		}
	}
	if (runs < 3)
		runs = 3;
	if (threads > 1 && rt_pool_start(threads) != threads) {
		fprintf(stderr, "could not start %d threads\n", threads);
		return 1;
	}
	printf("# isa %s, %d thread(s), median of %d samples, CPU time%s\n",
	       rt_sgemm_isa_name(isa), threads, runs, threads > 1 ? " (process) / calls" : "");
	printf("%-24s %-7s %10s %8s %10s %7s %10s\n", "layer", "layout", "us", "GB/s", "bound_us",
	       "x_bound", "wall_us");
	static const int lays[] = {99, -1, 1, 0, 8, 16};
	static const char *lname[] = {"bound", "chw-ref", "chw", "hwc", "chw8c", "chw16c"};
	for (size_t li = 0; li < sizeof layers / sizeof layers[0]; li++) {
		const struct pool_layer *l = &layers[li];
		if (filter && !strstr(l->name, filter))
			continue;
		struct rt_pool2d p = params(l);
		size_t nx = (size_t)(p.C + 15) / 16 * 16 * p.H * p.W;
		size_t ny = (size_t)(p.C + 15) / 16 * 16 * p.oH * p.oW;
		float *x = malloc(nx * sizeof *x), *y = malloc(ny * sizeof *y);
		for (size_t i = 0; i < nx; i++)
			x[i] = (float)((i * 2654435761u) % 1000) / 250.0f - 2.0f;
		double bound = 0;
		for (int k = 0; k < 6; k++) {
			struct run r = {&p, lays[k], isa, l->avg, x, y, 0};
			double wall, us = time_it(&r, runs, k ? threads : 1, &wall);
			double gbs = 4.0 * ((double)p.C * p.H * p.W + (double)p.C * p.oH * p.oW) / us * 1e-3;
			if (k == 0)
				bound = us;
			printf("%-24s %-7s %10.2f %8.2f %10.2f %7.2f %10.2f\n", l->name, lname[k], us, gbs,
			       bound, us / bound, wall);
		}
		free(x), free(y);
	}
	return 0;
}
