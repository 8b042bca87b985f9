/* step_main.c - runs a few training steps of generated code (symbol prefix
 * `net`) on one fixed batch and writes what tests/train/step_ref.py compares
 * with PyTorch: losses.txt (one loss per step), params.bin (float32, the
 * parameters after the last step) and names.txt (their tensors, in order).
 *   usage: step_main DIR STEPS      (DIR holds x.bin and labels.bin or target.bin) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

static void *load(const char *dir, const char *file, size_t bytes)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "rb");
	void *buf = malloc(bytes);
	if (!f || !buf || fread(buf, 1, bytes, f) != bytes) {
		fprintf(stderr, "step_main: cannot read %zu bytes of %s\n", bytes, path);
		exit(1);
	}
	fclose(f);
	return buf;
}

static FILE *create(const char *dir, const char *file)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "step_main: cannot write %s\n", path);
		exit(1);
	}
	return f;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	const char *dir = argv[1];
	int steps = atoi(argv[2]);
	float *x = load(dir, "x.bin", sizeof(float) * NET_BATCH * NET_INPUT_SIZE);
#ifdef STEP_MSE
	float *truth = load(dir, "target.bin", sizeof(float) * NET_BATCH * NET_OUTPUT_SIZE);
#else
	int *truth = load(dir, "labels.bin", sizeof(int) * NET_BATCH);
#endif
	FILE *losses = create(dir, "losses.txt");
	for (int s = 0; s < steps; s++) {
		float loss;
#ifdef STEP_MSE
		int rc = net_train_step_mse(x, truth, &loss);
#else
		int rc = net_train_step(x, truth, &loss);
#endif
		if (rc != 0)
			return 1;
		fprintf(losses, "%.9g\n", (double)loss);
	}
	fclose(losses);
	float *p = malloc(sizeof(float) * net_num_params());
	net_get_params(p);
	FILE *f = create(dir, "params.bin");
	fwrite(p, sizeof(float), net_num_params(), f);
	fclose(f);
	f = create(dir, "names.txt");
	for (int i = 0; i < NET_NUM_PARAM_TENSORS; i++)
		fprintf(f, "%s\n", net_param_names[i]);
	fclose(f);
	free(p);
	free(x);
	free(truth);
	return 0;
}
