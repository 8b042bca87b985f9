# shellcheck shell=sh disable=SC2034,SC2154 # sets and reads the sourcing script's variables
# testlib.sh - shell helpers the test scripts source (POSIX sh, not run alone).
#
# Case scripts (tests/caffe/run.sh, tests/robust/run.sh): a list of named
# cases, each logged to $out/CASE/log, counted PASS, FAIL or SKIP.
#   cases_init NAME     sets top_srcdir (from $here, the script's folder),
#                       DNNCC (absolute; exits 99 without one), CC,
#                       out=$PWD/tests/NAME/out and the counters.
#   case_dir CASE       sets d=$out/CASE, removed and created again
#   pass CASE, skip CASE WHY, fail CASE (shows the log's tail)
#   cases_run CASE...   calls the script's run_case on each, prints
#                       "N passed, N failed, N skipped" and exits 1 on a
#                       failure, 77 (skipped) when nothing passed, 0 otherwise.
#
# Model scripts (tests/e2e/run.sh, tests/families/run.sh): models exported
# by PyTorch into a cache directory, compiled, built and compared.
#   models_env          sets srcdir, builddir, DNNCC, CC (from make check's
#                       environment, or from $here and the current folder)
#                       and harness.
#   models_check IMPORTS PACKAGES
#                       exits 77 when $PY cannot import IMPORTS (a Python
#                       import list; PACKAGES names the Debian packages), 1
#                       without dnncc; creates $work and makes it absolute.
#   models_missing MODEL...
#                       prints the models whose .onnx, .input.bin or
#                       .output.bin is not in $work yet (export writes the
#                       .onnx last).
#   model_fail MSG...   counts a failure of model $m, whose files stay in $out.
#   models_summary      prints "N passed, N failed"; its status is 1 on a
#                       failure.

cases_init() {
	top_srcdir=$(cd "$here/../.." && pwd)
	DNNCC=${DNNCC:-$PWD/dnncc}
	CC=${CC:-cc}
	out=$PWD/tests/$1/out
	passed=0
	failed=0
	skipped=0
	case $DNNCC in /*) ;; *) DNNCC=$PWD/$DNNCC ;; esac
	if [ ! -x "$DNNCC" ]; then
		echo "run.sh: no dnncc at $DNNCC (set DNNCC)" >&2
		exit 99
	fi
	mkdir -p "$out"
}

# case_dir CASE: d=$out/CASE, emptied (a case's log and files start afresh)
case_dir() {
	d=$out/$1
	rm -rf "$d"
	mkdir -p "$d"
}

pass() { passed=$((passed + 1)); echo "PASS: $1"; }
skip() { skipped=$((skipped + 1)); echo "SKIP: $1 ($2)"; }
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1 (log: $out/$1/log)"
	tail -n 15 "$out/$1/log" | sed 's/^/    /'
}

cases_run() {
	for c in "$@"; do
		run_case "$c"
	done
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ] || exit 1
	[ "$passed" -gt 0 ] || exit 77
	exit 0
}

models_env() {
	srcdir=${DNNCC_SRCDIR:-$(cd "$here/../.." && pwd)}
	builddir=${DNNCC_BUILDDIR:-$(pwd)}
	DNNCC=${DNNCC:-$builddir/dnncc}
	CC=${CC:-cc}
	harness=$srcdir/tests/harness.c
	passed=0
	failed=0
}

models_check() {
	if ! "$PY" -c "import $1" >/dev/null 2>&1; then
		echo "SKIP: $PY cannot import $(echo "$1" | sed 's/, \([^,]*\)$/ and \1/') ($2)"
		exit 77
	fi
	if [ ! -x "$DNNCC" ]; then
		echo "FAIL: no dnncc binary at $DNNCC"
		exit 1
	fi
	mkdir -p "$work" || exit 1
	work=$(cd "$work" && pwd)
}

models_missing() {
	for mm in "$@"; do
		for f in "$mm.onnx" "$mm.input.bin" "$mm.output.bin"; do
			if [ ! -f "$work/$f" ]; then
				printf ' %s' "$mm"
				break
			fi
		done
	done
}

model_fail() {
	echo "FAIL $m: $*"
	echo "  (generated code and logs kept in $out)"
	failed=$((failed + 1))
}

models_summary() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
