/* trainer.c - trains the 784-256-128-10 Fashion-MNIST classifier with the
 * training code `dnncc --train` generated for it (symbol prefix `mlp`, any
 * batch size), evaluates it on the test set and writes the trained model as
 * ONNX.
 *
 *   trainer [--data DIR] [--epochs E] [--limit N] [--seed S] [--lr X] [--lr-decay F]
 *           [--model INIT.onnx --out TRAINED.onnx] [--dump DIR]
 *           [--eval-each-epoch 1]
 *
 * --data      the IDX files of Debian's dataset-fashion-mnist (gzip'd, read
 *             with zlib); default /usr/share/datasets/fashion-mnist
 * --epochs    passes over the training images (default 10)
 * --limit     train on the first N training images only (default: all 60,000)
 * --seed      seed of the shuffle (xorshift64*, a new permutation every epoch)
 * --lr        learning rate (default: the one compiled in)
 * --lr-decay  multiply the learning rate by F after every epoch (with --lr)
 * --model, --out   copy INIT.onnx (the model dnncc --train compiled) to
 *             TRAINED.onnx with the trained parameters in its initializers
 * --eval-each-epoch 1   also print the test accuracy after every epoch
 * --dump      write DIR/images.bin (the first BATCH test images, float32),
 *             DIR/labels.bin (uint8) and DIR/probs.bin (mlp_run's outputs
 *             for them), for checking the ONNX against other runtimes
 * Pixels are scaled to [0, 1]. The progress bar updates in place on a
 * terminal and prints plain lines otherwise. Built with the CUDA code of
 * `dnncc --train --target cuda` (its header defines MLP_POOL_BATCHES), it
 * trains through mlp_train_epoch, which streams the shuffled epoch from
 * pinned memory. Prints the test accuracy last:
 *   test accuracy: 0.8873 (8873/10000)
 * Exit status 0, or 1 with a message on any error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "frontend/onnx.pb-c.h"
#include "mlp.h"

#define IMAGE_SIZE 784

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "trainer: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads a gzip'd IDX file (magic 0x0801 labels or 0x0803 images); returns
 * the payload (count * item bytes) and stores count. */
static unsigned char *read_idx(const char *dir, const char *file, int images, size_t *count)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	gzFile f = gzopen(path, "rb");
	if (!f)
		die("cannot open %s (apt-get install dataset-fashion-mnist)", path);
	unsigned char head[16];
	const int hlen = images ? 16 : 8;
	if (gzread(f, head, (unsigned)hlen) != hlen || be32(head) != (images ? 0x803u : 0x801u))
		die("%s: not an IDX file of the expected kind", path);
	*count = be32(head + 4);
	if (images && (be32(head + 8) != 28 || be32(head + 12) != 28))
		die("%s: images are not 28x28", path);
	size_t bytes = *count * (images ? IMAGE_SIZE : 1);
	unsigned char *buf = malloc(bytes);
	if (!buf)
		die("out of memory reading %s", path);
	size_t got = 0;
	while (got < bytes) {
		int n = gzread(f, buf + got, (unsigned)(bytes - got > (1u << 30) ? (1u << 30) : bytes - got));
		if (n <= 0)
			die("%s: truncated", path);
		got += (size_t)n;
	}
	gzclose(f);
	return buf;
}

/* xorshift64* (Vigna 2016): deterministic across platforms. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static void shuffle(int *idx, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(rng_next() % (i + 1));
		int t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
}

static int argmax(const float *v, int n)
{
	int best = 0;
	for (int j = 1; j < n; j++)
		best = v[j] > v[best] ? j : best;
	return best;
}

/* Test accuracy with mlp_run, BATCH images at a time; the last batch is
 * padded with zero images whose outputs are ignored. */
static size_t evaluate(const unsigned char *images, const unsigned char *labels, size_t n)
{
	static float x[MLP_BATCH * IMAGE_SIZE], y[MLP_BATCH * MLP_OUTPUT_SIZE];
	size_t correct = 0;
	for (size_t at = 0; at < n; at += MLP_BATCH) {
		size_t rows = n - at < MLP_BATCH ? n - at : MLP_BATCH;
		memset(x, 0, sizeof x);
		for (size_t i = 0; i < rows * IMAGE_SIZE; i++)
			x[i] = images[at * IMAGE_SIZE + i] / 255.0f;
		const float *in[1] = {x};
		float *out[1] = {y};
		mlp_run(in, out);
		for (size_t r = 0; r < rows; r++)
			correct += argmax(y + r * MLP_OUTPUT_SIZE, MLP_OUTPUT_SIZE) == labels[at + r];
	}
	return correct;
}

/* INIT.onnx with the trained parameters in its initializers (raw_data). */
static void write_onnx(const char *init, const char *out)
{
	FILE *f = fopen(init, "rb");
	if (!f)
		die("cannot open %s", init);
	size_t cap = 1 << 20, len = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0)
		if ((len += got) == cap)
			buf = realloc(buf, cap *= 2);
	fclose(f);
	Onnx__ModelProto *m = buf ? onnx__model_proto__unpack(NULL, len, buf) : NULL;
	free(buf);
	if (!m || !m->graph)
		die("%s: not an ONNX model", init);
	float *params = malloc(sizeof(float) * mlp_num_params());
	mlp_get_params(params);
	size_t off = 0;
	for (int p = 0; p < MLP_NUM_PARAM_TENSORS; p++) {
		Onnx__TensorProto *t = NULL;
		for (size_t k = 0; k < m->graph->n_initializer; k++)
			if (strcmp(m->graph->initializer[k]->name, mlp_param_names[p]) == 0)
				t = m->graph->initializer[k];
		if (!t)
			die("%s: no initializer of that name in the model", mlp_param_names[p]);
		size_t bytes = mlp_param_sizes[p] * sizeof(float);
		free(t->raw_data.data);
		free(t->float_data);
		t->float_data = NULL;
		t->n_float_data = 0;
		t->raw_data.data = malloc(bytes);
		t->raw_data.len = bytes;
		t->has_raw_data = 1;
		/* ONNX raw_data is little-endian; so is every machine this runs on,
		 * which the byte test below makes sure of. */
		const uint32_t one = 1;
		if (*(const unsigned char *)&one != 1)
			die("%s", "writing ONNX on a big-endian machine is not supported");
		memcpy(t->raw_data.data, params + off, bytes);
		off += mlp_param_sizes[p];
	}
	free(params);
	size_t size = onnx__model_proto__get_packed_size(m);
	uint8_t *packed = malloc(size);
	onnx__model_proto__pack(m, packed);
	f = fopen(out, "wb");
	if (!f || fwrite(packed, 1, size, f) != size || fclose(f) != 0)
		die("cannot write %s", out);
	free(packed);
	onnx__model_proto__free_unpacked(m, NULL);
}

static void dump(const char *dir, const unsigned char *images, const unsigned char *labels)
{
	static float x[MLP_BATCH * IMAGE_SIZE], y[MLP_BATCH * MLP_OUTPUT_SIZE];
	for (size_t i = 0; i < MLP_BATCH * IMAGE_SIZE; i++)
		x[i] = images[i] / 255.0f;
	const float *in[1] = {x};
	float *out[1] = {y};
	mlp_run(in, out);
	const struct {
		const char *name;
		const void *data;
		size_t bytes;
	} files[] = {{"images.bin", x, sizeof x}, {"labels.bin", labels, MLP_BATCH},
	             {"probs.bin", y, sizeof y}};
	for (int k = 0; k < 3; k++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, files[k].name);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(files[k].data, 1, files[k].bytes, f) != files[k].bytes ||
		    fclose(f) != 0)
			die("cannot write %s", path);
	}
}

int main(int argc, char **argv)
{
	const char *data = "/usr/share/datasets/fashion-mnist", *model = NULL, *out = NULL;
	const char *dump_dir = NULL;
	long epochs = 10, limit = 0, eval_each = 0;
	unsigned long long seed = 42;
	double lr = 0.0, decay = 1.0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			die("option %s needs a value (see the top of trainer.c)", a);
		i++;
		if (strcmp(a, "--data") == 0)
			data = v;
		else if (strcmp(a, "--epochs") == 0)
			epochs = atol(v);
		else if (strcmp(a, "--limit") == 0)
			limit = atol(v);
		else if (strcmp(a, "--seed") == 0)
			seed = strtoull(v, NULL, 10);
		else if (strcmp(a, "--lr") == 0)
			lr = atof(v);
		else if (strcmp(a, "--lr-decay") == 0)
			decay = atof(v);
		else if (strcmp(a, "--model") == 0)
			model = v;
		else if (strcmp(a, "--out") == 0)
			out = v;
		else if (strcmp(a, "--eval-each-epoch") == 0)
			eval_each = atol(v);
		else if (strcmp(a, "--dump") == 0)
			dump_dir = v;
		else
			die("unknown option %s", a);
	}
	if ((model == NULL) != (out == NULL))
		die("%s", "--model and --out go together");
	if (epochs < 1)
		die("%s", "--epochs must be at least 1");
	if (decay != 1.0 && !(lr > 0.0 && decay > 0.0 && decay <= 1.0))
		die("%s", "--lr-decay F needs --lr and 0 < F <= 1");
	size_t n_train, n_lab, n_test, n_test_lab;
	unsigned char *train_x = read_idx(data, "train-images-idx3-ubyte.gz", 1, &n_train);
	unsigned char *train_y = read_idx(data, "train-labels-idx1-ubyte.gz", 0, &n_lab);
	unsigned char *test_x = read_idx(data, "t10k-images-idx3-ubyte.gz", 1, &n_test);
	unsigned char *test_y = read_idx(data, "t10k-labels-idx1-ubyte.gz", 0, &n_test_lab);
	if (n_lab != n_train || n_test_lab != n_test)
		die("%s", "image and label counts differ");
	if (limit > 0 && (size_t)limit < n_train)
		n_train = (size_t)limit;
	if (lr > 0.0)
		mlp_set_lr((float)lr);
	rng_state = seed ? seed : 1;
	int *order = malloc(sizeof(int) * n_train);
	for (size_t i = 0; i < n_train; i++)
		order[i] = (int)i;
	const size_t steps = n_train / MLP_BATCH; /* the last partial batch is dropped */
	const int tty = isatty(fileno(stdout));
	printf("training on %zu images, batch %d, %zu steps per epoch, %ld epochs\n", n_train,
	       MLP_BATCH, steps, epochs);
	double total = 0.0;
	const clock_t cpu0 = clock(); /* process CPU time: honest on a shared machine */
#ifdef MLP_POOL_BATCHES
	/* CUDA: the shuffled epoch goes into pinned memory, and the generated
	 * code streams it to the device through its two pools, in slices of
	 * about an eighth of an epoch (one loss copy-back each, for the bar). */
	float *px = mlp_host_alloc(sizeof(float) * steps * MLP_BATCH * IMAGE_SIZE);
	int *plabels = mlp_host_alloc(sizeof(int) * steps * MLP_BATCH);
	if (!px || !plabels)
		die("%s", "cannot allocate pinned host memory (is there a CUDA device?)");
	for (long e = 1; e <= epochs; e++) {
		shuffle(order, n_train);
		for (size_t r = 0; r < steps * MLP_BATCH; r++) {
			for (int k = 0; k < IMAGE_SIZE; k++)
				px[r * IMAGE_SIZE + k] = train_x[(size_t)order[r] * IMAGE_SIZE + k] / 255.0f;
			plabels[r] = train_y[order[r]];
		}
		const size_t slice = steps / 8 + 1;
		double t0 = now(), loss_sum = 0.0;
		for (size_t s = 0; s < steps; s += slice) {
			const size_t n = steps - s < slice ? steps - s : slice;
			float mean;
			if (mlp_train_epoch(px + s * MLP_BATCH * IMAGE_SIZE, plabels + s * MLP_BATCH,
			                    (long)(n * MLP_BATCH), &mean) != 0)
				die("%s", "training on the device failed");
			loss_sum += mean * (double)n;
			const double dt = now() - t0;
			const int bar = (int)(30 * (s + n) / steps);
			printf("%sepoch %ld/%ld [%.*s%*s] %3d%% loss %.4f %7.0f img/s%s", tty ? "\r" : "", e,
			       epochs, bar, "##############################", 30 - bar, "",
			       (int)(100 * (s + n) / steps), loss_sum / (double)(s + n),
			       (double)((s + n) * MLP_BATCH) / dt, tty ? "" : "\n");
			fflush(stdout);
		}
		const double dt = now() - t0;
		total += dt;
		printf("%sepoch %ld: %.2f s, %.0f images/s, mean loss %.4f\n", tty ? "\n" : "", e, dt,
		       (double)(steps * MLP_BATCH) / dt, loss_sum / (double)steps);
		if (eval_each)
			printf("  test accuracy after epoch %ld: %.4f\n", e,
			       (double)evaluate(test_x, test_y, n_test) / (double)n_test);
		if (decay != 1.0)
			mlp_set_lr((float)(lr *= decay));
	}
	mlp_host_free(px);
	mlp_host_free(plabels);
#else
	static float x[MLP_BATCH * IMAGE_SIZE];
	static int labels[MLP_BATCH];
	for (long e = 1; e <= epochs; e++) {
		shuffle(order, n_train);
		double t0 = now(), loss_sum = 0.0;
		size_t seen = 0, hits = 0;
		for (size_t s = 0; s < steps; s++) {
			for (int r = 0; r < MLP_BATCH; r++) {
				const size_t img = (size_t)order[s * MLP_BATCH + r];
				for (int k = 0; k < IMAGE_SIZE; k++)
					x[r * IMAGE_SIZE + k] = train_x[img * IMAGE_SIZE + k] / 255.0f;
				labels[r] = train_y[img];
			}
			float loss;
			mlp_train_step(x, labels, &loss);
			loss_sum += loss;
			seen += MLP_BATCH;
			/* accuracy on the batch just trained, with the updated parameters,
			 * every 16th step (mlp_run costs a forward pass) */
			if (s % 16 == 0) {
				static float y[MLP_BATCH * MLP_OUTPUT_SIZE];
				const float *in[1] = {x};
				float *o[1] = {y};
				mlp_run(in, o);
				for (int r = 0; r < MLP_BATCH; r++)
					hits += argmax(y + r * MLP_OUTPUT_SIZE, MLP_OUTPUT_SIZE) == labels[r];
			}
			const int report = tty ? (s % 8 == 7 || s + 1 == steps)
			                       : (s + 1 == steps || (s + 1) % (steps / 4 + 1) == 0);
			if (report) {
				const double dt = now() - t0;
				const size_t sampled = (s / 16 + 1) * MLP_BATCH;
				const int bar = (int)(30 * (s + 1) / steps);
				printf("%sepoch %ld/%ld [%.*s%*s] %3d%% loss %.4f acc %.4f %7.0f img/s%s",
				       tty ? "\r" : "", e, epochs, bar, "##############################",
				       30 - bar, "", (int)(100 * (s + 1) / steps), loss_sum / (double)(s + 1),
				       (double)hits / (double)sampled, (double)seen / dt, tty ? "" : "\n");
				fflush(stdout);
			}
		}
		const double dt = now() - t0;
		total += dt;
		if (tty)
			printf("\n");
		printf("epoch %ld: %.2f s, %.0f images/s, mean loss %.4f\n", e, dt,
		       (double)seen / dt, loss_sum / (double)steps);
		if (eval_each)
			printf("  test accuracy after epoch %ld: %.4f\n", e,
			       (double)evaluate(test_x, test_y, n_test) / (double)n_test);
		if (decay != 1.0)
			mlp_set_lr((float)(lr *= decay));
	}
#endif
	const double cpu = (double)(clock() - cpu0) / CLOCKS_PER_SEC;
	size_t correct = evaluate(test_x, test_y, n_test);
	printf("training time: %.2f s (%.2f s per epoch; CPU time %.2f s per epoch%s)\n", total,
	       total / (double)epochs, cpu / (double)epochs,
	       eval_each ? ", with the evaluations" : "");
	printf("test accuracy: %.4f (%zu/%zu)\n", (double)correct / (double)n_test, correct, n_test);
	if (out)
		write_onnx(model, out);
	if (dump_dir)
		dump(dump_dir, test_x, test_y);
	free(order);
	free(train_x);
	free(train_y);
	free(test_x);
	free(test_y);
	return 0;
}
