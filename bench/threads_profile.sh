#!/bin/sh
# threads_profile.sh - the best 2-thread speedup each network's split allows,
# from CPU time (bench/threads_profile.c says how); valid on a loaded machine.
#   bench/threads_profile.sh DIR RUNS TOP NET...
# DIR holds NET.onnx and NET.input.bin (bench-models' work folder, e.g.
# bench/models-out); run from the build directory (./dnncc).
set -e
dir=$1 runs=$2 top=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
dnncc=$(pwd)/dnncc
for net in "$@"; do
	w=$dir/$net.prof
	rm -rf "$w"
	mkdir -p "$w"
	"$dnncc" "$dir/$net.onnx" -o "$w/model.c" --name model --threads 2 --instrument >/dev/null
	(cd "$w" && ${CC:-cc} -std=gnu99 -O2 -I. -DDNNCC_PROFILE_CLOCK=CLOCK_THREAD_CPUTIME_ID \
		-o prof "$here/threads_profile.c" -lm -lpthread)
	echo "== $net"
	(cd "$w" && ./prof "$dir/$net.input.bin" "$runs" "$top")
done
