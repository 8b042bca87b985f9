#!/bin/sh
# blas_openblas.sh - `dnncc --blas openblas`: the sample model compiled with
# each GEMM-based family forced, its GEMMs on cblas_sgemm, built strictly
# (-Werror) and linked with -lopenblas, must agree with PyTorch like the
# default build does (the demo's 1e-4 tolerance). Skipped (77) without
# OpenBLAS's cblas.h.
# Environment (make check sets them): DNNCC, CC, abs_top_srcdir.
set -u
DNNCC=${DNNCC:-./dnncc}
CC=${CC:-cc}
src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
sample=$src/samples/fashion_mnist
if ! printf '#include <cblas.h>\n' | $CC -E -x c - >/dev/null 2>&1; then
	echo "SKIP: no cblas.h (install libopenblas-dev)"
	exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0
fail=0
for strategy in family:im2 family:kn2 family:winograd family:fft; do
	dir=$out/${strategy#family:}
	mkdir -p "$dir"
	if "$DNNCC" "$sample/fashion_cnn.onnx" -o "$dir/fashion_cnn.c" --strategy "$strategy" \
		--blas openblas >"$dir/dnncc.log" 2>&1 &&
		(cd "$dir" && $CC -std=c99 -O2 -Wall -Wextra -pedantic -Werror -c fashion_cnn.c) &&
		$CC -std=c99 -O2 -I"$dir" "$sample/demo.c" "$dir/fashion_cnn.o" -lopenblas -lm \
			-o "$dir/demo" &&
		"$dir/demo" "$sample" >"$dir/demo.log" 2>&1; then
		echo "PASS: $strategy with --blas openblas: $(tail -2 "$dir/demo.log" | head -1)"
		pass=$((pass + 1))
	else
		echo "FAIL: $strategy with --blas openblas"
		cat "$dir/dnncc.log" "$dir/demo.log" 2>/dev/null
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
