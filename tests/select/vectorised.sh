#!/bin/sh
# vectorised.sh - issue 8: no network spends more than 5% of its time in a
# convolution row whose inner loop is scalar where a vectorised row applies.
#
# Compiles MobileNetV2 (torchvision, from the end-to-end test's cache) with
# the default selection, once with the built-in cost model and once with the
# measured table tests/select/costs_xeon.tsv, and the Fashion-MNIST sample
# with the built-in model, each with --report and --instrument; builds the
# code (cc -O2, per-layer thread CPU time), runs it a few times
# (bench/strategies_main.c) and checks --report's list of such layers against
# the per-layer times with bench/check_vectorised.py. Where the report lists
# no such layer there is nothing to time, and the code is not built. The check's own
# failure path is tested too: the sample under --strategy sum2d spends all
# its convolution time in the scalar sum2d row, and must be flagged.
#
# Environment (make check sets them): DNNCC, DNNCC_SRCDIR, DNNCC_BUILDDIR,
# CC; E2E_DIR (the model cache, default $DNNCC_BUILDDIR/tests/e2e-cache).
# Without PyTorch to export MobileNetV2 only the sample is checked.
set -u
PY=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${DNNCC_SRCDIR:-$(cd "$here/../.." && pwd)}
builddir=${DNNCC_BUILDDIR:-$(pwd)}
DNNCC=${DNNCC:-$builddir/dnncc}
CC=${CC:-cc}
work=${E2E_DIR:-$builddir/tests/e2e-cache}
check="$PY $srcdir/bench/check_vectorised.py"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0

# build NAME MODEL [dnncc options]: report, code, per-layer profile in
# $out/NAME; returns 2 (nothing to time) when the report lists no such
# layer, unless $force is set
force=
build() {
	name=$1
	model=$2
	shift 2
	d=$out/$name
	mkdir -p "$d"
	if ! "$DNNCC" "$model" -o "$d/model.c" --name model --report --instrument "$@" \
		>"$d/report.txt" 2>"$d/dnncc.err"; then
		cat "$d/dnncc.err"
		echo "FAIL: $name: dnncc $model $*"
		return 1
	fi
	if [ -z "$force" ] && grep -q "scalar rows where a vectorised row applies: none" \
		"$d/report.txt"; then
		echo "ok: $name: no layer in a scalar row where a vectorised row applies"
		return 2
	fi
	if ! (cd "$d" && $CC -std=c99 -O2 -I. -DINSTRUMENT \
		-DDNNCC_PROFILE_CLOCK=CLOCK_THREAD_CPUTIME_ID -o run model.c \
		"$srcdir/bench/strategies_main.c" -lm) >"$d/cc.log" 2>&1; then
		cat "$d/cc.log"
		echo "FAIL: $name: the generated code did not build"
		return 1
	fi
	if ! (cd "$d" && ./run 5 2 layers.tsv) >"$d/run.log" 2>&1; then
		cat "$d/run.log"
		echo "FAIL: $name: the generated code did not run"
		return 1
	fi
}

# the check must be able to fail: sum2d is scalar and a vectorised row applies
sample=$srcdir/samples/fashion_mnist/fashion_cnn.onnx
force=1
if build sample_sum2d "$sample" --strategy sum2d; then
	$check "$out/sample_sum2d/report.txt" "$out/sample_sum2d/layers.tsv" >"$out/neg.log" 2>&1
	rc=$?
	cat "$out/neg.log"
	if [ $rc -ne 1 ]; then
		echo "FAIL: check_vectorised.py did not flag --strategy sum2d (exit status $rc)"
		fail=1
	fi
else
	fail=1
fi
force=

pairs=
# one build: its pair goes to the check, or nothing to time, or a failure
one() {
	name=$1
	build "$@"
	case $? in
	0) pairs="$pairs $out/$name/report.txt $out/$name/layers.tsv" ;;
	2) ;;
	*) fail=1 ;;
	esac
}
one sample "$sample"
if [ ! -f "$work/mobilenet_v2.onnx" ]; then
	mkdir -p "$work" && "$PY" "$srcdir/tests/e2e/export_models.py" "$work" mobilenet_v2 \
		>"$out/export.log" 2>&1
fi
if [ -f "$work/mobilenet_v2.onnx" ]; then
	one mnv2_builtin "$work/mobilenet_v2.onnx"
	one mnv2_measured "$work/mobilenet_v2.onnx" --costs "$srcdir/tests/select/costs_xeon.tsv"
else
	echo "note: MobileNetV2 not exported (no PyTorch?); only the sample is checked"
fi

if [ -n "$pairs" ]; then
	# shellcheck disable=SC2086
	$check $pairs || fail=1
fi
[ $fail -eq 0 ] && echo "PASS" || echo "FAIL"
exit $fail
