/* bench_util.h - what the benchmark programs share: clocks and medians
 * (bench/primitives.c, bench/calibrate.c, bench/models/time_main.c) and, when
 * the includer has the runtime's struct rt_conv2d (runtime/prep.h) and
 * tests/conv_layers.h, the parameters of a conv layer of those tables.
 *
 * time_main.c is compiled alone with a generated model (`cc -std=c99`, no
 * dnncc include path), so this header needs only libc; the includer defines
 * _POSIX_C_SOURCE (clock_gettime, POSIX.1b) before its first #include.
 * Everything is static inline: an unused function is no warning. */
#ifndef DNNCC_BENCH_UTIL_H
#define DNNCC_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

/* Seconds on clock id (CLOCK_PROCESS_CPUTIME_ID on shared machines: a
 * descheduled benchmark does not count time; CLOCK_MONOTONIC for wall). */
static inline double bench_clock_s(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* For qsort of doubles, ascending. */
static inline int bench_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* The median of n values already sorted ascending (n >= 1). */
static inline double bench_median_sorted(const double *v, int n)
{
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#ifdef DNNCC_CONV_LAYERS_H
#include <string.h>

/* A conv_layers.h row as one batch-1 convolution with bias and ReLU, square
 * kernel and stride, symmetric padding, no dilation (p.isa left 0). */
static inline struct rt_conv2d bench_layer_conv(const struct conv_layer *l)
{
	struct rt_conv2d p;
	memset(&p, 0, sizeof p);
	p.N = 1;
	p.C = l->C;
	p.H = l->H;
	p.W = l->W;
	p.M = l->M;
	p.kH = p.kW = l->k;
	p.sH = p.sW = l->s;
	p.dH = p.dW = 1;
	p.padT = p.padL = l->pad;
	p.group = l->group;
	p.oH = (l->H + 2 * l->pad - l->k) / l->s + 1;
	p.oW = (l->W + 2 * l->pad - l->k) / l->s + 1;
	p.act = RT_ACT_RELU;
	return p;
}

/* Floating-point operations of one call: 2 x multiply-adds. */
static inline double bench_conv_flops(const struct rt_conv2d *p)
{
	return 2.0 * p->M * p->oH * p->oW * (p->C / p->group) * p->kH * p->kW;
}
#endif

#endif
