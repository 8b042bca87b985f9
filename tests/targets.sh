#!/bin/sh
# targets.sh - generated code for every --target this machine can run, built
# by every C compiler it has, checked against PyTorch.
#
# For each target (host and c99 always; x86-64-v3 and x86-64-v4 on x86-64,
# armv8 on arm64) and each selection strategy that puts different primitive
# rows on the layers (the default and one per family), dnncc compiles
# samples/fashion_mnist/fashion_cnn.onnx; the output is built with gcc and
# clang (those installed) under -std=c99 -O2 -Wall -Wextra -pedantic -Wundef
# -Werror, linked with the sample's demo and run: the demo fails when any
# output differs from PyTorch's by more than its tolerance. A target whose
# instructions the CPU lacks (AVX2 + FMA for x86-64-v3, AVX-512F for
# x86-64-v4) is still compiled, as the emitter promises, but not run.
#
# usage: targets.sh [OUTDIR]   (default tests/targets-out, emptied first)
# environment (make check sets them): DNNCC (default ./dnncc), abs_top_srcdir
# (default: the folder above this script), TARGETS_CC (compilers to use,
# default "gcc clang"), TARGETS_STRATEGIES (default below).
set -eu

out=${1-tests/targets-out}
srcdir=$(cd "${abs_top_srcdir:-$(dirname "$0")/..}" && pwd)
dnncc=${DNNCC:-./dnncc}
case $dnncc in /*) ;; *) dnncc=$(pwd)/$dnncc ;; esac
sample=$srcdir/samples/fashion_mnist
compilers=${TARGETS_CC:-gcc clang}
strategies=${TARGETS_STRATEGIES:-greedy family:direct family:im2 family:kn2 family:winograd family:fft}
cflags="-std=c99 -O2 -Wall -Wextra -pedantic -Wundef -Werror"

has_flag() { grep -qw "$1" /proc/cpuinfo 2>/dev/null; }

# "target run?" pairs
targets="host:1 c99:1"
case $(uname -m) in
x86_64 | amd64)
	v3=0 v4=0
	if has_flag avx2 && has_flag fma; then v3=1; fi
	if has_flag avx512f; then v4=1; fi
	targets="$targets x86-64-v3:$v3 x86-64-v4:$v4"
	;;
aarch64 | arm64)
	targets="$targets armv8:1"
	;;
esac

rm -rf "$out"
mkdir -p "$out"
failed=0 ran=0 built=0
for cc in $compilers; do
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "SKIP $cc: not installed"
		continue
	fi
	for t in $targets; do
		target=${t%:*} runs=${t#*:}
		for s in $strategies; do
			dir=$out/$cc-$target-$(echo "$s" | tr : -)
			mkdir -p "$dir"
			what="$cc --target $target --strategy $s"
			if ! "$dnncc" "$sample/fashion_cnn.onnx" -o "$dir/fashion_cnn.c" --target "$target" \
				--strategy "$s" --report >"$dir/log.txt" 2>&1; then
				echo "FAIL $what: dnncc failed"
				cat "$dir/log.txt"
				failed=$((failed + 1))
				continue
			fi
			# shellcheck disable=SC2086
			if ! (cd "$dir" && $cc $cflags -I. fashion_cnn.c "$sample/demo.c" -o demo -lm) \
				>>"$dir/log.txt" 2>&1; then
				echo "FAIL $what: the generated code does not compile cleanly"
				cat "$dir/log.txt"
				failed=$((failed + 1))
				continue
			fi
			built=$((built + 1))
			if [ "$runs" = 0 ]; then
				echo "ok   $what (built; this CPU cannot run it)"
				continue
			fi
			if ! "$dir/demo" "$sample" >>"$dir/log.txt" 2>&1; then
				echo "FAIL $what: outputs differ from PyTorch's"
				cat "$dir/log.txt"
				failed=$((failed + 1))
				continue
			fi
			ran=$((ran + 1))
			echo "ok   $what ($(grep -o 'max |dnncc - PyTorch| = [^ ]*' "$dir/log.txt"))"
		done
	done
done
echo "$built built, $ran run against PyTorch, $failed failed"
[ "$failed" = 0 ] && [ "$built" -gt 0 ]
