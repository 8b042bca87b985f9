/* demo.c - runs the dnncc-generated Fashion-MNIST classifier (fashion_cnn.c,
 * made by `dnncc fashion_cnn.onnx -o fashion_cnn.c`) on the 100 bundled test
 * images and checks it against PyTorch.
 *
 * usage: demo DIR
 * DIR holds what samples/fashion_mnist/train.py wrote:
 *   images.bin    float32 [100, 1, 28, 28], normalised as the model expects
 *   labels.bin    uint8 [100], the true classes
 *   expected.bin  float32 [100, 10], PyTorch's softmax output per image
 * Prints the prediction for a few images, the accuracy over all of them and
 * the largest difference to PyTorch; exits 1 when that difference is over
 * TOLERANCE (or on any error), 0 otherwise. Plain C99. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fashion_cnn.h"

#define N_IMAGES 100
#define IMAGE_SIZE (1 * 28 * 28) /* elements of one [1, 1, 28, 28] input */
#define N_CLASSES 10
#define N_SHOWN 8 /* images whose prediction is printed */

/* Largest allowed |dnncc - PyTorch| on a softmax probability. Both compute in
 * float32 but not in the same order: dnncc folds BatchNormalization into the
 * convolution's weights and sums dot products in its own order, PyTorch uses
 * its own kernels; each of these rounds differently, by a few units in the
 * last place (about 1e-7 relative) per operation, which over 400-term dot
 * products and the softmax stays well below 1e-5 on values in [0, 1]. 1e-4
 * leaves room for that, while a wrong weight, layout or kernel moves the
 * probabilities by far more. */
#define TOLERANCE 1e-4

static const char *const class_names[N_CLASSES] = {
	"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
	"Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
};

/* Reads exactly size bytes of DIR/name into buf; 0 on success. */
static int read_file(const char *dir, const char *name, void *buf, size_t size)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
		fprintf(stderr, "demo: %s/%s: path too long\n", dir, name);
		return -1;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t got = fread(buf, 1, size, f);
	int extra = fgetc(f) != EOF;
	fclose(f);
	if (got != size || extra) {
		fprintf(stderr, "demo: %s: expected exactly %zu bytes\n", path, size);
		return -1;
	}
	return 0;
}

/* Index of the largest of n values. */
static int argmax(const float *v, int n)
{
	int best = 0;
	for (int i = 1; i < n; i++)
		if (v[i] > v[best])
			best = i;
	return best;
}

int main(int argc, char **argv)
{
	static float images[N_IMAGES * IMAGE_SIZE];      /* [100, 1, 28, 28] */
	static unsigned char labels[N_IMAGES];            /* [100] */
	static float expected[N_IMAGES * N_CLASSES];      /* [100, 10], PyTorch */

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR (with images.bin, labels.bin, expected.bin)\n",
		        argv[0]);
		return 2;
	}
	/* The generated header states what the model takes and gives. */
	if (FASHION_CNN_NUM_INPUTS != 1 || FASHION_CNN_NUM_OUTPUTS != 1 ||
	    fashion_cnn_input_sizes[0] != IMAGE_SIZE ||
	    fashion_cnn_output_sizes[0] != N_CLASSES) {
		fprintf(stderr, "demo: the generated model does not take [1,1,28,28] and give "
		                "[1,10]\n");
		return 1;
	}
	if (read_file(argv[1], "images.bin", images, sizeof images) ||
	    read_file(argv[1], "labels.bin", labels, sizeof labels) ||
	    read_file(argv[1], "expected.bin", expected, sizeof expected))
		return 1;
	for (int i = 0; i < N_IMAGES; i++) {
		if (labels[i] >= N_CLASSES) {
			fprintf(stderr, "demo: labels.bin: image %d has class %d, expected 0..9\n",
			        i, labels[i]);
			return 1;
		}
	}

	int correct = 0, agree = 0, worst_image = 0, worst_class = 0;
	double max_diff = 0;
	printf("%-6s %-12s %-12s %s\n", "image", "predicted", "true", "probability");
	for (int i = 0; i < N_IMAGES; i++) {
		const float *image = images + (size_t)i * IMAGE_SIZE; /* [1, 1, 28, 28] */
		const float *want = expected + (size_t)i * N_CLASSES;  /* [1, 10] */
		float probs[N_CLASSES];                                /* [1, 10] */
		const float *inputs[1] = {image};
		float *outputs[1] = {probs};
		if (fashion_cnn_run(inputs, outputs) != 0) {
			fprintf(stderr, "demo: fashion_cnn_run failed on image %d\n", i);
			return 1;
		}
		for (int c = 0; c < N_CLASSES; c++) {
			double d = fabs((double)probs[c] - (double)want[c]);
			/* A NaN compares false with everything: count it as infinite. */
			if (!(d <= max_diff)) {
				max_diff = d == d ? d : INFINITY;
				worst_image = i;
				worst_class = c;
			}
		}
		int predicted = argmax(probs, N_CLASSES);
		correct += predicted == labels[i];
		agree += predicted == argmax(want, N_CLASSES);
		if (i < N_SHOWN)
			printf("%-6d %-12s %-12s %.4f%s\n", i, class_names[predicted],
			       class_names[labels[i]], probs[predicted],
			       predicted == labels[i] ? "" : "  (wrong)");
	}
	printf("accuracy: %d/%d correct (%d%%); predictions agreeing with PyTorch: %d/%d\n",
	       correct, N_IMAGES, correct * 100 / N_IMAGES, agree, N_IMAGES);
	printf("max |dnncc - PyTorch| = %.3g (image %d, class %s); tolerance %.0e\n", max_diff,
	       worst_image, class_names[worst_class], TOLERANCE);
	if (!(max_diff <= TOLERANCE)) {
		fprintf(stderr, "demo: FAIL: output differs from PyTorch by more than %.0e\n",
		        TOLERANCE);
		return 1;
	}
	printf("OK\n");
	return 0;
}
