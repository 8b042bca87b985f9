/* driver.c - runs one dnncc-generated model for the Caffe end-to-end tests
 * (tests/caffe/run.sh). Built together with the model's NAME.c:
 *   cc -std=c99 -DMODEL=NAME -DMODEL_UPPER=UPPERNAME -include NAME.h \
 *      driver.c NAME.c -lm
 * Options:
 *   --input FILE     the inputs, float32, all of them one after another
 *                    (default: deterministic values in [-1, 1))
 *   --output FILE    write the outputs there, float32, one after another
 *   --expect FILE    compare the outputs with these, element by element:
 *                    |got - want| <= rtol * max(|want|, 0.01 * max|want|)
 *   --rtol R         the tolerance for --expect (default 1e-5)
 *   --softmax N      each output is rows of N probabilities: check every
 *                    row is in [0, 1] and sums to 1 within 1e-4
 * Prints one line per output (count, min, max, sum) and exits non-zero on a
 * failed run, a non-finite output or a failed check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define NUM_INPUTS CAT(MODEL_UPPER, _NUM_INPUTS)
#define NUM_OUTPUTS CAT(MODEL_UPPER, _NUM_OUTPUTS)
#define INPUT_SIZES CAT(MODEL, _input_sizes)
#define OUTPUT_SIZES CAT(MODEL, _output_sizes)
#define RUN CAT(MODEL, _run)

static size_t total(const size_t *sizes, int n)
{
	size_t t = 0;
	for (int i = 0; i < n; i++)
		t += sizes[i];
	return t;
}

static float *read_floats(const char *path, size_t n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "driver: cannot open %s\n", path);
		exit(2);
	}
	float *x = malloc(n * sizeof *x);
	size_t got = fread(x, sizeof *x, n, f);
	int extra = fgetc(f) != EOF;
	fclose(f);
	if (got != n || extra) {
		fprintf(stderr, "driver: %s holds %s floats than the %zu expected\n", path,
		        extra ? "more" : "fewer", n);
		exit(2);
	}
	return x;
}

int main(int argc, char **argv)
{
	const char *input = NULL, *output = NULL, *expect = NULL;
	double rtol = 1e-5;
	long softmax = 0;
	for (int i = 1; i < argc; i++) {
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!val) {
			fprintf(stderr, "driver: %s needs a value\n", argv[i]);
			return 2;
		}
		if (strcmp(argv[i], "--input") == 0)
			input = val;
		else if (strcmp(argv[i], "--output") == 0)
			output = val;
		else if (strcmp(argv[i], "--expect") == 0)
			expect = val;
		else if (strcmp(argv[i], "--rtol") == 0)
			rtol = atof(val);
		else if (strcmp(argv[i], "--softmax") == 0)
			softmax = atol(val);
		else {
			fprintf(stderr, "driver: unknown option %s\n", argv[i]);
			return 2;
		}
		i++;
	}

	size_t n_in = total(INPUT_SIZES, NUM_INPUTS), n_out = total(OUTPUT_SIZES, NUM_OUTPUTS);
	float *in = NULL;
	if (input) {
		in = read_floats(input, n_in);
	} else {
		in = malloc(n_in * sizeof *in);
		unsigned long long s = 0x2545F4914F6CDD1Dull;
		for (size_t i = 0; i < n_in; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			in[i] = (float)((s >> 40) * (2.0 / 16777216.0) - 1.0);
		}
	}
	float *out = malloc(n_out * sizeof *out);
	const float *inputs[NUM_INPUTS];
	float *outputs[NUM_OUTPUTS];
	for (size_t i = 0, k = 0; i < NUM_INPUTS; k += INPUT_SIZES[i++])
		inputs[i] = in + k;
	for (size_t i = 0, k = 0; i < NUM_OUTPUTS; k += OUTPUT_SIZES[i++])
		outputs[i] = out + k;
	if (RUN(inputs, outputs) != 0) {
		fprintf(stderr, "driver: the model's run function failed\n");
		return 1;
	}

	int failed = 0;
	for (int o = 0; o < NUM_OUTPUTS; o++) {
		const float *y = outputs[o];
		size_t n = OUTPUT_SIZES[o], bad = 0;
		double lo = INFINITY, hi = -INFINITY, sum = 0;
		for (size_t i = 0; i < n; i++) {
			if (!isfinite(y[i]))
				bad++;
			lo = fmin(lo, y[i]);
			hi = fmax(hi, y[i]);
			sum += y[i];
		}
		printf("output %d: %zu values, min %g, max %g, sum %.9g\n", o, n, lo, hi, sum);
		if (bad) {
			printf("output %d: %zu values are not finite\n", o, bad);
			failed = 1;
		}
		for (long r = 0; softmax > 0 && r < (long)(n / softmax); r++) {
			double s = 0;
			int range = 1;
			for (long c = 0; c < softmax; c++) {
				float p = y[r * softmax + c];
				s += p;
				range &= p >= 0.0f && p <= 1.0f;
			}
			if (!range || fabs(s - 1.0) > 1e-4) {
				printf("output %d: softmax row %ld sums to %.9g%s\n", o, r, s,
				       range ? "" : " (values outside [0, 1])");
				failed = 1;
				break;
			}
		}
		if (softmax > 0 && n % softmax) {
			printf("output %d: %zu values are not rows of %ld\n", o, n, softmax);
			failed = 1;
		}
	}
	if (expect) {
		float *want = read_floats(expect, n_out);
		for (int o = 0, k = 0; o < NUM_OUTPUTS; k += OUTPUT_SIZES[o++]) {
			double scale = 0, worst = 0;
			size_t at = 0;
			for (size_t i = 0; i < OUTPUT_SIZES[o]; i++)
				scale = fmax(scale, fabs(want[k + i]));
			for (size_t i = 0; i < OUTPUT_SIZES[o]; i++) {
				double ref = fmax(fabs(want[k + i]), 0.01 * scale);
				double err = fabs((double)out[k + i] - want[k + i]) / (ref > 0 ? ref : 1);
				if (!(err <= worst)) {
					worst = err;
					at = i;
				}
			}
			printf("output %d: worst relative difference %.3g at %zu (got %.9g, expected "
			       "%.9g), tolerance %.3g\n",
			       o, worst, at, out[k + at], want[k + at], rtol);
			if (!(worst <= rtol))
				failed = 1;
		}
		free(want);
	}
	if (output) {
		FILE *f = fopen(output, "wb");
		if (!f || fwrite(out, sizeof *out, n_out, f) != n_out || fclose(f) != 0) {
			fprintf(stderr, "driver: cannot write %s\n", output);
			return 2;
		}
	}
	free(in);
	free(out);
	return failed;
}
