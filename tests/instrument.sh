#!/bin/sh
# instrument.sh - --instrument end to end (issue 8), on the Fashion-MNIST
# sample:
#   1. without --instrument the generated files name no profile function,
#      clock or _POSIX_C_SOURCE;
#   2. the instrumented model and a driver build with
#      -std=c99 -Wall -Wextra -pedantic -Werror under gcc and clang (those
#      present; $CC when neither is);
#   3. after RUNS runs the profile has one row per layer function, in the
#      order of the file's layer comments (so every layer and layout transform
#      exactly once), each with calls == RUNS and a non-negative time, and the
#      rows' times add up to no more than the wall-clock time of the runs;
#      after NAME_profile_reset() every row is back to 0 and
#      NAME_profile_entry(count) fails;
#   4. its outputs are bit-identical to a build without --instrument;
#   5. NAME_profile_print() writes a header, one line per row and a total;
#   6. --target cortex-m --instrument is refused with a message and no file.
# Environment (make check sets them): DNNCC, CC, DNNCC_SRCDIR.
set -u
DNNCC=${DNNCC:-./dnncc}
CC=${CC:-cc}
src=${DNNCC_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
model=$src/samples/fashion_mnist/fashion_cnn.onnx
images=$src/samples/fashion_mnist/images.bin
RUNS=5
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
pass() { echo "PASS: $1"; }
failed() {
	echo "FAIL: $1"
	fail=1
}
mkdir "$out/plain" "$out/inst"

# A driver for both builds: runs the model on the first RUNS images, writes
# the outputs to outputs.bin; the instrumented build also checks the profile
# and prints it (rows as "row<TAB>node<TAB>op<TAB>primitive", then the table).
cat >"$out/driver.c" <<'DRIVER'
#ifdef INSTRUMENTED
#define _POSIX_C_SOURCE 199309L
#endif
#include <stdio.h>
#include <stdlib.h>
#ifdef INSTRUMENTED
#include <time.h>
#endif
#include "fashion_cnn.h"

#define IMAGE_SIZE (28 * 28)

#ifdef INSTRUMENTED
static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}
#endif

int main(int argc, char **argv)
{
	static float image[IMAGE_SIZE], result[10];
	const float *in[1] = {image};
	float *outs[1] = {result};
	int runs = atoi(argv[2]), bad = 0;
	FILE *f = fopen(argv[1], "rb"), *o = fopen("outputs.bin", "wb");
	if (argc != 3 || !f || !o || fashion_cnn_output_sizes[0] != 10)
		return 2;
#ifdef INSTRUMENTED
	double wall = 0;
#endif
	for (int r = 0; r < runs; r++) {
		if (fread(image, sizeof image, 1, f) != 1)
			return 2;
#ifdef INSTRUMENTED
		double t0 = now_us();
#endif
		if (fashion_cnn_run(in, outs) != 0)
			return 3;
#ifdef INSTRUMENTED
		wall += now_us() - t0;
#endif
		fwrite(result, sizeof result, 1, o);
	}
	fclose(f);
	if (fclose(o) != 0)
		return 2;
#ifdef INSTRUMENTED
	double sum = 0;
	size_t n = fashion_cnn_profile_count();
	for (size_t i = 0; i < n; i++) {
		const char *node, *op, *prim;
		double pred, total;
		unsigned long calls;
		if (fashion_cnn_profile_entry(i, &node, &op, &prim, &pred, &calls, &total) != 0) {
			fprintf(stderr, "entry %zu missing\n", i);
			bad = 1;
			continue;
		}
		printf("row\t%s\t%s\t%s\n", node, op, prim);
		if (calls != (unsigned long)runs || !(total >= 0) || !(pred >= 0)) {
			fprintf(stderr, "row %zu (%s): %lu calls, %g us, estimate %g\n", i, node,
			        calls, total, pred);
			bad = 1;
		}
		sum += total;
	}
	if (n == 0 || sum > wall) {
		fprintf(stderr, "%zu rows; rows add up to %g us, the runs took %g us\n", n, sum, wall);
		bad = 1;
	}
	fashion_cnn_profile_print(stdout);
	fashion_cnn_profile_reset();
	for (size_t i = 0; i < n; i++) {
		unsigned long calls = 1;
		double total = 1;
		if (fashion_cnn_profile_entry(i, NULL, NULL, NULL, NULL, &calls, &total) != 0 ||
		    calls != 0 || total != 0) {
			fprintf(stderr, "row %zu not reset\n", i);
			bad = 1;
		}
	}
	if (fashion_cnn_profile_entry(n, NULL, NULL, NULL, NULL, NULL, NULL) != -1) {
		fprintf(stderr, "entry %zu (past the end) did not fail\n", n);
		bad = 1;
	}
#endif
	return bad;
}
DRIVER

# 1. no trace of instrumentation without --instrument
if "$DNNCC" "$model" -o "$out/plain/fashion_cnn.c" 2>"$out/plain.err" &&
	! grep -q '_profile_\|clock_gettime\|_POSIX_C_SOURCE\|<time\.h>' \
		"$out/plain/fashion_cnn.c" "$out/plain/fashion_cnn.h"; then
	pass "no profile code without --instrument"
else
	failed "plain build"
	cat "$out/plain.err"
fi

# 2. builds warning-free with every compiler at hand
if ! "$DNNCC" "$model" -o "$out/inst/fashion_cnn.c" --instrument 2>"$out/inst.err"; then
	failed "dnncc --instrument"
	cat "$out/inst.err"
	exit 1
fi
flags="-std=c99 -Wall -Wextra -pedantic -Werror -O2"
compilers=
for c in gcc clang; do
	command -v $c >/dev/null 2>&1 && compilers="$compilers $c"
done
[ -n "$compilers" ] || compilers=$CC
for c in $compilers; do
	if (cd "$out/inst" && $c $flags -I. -DINSTRUMENTED -o "driver-$c" fashion_cnn.c ../driver.c \
		-lm) 2>"$out/build-$c.err"; then
		pass "instrumented build with $c"
	else
		failed "instrumented build with $c"
		cat "$out/build-$c.err"
	fi
done
set -- $compilers
if ! (cd "$out/plain" && $1 $flags -I. -o driver fashion_cnn.c ../driver.c -lm) 2>"$out/build.err"; then
	failed "plain build with $1"
	cat "$out/build.err"
fi

# 3., 5. the profile, for every compiler's build
layers=$(sed -n "s|^/\* Layer [0-9]*: node '\(.*\)' (.*|\1|p" "$out/inst/fashion_cnn.c")
transforms=$(grep -c "^/\* Layer [0-9]*: node '.*' (dnncc.LayoutTransform)" "$out/inst/fashion_cnn.c")
for c in $compilers; do
	[ -x "$out/inst/driver-$c" ] || continue
	if (cd "$out/inst" && "./driver-$c" "$images" $RUNS >"profile-$c.txt" 2>"run-$c.err"); then
		rows=$(sed -n 's/^row	\([^	]*\)	.*/\1/p' "$out/inst/profile-$c.txt")
		n=$(printf '%s\n' "$layers" | wc -l)
		table=$(grep -c "^[0-9]" "$out/inst/profile-$c.txt")
		if [ "$rows" = "$layers" ] && [ "$transforms" -ge 1 ] && [ "$table" -eq "$n" ] &&
			grep -q '^#  *node  *op  *primitive  *calls  *mean us  *share  *estimate  *ratio$' \
				"$out/inst/profile-$c.txt" &&
			grep -q "^ *total per run  *$RUNS " "$out/inst/profile-$c.txt"; then
			pass "$c: $n rows ($transforms transforms), $RUNS calls each, within the wall time"
		else
			failed "$c: profile rows"
			cat "$out/inst/profile-$c.txt" "$out/inst/run-$c.err"
		fi
	else
		failed "$c: instrumented run or profile checks"
		cat "$out/inst/run-$c.err"
	fi
done

# 4. the same outputs as without --instrument
if (cd "$out/plain" && ./driver "$images" $RUNS) &&
	cmp "$out/plain/outputs.bin" "$out/inst/outputs.bin"; then
	pass "outputs identical to the plain build"
else
	failed "outputs differ from the plain build"
fi

# 6. cortex-m has no POSIX clock
mkdir "$out/m"
if "$DNNCC" "$model" -o "$out/m/m.c" --target cortex-m --instrument 2>"$out/m.err"; then
	failed "cortex-m --instrument accepted"
elif grep -q 'instrument.*cortex-m' "$out/m.err" && [ -z "$(ls -A "$out/m")" ]; then
	pass "cortex-m refuses --instrument: $(cat "$out/m.err")"
else
	failed "cortex-m refusal"
	cat "$out/m.err"
	ls "$out/m"
fi
exit $fail
