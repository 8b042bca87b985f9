#!/bin/sh
# verify_ilp.sh - --verify-ilp on the five networks of issue 8 (AlexNet,
# VGG-16, GoogLeNet, ResNet-50, MobileNetV2; torchvision models exported by
# tests/e2e/export_models.py into the end-to-end test's cache), once with the
# built-in cost model and once with a table measured by `dnncc profile`
# (tests/select/costs_xeon.tsv, committed; its header names the machine).
#
# For each run dnncc solves the selection's PBQP instance exactly and the
# same instance as an ILP with GLPK, and exits non-zero naming the instance
# when the two optima differ (passes/select.c, solve_pbqp). The test also
# reads --report: the solver must say "proven optimal" and "the ILP agrees",
# and with the table, costs must come from it and the optimum must differ
# from the built-in model's (so the measured instance really is another
# instance: the test fails if the table stops matching the models' layers).
# The generated code is not built; only dnncc's CPU time counts (0.5-1.5 s
# per run here, plus the export of models the cache lacks).
#
# Environment (make check sets them): DNNCC, DNNCC_SRCDIR, DNNCC_BUILDDIR;
# E2E_DIR (the model cache, default $DNNCC_BUILDDIR/tests/e2e-cache),
# VERIFY_MODELS (a subset), VERIFY_COSTS (another table).
# Exits 77 (skipped) without GLPK in dnncc or without PyTorch for the export.
set -u
PY=${E2E_PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${DNNCC_SRCDIR:-$(cd "$here/../.." && pwd)}
builddir=${DNNCC_BUILDDIR:-$(pwd)}
DNNCC=${DNNCC:-$builddir/dnncc}
work=${E2E_DIR:-$builddir/tests/e2e-cache}
models=${VERIFY_MODELS:-"alexnet vgg16 googlenet resnet50 mobilenet_v2"}
table=${VERIFY_COSTS:-$srcdir/tests/select/costs_xeon.tsv}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# dnncc built without GLPK says so and exits non-zero on any model.
"$DNNCC" "$srcdir/samples/fashion_mnist/fashion_cnn.onnx" -o "$out/probe.c" --verify-ilp \
	>/dev/null 2>"$out/probe.err"
if grep -q 'needs GLPK' "$out/probe.err"; then
	echo "SKIP: dnncc was built without GLPK: $(head -n 1 "$out/probe.err")"
	exit 77
fi

mkdir -p "$work" || exit 1
missing=
for m in $models; do
	[ -f "$work/$m.onnx" ] || missing="$missing $m"
done
if [ -n "$missing" ]; then
	echo "exporting:$missing"
	# shellcheck disable=SC2086
	"$PY" "$srcdir/tests/e2e/export_models.py" "$work" $missing >"$out/export.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$out/export.log"
		[ $rc -eq 77 ] && exit 77
		echo "FAIL: export_models.py failed (exit status $rc)"
		exit 1
	fi
fi

fail=0
for m in $models; do
	for costs in builtin table; do
		opt=
		[ $costs = table ] && opt="--costs $table"
		# shellcheck disable=SC2086
		if ! "$DNNCC" "$work/$m.onnx" -o "$out/model.c" --name model --verify-ilp --report \
			$opt >"$out/report" 2>"$out/err"; then
			echo "FAIL $m ($costs costs): $(head -n 3 "$out/err")"
			fail=1
			continue
		fi
		line=$(grep '^  pbqp: ' "$out/report")
		case $line in
		*"proven optimal"*"the ILP agrees"*) ;;
		*)
			echo "FAIL $m ($costs costs): the report does not say proven optimal and agreed: $line"
			fail=1
			continue
			;;
		esac
		src=$(grep '^costs: ' "$out/report")
		obj=$(echo "$line" | sed -n 's/.*objective \([0-9.]*\) .*/\1/p')
		if [ $costs = builtin ]; then
			builtin_obj=$obj
		else
			# "...; N distinct costs from the table, M from the built-in model (no row)"
			n_tab=$(echo "$src" | sed -n 's/.*; \([0-9]*\) distinct costs from the table.*/\1/p')
			if [ -z "$n_tab" ] || [ "$n_tab" -eq 0 ] || [ "$obj" = "$builtin_obj" ]; then
				echo "FAIL $m: the table did not change the instance ($src; objective $obj µs)"
				fail=1
				continue
			fi
		fi
		echo "PASS $m ($costs costs): ${line#  pbqp: }"
		[ $costs = table ] && echo "  ${src#*; }"
		rm -f "$out"/model.*
	done
done
exit $fail
