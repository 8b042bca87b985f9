#!/bin/sh
# run.sh - issue 9's non-convolution measurement: each model compiled by a
# "before" and an "after" dnncc with --instrument, built with cc -O2, timed by
# driver.c (median of 15 calls after a warm-up), and the share of the time
# spent in layers that are neither a convolution nor a layout transform, from
# the generated per-layer profile.
#   run.sh BEFORE_DNNCC AFTER_DNNCC MODEL.onnx...   (BEFORE_DNNCC "-": after only)
# Prints one line per model and dnncc: median ms, non-conv ms and share,
# transforms ms. Needs awk and cc.
set -eu
before=$1 after=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-16s %-7s %10s %12s %7s %12s\n' model dnncc median_ms nonconv_ms share transform_ms
for m in "$@"; do
	name=$(basename "$m" .onnx)
	for which in before after; do
		eval "dn=\$$which"
		[ "$dn" = - ] && continue
		d=$work/$name-$which
		mkdir -p "$d"
		"$dn" "$m" -o "$d/model.c" --name model --instrument >/dev/null
		(cd "$d" && ${CC:-cc} -O2 -I. -o run model.c "$here/driver.c" -lm)
		"$d/run" > "$d/out.txt"
		awk -v model="$name" -v which="$which" '
			$1 == "median_ms" { med = $2; next }
			$1 ~ /^[0-9]+$/ && NF >= 8 {
				# index node op primitive calls mean_us share estimate ratio
				op = $3; us = $6
				if (op == "Conv") conv += us
				else if (op == "dnncc.LayoutTransform") tr += us
				else other += us
			}
			END { printf "%-16s %-7s %10.2f %12.2f %6.1f%% %12.2f\n", model, which, med,
			             other / 1000, 100 * other / 1000 / med, tr / 1000 }' "$d/out.txt"
	done
done
