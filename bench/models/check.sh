#!/bin/sh
# check.sh - make check's guard on the tooling of `make bench-models`: the
# MLPerf Tiny autoencoder (the cheapest network) through bench_models.py with
# dnncc and PyTorch at one thread, three timed calls, no peak measurement.
# Fails when the script fails, when either engine's row is not "ok", when
# dnncc's output differs from PyTorch's by more than 1e-4 of its largest
# value, or when the FLOP count of the ONNX graph is not the autoencoder's
# 2 x 4 x 264,192 multiply-adds (batch 4). Skipped (77) without Debian's
# python3-torch/python3-onnx.
# Environment (make check sets it): DNNCC, DNNCC_SRCDIR, DNNCC_BUILDDIR.
set -u
PY=/usr/bin/python3
srcdir=${DNNCC_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${DNNCC_BUILDDIR:-$(pwd)}
DNNCC=${DNNCC:-$builddir/dnncc}
if ! "$PY" -c 'import numpy, torch, onnx' >/dev/null 2>&1; then
	echo "SKIP: $PY cannot import numpy, torch and onnx"
	exit 77
fi
out=$builddir/bench/models-check
rm -rf "$out" && mkdir -p "$out" || exit 1
if ! "$PY" "$srcdir/bench/models/bench_models.py" --model autoencoder --engine dnncc,pytorch \
	--threads 1 --runs 3 --min-time 0 --out "$out/results" --work "$out/work" \
	--dnncc "$DNNCC" --dnncc-flags "" --peak "" >"$out/log" 2>&1; then
	cat "$out/log"
	echo "FAIL: bench_models.py failed"
	exit 1
fi
cat "$out/log"
awk -F '\t' '
	/^#/ { next }
	!head { for (i = 1; i <= NF; i++) col[$i] = i; head = 1; next }
	{
		key = $col["model"] " " $col["engine"] " " $col["threads"]
		if ($col["status"] != "ok") { print "FAIL: " key ": status " $col["status"]; bad = 1 }
		if ($col["rel_err"] == "" || $col["rel_err"] + 0 > 1e-4) {
			print "FAIL: " key ": relative error " $col["rel_err"]; bad = 1
		}
		if ($col["gflop"] + 0 != 0.00211354) {
			print "FAIL: " key ": GFLOP " $col["gflop"] ", expected 0.00211354"; bad = 1
		}
		if ($col["median_ms"] + 0 <= 0) { print "FAIL: " key ": no median"; bad = 1 }
		seen[key] = 1
	}
	END {
		if (!("autoencoder dnncc 1" in seen) || !("autoencoder pytorch 1" in seen)) {
			print "FAIL: rows missing from models.tsv"; bad = 1
		}
		exit bad
	}' "$out/results/models.tsv" || exit 1
grep -q '^| autoencoder |' "$out/results/models.md" || {
	echo "FAIL: models.md has no autoencoder row"
	exit 1
}
echo "PASS: bench-models tooling on the autoencoder"
