/* time_main.c - times the code dnncc generated for one model, for
 * `make bench-models`. Compiled together with the model's C file, which must
 * have been generated with `--name model` and have one input and one output:
 *
 *   run INPUT.bin OUTPUT.bin RUNS MIN_SECONDS
 *
 * INPUT.bin holds model_input_sizes[0] raw float32 values (host byte order:
 * the benchmark writes and reads them on the same machine). model_init
 * (the thread pool's start, the arena's and the weights' first touch: the
 * start-up, like an engine's session creation) is timed alone, then the
 * first model_run alone, with the caller's input and output buffers
 * touched before it (their page faults are the application's, not the
 * model's: an untouched 10 KB output cost the autoencoder's 19 us first
 * call 3 us), on the wall and CPU clocks (first_cpu_ms / cpu_ms is the
 * first/steady ratio, less blurred by a loaded machine than the wall
 * clock's), then two warm-up calls, then calls timed one by one until both
 * RUNS calls and MIN_SECONDS have passed (at most 1000),
 * on the wall clock (CLOCK_MONOTONIC), and each call's process CPU time
 * (CLOCK_PROCESS_CPUTIME_ID, all threads), like bench/models/timing.py does
 * for the Python engines. Prints one line
 *   RESULT {"init_ms": I, "first_ms": F, "median_ms": M, "min_ms": A, "max_ms": B, "runs": N,
 *           "cpu_ms": C, "first_cpu_ms": FC}
 * and writes the last call's output to OUTPUT.bin. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_util.h"
#include "model.h"

#define MAX_RUNS 1000

static double now(void)
{
	return bench_clock_s(CLOCK_MONOTONIC);
}

static float *read_floats(const char *path, size_t n)
{
	FILE *f = fopen(path, "rb");
	float *p = malloc(n * sizeof *p);
	int ok = f && p && fread(p, sizeof *p, n, f) == n && getc(f) == EOF;
	if (f)
		fclose(f);
	if (!ok) {
		fprintf(stderr, "%s: cannot read exactly %lu float32 values\n", path, (unsigned long)n);
		free(p);
		return NULL;
	}
	return p;
}

int main(int argc, char **argv)
{
	static double samples[MAX_RUNS], cpu[MAX_RUNS];
	float *x, *y;           /* the input and output tensors, dense, model layout */
	const float *in[1];
	float *out[1];
	double t0, c0, init, first, first_cpu, start;
	int runs, n = 0, i;
	FILE *f;

	if (MODEL_NUM_INPUTS != 1 || MODEL_NUM_OUTPUTS != 1) {
		fprintf(stderr, "time_main: the model must have one input and one output\n");
		return 2;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: %s INPUT.bin OUTPUT.bin RUNS MIN_SECONDS\n", argv[0]);
		return 2;
	}
	x = read_floats(argv[1], model_input_sizes[0]);
	y = malloc(model_output_sizes[0] * sizeof *y);
	if (!x || !y)
		return 1;
	memset(y, 0, model_output_sizes[0] * sizeof *y);
	in[0] = x;
	out[0] = y;
	runs = atoi(argv[3]);

	t0 = now();
	if (model_init() != 0) {
		fprintf(stderr, "time_main: model_init failed\n");
		return 3;
	}
	init = now() - t0;
	c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now();
	if (model_run(in, out) != 0) {
		fprintf(stderr, "time_main: model_run failed\n");
		return 3;
	}
	first = now() - t0;
	first_cpu = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	for (i = 0; i < 2; i++)
		model_run(in, out);
	start = now();
	while (n < MAX_RUNS && (n < runs || now() - start < atof(argv[4]))) {
		c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
		t0 = now();
		model_run(in, out);
		samples[n] = now() - t0;
		cpu[n++] = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	qsort(samples, (size_t)n, sizeof *samples, bench_cmp_double);
	qsort(cpu, (size_t)n, sizeof *cpu, bench_cmp_double);
	printf("RESULT {\"init_ms\": %.6f, \"first_ms\": %.6f, \"median_ms\": %.6f, \"min_ms\": %.6f, "
	       "\"max_ms\": %.6f, \"runs\": %d, \"cpu_ms\": %.6f, \"first_cpu_ms\": %.6f}\n",
	       1e3 * init, 1e3 * first, 1e3 * bench_median_sorted(samples, n), 1e3 * samples[0], 1e3 * samples[n - 1], n,
	       1e3 * bench_median_sorted(cpu, n), 1e3 * first_cpu);

	f = fopen(argv[2], "wb");
	if (!f || fwrite(y, sizeof *y, model_output_sizes[0], f) != model_output_sizes[0] ||
	    fclose(f) != 0) {
		fprintf(stderr, "%s: write failed\n", argv[2]);
		return 1;
	}
	free(x);
	free(y);
	return 0;
}
