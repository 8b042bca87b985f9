#!/bin/sh
# run.sh - dnncc end to end on torchvision models (make check runs it).
#
# For every model: export it with PyTorch (export_models.py, cached: skipped
# when the files exist), compile it with dnncc, build the C with
# `cc -O2 -std=c99` from inside the output directory (NAME.weights.bin may be
# pulled in with .incbin), run it on the stored input through tests/harness.c
# and compare with PyTorch's output. Prints per model the dnncc, C compile and
# run times (and peak memory where /usr/bin/time exists) and the error; ends
# with "N passed, N failed". resnet18's generated code must also compile
# warning-free with gcc and clang (-std=c99 -Wall -Wextra -pedantic -Werror)
# and with arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb when that is installed.
#
# A model passes when max|got - want| / max|want| <= 1e-4. dnncc's reference
# kernels accumulate in float32 in their own order, PyTorch's (oneDNN/BLAS)
# in another, blocked order, over sums of up to 25088 terms (VGG's first
# fully-connected layer) and 20-60 layers. Measured here with gcc -O2 on
# x86-64: from 4e-7 (squeezenet1_1) to 1.6e-5 (googlenet) relative to the
# largest output (printed per model), so 1e-4 leaves room for other compilers
# and -O levels while still catching structural mistakes (a wrong padding,
# stride, layout or weight order moves outputs by whole percents).
#
# Environment (make check sets them): DNNCC (the dnncc binary), DNNCC_SRCDIR,
# DNNCC_BUILDDIR, CC (default cc); E2E_DIR (cache and work directory, default
# $DNNCC_BUILDDIR/tests/e2e-cache), E2E_MODELS (a subset, space-separated),
# E2E_KEEP=1 keeps the generated code of passing models, E2E_PYTHON (default
# /usr/bin/python3: Debian's, which has python3-torch) runs the export.
# Needs /usr/bin/python3 with torch, torchvision and numpy; exits 77 (skipped)
# without them.

set -u
PY=${E2E_PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/testlib.sh
. "$here/../testlib.sh"
models_env
work=${E2E_DIR:-$builddir/tests/e2e-cache}
models=${E2E_MODELS:-"alexnet vgg11 googlenet resnet18 mobilenet_v2 squeezenet1_1 resnet18_dynbatch"}
TOL=1e-4

models_check "numpy, torch, torchvision" "Debian's python3-torch, python3-torchvision"

# Seconds since the epoch with fractions, for timing.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# timed FILE CMD...: runs CMD, leaves "SECONDS PEAK_KB" in FILE.
if [ -x /usr/bin/time ]; then
	timed() {
		f=$1
		shift
		/usr/bin/time -f '%e %M' -o "$f" "$@"
	}
else
	timed() {
		f=$1
		shift
		t0=$(now)
		"$@"
		rc=$?
		echo "$(elapsed "$t0" "$(now)") 0" >"$f"
		return $rc
	}
fi
# "12.3 s, 456 MB peak" from a timed file (its last line; /usr/bin/time puts
# "Command exited with non-zero status" before it).
usage() {
	tail -n 1 "$1" | awk '{ if ($2 > 0) printf "%.2f s, %d MB peak", $1, $2 / 1024
		else printf "%.2f s", $1 }'
}

# Export what is not cached yet (the .onnx is written last).
# shellcheck disable=SC2086
missing=$(models_missing $models)
if [ -n "$missing" ]; then
	echo "exporting:$missing"
	t0=$(now)
	# shellcheck disable=SC2086
	timed "$work/export.time" "$PY" "$here/export_models.py" "$work" $missing \
		>"$work/export.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$work/export.log"
		[ $rc -eq 77 ] && exit 77
		echo "FAIL: export_models.py failed (exit status $rc)"
		exit 1
	fi
	echo "exported in $(usage "$work/export.time")"
fi

for m in $models; do
	out=$work/$m.out
	rm -rf "$out"
	mkdir -p "$out"
	shape=
	[ "$m" = resnet18_dynbatch ] && shape="--shape input=1,3,224,224"
	onnx_mb=$(du -m "$work/$m.onnx" | cut -f1)

	# shellcheck disable=SC2086
	if ! timed "$out/dnncc.time" timeout 600 "$DNNCC" "$work/$m.onnx" -o "$out/model.c" \
		--name model $shape 2>"$out/dnncc.err"; then
		model_fail "dnncc failed: $(head -n 3 "$out/dnncc.err")"
		continue
	fi
	# shellcheck disable=SC2086 # CC may hold options
	if ! (cd "$out" && timed cc.time timeout 900 $CC -O2 -std=c99 -I. -o run model.c "$harness" \
		-lm 2>cc.err); then
		model_fail "the generated C does not build: $(head -n 3 "$out/cc.err")"
		continue
	fi
	if ! (cd "$out" && timed run.time timeout 600 ./run -t "$work/$m.input.bin" got.bin \
		2>run.err); then
		model_fail "the generated program failed: $(head -n 3 "$out/run.err")"
		continue
	fi
	model_ms=$(sed -n 's/^model_run: \([0-9.]*\) ms$/\1/p' "$out/run.err")
	cmp=$("$PY" - "$out/got.bin" "$work/$m.output.bin" "$TOL" <<'EOF'
import sys
import numpy as np
got = np.fromfile(sys.argv[1], dtype="<f4").astype(np.float64)
want = np.fromfile(sys.argv[2], dtype="<f4").astype(np.float64)
if got.size != want.size:
    print(f"{got.size} values, expected {want.size}")
    sys.exit(1)
if not np.all(np.isfinite(got)):
    print(f"{np.count_nonzero(~np.isfinite(got))} values are not finite")
    sys.exit(1)
err = np.abs(got - want)
rel = err.max() / np.abs(want).max()
print(f"max abs err {err.max():.3g}, rel {rel:.3g} (worst [{err.argmax()}]: "
      f"got {got[err.argmax()]:.7g}, want {want[err.argmax()]:.7g})")
sys.exit(0 if rel <= float(sys.argv[3]) else 1)
EOF
)
	cmp_rc=$?
	weights_mb=0
	[ -f "$out/model.weights.bin" ] && weights_mb=$(du -m "$out/model.weights.bin" | cut -f1)
	stats="onnx ${onnx_mb} MB, weights.bin ${weights_mb} MB; dnncc $(usage "$out/dnncc.time"); cc $(usage "$out/cc.time"); run $(usage "$out/run.time") (model_run ${model_ms:-?} ms)"
	if [ $cmp_rc -ne 0 ]; then
		model_fail "output differs beyond $TOL: $cmp; $stats"
		continue
	fi

	# The generated code must build warning-free with every compiler at hand.
	warn_ok=1
	if [ "$m" = resnet18 ]; then
		# Cortex-M gets code made for it (--target cortex-m: portable C).
		mkdir -p "$out/m4"
		"$DNNCC" "$work/$m.onnx" -o "$out/m4/model.c" --name model --target cortex-m \
			2>"$out/m4/dnncc.err" || model_fail "dnncc --target cortex-m failed"
		for c in gcc clang "arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb"; do
			command -v "${c%% *}" >/dev/null 2>&1 || {
				echo "  (no ${c%% *}: warning check skipped)"
				continue
			}
			dir=$out
			case $c in arm-none-eabi-gcc*) dir=$out/m4 ;; esac
			if ! (cd "$dir" && $c -std=c99 -Wall -Wextra -pedantic -Werror -c -o check.o model.c \
				2>"$out/check.err"); then
				model_fail "the generated C is not warning-free with $c: $(head -n 3 "$out/check.err")"
				warn_ok=0
				break
			fi
			echo "  resnet18: model.c compiles warning-free with $c"
		done
		rm -f "$out/check.o"
	fi
	[ $warn_ok -eq 1 ] || continue

	# The run above used the default strategy, the whole-graph PBQP selection
	# (issue 8). The layer-by-layer greedy selection and every primitive
	# family forced in turn (where a family does not apply, dnncc uses sum2d)
	# must still match PyTorch (issue 3). VGG-11 is left out: its sum2d
	# fallbacks alone would take minutes. FFT rows store every kernel as its
	# spectrum, which takes ResNet-18's 45 MB of weights past the default
	# 1 GiB --max-weights: the sweep raises the limit, as a user would.
	if [ "$m" != vgg11 ] && [ "$m" != resnet18_dynbatch ]; then
		sweep_ok=1
		for strat in greedy family:direct family:im2 family:kn2 family:winograd family:fft \
			family:depthwise; do
			fo=$out/${strat#family:}
			mkdir -p "$fo"
			if ! "$DNNCC" "$work/$m.onnx" -o "$fo/model.c" --name model \
				--strategy "$strat" --max-weights 4096 2>"$fo/dnncc.err" ||
				! (cd "$fo" && $CC -O1 -std=c99 -I. -o run model.c "$harness" -lm 2>cc.err) ||
				! (cd "$fo" && ./run "$work/$m.input.bin" got.bin 2>run.err); then
				model_fail "$strat does not build or run: $(cat "$fo/dnncc.err" "$fo/cc.err" "$fo/run.err" 2>/dev/null | head -n 3)"
				sweep_ok=0
				break
			fi
			if ! fcmp=$("$PY" "$srcdir/tests/e2e/compare.py" "$fo/got.bin" "$work/$m.output.bin" "$TOL"); then
				model_fail "$strat differs from PyTorch: $fcmp"
				sweep_ok=0
				break
			fi
			echo "  $m with $strat: $fcmp"
			rm -rf "$fo"
		done
		[ $sweep_ok -eq 1 ] || continue
	fi

	echo "PASS $m: $cmp"
	echo "  $stats"
	passed=$((passed + 1))
	[ "${E2E_KEEP:-0}" = 1 ] || rm -rf "$out"
done

models_summary
