/* threads_run.c - times one generated model: the first call of model_run
 * (page faults and, with threads, nothing else: the pool starts in
 * model_init), then RUNS more calls, and prints
 *
 *   init_ms first_ms median_ms min_ms
 *
 * on one line (wall-clock, CLOCK_MONOTONIC). Inputs are a fixed
 * pseudo-random pattern in [-1, 1). Used by bench/threads.sh; built with the
 * model's C file and -DMODEL_HEADER='"x.h"' like tests/harness.c.
 *
 *   threads_run [RUNS [THREADS]]     (default 20 runs, the model's thread count)
 *
 * THREADS needs a model compiled with --threads >= THREADS and this file
 * with -DMODEL_THREADED (model_set_threads). 
 * With -DMODEL_INSTRUMENTED the model was compiled with --instrument, and the
 * per-layer profile of the steady-state calls goes to stderr. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef MODEL_HEADER
#include MODEL_HEADER
#else
#include "model.h"
#endif

#define N_IN_SLOTS (MODEL_NUM_INPUTS > 0 ? MODEL_NUM_INPUTS : 1)
#define N_OUT_SLOTS (MODEL_NUM_OUTPUTS > 0 ? MODEL_NUM_OUTPUTS : 1)

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 20;
#ifdef MODEL_THREADED
	if (argc > 2 && model_set_threads(atoi(argv[2])) != atoi(argv[2])) {
		fprintf(stderr, "model_set_threads(%s) refused\n", argv[2]);
		return 2;
	}
#endif
	const float *in[N_IN_SLOTS];
	float *out[N_OUT_SLOTS];
	unsigned s = 12345u;
	if (runs < 1)
		runs = 1;
	for (int i = 0; i < MODEL_NUM_INPUTS; i++) {
		size_t n = model_input_sizes[i];
		float *x = malloc((n ? n : 1) * sizeof *x);
		if (!x)
			return 1;
		for (size_t k = 0; k < n; k++) {
			s = s * 1103515245u + 12345u;
			x[k] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
		}
		in[i] = x;
	}
	for (int j = 0; j < MODEL_NUM_OUTPUTS; j++) {
		size_t n = model_output_sizes[j];
		out[j] = malloc((n ? n : 1) * sizeof(float));
		if (!out[j])
			return 1;
	}
	double t0 = now_ms();
	if (model_init() != 0) {
		fprintf(stderr, "model_init failed\n");
		return 3;
	}
	double t1 = now_ms();
	if (model_run(in, out) != 0)
		return 3;
	double t2 = now_ms();
#ifdef MODEL_INSTRUMENTED
	model_profile_reset();
#endif
	double *t = malloc((size_t)runs * sizeof *t);
	if (!t)
		return 1;
	for (int r = 0; r < runs; r++) {
		double a = now_ms();
		if (model_run(in, out) != 0)
			return 3;
		t[r] = now_ms() - a;
	}
	qsort(t, (size_t)runs, sizeof *t, cmp_double);
	printf("%.3f %.3f %.3f %.3f\n", t1 - t0, t2 - t1, t[runs / 2], t[0]);
#ifdef MODEL_INSTRUMENTED
	model_profile_print(stderr);
#endif
	model_free();
	free(t);
	return 0;
}
