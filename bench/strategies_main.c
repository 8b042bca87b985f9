/* strategies_main.c - times one model that dnncc generated (with --name
 * model), for bench/strategies.py. Compiled together with model.c:
 *
 *   run RUNS MAX_SECONDS [LAYERS.tsv [MIN_RUNS]]
 *
 * Fills the inputs with fixed pseudo-random values in [-1, 1), calls
 * model_run once to warm up (caches, page faults of the arena and weights),
 * then times up to RUNS calls, stopping early once MAX_SECONDS have passed
 * and at least MIN_RUNS (default 3) calls were timed. Prints one line of key=value pairs:
 * runs, the median, minimum and maximum wall time (CLOCK_MONOTONIC) and
 * the median and minimum processor time (CLOCK_PROCESS_CPUTIME_ID, which a
 * loaded machine disturbs less), all in microseconds per call.
 *
 * Built with -DINSTRUMENT against code from `dnncc --instrument`, it also
 * writes LAYERS.tsv: per profile row (layer or transform, call order) node,
 * op, primitive, the compile-time estimate and the measured mean over the
 * timed calls, in microseconds. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"

#define MAX_RUNS 1000
#define N_IN_SLOTS (MODEL_NUM_INPUTS > 0 ? MODEL_NUM_INPUTS : 1)
#define N_OUT_SLOTS (MODEL_NUM_OUTPUTS > 0 ? MODEL_NUM_OUTPUTS : 1)

static double seconds(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of x[n], n >= 1 (sorts x). */
static double median(double *x, int n)
{
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

#ifdef INSTRUMENT
static int write_layers(const char *path, int runs)
{
	FILE *f = fopen(path, "w");
	size_t i;
	if (!f)
		return -1;
	fprintf(f, "node\top\tprimitive\testimate_us\tmeasured_us\n");
	for (i = 0; i < model_profile_count(); i++) {
		const char *node, *op, *prim;
		double est, total;
		unsigned long calls;
		model_profile_entry(i, &node, &op, &prim, &est, &calls, &total);
		fprintf(f, "%s\t%s\t%s\t%.3f\t%.3f\n", node, op, prim, est,
		        calls ? total / (double)calls : 0.0);
	}
	(void)runs;
	return fclose(f);
}
#endif

int main(int argc, char **argv)
{
	static double wall[MAX_RUNS], cpu[MAX_RUNS];
	const float *in[N_IN_SLOTS];
	float *out[N_OUT_SLOTS];
	unsigned long state = 12345;
	double budget, t_start, min_w, max_w, min_c;
	int max_runs, min_runs = 3, n = 0, i;
	size_t k;

	if (argc < 3 || (max_runs = atoi(argv[1])) < 1 || (budget = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: %s RUNS MAX_SECONDS [LAYERS.tsv [MIN_RUNS]]\n", argv[0]);
		return 2;
	}
	if (argc > 4 && (min_runs = atoi(argv[4])) < 1)
		min_runs = 1;
	if (max_runs > MAX_RUNS)
		max_runs = MAX_RUNS;
	for (i = 0; i < MODEL_NUM_INPUTS; i++) {
		float *x = malloc((model_input_sizes[i] ? model_input_sizes[i] : 1) * sizeof *x);
		if (!x)
			return 1;
		for (k = 0; k < model_input_sizes[i]; k++) {
			state = state * 6364136223846793005ul + 1442695040888963407ul;
			x[k] = (float)((state >> 40) & 0xffffff) / 8388608.0f - 1.0f;
		}
		in[i] = x;
	}
	for (i = 0; i < MODEL_NUM_OUTPUTS; i++)
		if (!(out[i] = malloc((model_output_sizes[i] ? model_output_sizes[i] : 1) *
		                      sizeof *out[i])))
			return 1;
	if (model_run(in, out))
		return 3;
#ifdef INSTRUMENT
	model_profile_reset();
#endif
	t_start = seconds(CLOCK_MONOTONIC);
	while (n < max_runs && (n < min_runs || seconds(CLOCK_MONOTONIC) - t_start < budget)) {
		double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
		if (model_run(in, out))
			return 3;
		cpu[n] = (seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e6;
		wall[n] = (seconds(CLOCK_MONOTONIC) - w0) * 1e6;
		n++;
	}
#ifdef INSTRUMENT
	if (argc > 3 && write_layers(argv[3], n)) {
		fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[3]);
		return 1;
	}
#endif
	min_w = max_w = wall[0];
	min_c = cpu[0];
	for (i = 1; i < n; i++) {
		min_w = wall[i] < min_w ? wall[i] : min_w;
		max_w = wall[i] > max_w ? wall[i] : max_w;
		min_c = cpu[i] < min_c ? cpu[i] : min_c;
	}
	printf("runs=%d wall_median_us=%.1f wall_min_us=%.1f wall_max_us=%.1f "
	       "cpu_median_us=%.1f cpu_min_us=%.1f\n",
	       n, median(wall, n), min_w, max_w, median(cpu, n), min_c);
	return 0;
}
