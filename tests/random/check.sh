#!/bin/sh
# check.sh - the random-graph suite as make check runs it (tests/random/run.py
# says what a build is and when it passes).
#
# Runs RANDOM_COUNT random graphs of gen.py with seed RANDOM_SEED, each under
# every strategy plus two random --force-primitive builds, and the first
# RANDOM_PROFILED (default 2) graphs one PBQP build on costs profiled at 2
# threads and checked against GLPK: with the defaults (seed 7, 18 graphs) 250
# builds (graphs without a Conv get no forced ones), 327 with the 77 of the
# fixed issue-7 graphs in tests/random/issue7.sh.
# Failing models go to $DNNCC_BUILDDIR/tests/random/failures/ with a replay
# script.
#
# Environment: DNNCC, DNNCC_SRCDIR, DNNCC_BUILDDIR, CC (make check sets them);
# RANDOM_SEED, RANDOM_COUNT, RANDOM_FIRST, RANDOM_JOBS (parallel C compiles,
# default 1), RANDOM_PROFILED, RANDOM_ARGS (more run.py options). Exits 77
# (skipped) without /usr/bin/python3 with numpy, torch and onnx.

set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/testlib.sh
. "$here/../testlib.sh"
models_env
PY=/usr/bin/python3

if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy, torch, onnx' 2>/dev/null; then
	echo "check.sh: skipped: $PY with numpy, torch and onnx is needed"
	exit 77
fi
mkdir -p "$builddir/tests/random"
exec "$PY" "$srcdir/tests/random/run.py" --dnncc "$DNNCC" --cc "${CC:-cc}" \
	--seed "${RANDOM_SEED:-7}" --first "${RANDOM_FIRST:-0}" --count "${RANDOM_COUNT:-18}" \
	--jobs "${RANDOM_JOBS:-1}" --profiled "${RANDOM_PROFILED:-2}" \
	--work "$builddir/tests/random/work" --faildir "$builddir/tests/random/failures" \
	${RANDOM_ARGS:-}
