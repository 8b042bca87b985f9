/* harness.c - a generic driver for one model that dnncc generated: it is
 * compiled together with the model's C file and runs it once on inputs read
 * from files.
 *
 *   harness [-t] IN_0 ... IN_{n-1} OUT_0 ... OUT_{m-1}
 *
 * Every IN_i is a raw little-endian float32 file holding exactly
 * model_input_sizes[i] values (graph order); every OUT_j receives
 * model_output_sizes[j] raw little-endian float32 values ("-" is stdout).
 * With -t the time model_run took (processor time, clock()) goes to stderr.
 * Exits 0 on success, 1 on a file problem or a wrong size, 2 on usage, and
 * 3 when model_run returns non-zero.
 *
 * The model must have been compiled with `dnncc ... --name model` (symbols
 * model_run, model_input_sizes, MODEL_NUM_INPUTS, ...); its header is
 * "model.h" unless -DMODEL_HEADER='"x.h"' names another. Plain C99: the byte
 * order is converted by hand so the data files mean the same on any host. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MODEL_HEADER
#include MODEL_HEADER
#else
#include "model.h"
#endif

/* A model may have no inputs (all constants) or, in principle, no outputs;
 * arrays of size 0 are not C, so every array below has at least one slot. */
#define N_IN_SLOTS (MODEL_NUM_INPUTS > 0 ? MODEL_NUM_INPUTS : 1)
#define N_OUT_SLOTS (MODEL_NUM_OUTPUTS > 0 ? MODEL_NUM_OUTPUTS : 1)

static void le_to_floats(const unsigned char *bytes, size_t n, float *out /* [n] */)
{
	size_t i;
	for (i = 0; i < n; i++) {
		const unsigned char *b = bytes + 4 * i;
		uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		             (uint32_t)b[3] << 24;
		float f;
		/* float is IEEE 754 binary32 on every host this runs on (C99 Annex F). */
		memcpy(&f, &u, 4);
		out[i] = f;
	}
}

static void floats_to_le(const float *in /* [n] */, size_t n, unsigned char *bytes)
{
	size_t i;
	for (i = 0; i < n; i++) {
		uint32_t u32;
		memcpy(&u32, &in[i], 4);
		bytes[4 * i] = (unsigned char)(u32 & 0xff);
		bytes[4 * i + 1] = (unsigned char)(u32 >> 8 & 0xff);
		bytes[4 * i + 2] = (unsigned char)(u32 >> 16 & 0xff);
		bytes[4 * i + 3] = (unsigned char)(u32 >> 24 & 0xff);
	}
}

/* Reads exactly n float32 values from path into a new buffer (at least one
 * slot, so a zero-size tensor still gets a valid pointer). */
static float *read_input(const char *path, size_t n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *bytes;
	float *data;
	size_t got;
	int extra;
	if (!f) {
		perror(path);
		return NULL;
	}
	bytes = malloc(4 * n + 1);
	data = malloc(n ? n * sizeof *data : sizeof *data);
	if (!bytes || !data) {
		fprintf(stderr, "%s: out of memory for %lu values\n", path, (unsigned long)n);
		fclose(f);
		free(bytes);
		free(data);
		return NULL;
	}
	got = fread(bytes, 1, 4 * n, f);
	extra = getc(f);
	fclose(f);
	if (got != 4 * n || extra != EOF) {
		fprintf(stderr, "%s: expected exactly %lu float32 values (%lu bytes)\n", path,
		        (unsigned long)n, (unsigned long)(4 * n));
		free(bytes);
		free(data);
		return NULL;
	}
	le_to_floats(bytes, n, data);
	free(bytes);
	return data;
}

static int write_output(const char *path, const float *data /* [n] */, size_t n)
{
	int to_stdout = strcmp(path, "-") == 0;
	FILE *f = to_stdout ? stdout : fopen(path, "wb");
	unsigned char *bytes = malloc(4 * n + 1);
	int ok;
	if (!f || !bytes) {
		if (!f)
			perror(path);
		else
			fprintf(stderr, "%s: out of memory\n", path);
		if (f && !to_stdout)
			fclose(f);
		free(bytes);
		return -1;
	}
	floats_to_le(data, n, bytes);
	ok = fwrite(bytes, 1, 4 * n, f) == 4 * n;
	free(bytes);
	if (to_stdout)
		ok = fflush(f) == 0 && ok;
	else
		ok = fclose(f) == 0 && ok;
	if (!ok) {
		fprintf(stderr, "%s: write failed\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	float *inputs[N_IN_SLOTS];   /* inputs[i]: model_input_sizes[i] values, graph order */
	float *outputs[N_OUT_SLOTS]; /* outputs[j]: model_output_sizes[j] values */
	const float *in_ptrs[N_IN_SLOTS];
	int timing = 0, first = 1, i, rc = 0, run_rc;
	clock_t start, stop;

	if (argc > 1 && strcmp(argv[1], "-t") == 0) {
		timing = 1;
		first = 2;
	}
	if (argc - first != MODEL_NUM_INPUTS + MODEL_NUM_OUTPUTS) {
		fprintf(stderr,
		        "usage: %s [-t] INPUT... OUTPUT...: %d input then %d output files "
		        "(raw float32, '-' for stdout)\n",
		        argv[0], MODEL_NUM_INPUTS, MODEL_NUM_OUTPUTS);
		return 2;
	}
	for (i = 0; i < N_IN_SLOTS; i++) {
		inputs[i] = NULL;
		in_ptrs[i] = NULL;
	}
	for (i = 0; i < N_OUT_SLOTS; i++)
		outputs[i] = NULL;
	for (i = 0; i < MODEL_NUM_INPUTS; i++) {
		inputs[i] = read_input(argv[first + i], model_input_sizes[i]);
		if (!inputs[i])
			rc = 1;
		in_ptrs[i] = inputs[i];
	}
	for (i = 0; i < MODEL_NUM_OUTPUTS; i++) {
		size_t n = model_output_sizes[i];
		outputs[i] = malloc(n ? n * sizeof(float) : sizeof(float));
		if (!outputs[i]) {
			fprintf(stderr, "out of memory for output %d\n", i);
			rc = 1;
		}
	}
	if (rc == 0) {
		start = clock();
		run_rc = model_run(in_ptrs, outputs);
		stop = clock();
		if (timing)
			fprintf(stderr, "model_run: %.3f ms\n",
			        1000.0 * (double)(stop - start) / CLOCKS_PER_SEC);
		if (run_rc != 0) {
			fprintf(stderr, "model_run returned %d\n", run_rc);
			rc = 3;
		}
	}
	for (i = 0; rc == 0 && i < MODEL_NUM_OUTPUTS; i++)
		if (write_output(argv[first + MODEL_NUM_INPUTS + i], outputs[i],
		                 model_output_sizes[i]) != 0)
			rc = 1;
	for (i = 0; i < N_IN_SLOTS; i++)
		free(inputs[i]);
	for (i = 0; i < N_OUT_SLOTS; i++)
		free(outputs[i]);
	return rc;
}
