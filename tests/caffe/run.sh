#!/bin/sh
# run.sh - end-to-end tests of the Caffe frontend, run by `make check` from the
# build tree (or by hand: DNNCC=path/to/dnncc tests/caffe/run.sh [CASE...]).
#
#  bvlc_*     The BVLC deploy definitions in ../shared/models/caffe (next to the
#             source tree; skipped where it is absent), unchanged: each compiled
#             with --random-weights (no warning allowed: their training-only
#             fields are known), built, run; outputs must be finite and every
#             softmax row must sum to 1. R-CNN (200 SVM scores, no softmax) runs at
#             its declared batch of 10, the others with --batch 1.
#  vgg16      samples/caffe/vgg16.prototxt (V1 `layers` style), the same way.
#  equiv_*    alexnet, googlenet (samples/caffe), features (every translated
#             layer and option) and tinyvgg (V1, weights in the V1 `layers`
#             field): tests/caffe/equiv.py writes the same weights as a
#             .caffemodel and as an ONNX model; both are compiled and run on one
#             input and must agree to 1e-5 relative, and agree with PyTorch's
#             Caffe-semantics reference to 1e-4. Skipped without Python 3 with
#             numpy, onnx, torch and protobuf, or without protoc.
#  refuse     a .prototxt without --weights is refused and leaves no file.
#
# Each case logs to tests/caffe/out/CASE/log and keeps its generated C; the
# large files (weights, models, executables) are deleted unless KEEP=1. The
# last line says "N passed, N failed, N skipped".
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/testlib.sh
. "$here/../testlib.sh"
cases_init caffe
shared=$top_srcdir/../shared/models/caffe

# A Python with what equiv.py needs, or nothing.
python=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
	if "$p" -c 'import numpy, onnx, torch, google.protobuf' 2>/dev/null; then
		python=$p
		break
	fi
done
command -v protoc >/dev/null 2>&1 || python=

# tidy DIR: deletes a case's large files unless KEEP=1.
tidy() {
	[ "${KEEP:-0}" = 1 ] || rm -f "$1"/*.caffemodel "$1"/*.onnx "$1"/run "$1"/*.weights.bin \
		"$1"/*/run "$1"/*/*.weights.bin
}

# build DIR NAME: compiles DIR/NAME.c with the driver into DIR/run.
build() {
	upper=$(echo "$2" | tr 'a-z' 'A-Z')
	(cd "$1" && $CC -std=c99 -O2 -DMODEL="$2" -DMODEL_UPPER="$upper" -include "$2.h" \
		"$here/driver.c" "$2.c" -lm -o run)
}

# random_weights CASE PROTOTXT COUNT SOFTMAX [dnncc options]: compile, build,
# run; the output must have COUNT values, in softmax rows of SOFTMAX (0: none).
random_weights() {
	name=$1 model=$2 count=$3 rows=$4
	shift 4
	dir=$out/$name
	rm -rf "$dir" && mkdir -p "$dir"
	if "$DNNCC" "$model" --random-weights 1 "$@" -o "$dir/$name.c" >"$dir/log" 2>&1 &&
		grep -q 'note: no --weights given: using deterministic random weights' "$dir/log" &&
		! grep 'warning:' "$dir/log" >/dev/null &&
		build "$dir" "$name" >>"$dir/log" 2>&1 &&
		(cd "$dir" && ./run --softmax "$rows") >>"$dir/log" 2>&1 &&
		grep -q "^output 0: $count values" "$dir/log"; then
		pass "$name"
	else
		fail "$name"
	fi
	tidy "$dir"
}

# equivalence NET: the same weights through both frontends.
equivalence() {
	net=$1 name=equiv_$1
	dir=$out/$name
	if [ -z "$python" ]; then
		skip "$name" "needs python3 with numpy, onnx, torch and protobuf, and protoc"
		return
	fi
	rm -rf "$dir" && mkdir -p "$dir/caffe" "$dir/onnx"
	log=$dir/log
	: >"$log"
	if "$python" "$here/equiv.py" "$net" "$dir" >>"$log" 2>&1 &&
		{ [ ! -f "$top_srcdir/samples/caffe/$net.prototxt" ] ||
			cmp "$top_srcdir/samples/caffe/$net.prototxt" "$dir/$net.prototxt" >>"$log" 2>&1; } &&
		"$DNNCC" "$dir/$net.prototxt" --weights "$dir/$net.caffemodel" \
			-o "$dir/caffe/caffe_$net.c" >>"$log" 2>&1 &&
		"$DNNCC" "$dir/$net.onnx" -o "$dir/onnx/onnx_$net.c" >>"$log" 2>&1 &&
		build "$dir/caffe" "caffe_$net" >>"$log" 2>&1 &&
		build "$dir/onnx" "onnx_$net" >>"$log" 2>&1 &&
		"$dir/onnx/run" --input "$dir/input.bin" --output "$dir/onnx.bin" >>"$log" 2>&1 &&
		echo "caffe against onnx:" >>"$log" &&
		"$dir/caffe/run" --input "$dir/input.bin" --expect "$dir/onnx.bin" --rtol 1e-5 \
			>>"$log" 2>&1 &&
		echo "caffe against pytorch:" >>"$log" &&
		"$dir/caffe/run" --input "$dir/input.bin" --expect "$dir/expected.bin" --rtol 1e-4 \
			>>"$log" 2>&1; then
		pass "$name"
	else
		fail "$name"
	fi
	tidy "$dir"
}

refuse() {
	dir=$out/refuse
	rm -rf "$dir" && mkdir -p "$dir"
	if "$DNNCC" "$top_srcdir/samples/caffe/alexnet.prototxt" -o "$dir/a.c" >"$dir/log" 2>&1; then
		fail refuse
	elif grep -q 'no weights: a deploy.prototxt holds the architecture only' "$dir/log" &&
		[ ! -e "$dir/a.c" ] && [ ! -e "$dir/a.h" ] && [ ! -e "$dir/a.weights.bin" ]; then
		pass refuse
	else
		fail refuse
	fi
}

run_case() {
	case $1 in
	bvlc_alexnet | bvlc_reference_caffenet | bvlc_googlenet | bvlc_reference_rcnn_ilsvrc13)
		if [ ! -f "$shared/$1/deploy.prototxt" ]; then
			skip "$1" "no $shared/$1/deploy.prototxt"
		elif [ "$1" = bvlc_reference_rcnn_ilsvrc13 ]; then
			random_weights "$1" "$shared/$1/deploy.prototxt" 2000 0
		else
			random_weights "$1" "$shared/$1/deploy.prototxt" 1000 1000 --batch 1
		fi
		;;
	vgg16) random_weights vgg16 "$top_srcdir/samples/caffe/vgg16.prototxt" 1000 1000 ;;
	equiv_*) equivalence "${1#equiv_}" ;;
	refuse) refuse ;;
	*)
		echo "run.sh: unknown case $1" >&2
		failed=$((failed + 1))
		;;
	esac
}

cases=${*:-"refuse bvlc_alexnet bvlc_reference_caffenet bvlc_googlenet \
bvlc_reference_rcnn_ilsvrc13 vgg16 equiv_features equiv_tinyvgg equiv_alexnet equiv_googlenet"}
# shellcheck disable=SC2086
cases_run $cases
