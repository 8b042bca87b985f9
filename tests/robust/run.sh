#!/bin/sh
# run.sh - dnncc on degenerate and oversized models, run by `make check` from
# the build tree (or by hand: DNNCC=path/to/dnncc tests/robust/run.sh [CASE...]).
#
#  empty_onnx    passthrough.onnx (no node: the output is the input) compiles
#                to a NAME_run that copies the input to the output, bit for bit.
#  empty_caffe   input_only.prototxt (just an Input layer), the same.
#  limit_*       models over a size limit (--max-weights, --max-arena: one
#                weight tensor, the weights in all, one activation, the arena)
#                are refused quickly, with a message naming the file, the
#                layer or node, the size and the limit, exit status 1 and no
#                output file; each `*_override` case lets one through by
#                raising the limit.
#  leaks         with DNNCC_SANITIZERS=yes (configure --enable-sanitizers, set
#                by make check): dnncc on the Fashion-MNIST sample, on a Caffe
#                prototxt with --random-weights and on bad input must finish
#                without a LeakSanitizer or other sanitizer report; skipped
#                otherwise. In that build every other case here also runs
#                under ASan, UBSan and leak checking, and fails on a report.
#
# Models: tests/robust/models.py writes the .onnx files (committed); the
# oversized prototxts are samples/caffe/alexnet.prototxt with one value
# changed. Each case logs to tests/robust/out/CASE/log. The last line says
# "N passed, N failed, N skipped".
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/testlib.sh
. "$here/../testlib.sh"
cases_init robust
# A sanitizer report makes dnncc exit 86, whatever it would have returned.
ASAN_OPTIONS=detect_leaks=1:exitcode=86${ASAN_OPTIONS:+:$ASAN_OPTIONS}
UBSAN_OPTIONS=print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
export ASAN_OPTIONS UBSAN_OPTIONS

# clean_log LOG: no sanitizer spoke.
clean_log() {
	! grep -E 'Sanitizer|runtime error:' "$1" >/dev/null
}

# empty CASE MODEL [dnncc options]: compiles MODEL (which computes nothing)
# with the generic harness and checks that the output equals the input.
empty() {
	name=$1 model=$2
	shift 2
	dir=$out/$name
	rm -rf "$dir" && mkdir -p "$dir"
	log=$dir/log
	# 48 float32 values (the [1,3,4,4] input), any bit patterns but NaNs
	awk 'BEGIN { for (i = 0; i < 48; i++) printf "%c%c%c%c", 1 + i, 2 * i, 40 + i, 63 + i % 2 }' \
		>"$dir/in.bin"
	if "$DNNCC" "$model" "$@" --name model -o "$dir/model.c" >"$log" 2>&1 &&
		clean_log "$log" &&
		grep -q 'model_input_sizes\[\] = {48}' "$dir/model.c" &&
		(cd "$dir" && $CC -std=c99 -O2 -I. "$top_srcdir/tests/harness.c" model.c -lm \
			-o harness) >>"$log" 2>&1 &&
		"$dir/harness" "$dir/in.bin" "$dir/out.bin" >>"$log" 2>&1 &&
		cmp "$dir/in.bin" "$dir/out.bin" >>"$log" 2>&1; then
		pass "$name"
	else
		fail "$name"
	fi
}

# refused CASE MESSAGE MODEL [dnncc options]: dnncc exits 1 within 20 s,
# prints MESSAGE (a grep -E pattern) naming MODEL's file, and writes nothing.
refused() {
	name=$1 message=$2 model=$3
	shift 3
	dir=$out/$name
	rm -rf "$dir" && mkdir -p "$dir/o"
	log=$dir/log
	start=$(date +%s)
	"$DNNCC" "$model" "$@" -o "$dir/o/net.c" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	echo "exit status $rc after ${took}s" >>"$log"
	if [ "$rc" -eq 1 ] && [ "$took" -le 20 ] && clean_log "$log" &&
		grep -E "^$model(:[0-9]+:[0-9]+)?: .*$message" "$log" >/dev/null &&
		[ -z "$(ls -A "$dir/o")" ]; then
		pass "$name"
	else
		fail "$name"
	fi
}

# accepted CASE MODEL [dnncc options]: compiles.
accepted() {
	name=$1 model=$2
	shift 2
	dir=$out/$name
	rm -rf "$dir" && mkdir -p "$dir"
	log=$dir/log
	if "$DNNCC" "$model" "$@" -o "$dir/net.c" >"$log" 2>&1 && clean_log "$log" &&
		[ -s "$dir/net.c" ] && [ -s "$dir/net.h" ]; then
		pass "$name"
	else
		fail "$name"
	fi
	rm -f "$dir"/*.weights.bin
}

# alexnet CASE LINE OLD NEW: samples/caffe/alexnet.prototxt with OLD replaced
# by NEW on LINE, as $out/CASE.prototxt.
alexnet() {
	sed "$2s/$3/$4/" "$top_srcdir/samples/caffe/alexnet.prototxt" >"$out/$1.prototxt"
	if cmp -s "$top_srcdir/samples/caffe/alexnet.prototxt" "$out/$1.prototxt"; then
		echo "run.sh: alexnet.prototxt line $2 has no '$3'" >&2
		exit 99
	fi
}

leaks() {
	dir=$out/leaks
	if [ "${DNNCC_SANITIZERS:-no}" != yes ]; then
		skip leaks "dnncc not built with --enable-sanitizers"
		return
	fi
	rm -rf "$dir" && mkdir -p "$dir/o"
	log=$dir/log
	: >"$log"
	echo "not a model" >"$dir/bad.onnx"
	echo "layer { name: 'x' type: " >"$dir/bad.prototxt"
	echo "not a caffemodel" >"$dir/bad.caffemodel"
	ok=1
	# MODEL EXPECTED-STATUS [options]
	for run in "$top_srcdir/samples/fashion_mnist/fashion_cnn.onnx 0 --report" \
		"$top_srcdir/samples/fashion_mnist/fashion_cnn.onnx 0 --weights file --name f2" \
		"$top_srcdir/samples/caffe/alexnet.prototxt 0 --random-weights 1 --dump-ir" \
		"$top_srcdir/samples/caffe/googlenet.prototxt 0 --random-weights 1" \
		"$dir/bad.onnx 1" "$dir/bad.prototxt 1 --random-weights 1" "$dir/missing.onnx 1" \
		"$top_srcdir/samples/caffe/alexnet.prototxt 1" \
		"$top_srcdir/samples/caffe/alexnet.prototxt 1 --weights $dir/bad.caffemodel" \
		"$top_srcdir/samples/fashion_mnist/fashion_cnn.onnx 0 --strategy family:fft --dump-ir" \
		"$top_srcdir/samples/fashion_mnist/fashion_cnn.onnx 1 --force-primitive nope=sum2d" \
		"$top_srcdir/samples/caffe/alexnet.prototxt 1 --random-weights 1 --max-weights 100" \
		"$top_srcdir/samples/fashion_mnist/fashion_cnn.onnx 2 --bogus" \
		"$top_srcdir/samples/fashion_mnist/fashion_cnn.onnx 0 --help"; do
		set -- $run
		model=$1 want=$2
		shift 2
		echo "== dnncc $model $* (expect $want)" >>"$log"
		"$DNNCC" "$model" "$@" -o "$dir/o/net.c" >"$dir/run.log" 2>&1
		rc=$?
		grep -v '^[ %]' "$dir/run.log" | head -n 40 >>"$log"
		echo "exit status $rc" >>"$log"
		if [ "$rc" -ne "$want" ] || ! clean_log "$dir/run.log"; then
			ok=0
			grep -A 30 -E 'Sanitizer|runtime error:' "$dir/run.log" >>"$log"
		fi
		rm -f "$dir"/o/*
	done
	rm -f "$dir/run.log"
	if [ "$ok" = 1 ]; then
		pass leaks
	else
		fail leaks
	fi
}

run_case() {
	m=$top_srcdir/tests/robust
	case $1 in
	empty_onnx) empty empty_onnx "$m/passthrough.onnx" ;;
	empty_caffe) empty empty_caffe "$m/input_only.prototxt" --random-weights 1 ;;
	limit_caffe_pad)
		alexnet pad 70 'pad: 2' 'pad: 100000'
		refused "$1" "layer 'conv2' \(Convolution\): blob 'conv2' would have shape \
1x256x200023x200023: 40969421341696 bytes, over the activation limit of 1073741824 bytes" \
			"$out/pad.prototxt" --random-weights 1
		;;
	limit_caffe_tensor)
		alexnet num_output 197 'num_output: 4096' 'num_output: 100000'
		refused "$1" "layer 'fc6' \(InnerProduct\): the weights blob 100000x9216 needs \
3686400000 bytes, over the weights limit of 1073741824 bytes" \
			"$out/num_output.prototxt" --random-weights 1
		;;
	limit_caffe_total)
		refused "$1" "layer 'fc7' \(InnerProduct\): the weights blob 4096x4096 \(67108864 \
bytes\) takes the weights to 227456512 bytes, over the limit of 209715200 bytes" \
			"$top_srcdir/samples/caffe/alexnet.prototxt" --random-weights 1 --max-weights 200
		;;
	limit_caffe_input)
		sed 's/dim: 4 dim: 4/dim: 20000 dim: 10000/' "$m/input_only.prototxt" >"$out/big_input.prototxt"
		refused "$1" "layer 'data' \(Input\): blob 'data' would have shape 1x3x20000x10000: \
2400000000 bytes, over the activation limit of 1073741824 bytes" \
			"$out/big_input.prototxt" --random-weights 1
		;;
	limit_caffe_input_override)
		sed 's/dim: 4 dim: 4/dim: 20000 dim: 10000/' "$m/input_only.prototxt" >"$out/big_input.prototxt"
		accepted "$1" "$out/big_input.prototxt" --random-weights 1 --max-arena 2300
		;;
	limit_onnx_input)
		refused "$1" "graph input 'x' has shape \[1, 1, 20000, 20000\]: 1600000000 bytes, \
over the activation limit of 1073741824 bytes" "$m/big_input.onnx"
		;;
	limit_onnx_input_override) accepted "$1" "$m/big_input.onnx" --max-arena 1600 ;;
	limit_onnx_tensor)
		refused "$1" "initializer 'w' \(float32 \[70000,70000\]\) has 19600000000 bytes, over \
the weights limit of 1073741824 bytes" "$m/huge_weight.onnx"
		;;
	limit_onnx_weights)
		refused "$1" "initializer 'w' \(float32 \[1024,257\]\) has 1052672 bytes, over the \
weights limit of 1048576 bytes" "$m/weights_1mib.onnx" --max-weights 1
		;;
	limit_onnx_weights_override) accepted "$1" "$m/weights_1mib.onnx" --max-weights 2 ;;
	limit_onnx_arena)
		refused "$1" "the activation arena needs 2097152 bytes \(activations and workspaces \
live at the same time\), over the limit of 1048576 bytes" "$m/two_live.onnx" --max-arena 1
		;;
	limit_onnx_arena_override) accepted "$1" "$m/two_live.onnx" --max-arena 2 ;;
	leaks) leaks ;;
	*)
		echo "run.sh: unknown case $1" >&2
		failed=$((failed + 1))
		;;
	esac
}

cases=${*:-"empty_onnx empty_caffe limit_caffe_pad limit_caffe_tensor limit_caffe_total \
limit_caffe_input limit_caffe_input_override limit_onnx_input limit_onnx_input_override limit_onnx_tensor \
limit_onnx_weights limit_onnx_weights_override limit_onnx_arena limit_onnx_arena_override leaks"}
# shellcheck disable=SC2086
cases_run $cases
