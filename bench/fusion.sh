#!/bin/sh
# fusion.sh - what dnncc's fusions (residual Add+Relu in conv epilogues,
# zero-copy Concat, views) change end to end: the activation arena and the
# time of one inference, against a dnncc built without them.
#
#   BASE=/path/to/old/dnncc bench/fusion.sh [MODEL...]
#
# MODEL: resnet18 resnet50 googlenet squeezenet1_1 (default: all four),
# torchvision with random weights exported as tests/e2e does (cached in
# $FUSION_DIR, default bench/fusion-cache). Each model is compiled by $BASE
# and by $DNNCC (default ./dnncc) with the default strategy, built with
# `cc -O2 -std=c99` and timed by bench/time_model.c: ROUNDS (default 5)
# alternating rounds of RUNS (default 10) calls after a warm-up; the table
# gives the median over rounds of each round's median, so that load changes
# on a shared machine hit both builds alike, and the output's error against
# PyTorch. Prints a markdown table on stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
DNNCC=${DNNCC:-$src/dnncc}
BASE=${BASE:?set BASE to a dnncc binary without the fusions}
PY=/usr/bin/python3
CC=${CC:-cc}
ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-10}
dir=${FUSION_DIR:-$src/bench/fusion-cache}
models=${*:-"resnet18 resnet50 googlenet squeezenet1_1"}
mkdir -p "$dir"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| model | arena before (bytes) | arena after (bytes) | ms before | ms after | after/before | max rel. error after |"
echo "|---|---|---|---|---|---|---|"
for m in $models; do
	if [ ! -f "$dir/$m.onnx" ]; then
		(cd "$src/tests/e2e" && "$PY" -c "import sys, export_models as e
e.torch.set_num_threads(2)
e.export(sys.argv[1], sys.argv[2])" "$m" "$dir") >/dev/null 2>&1
	fi
	for v in base fused; do
		d="$dir/$m.$v"
		rm -rf "$d" && mkdir -p "$d"
		bin=$DNNCC
		[ "$v" = base ] && bin=$BASE
		"$bin" "$dir/$m.onnx" -o "$d/model.c" --name model --report >"$d/report.txt"
		(cd "$d" && $CC -std=c99 -O2 -I. model.c "$here/time_model.c" -o run -lm)
		grep -o 'activation arena [0-9]*' "$d/report.txt" | awk '{ print $3 }' >"$d/arena"
	done
	: >"$dir/$m.base.t"
	: >"$dir/$m.fused.t"
	for r in $(seq "$ROUNDS"); do
		for v in base fused; do
			"$dir/$m.$v/run" "$dir/$m.input.bin" "$dir/$m.output.bin" "$RUNS" >>"$dir/$m.$v.t"
		done
	done
	tb=$(awk '{ print $1 }' "$dir/$m.base.t" | median)
	tf=$(awk '{ print $1 }' "$dir/$m.fused.t" | median)
	err=$(awk '{ print $3 }' "$dir/$m.fused.t" | sort -g | tail -1)
	echo "| $m | $(cat "$dir/$m.base/arena") | $(cat "$dir/$m.fused/arena") | $tb | $tf |" \
	     "$(awk -v a="$tb" -v b="$tf" 'BEGIN { printf "%.3f", b / a }') | $err |"
done
