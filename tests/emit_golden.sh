#!/bin/sh
# emit_golden.sh - shows that two dnncc binaries generate byte-identical code
# (`make check-emit-identical DNNCC_REF=/path/to/old/dnncc`; not in make check).
#
# For refactors that must not change behaviour (moving backend/emit.c's
# functions between files, replacing switch lists by the operator table):
# build the old tree, keep its dnncc, then run this with the new one. Every
# case of tests/emit_golden_cases.py (about 1250: the sample under every
# strategy and target, --threads 2, --instrument, --train, the e2e and
# families models where their caches exist, Caffe prototxts, random graphs and
# every ONNX backend node test, and `dnncc profile --emit-harness` on some)
# is compiled by both binaries, each called as
# `dnncc` from a directory of its own with the same relative -o, so the
# command line in the generated header is the same; the exit status, the
# messages and every file written (NAME.c, NAME.h, NAME.weights.bin, ...)
# must be identical. Prints one line per differing case and ends with
# "N identical (N of them refused by both), N differ"; exits 1 when any differ.
#
# Environment: DNNCC (new binary, default ./dnncc), DNNCC_REF (old binary,
# required), DNNCC_SRCDIR (default: this script's tree), E2E_DIR and
# FAMILIES_DIR (model caches of tests/e2e and tests/families, default under
# the build tree; missing ones are skipped), GOLDEN_FILTER (grep -E pattern
# on case labels), GOLDEN_JOBS (parallel cases, default 1), GOLDEN_WORK
# (scratch directory, default a fresh one under $TMPDIR, removed at the end).
# Needs /usr/bin/python3 with onnx, numpy and torch to list the cases.

set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = "--case" ]; then
	# One case: $2 = work dir, $3 = case line (LABEL TAB MODEL TAB OPTIONS).
	w=$2
	label=$(printf '%s\n' "$3" | cut -f1)
	model=$(printf '%s\n' "$3" | cut -f2)
	opts=$(printf '%s\n' "$3" | cut -f3)
	for side in ref new; do
		d=$w/$side/$label
		rm -rf "$d"
		mkdir -p "$d/out"
		# shellcheck disable=SC2086 # options are space-separated words
		case $opts in
		profile*) # dnncc profile's harness: emit_runtime() and the layers' calls
			(cd "$d" && PATH=$w/bin-$side:$PATH dnncc profile "$model" --emit-harness out/h \
				${opts#profile} >out/stdout.txt 2>out/stderr.txt; echo $? >out/status.txt) ;;
		*)
			(cd "$d" && PATH=$w/bin-$side:$PATH dnncc "$model" -o out/model.c $opts \
				>out/stdout.txt 2>out/stderr.txt; echo $? >out/status.txt) ;;
		esac
	done
	if diff -r "$w/ref/$label/out" "$w/new/$label/out" >"$w/$label.diff" 2>&1; then
		if [ "$(cat "$w/ref/$label/out/status.txt")" = 0 ]; then
			echo "same $label"
		else
			echo "same $label (refused by both)"
		fi
		rm -rf "$w/ref/$label" "$w/new/$label" "$w/$label.diff"
	else
		echo "DIFF $label (diff in $w/$label.diff)"
	fi
	exit 0
fi

srcdir=${DNNCC_SRCDIR:-$(cd "$here/.." && pwd)}
builddir=${DNNCC_BUILDDIR:-$(pwd)}
DNNCC=${DNNCC:-$builddir/dnncc}
PY=/usr/bin/python3
if [ -z "${DNNCC_REF:-}" ] || [ ! -x "$DNNCC_REF" ]; then
	echo "emit_golden.sh: set DNNCC_REF to the dnncc binary to compare against" >&2
	exit 2
fi
if ! "$PY" -c 'import onnx, numpy, torch' 2>/dev/null; then
	echo "emit_golden.sh: skipped: $PY with onnx, numpy and torch is needed" >&2
	exit 77
fi
if [ -n "${GOLDEN_WORK:-}" ]; then
	w=$GOLDEN_WORK
	mkdir -p "$w" || exit 1
	keep=1
else
	w=$(mktemp -d "${TMPDIR:-/tmp}/dnncc-golden-XXXXXX") || exit 1
	keep=0
fi
w=$(cd "$w" && pwd)
mkdir -p "$w/bin-ref" "$w/bin-new" "$w/models"
cp "$DNNCC_REF" "$w/bin-ref/dnncc" && cp "$DNNCC" "$w/bin-new/dnncc" || exit 1

"$PY" "$here/emit_golden_cases.py" "$srcdir" "$w/models" \
	"${E2E_DIR:-$builddir/tests/e2e-cache}" "${FAMILIES_DIR:-$builddir/tests/families-cache}" \
	>"$w/cases.txt" || exit 1
if [ -n "${GOLDEN_FILTER:-}" ]; then
	awk -F'\t' -v re="$GOLDEN_FILTER" '$1 ~ re' "$w/cases.txt" >"$w/cases.sel"
else
	cp "$w/cases.txt" "$w/cases.sel"
fi

tr '\n' '\0' <"$w/cases.sel" |
	xargs -0 -r -n 1 -P "${GOLDEN_JOBS:-1}" sh "$here/emit_golden.sh" --case "$w" >"$w/results.txt"
grep '^DIFF' "$w/results.txt"
same=$(grep -c '^same' "$w/results.txt")
differ=$(grep -c '^DIFF' "$w/results.txt")
refused=$(grep -c '^same.*refused by both' "$w/results.txt")
echo "$same identical ($refused of them refused by both), $differ differ"
if [ "$differ" -eq 0 ] && [ "$keep" -eq 0 ]; then
	rm -rf "$w"
fi
[ "$differ" -eq 0 ]
