#!/bin/sh
# profile.sh - measured costs end to end (issue 8), on the Fashion-MNIST
# sample with one timed run per case (--runs 1) and a private cache
# (DNNCC_CACHE_DIR):
#   1. dnncc profile measures every case and writes a table with prim and
#      transform rows for both convolution layers;
#   2. a second profile measures nothing ("0 measured");
#   3. --costs with a table where one row is made absurdly cheap picks that
#      row (checked for two different rows, so the pick follows the table),
#      and the generated file's header names the table;
#   4. rows missing from a table fall back to the built-in model and
#      --report counts them;
#   5. a malformed table and a target this machine cannot run are refused
#      with a message and no output file (and a table for another
#      instruction set is warned about);
#   6. --profile compiles in one step, measuring only what the cache lacks;
#   7. --emit-harness writes a harness that builds with
#      cc -std=c99 -Wall -Wextra -pedantic -Werror and whose output --costs
#      accepts;
#   8. --no-cache measures everything again;
#   9. a Caffe model's --batch reaches the scenario keys;
#  10. --llc decides whether the harness evicts the weights: a cache smaller
#      than what one call touches makes it time them from memory, a native
#      profile reads this machine's cache, and --llc is refused in a plain
#      compile;
#  11. --threads 2 measures on the thread pool, on the wall clock, into a
#      cache file of its own; its table is quiet at --threads 2 and warned
#      about at --threads 3; the threaded --emit-harness builds strictly;
#  12. a harness that crashes inside a layer's group of rows (timed
#      interleaved, printed together) is reported with the case it was
#      timing, and leaves no table;
#  13. a native profile takes the cache size from sysfs (a fake tree through
#      $DNNCC_SYSFS_CPU) and, for a model over 16 MiB that the reported
#      cache holds, reads the model's size twice to see whether this
#      machine really keeps it, its verdict following the rates it prints;
#      no such check for a small model or under --llc.
# Environment (make check sets them): DNNCC, CC, DNNCC_SRCDIR.
set -u
DNNCC=${DNNCC:-./dnncc}
CC=${CC:-cc}
src=${DNNCC_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
model=$src/samples/fashion_mnist/fashion_cnn.onnx
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
DNNCC_CACHE_DIR=$out/cache
export DNNCC_CACHE_DIR CC
fail=0
pass() { echo "PASS: $1"; }
failed() {
	echo "FAIL: $1"
	fail=1
}
# The primitive --report shows for a node (the last column).
picked() { awk -v n="$1" '$1 == n { print $NF }' "$2"; }

# 1. profile from an empty cache
if "$DNNCC" profile "$model" -o "$out/costs.tsv" --runs 1 >"$out/p1.out" 2>"$out/p1.err" &&
	grep -q '^dnncc profile: [1-9][0-9]* measured, 0 from cache' "$out/p1.err" &&
	grep -q '^# machine: ' "$out/costs.tsv" && grep -q '^# threads: 1$' "$out/costs.tsv" &&
	[ "$(grep -c '^prim	' "$out/costs.tsv")" -gt 10 ] &&
	[ "$(grep -c '^transform	' "$out/costs.tsv")" -gt 10 ] &&
	[ "$(grep '^prim	' "$out/costs.tsv" | cut -f3 | sort -u | wc -l)" -eq 2 ]; then
	pass "profile measures $(grep -c -v '^#' "$out/costs.tsv") cases on 2 layers"
else
	failed "first profile"
	cat "$out/p1.err"
fi

# 2. the same model again: everything from the cache
if "$DNNCC" profile "$model" -o "$out/again.tsv" --runs 1 2>"$out/p2.err" &&
	grep -q '^dnncc profile: 0 measured, [1-9][0-9]* from cache' "$out/p2.err" &&
	[ "$(grep -v '^#' "$out/again.tsv")" = "$(grep -v '^#' "$out/costs.tsv")" ]; then
	pass "second profile measures nothing"
else
	failed "cached profile"
	cat "$out/p2.err"
fi

# 3. a row made absurdly cheap is chosen
conv1_key=$(awk -F '\t' '$1 == "prim" && $3 ~ /^1,1,28,28,/ { print $3; exit }' "$out/costs.tsv")
for row in conv_sum2d_chw conv_direct_mcuvij_chw; do
	awk -F '\t' -v OFS='\t' -v r="$row" -v k="$conv1_key" \
		'$1 == "prim" && $2 == r && $3 == k { $4 = $5 = $6 = "0.001" } { print }' \
		"$out/costs.tsv" >"$out/cheap.tsv"
	mkdir -p "$out/c-$row"
	if grep -q "	$row	$conv1_key	0.001	" "$out/cheap.tsv" &&
		"$DNNCC" "$model" -o "$out/c-$row/m.c" --costs "$out/cheap.tsv" --report \
			>"$out/c-$row/report" 2>&1 &&
		[ "$(picked /net/conv1/Conv "$out/c-$row/report")" = "$row" ] &&
		grep -q "costs: measured: $out/cheap.tsv (" "$out/c-$row/report" &&
		grep -q "^ \* costs: *measured: $out/cheap.tsv" "$out/c-$row/m.c" &&
		[ "$(awk '/^\/\* Layer [0-9]+: node .\/net\/conv1\/Conv/ { f = 1 }
			f && / \* primitive: / { sub(/,.*/, ""); print $3; exit }' "$out/c-$row/m.c")" = "$row" ]; then
		pass "--costs picks $row when the table says it is cheapest"
	else
		failed "--costs with $row made cheap"
		cat "$out/c-$row/report"
	fi
done

# 4. missing rows fall back to the built-in model, and are counted
grep -v "	$conv1_key	" "$out/costs.tsv" >"$out/partial.tsv"
mkdir -p "$out/partial"
if "$DNNCC" "$model" -o "$out/partial/m.c" --costs "$out/partial.tsv" --report \
	>"$out/partial/report" 2>&1 &&
	grep -q 'distinct costs from the table, [1-9][0-9]* from the built-in model' \
		"$out/partial/report" &&
	"$DNNCC" "$model" -o "$out/partial/m.c" --costs "$out/costs.tsv" --report \
		>"$out/partial/full" 2>&1 &&
	grep -q 'distinct costs from the table, 0 from the built-in model' "$out/partial/full"; then
	pass "missing rows fall back to the built-in model and are counted"
else
	failed "fallback counts"
	cat "$out/partial/report"
fi

# a table measured for another instruction set is used, with a warning
sed 's/^# isa: .*/# isa: armv8 (RT_SGEMM_ISA_NEON)/' "$out/costs.tsv" >"$out/neon.tsv"
if "$DNNCC" "$model" -o "$out/partial/m.c" --costs "$out/neon.tsv" --target c99 \
	2>"$out/partial/isa" &&
	grep -q "warning: $out/neon.tsv was measured for armv8 (RT_SGEMM_ISA_NEON), but the target is c99" \
		"$out/partial/isa"; then
	pass "a table for another instruction set is warned about"
else
	failed "--costs with another --target"
	cat "$out/partial/isa"
fi

# 5. refusals: a malformed table (line-numbered), a foreign target
mkdir -p "$out/bad"
sed '12s/	[^	]*$/	many/' "$out/costs.tsv" >"$out/bad.tsv"
if ! "$DNNCC" "$model" -o "$out/bad/m.c" --costs "$out/bad.tsv" 2>"$out/bad/err" &&
	grep -q "^$out/bad.tsv: line 12: runs 'many' is not a positive integer" "$out/bad/err" &&
	[ ! -e "$out/bad/m.c" ] && [ ! -e "$out/bad/m.h" ]; then
	pass "a malformed table is refused with its line number"
else
	failed "malformed table"
	cat "$out/bad/err"
fi
case $(uname -m) in
aarch64 | arm*) foreign=x86-64-v4 ;;
*) foreign=armv8 ;;
esac
if ! "$DNNCC" profile "$model" -o "$out/foreign.tsv" --target $foreign 2>"$out/foreign.err" &&
	grep -q "this machine cannot run code for --target $foreign" "$out/foreign.err" &&
	[ ! -e "$out/foreign.tsv" ]; then
	pass "profiling for a target this machine cannot run is refused"
else
	failed "--target $foreign"
	cat "$out/foreign.err"
fi

# 6. --profile: profile through the cache, then compile; the cache lost the
# second layer's rows, so exactly those are measured again
mkdir -p "$out/one"
cache=$(ls "$DNNCC_CACHE_DIR"/costs-*.tsv)
conv2_key=$(awk -F '\t' '$1 == "prim" && $3 != k { print $3; exit }' k="$conv1_key" "$out/costs.tsv")
lost=$(grep -c "	$conv2_key	" "$cache")
total=$(grep -c -v '^#' "$out/costs.tsv")
grep -v "	$conv2_key	" "$cache" >"$out/cache.tmp" && mv "$out/cache.tmp" "$cache"
if [ "$lost" -gt 0 ] &&
	"$DNNCC" "$model" -o "$out/one/m.c" --profile --runs 1 --report >"$out/one/report" \
	2>"$out/one/err" &&
	grep -q "^dnncc profile: $lost measured, $((total - lost)) from cache" "$out/one/err" &&
	[ "$(grep -c "	$conv2_key	" "$cache")" = "$lost" ] &&
	grep -q 'costs: measured: --profile, cached in' "$out/one/report" &&
	grep -q 'distinct costs from the table, 0 from the built-in model' "$out/one/report"; then
	pass "--profile measures only the $lost rows the cache lacks, then compiles"
else
	failed "--profile"
	cat "$out/one/err" "$out/one/report"
fi

# 7. --emit-harness: a harness to carry to another board
if "$DNNCC" profile "$model" --emit-harness "$out/harness" 2>"$out/h.err" &&
	[ -f "$out/harness/Makefile" ] &&
	(cd "$out/harness" && $CC -std=c99 -Wall -Wextra -pedantic -Werror -O0 \
		-DHARNESS_CFLAGS='"-O0"' -o harness harness.c -lm) 2>"$out/h.cc" &&
	"$out/harness/harness" --runs 1 --budget-ms 1 >"$out/board.tsv" 2>"$out/h.run" &&
	[ "$(grep -c -v '^#' "$out/board.tsv")" = "$(grep -c -v '^#' "$out/costs.tsv")" ] &&
	mkdir -p "$out/board" &&
	"$DNNCC" "$model" -o "$out/board/m.c" --costs "$out/board.tsv" --report \
		>"$out/board/report" 2>&1 &&
	grep -q 'distinct costs from the table, 0 from the built-in model' "$out/board/report"; then
	pass "--emit-harness builds strictly, runs, and its table is accepted"
else
	failed "--emit-harness"
	cat "$out/h.err" "$out/h.cc" "$out/h.run" 2>/dev/null
fi
# 7b. --evict-weights (what profile passes for a model whose weights exceed
#     the cache): the same cases, timed, with the cache state in the header;
#     also built with the line flush hidden (the portable fallback)
for def in "" "-DHARNESS_NO_LINE_FLUSH -DHARNESS_EVICT_BYTES=(4u<<20)"; do
	if (cd "$out/harness" && $CC -std=c99 -Wall -Wextra -pedantic -Werror -O0 $def \
		-DHARNESS_CFLAGS='"-O0"' -o harness_ev harness.c -lm) 2>"$out/h.cc" &&
		"$out/harness/harness_ev" --runs 2 --budget-ms 1 --evict-weights \
			>"$out/evict.tsv" 2>"$out/h.run" &&
		grep -q '^# cache: net (input in cache, weights, workspace and output from memory)' \
			"$out/evict.tsv" &&
		[ "$(grep -c -v '^#' "$out/evict.tsv")" = "$(grep -c -v '^#' "$out/costs.tsv")" ] &&
		! awk -F'\t' '!/^#/ && !($4 > 0) { bad = 1 } END { exit !bad }' "$out/evict.tsv"; then
		pass "harness --evict-weights times every case${def:+ (fallback flush)}"
	else
		failed "harness --evict-weights${def:+ (fallback flush)}"
		cat "$out/h.cc" "$out/h.run" 2>/dev/null
	fi
done
# 8. --no-cache measures everything again, though the cache has it all
if "$DNNCC" profile "$model" -o "$out/fresh.tsv" --runs 1 --no-cache 2>"$out/nc.err" &&
	grep -q "^dnncc profile: $total measured, 0 from cache" "$out/nc.err"; then
	pass "--no-cache measures all $total cases again"
else
	failed "--no-cache"
	cat "$out/nc.err"
fi

# A Caffe model of one convolution: one_conv NAME C H M K (C x H x H input,
# M outputs, K x K kernel)
one_conv() {
	printf 'name: "%s"\ninput: "data"\ninput_shape {\n  dim: 1 dim: %s dim: %s dim: %s\n}\n' \
		"$1" "$2" "$3" "$3"
	printf 'layer {\n  name: "conv"\n  type: "Convolution"\n  bottom: "data"\n  top: "conv"\n'
	printf '  convolution_param {\n    num_output: %s\n    kernel_size: %s\n  }\n}\n' "$4" "$5"
}
# 9. a Caffe model with --batch and random weights: the batch is in the keys
one_conv tiny 4 6 4 1 >"$out/tiny.prototxt"
if "$DNNCC" profile "$out/tiny.prototxt" --random-weights 1 --batch 2 \
	--emit-harness "$out/tiny" 2>"$out/tiny.err" &&
	grep -q '^	{"prim", "conv_sum2d_chw", "2,4,6,6,4,6,6,1,1,1,1,1,1,0,0,1,0", ' \
		"$out/tiny/harness.c" &&
	grep -q '^	{"transform", "layout_chw_to_hwc", "2,4,6,6", ' "$out/tiny/harness.c"; then
	pass "a Caffe model's batch reaches the harness's keys"
else
	failed "Caffe profile"
	cat "$out/tiny.err"
fi
# 10. --llc: the eviction follows the target's cache, not a fixed size
"$DNNCC" profile "$model" --llc 64K --emit-harness "$out/llc_small" 2>"$out/llc1.err"
"$DNNCC" profile "$model" --llc 64 --emit-harness "$out/llc_big" 2>"$out/llc2.err"
if grep -q 'cache is 0.1 MiB (--llc): weights timed from memory' "$out/llc1.err" &&
	grep -q 'harness --evict-weights' "$out/llc_small/Makefile" &&
	grep -q 'cache is 64.0 MiB (--llc): weights timed in cache' "$out/llc2.err" &&
	! grep -q 'evict' "$out/llc_big/Makefile" &&
	grep -q 'weights timed in cache' "$out/p1.err" &&
	! "$DNNCC" "$model" -o "$out/llc.c" --llc 8 2>"$out/llc3.err" &&
	grep -q -- '--llc measures costs' "$out/llc3.err" && [ ! -e "$out/llc.c" ] &&
	! "$DNNCC" profile "$model" --llc 0 -o "$out/llc.tsv" 2>"$out/llc4.err" &&
	grep -q 'expected a cache size' "$out/llc4.err"; then
	pass "--llc decides whether weights are timed from memory"
else
	failed "--llc"
	cat "$out/llc1.err" "$out/llc2.err" "$out/llc3.err" "$out/llc4.err"
fi

# 10b. under --evict-weights, each case with a workspace of 64 KiB or more
#      is timed a second time, "warm" (workspace and output in the cache):
#      the harness prints a warm row for exactly the cases dnncc marked,
#      each beside its prim row, with the line flush and without, and the
#      table is accepted; without --evict-weights there are no twins
one_conv ws 16 40 16 3 >"$out/ws.prototxt"
"$DNNCC" profile "$out/ws.prototxt" --random-weights 1 --llc 64K --emit-harness "$out/ws" \
	2>"$out/ws.err"
n_warm=$(grep -c '^	{"prim", .*, 1},$' "$out/ws/harness.c")
ws_ok=1
for def in "" "-DHARNESS_NO_LINE_FLUSH -DHARNESS_EVICT_BYTES=(4u<<20)"; do
	if (cd "$out/ws" && $CC -std=c99 -Wall -Wextra -pedantic -Werror -O0 $def \
		-DHARNESS_CFLAGS='"-O0"' -o harness harness.c -lm) 2>"$out/ws.cc" &&
		"$out/ws/harness" --runs 1 --budget-ms 1 --evict-weights >"$out/ws.tsv" 2>"$out/ws.run" &&
		[ "$n_warm" -gt 0 ] &&
		[ "$(grep -c '^warm	' "$out/ws.tsv")" = "$n_warm" ] &&
		[ "$(grep -c '^prim	' "$out/ws.tsv")" = "$(grep -c '^	{"prim", ' "$out/ws/harness.c")" ] &&
		! grep '^warm	' "$out/ws.tsv" | cut -f2,3 | while IFS= read -r rk; do
			grep -q -F "prim	$rk	" "$out/ws.tsv" || echo "no prim row: $rk"; done | grep -q . &&
		"$DNNCC" "$out/ws.prototxt" --random-weights 1 -o "$out/ws.c" --costs "$out/ws.tsv" \
			2>"$out/ws.sel" &&
		"$out/ws/harness" --runs 1 --budget-ms 1 >"$out/ws_net.tsv" 2>/dev/null &&
		! grep -q '^warm	' "$out/ws_net.tsv"; then
		:
	else
		ws_ok=0
		cat "$out/ws.err" "$out/ws.cc" "$out/ws.run" "$out/ws.sel" 2>/dev/null
	fi
done
if [ $ws_ok = 1 ]; then
	pass "--evict-weights also times the $n_warm cases with a workspace warm"
else
	failed "warm workspace rows"
fi

# 10c. --report says which layers it priced warm: two 3 x 3 layers forced
#      to the same Winograd row, the second with the key of 10b's table,
#      whose warm row is set to half its prim row; the first has no row and
#      is priced cold, the second warm, with its cold price beside it
wrow=conv_winograd_f4x4_3x3_chw
{
	printf 'name: "two"\ninput: "data"\ninput_shape {\n  dim: 1 dim: 16 dim: 40 dim: 40\n}\n'
	for l in "first data 1" "second first 0"; do
		set -- $l
		printf 'layer {\n  name: "%s"\n  type: "Convolution"\n  bottom: "%s"\n  top: "%s"\n' \
			"$1" "$2" "$1"
		printf '  convolution_param {\n    num_output: 16\n    kernel_size: 3\n    pad: %s\n  }\n}\n' \
			"$3"
	done
} >"$out/two.prototxt"
awk -F '\t' -v OFS='\t' -v r="$wrow" 'NR == FNR { if ($1 == "prim" && $2 == r) p = $4; next }
	$1 == "warm" && $2 == r { $4 = $5 = $6 = p / 2 } { print }' \
	"$out/ws.tsv" "$out/ws.tsv" >"$out/two.tsv"
cold=$(awk -F '\t' -v r="$wrow" '$1 == "prim" && $2 == r { printf "%.2f", $4 }' "$out/two.tsv")
if [ -n "$cold" ] &&
	"$DNNCC" "$out/two.prototxt" --random-weights 1 -o "$out/two.c" --costs "$out/two.tsv" \
		--force-primitive first=$wrow --force-primitive second=$wrow --report \
		>"$out/two.report" 2>&1 &&
	grep -q " $wrow  *second (warm; $cold cold)\$" "$out/two.report" &&
	grep -q " $wrow  *first\$" "$out/two.report"; then
	pass "--report marks the layer priced warm and gives its cold price"
else
	failed "--report on a warm-priced layer"
	cat "$out/two.report" 2>/dev/null
fi

# 11. profiles at 2 threads
n_cache=$(ls "$DNNCC_CACHE_DIR"/costs-*.tsv | wc -l)
mkdir -p "$out/t2"
if "$DNNCC" profile "$model" -o "$out/t2.tsv" --threads 2 --runs 1 2>"$out/t2.err" &&
	grep -q "^dnncc profile: $total measured, 0 from cache" "$out/t2.err" &&
	grep -q '^# threads: 2$' "$out/t2.tsv" &&
	[ "$(ls "$DNNCC_CACHE_DIR"/costs-*.tsv | wc -l)" -eq $((n_cache + 1)) ] &&
	"$DNNCC" profile "$model" -o "$out/t2b.tsv" --threads 2 --runs 1 2>"$out/t2b.err" &&
	grep -q "^dnncc profile: 0 measured, $total from cache" "$out/t2b.err" &&
	"$DNNCC" "$model" -o "$out/t2/m.c" --costs "$out/t2.tsv" --threads 2 2>"$out/t2/quiet" &&
	! grep -q 'warning' "$out/t2/quiet" &&
	"$DNNCC" "$model" -o "$out/t2/m3.c" --costs "$out/t2.tsv" --threads 3 2>"$out/t2/warn" &&
	grep -q "warning: $out/t2.tsv was measured on 2 threads, but the code runs on 3" \
		"$out/t2/warn"; then
	pass "--threads 2 profiles on the pool into its own cache; other counts are warned about"
else
	failed "profile --threads 2"
	cat "$out/t2.err" "$out/t2b.err" "$out/t2/quiet" "$out/t2/warn" 2>/dev/null
fi
if "$DNNCC" profile "$model" --threads 2 --emit-harness "$out/h2" 2>"$out/h2.err" &&
	grep -q -- '-pthread' "$out/h2/Makefile" &&
	(cd "$out/h2" && $CC -std=c99 -Wall -Wextra -pedantic -Werror -O0 \
		-DHARNESS_CFLAGS='"-O0"' -o harness harness.c -lm -pthread) 2>"$out/h2.cc" &&
	"$out/h2/harness" --runs 1 --budget-ms 1 >"$out/board2.tsv" 2>"$out/h2.run" &&
	grep -q '^# threads: 2$' "$out/board2.tsv" && grep -q '^# clock: wall' "$out/board2.tsv" &&
	[ "$(grep -c -v '^#' "$out/board2.tsv")" = "$total" ] &&
	"$out/h2/harness" --runs 1 --budget-ms 1 --cache hot >"$out/hot2.tsv" 2>"$out/h2.run" &&
	[ "$(grep -c -v '^#' "$out/hot2.tsv")" = "$total" ]; then
	pass "the threaded --emit-harness builds strictly and times every case (net and hot)"
else
	failed "--emit-harness --threads 2"
	cat "$out/h2.err" "$out/h2.cc" "$out/h2.run" 2>/dev/null
fi
# 12. a crash in the third case (the first layer's rows are one group, so
# no row of it was printed): the message names that case's row and key,
# which are the third row of the full table of step 1 (same order)
crow=$(grep -v '^#' "$out/costs.tsv" | sed -n 3p | cut -f2)
ckey=$(grep -v '^#' "$out/costs.tsv" | sed -n 3p | cut -f3)
if ! DNNCC_CACHE_DIR=$out/cache12 CC="$CC -DHARNESS_CRASH_CASE=2" \
	"$DNNCC" profile "$model" -o "$out/crash.tsv" --runs 1 2>"$out/crash.err" &&
	grep -q "the profiling harness was interrupted or crashed measuring $crow on $ckey" \
		"$out/crash.err" && [ ! -e "$out/crash.tsv" ]; then
	pass "a crash is reported with the case it happened in ($crow)"
else
	failed "crash report"
	cat "$out/crash.err"
fi
# 13. the cache size from (a fake) sysfs, and the re-read check: a 20 MiB
# fully-connected layer under a reported 1 GiB cache, then under 8 MiB
fake_llc() {
	mkdir -p "$out/sys$1/cpu0/cache/index0" "$out/sys$1/cpu0/cache/index1"
	echo Instruction >"$out/sys$1/cpu0/cache/index0/type"
	echo 3 >"$out/sys$1/cpu0/cache/index0/level"
	echo 4194304K >"$out/sys$1/cpu0/cache/index0/size"
	echo Unified >"$out/sys$1/cpu0/cache/index1/type"
	echo 3 >"$out/sys$1/cpu0/cache/index1/level"
	echo "$1" >"$out/sys$1/cpu0/cache/index1/size"
}
fake_llc 1048576K
fake_llc 8192K
cat >"$out/fc.prototxt" <<'EOF'
name: "fc"
input: "data"
input_shape {
  dim: 1 dim: 2560
}
layer {
  name: "fc"
  type: "InnerProduct"
  bottom: "data"
  top: "fc"
  inner_product_param {
    num_output: 2048
  }
}
EOF
reread='^dnncc profile: 40.[01] MiB (2x that) read again at [0-9.]* GB/s against [0-9.]* GB/s for 4 MiB: '
# the verdict the printed rates call for ("memory" below 0.7 of the small
# buffer's rate), and the one printed
verdict() {
	grep "$reread" "$1" | awk '{ print ($10 < 0.7 * $13) ? "memory" : "cache" }'
}
said() {
	grep "$reread" "$1" | sed 's/.*: //' |
		awk '/from memory/ { print "memory" } /in cache/ { print "cache" }'
}
if DNNCC_SYSFS_CPU=$out/sys1048576K "$DNNCC" profile "$out/fc.prototxt" --random-weights 1 \
	-o "$out/fc.tsv" --runs 1 2>"$out/fc.err" &&
	grep -q 'touches 20.0 MiB .* cache is 1024.0 MiB (this machine.s largest cache): weights timed in cache' \
		"$out/fc.err" &&
	[ "$(grep -c "$reread" "$out/fc.err")" -eq 1 ] && [ -n "$(verdict "$out/fc.err")" ] &&
	[ "$(verdict "$out/fc.err")" = "$(said "$out/fc.err")" ] &&
	grep -q '^fc	gemm_fc	1,2048,2560	' "$out/fc.tsv" &&
	DNNCC_SYSFS_CPU=$out/sys8192K "$DNNCC" profile "$out/fc.prototxt" --random-weights 1 \
		-o "$out/fc8.tsv" --runs 1 2>"$out/fc8.err" &&
	grep -q 'cache is 8.0 MiB (this machine.s largest cache): weights timed from memory' \
		"$out/fc8.err" && ! grep -q 'read again' "$out/fc8.err" &&
	"$DNNCC" profile "$out/fc.prototxt" --random-weights 1 --llc 1024 \
		--emit-harness "$out/fc_llc" 2>"$out/fc_llc.err" && ! grep -q 'read again' "$out/fc_llc.err" &&
	DNNCC_SYSFS_CPU=$out/sys1048576K "$DNNCC" profile "$model" -o "$out/small.tsv" --runs 1 \
		2>"$out/small.err" && grep -q 'cache is 1024.0 MiB' "$out/small.err" &&
	! grep -q 'read again' "$out/small.err"; then
	pass "the cache size comes from sysfs; $(grep "$reread" "$out/fc.err" | sed 's/^dnncc profile: //')"
else
	failed "sysfs cache size and the re-read check"
	cat "$out/fc.err" "$out/fc8.err" "$out/fc_llc.err" "$out/small.err" 2>/dev/null
fi
exit $fail
