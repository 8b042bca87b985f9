#!/bin/sh
# check_sample.sh - the bundled sample end to end: compiles
# samples/fashion_mnist/fashion_cnn.onnx with dnncc, builds the generated C
# together with samples/fashion_mnist/demo.c as strict C99 (from inside the
# output folder, as DESIGN.md §2 promises it compiles) and runs the demo,
# which fails when the outputs differ from PyTorch's. Prints every command.
#
# usage: check_sample.sh [--warnings-ok] [OUTDIR]
#   OUTDIR         where the generated files and the demo go, emptied first
#                  (default samples/check-out)
#   --warnings-ok  do not treat compiler warnings as errors (by default they
#                  are: DESIGN.md §2 wants the generated code clean under
#                  -std=c99 -Wall -Wextra -pedantic)
# environment (make sets them; the defaults suit a run from the build folder):
#   DNNCC           the compiler (default ./dnncc)
#   CC              the C compiler (default cc)
#   abs_top_srcdir  the source tree (default: the folder above this script)
# `make check` runs it as a test, with the defaults; `make sample` runs it with
# --warnings-ok samples-out.
set -eu

werror=-Werror
if [ "${1-}" = --warnings-ok ]; then
	werror=
	shift
fi
out=${1-samples/check-out}
srcdir=$(cd "${abs_top_srcdir:-$(dirname "$0")/..}" && pwd)
dnncc=${DNNCC:-./dnncc}
cc=${CC:-cc}
sample=$srcdir/samples/fashion_mnist

# Absolute, like srcdir, because the C compiler runs from inside $out.
case $dnncc in /*) ;; *) dnncc=$(pwd)/$dnncc ;; esac

run() {
	echo "+ $*"
	"$@"
}

rm -rf "$out"
mkdir -p "$out"
run "$dnncc" "$sample/fashion_cnn.onnx" -o "$out/fashion_cnn.c" --report
# $cc is word-split on purpose: CC may hold flags ("gcc -m32").
# shellcheck disable=SC2086
(cd "$out" && run $cc -std=c99 -O2 -Wall -Wextra -pedantic $werror -I. \
	fashion_cnn.c "$sample/demo.c" -o demo -lm)
run "$out/demo" "$sample"
