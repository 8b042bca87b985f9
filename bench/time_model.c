/* time_model.c - times one model dnncc generated (compiled with --name
 * model): reads its one input from a raw float32 file, calls model_run once to
 * warm up (page faults, caches), then RUNS times, and prints the median and
 * the minimum wall time of one call in milliseconds, then the largest
 * |output - reference| / max |reference| against a reference output file.
 *
 *   time_model INPUT.bin REFERENCE.bin RUNS
 *
 * Used by bench/fusion.sh; plain C99 plus POSIX clock_gettime. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"

static float *read_floats(const char *path, size_t n)
{
	float *v = malloc(n * sizeof *v);
	FILE *f = fopen(path, "rb");
	if (!v || !f || fread(v, sizeof *v, n, f) != n) {
		fprintf(stderr, "time_model: cannot read %zu floats from %s\n", n, path);
		exit(1);
	}
	fclose(f);
	return v;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 4 || MODEL_NUM_INPUTS != 1 || MODEL_NUM_OUTPUTS != 1) {
		fprintf(stderr, "usage: time_model INPUT.bin REFERENCE.bin RUNS (one input, one output)\n");
		return 2;
	}
	int runs = atoi(argv[3]);
	if (runs < 1)
		runs = 1;
	float *x = read_floats(argv[1], model_input_sizes[0]);
	float *want = read_floats(argv[2], model_output_sizes[0]);
	float *y = malloc(model_output_sizes[0] * sizeof *y);
	double *ms = malloc((size_t)runs * sizeof *ms);
	const float *in[1] = {x};
	float *out[1] = {y};
	if (!y || !ms || model_run(in, out))
		return 3;
	for (int r = 0; r < runs; r++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		model_run(in, out);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ms[r] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6;
	}
	qsort(ms, (size_t)runs, sizeof *ms, by_value);
	double err = 0, big = 0;
	for (size_t i = 0; i < model_output_sizes[0]; i++) {
		double d = fabs((double)y[i] - want[i]);
		err = d > err ? d : err;
		big = fabs(want[i]) > big ? fabs(want[i]) : big;
	}
	printf("%.3f %.3f %.3g\n", ms[runs / 2], ms[0], big > 0 ? err / big : err);
	free(x);
	free(want);
	free(y);
	free(ms);
	return 0;
}
