/* driver.c - runs one model that dnncc generated (--name model) at several
 * thread counts and writes every output, for tests/threads/check.py.
 *
 *   driver COUNTS OUTDIR IN_0 ... IN_{n-1}
 *
 * COUNTS is a comma-separated list of thread counts (e.g. 1,2,3,4,5); for
 * each count t the model runs twice (the second call must not differ from
 * the first: NAME_run keeps no state) and output j goes to OUTDIR/t<t>_<j>.bin
 * as raw float32. Built with -DSINGLE_BUILD for code without
 * model_set_threads (--threads 1): then every count runs the same code.
 * Inputs are raw float32 files of model_input_sizes[i] values. Between counts
 * the pool is released (model_free) half of the time, so both restart paths
 * run. Exit status: 0 on success, 1 on a file problem, 3 when model_run
 * fails or two calls differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define N_IN (MODEL_NUM_INPUTS > 0 ? MODEL_NUM_INPUTS : 1)
#define N_OUT (MODEL_NUM_OUTPUTS > 0 ? MODEL_NUM_OUTPUTS : 1)

static float *read_floats(const char *path, size_t n)
{
	FILE *f = fopen(path, "rb");
	float *x = malloc((n ? n : 1) * sizeof *x);
	if (!f || !x || fread(x, sizeof *x, n, f) != n) {
		fprintf(stderr, "driver: cannot read %zu floats from %s\n", n, path);
		exit(1);
	}
	fclose(f);
	return x;
}

int main(int argc, char **argv)
{
	const float *in[N_IN];
	float *out[N_OUT], *again[N_OUT];
	if (argc != 3 + MODEL_NUM_INPUTS) {
		fprintf(stderr, "usage: driver COUNTS OUTDIR + %d input files\n", MODEL_NUM_INPUTS);
		return 2;
	}
	for (int i = 0; i < MODEL_NUM_INPUTS; i++)
		in[i] = read_floats(argv[3 + i], model_input_sizes[i]);
	for (int j = 0; j < MODEL_NUM_OUTPUTS; j++) {
		size_t n = model_output_sizes[j] ? model_output_sizes[j] : 1;
		out[j] = malloc(n * sizeof(float));
		again[j] = malloc(n * sizeof(float));
		if (!out[j] || !again[j])
			return 1;
	}
	char *counts = argv[1];
	int round = 0;
	for (char *tok = strtok(counts, ","); tok; tok = strtok(NULL, ","), round++) {
		int t = atoi(tok);
#ifndef SINGLE_BUILD
		if (model_set_threads(t) != t) {
			fprintf(stderr, "driver: model_set_threads(%d) refused\n", t);
			return 3;
		}
#endif
		if (model_run(in, out) != 0 || model_run(in, again) != 0)
			return 3;
		for (int j = 0; j < MODEL_NUM_OUTPUTS; j++) {
			char path[4096];
			if (memcmp(out[j], again[j], model_output_sizes[j] * sizeof(float)) != 0) {
				fprintf(stderr, "driver: %d threads: two calls differ in output %d\n", t, j);
				return 3;
			}
			snprintf(path, sizeof path, "%s/t%d_%d.bin", argv[2], t, j);
			FILE *f = fopen(path, "wb");
			if (!f || fwrite(out[j], sizeof(float), model_output_sizes[j], f) !=
			                  model_output_sizes[j] || fclose(f) != 0) {
				fprintf(stderr, "driver: cannot write %s\n", path);
				return 1;
			}
		}
		if (round % 2)
			model_free();
	}
	model_free();
	return 0;
}
