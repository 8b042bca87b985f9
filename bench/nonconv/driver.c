/* driver.c - times one model dnncc compiled with --instrument --name model:
 * one warm-up call, then RUNS timed calls of model_run on zero inputs; prints
 * the median wall time of a call (CLOCK_MONOTONIC) on stdout, then the
 * per-layer profile of the timed calls (model_profile_print). Used by
 * bench/nonconv/run.sh. */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"

#define RUNS 15

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	const float *in[MODEL_NUM_INPUTS];
	float *out[MODEL_NUM_OUTPUTS];
	for (int i = 0; i < MODEL_NUM_INPUTS; i++)
		in[i] = calloc(model_input_sizes[i], sizeof(float));
	for (int i = 0; i < MODEL_NUM_OUTPUTS; i++)
		out[i] = calloc(model_output_sizes[i], sizeof(float));
	if (model_run(in, out))
		return 1;
	model_profile_reset();
	double t[RUNS];
	for (int r = 0; r < RUNS; r++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (model_run(in, out))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[r] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6;
	}
	qsort(t, RUNS, sizeof t[0], cmp);
	printf("median_ms %.3f\n", t[RUNS / 2]);
	model_profile_print(stdout);
	return 0;
}
