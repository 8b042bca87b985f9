#!/bin/sh
# check.sh - models that once came out wrong from a C compiler's optimiser,
# built the way a user builds them and checked against stored outputs.
#
# se_gate_gcc12: a random graph (tests/random/gen.py, seed 7, graph 0: an SE
# gate Mul(Sigmoid(GlobalAveragePool(x)), x) with both operands in the
# arena, then Flatten, Gemm + Relu, Softmax). With every tensor's address a
# constant in NAME_run, gcc 12.2 -O2 cloned rt_chan_binary's AVX-512 body
# for those addresses, its pure-const analysis took an address the
# vectorised loop computed for a null access, and the call was dropped:
# the Mul wrote nothing (clang and gcc -O1 were right). NAME_run now reaches
# the arena and the weights through bases the optimiser cannot see
# (backend/emit_print.c print_bases).
#
# Each model is compiled by dnncc under the default strategy (pbqp) and
# under greedy, for the host and for x86-64-v3 and c99 where the host is
# x86-64, and each C file by gcc and clang (those present; $CC when neither
# is) at -O2 and -O3 with -std=c99; outputs (tests/harness.c) must match the
# stored ones (float64 references of gen.py rounded to float32) within
# 1e-4 of each output's largest magnitude, the random suite's bound
# (tests/e2e/compare.py, with numpy).
# Environment (make check sets them): DNNCC, CC; REGRESS_PYTHON (default
# /usr/bin/python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/testlib.sh
. "$here/../testlib.sh"
cases_init regress

compilers=
for c in gcc clang; do
	command -v "$c" >/dev/null 2>&1 && compilers="$compilers $c"
done
[ -n "$compilers" ] || compilers=$CC
targets=host
case $(uname -m) in x86_64) targets="host x86-64-v3 c99" ;; esac

# tests/e2e/compare.py GOT WANT TOL: max |got - want| within TOL of max |want|
PY=${REGRESS_PYTHON:-/usr/bin/python3}

run_case() {
	c=$1
	case_dir "$c"
	ok=1
	nout=$(ls "$here/$c".out*.bin | wc -l)
	for strategy in pbqp greedy; do
		for target in $targets; do
			topt=
			[ "$target" = host ] || topt="--target $target"
			# shellcheck disable=SC2086 # topt is empty or two words
			"$DNNCC" "$here/$c.onnx" -o "$d/model.c" --name model --strategy $strategy $topt \
				>>"$d/log" 2>&1 || { echo "dnncc $strategy $target failed" >>"$d/log"; ok=0; continue; }
			for cc in $compilers; do
				for o in -O2 -O3; do
					label="$strategy $target $cc $o"
					(cd "$d" && $cc -std=c99 $o -I. -o run model.c "$top_srcdir/tests/harness.c" -lm) \
						>>"$d/log" 2>&1 || { echo "$label: does not build" >>"$d/log"; ok=0; continue; }
					outs=
					k=0
					while [ "$k" -lt "$nout" ]; do
						outs="$outs $d/out$k.bin"
						k=$((k + 1))
					done
					# shellcheck disable=SC2086 # outs: file names without spaces
					"$d/run" "$here/$c.in.bin" $outs >>"$d/log" 2>&1 ||
						{ echo "$label: does not run" >>"$d/log"; ok=0; continue; }
					k=0
					while [ "$k" -lt "$nout" ]; do
						if ! "$PY" "$top_srcdir/tests/e2e/compare.py" "$d/out$k.bin" \
							"$here/$c.out$k.bin" 1e-4 >>"$d/log" 2>&1; then
							echo "$label: output $k differs" >>"$d/log"
							ok=0
						fi
						k=$((k + 1))
					done
				done
			done
		done
	done
	if [ "$ok" = 1 ]; then pass "$c"; else cat "$d/log"; fail "$c"; fi
}

cases_run se_gate_gcc12
