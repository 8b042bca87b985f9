/* harness.c - a generic driver for one model that dnncc generated: it is
 * compiled together with the model's C file, calls model_init() (which, on
 * hosts, runs the model once on zero inputs: so every test that uses this
 * harness runs that warm-up too) and runs it once on inputs read from files.
 *
 *   harness [-t] IN_0 ... IN_{n-1} OUT_0 ... OUT_{m-1}
 *
 * Every IN_i is a raw little-endian float32 file holding exactly
 * model_input_sizes[i] values (graph order); every OUT_j receives
 * model_output_sizes[j] raw little-endian float32 values ("-" is stdout).
 * A model with inputs or outputs of other types (MODEL_TYPED_IO in its
 * header) says each one's type in model_input_dtypes[] and
 * model_output_dtypes[] (ONNX TensorProto.DataType numbers); its files hold
 * raw little-endian values of those types (bool one byte, 0 or 1).
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

#ifdef MODEL_TYPED_IO
/* Bytes per element of an ONNX TensorProto.DataType the generated code
 * takes (float32 for models without MODEL_TYPED_IO). */
static size_t elem_size(int dtype)
{
	switch (dtype) {
	case 2: case 3: case 9: return 1;  /* uint8, int8, bool */
	case 7: case 11: return 8;         /* int64, double */
	default: return 4;                 /* float, int32 */
	}
}

#define IN_SIZE(i) elem_size(model_input_dtypes[i])
#define OUT_SIZE(j) elem_size(model_output_dtypes[j])
typedef const void *in_ptr;
typedef void *out_ptr;
#else
#define IN_SIZE(i) ((size_t)4)
#define OUT_SIZE(j) ((size_t)4)
typedef const float *in_ptr;
typedef float *out_ptr;
#endif

/* Converts n little-endian values of es bytes to host order (or back: the
 * same swap), in place. Every host this runs on uses IEEE 754 (C99 Annex F). */
static void le_swap(unsigned char *bytes, size_t n, size_t es)
{
	const unsigned int one = 1u;
	size_t i, k;
	if (*(const unsigned char *)&one == 1u || es == 1)
		return;
	for (i = 0; i < n; i++)
		for (k = 0; k < es / 2; k++) {
			unsigned char t = bytes[i * es + k];
			bytes[i * es + k] = bytes[i * es + es - 1 - k];
			bytes[i * es + es - 1 - k] = t;
		}
}

/* Reads exactly n values of es bytes from path into a new buffer (at least
 * one slot, so a zero-size tensor still gets a valid pointer). */
static void *read_input(const char *path, size_t n, size_t es)
{
	FILE *f = fopen(path, "rb");
	unsigned char *bytes;
	size_t got;
	int extra;
	if (!f) {
		perror(path);
		return NULL;
	}
	/* at least 8 bytes, so any element type is aligned (malloc) */
	bytes = malloc(es * n + 8);
	if (!bytes) {
		fprintf(stderr, "%s: out of memory for %lu values\n", path, (unsigned long)n);
		fclose(f);
		return NULL;
	}
	got = fread(bytes, 1, es * n, f);
	extra = getc(f);
	fclose(f);
	if (got != es * n || extra != EOF) {
		fprintf(stderr, "%s: expected exactly %lu values of %lu bytes\n", path,
		        (unsigned long)n, (unsigned long)es);
		free(bytes);
		return NULL;
	}
	le_swap(bytes, n, es);
	return bytes;
}

static int write_output(const char *path, const void *data /* [n] */, size_t n, size_t es)
{
	int to_stdout = strcmp(path, "-") == 0;
	FILE *f = to_stdout ? stdout : fopen(path, "wb");
	unsigned char *bytes = malloc(es * n + 1);
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
	memcpy(bytes, data, es * n);
	le_swap(bytes, n, es);
	ok = fwrite(bytes, 1, es * n, f) == es * n;
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
	void *inputs[N_IN_SLOTS];   /* inputs[i]: model_input_sizes[i] values, graph order */
	void *outputs[N_OUT_SLOTS]; /* outputs[j]: model_output_sizes[j] values */
	in_ptr in_ptrs[N_IN_SLOTS];
	out_ptr out_ptrs[N_OUT_SLOTS];
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
	for (i = 0; i < N_OUT_SLOTS; i++) {
		outputs[i] = NULL;
		out_ptrs[i] = NULL;
	}
	for (i = 0; i < MODEL_NUM_INPUTS; i++) {
		inputs[i] = read_input(argv[first + i], model_input_sizes[i], IN_SIZE(i));
		if (!inputs[i])
			rc = 1;
		in_ptrs[i] = inputs[i];
	}
	for (i = 0; i < MODEL_NUM_OUTPUTS; i++) {
		size_t n = model_output_sizes[i];
		outputs[i] = malloc(n ? n * OUT_SIZE(i) : 8);
		out_ptrs[i] = outputs[i];
		if (!outputs[i]) {
			fprintf(stderr, "out of memory for output %d\n", i);
			rc = 1;
		}
	}
	if (rc == 0 && model_init() != 0) {
		fprintf(stderr, "model_init failed\n");
		rc = 3;
	}
	if (rc == 0) {
		start = clock();
		run_rc = model_run(in_ptrs, out_ptrs);
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
		                 model_output_sizes[i], OUT_SIZE(i)) != 0)
			rc = 1;
	for (i = 0; i < N_IN_SLOTS; i++)
		free(inputs[i]);
	for (i = 0; i < N_OUT_SLOTS; i++)
		free(outputs[i]);
	return rc;
}
