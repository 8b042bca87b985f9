#!/bin/sh
# sanitized.sh TEST [ARGS...] - the test driver's LOG_COMPILER in a build
# configured with --enable-sanitizers: runs the test with leak checking on and
# fails it when its output holds a sanitizer report, whatever its exit status.
# Criterion forks a process per test and has already recorded the test's
# result when LeakSanitizer reports at that process's exit, so without this a
# leaking test would pass.
ASAN_OPTIONS=detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
UBSAN_OPTIONS=print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
export ASAN_OPTIONS UBSAN_OPTIONS
log=$(mktemp) || exit 99
"$@" >"$log" 2>&1
rc=$?
cat "$log"
if grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log" >/dev/null; then
	rm -f "$log"
	echo "sanitized.sh: $1: a sanitizer report above (exit status was $rc)"
	exit 1
fi
rm -f "$log"
exit "$rc"
