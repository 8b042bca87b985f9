#!/bin/sh
# check.sh - the first call after NAME_init meets no fresh pages (issue 9:
# first call within 1.5x of a steady one). Not a timing test: it counts minor
# page faults (getrusage ru_minflt) across the first NAME_run with
# tests/first_call/driver.c, on samples/fashion_train/mlp_init.onnx pinned to
# batch 128 (weights embedded, 0.9 MiB; arena 0.55 MiB with the SGEMM
# workspaces):
#
#  mlp_1t   after m_init() the first call takes no fault (m_init ends with
#           a warm-up call on zero inputs, which meets the code's pages
#           first), and built with -DM_NO_WARM_UP at most MAX_FAULTS (what
#           remains is a few pages of code first run there: 3 on a Zen 4
#           VM, kernel 6.x), while without m_init() it takes at least
#           MIN_FAULTS (so the model is big enough for the count to mean
#           something), and a second call takes none.
#  mlp_2t   the same with --threads 2 (m_init starts the pool and the threads
#           write the arena).
#
# Run by `make check` from the build tree, or by hand:
# DNNCC=path/to/dnncc tests/first_call/check.sh [CASE...]. Logs go to
# tests/first_call/out/CASE/log; the last line says "N passed, N failed, N skipped".
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/testlib.sh
. "$here/../testlib.sh"
cases_init first_call
MAX_FAULTS=8
MIN_FAULTS=64

run_case() {
	c=$1
	case_dir "$c"
	case $c in
	mlp_1t) threads=1 ;;
	mlp_2t) threads=2 ;;
	*) echo "unknown case $c" >"$d/log"; fail "$c"; return ;;
	esac
	{
		"$DNNCC" "$top_srcdir/samples/fashion_train/mlp_init.onnx" --shape image=128,1,28,28 \
			--weights embed --threads $threads -o "$d/m.c" &&
		(cd "$d" && $CC -std=c99 -O2 -pthread -I. -o drv m.c "$here/driver.c" -lm &&
			$CC -std=c99 -O2 -pthread -I. -DM_NO_WARM_UP -o drv_cold m.c "$here/driver.c" -lm) &&
		with=$("$d/drv" init) && cold=$("$d/drv_cold" init) && without=$("$d/drv" noinit) &&
		echo "faults (first call, second call): after m_init: $with;" \
			"after m_init without its warm-up: $cold; without m_init: $without" &&
		set -- $with $cold $without &&
		[ "$1" -eq 0 ] && [ "$2" -eq 0 ] && [ "$3" -le $MAX_FAULTS ] && [ "$4" -eq 0 ] &&
		[ "$5" -ge $MIN_FAULTS ] && [ "$6" -eq 0 ]
	} >"$d/log" 2>&1 && pass "$c" || fail "$c"
}

cases_run ${*:-mlp_1t mlp_2t}
