#!/bin/sh
# threads.sh - 1 against 2 threads, and first call against steady state, of
# dnncc's generated code on torchvision networks (make bench-threads).
#
# For each model: export it (tests/e2e/export_models.py, random weights with
# torch.manual_seed(0); vgg16 and resnet50, which that script does not know,
# the same way here), compile it with `dnncc --threads 2`, build it with
# `cc -O2` and bench/threads_run.c, and run that binary R times (fresh
# processes, alternating) at 1 and at 2 threads (model_set_threads). Each
# process prints model_init's time, the first call's, and the median of RUNS
# steady calls. Writes a table to bench/results/threads.md (override with
# OUT=...): per model the medians over the processes, the speedup, and the
# first call against the steady state; "init + first" is what the first call
# costs when nobody calls model_init (the page faults are then paid inside it).
#
# Environment: DNNCC, DNNCC_SRCDIR, DNNCC_BUILDDIR (make sets them); MODELS
# (default: alexnet vgg16 googlenet resnet18 resnet50 mobilenet_v2
# squeezenet1_1), RUNS (steady calls per process, default 10), R (processes
# per thread count, default 3), CC (default cc), E2E_DIR (model cache,
# default $DNNCC_BUILDDIR/tests/e2e-cache). Needs /usr/bin/python3 with torch
# and torchvision for models not in the cache.

set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${DNNCC_SRCDIR:-$(cd "$here/.." && pwd)}
builddir=${DNNCC_BUILDDIR:-$(pwd)}
DNNCC=${DNNCC:-$builddir/dnncc}
CC=${CC:-cc}
cache=${E2E_DIR:-$builddir/tests/e2e-cache}
models=${MODELS:-"alexnet vgg16 googlenet resnet18 resnet50 mobilenet_v2 squeezenet1_1"}
RUNS=${RUNS:-10}
R=${R:-3}
out=${OUT:-$srcdir/bench/results/threads.md}
work=$builddir/bench/threads-work
PY=/usr/bin/python3
mkdir -p "$cache" "$work" || exit 1

export_model() {
	case $1 in
	vgg16 | resnet50)
		"$PY" - "$cache" "$1" <<'EOF' || return 1
import os, sys, torch, torchvision
out, name = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
m = getattr(torchvision.models, name)(weights=None).eval()
x = torch.randn(1, 3, 224, 224)
tmp = os.path.join(out, name + ".onnx.tmp")
torch.onnx.export(m, x, tmp, opset_version=13, input_names=["input"], output_names=["output"])
os.rename(tmp, os.path.join(out, name + ".onnx"))
EOF
		;;
	*) "$PY" "$srcdir/tests/e2e/export_models.py" "$cache" "$1" >/dev/null || return 1 ;;
	esac
}

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
	echo "# dnncc generated code: 1 and 2 threads, first call and steady state"
	echo
	echo "CPU: $cpu, $(nproc) cores online; load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Built with \`dnncc MODEL --threads 2\`, \`$CC -O2\`; medians of $R processes per thread"
	echo "count, each the median of $RUNS steady calls after one first call (ms)."
	echo
	echo "| network | 1 thread | 2 threads | speedup | init (2 thr.) | first call (2 thr.) | first / steady | init + first / steady |"
	echo "|---|---|---|---|---|---|---|---|"
} > "$out.tmp"
for m in $models; do
	[ -f "$cache/$m.onnx" ] || export_model "$m" || { echo "$m: export failed"; continue; }
	d=$work/$m
	mkdir -p "$d"
	if ! "$DNNCC" "$cache/$m.onnx" -o "$d/model.c" --name model --threads 2 >"$d/dnncc.log" 2>&1 ||
	   ! (cd "$d" && $CC -O2 -std=c99 -DMODEL_THREADED -I. -o run model.c "$srcdir/bench/threads_run.c" -lm) \
	     >"$d/cc.log" 2>&1; then
		echo "$m: build failed (see $d)"
		continue
	fi
	: >"$d/t1"
	: >"$d/t2"
	for i in $(seq "$R"); do
		for t in 1 2; do
			"$d/run" "$RUNS" "$t" >>"$d/t$t" || echo "$m: run failed"
		done
	done
	s1=$(awk '{ print $3 }' "$d/t1" | median)
	s2=$(awk '{ print $3 }' "$d/t2" | median)
	init=$(awk '{ print $1 }' "$d/t2" | median)
	first=$(awk '{ print $2 }' "$d/t2" | median)
	awk -v m="$m" -v s1="$s1" -v s2="$s2" -v i="$init" -v f="$first" 'BEGIN {
		printf "| %s | %.1f | %.1f | %.2fx | %.1f | %.1f | %.2f | %.2f |\n", m, s1, s2, s1 / s2, i, f, f / s2, (i + f) / s2
	}' >>"$out.tmp"
	tail -1 "$out.tmp"
done
echo >>"$out.tmp"
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)." >>"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
