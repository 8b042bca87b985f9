/* infer_main.c - runs the inference code dnncc generated from the trained
 * ONNX model (symbol prefix fashion_infer, batch pinned with --shape) on
 * DIR/images.bin and writes DIR/dnncc_probs.bin.   usage: infer_main DIR */
#include <stdio.h>
#include <stdlib.h>

#include "fashion_infer.h"

int main(int argc, char **argv)
{
	char path[1024];
	if (argc != 2)
		return 2;
	size_t n_in = fashion_infer_input_sizes[0], n_out = fashion_infer_output_sizes[0];
	float *x = malloc(sizeof(float) * n_in), *y = malloc(sizeof(float) * n_out);
	snprintf(path, sizeof path, "%s/images.bin", argv[1]);
	FILE *f = fopen(path, "rb");
	if (!x || !y || !f || fread(x, sizeof(float), n_in, f) != n_in) {
		fprintf(stderr, "infer_main: cannot read %zu floats from %s\n", n_in, path);
		return 1;
	}
	fclose(f);
	const float *in[1] = {x};
	float *out[1] = {y};
	if (fashion_infer_run(in, out) != 0)
		return 1;
	snprintf(path, sizeof path, "%s/dnncc_probs.bin", argv[1]);
	f = fopen(path, "wb");
	if (!f || fwrite(y, sizeof(float), n_out, f) != n_out || fclose(f) != 0) {
		fprintf(stderr, "infer_main: cannot write %s\n", path);
		return 1;
	}
	free(x);
	free(y);
	return 0;
}
