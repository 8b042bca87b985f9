#!/usr/bin/python3
"""run.py - dnncc on random graphs under every selection strategy.

For each graph of tests/random/gen.py (random ones from --seed, and with
--fixed the issue-7 graphs), dnncc compiles the model once per strategy of
STRATEGIES (plus 'pbqp' when this dnncc accepts it) and --forced times more
with a random strategy and random --force-primitive NODE=ROW picks (a row
that does not apply to a node is refused by dnncc and picked again). Some
builds also get a random --target (c99, x86-64-v3, cortex-m) and --weights
mode (c-array, embed). A quarter of the builds, and all for the c99 and
cortex-m targets, are compiled with -O2 -Wall -Wextra -pedantic -Wundef
-Werror instead of --cflags, and with the same flags by clang and (c99 and
cortex-m) by arm-none-eabi-gcc for a Cortex-M4F, where installed, compiled
only. With --profiled N the first N random graphs also get a PBQP build
on costs measured at 2 threads and checked against GLPK's ILP
(check_profiled). Each build gets its own --name
(g17_family_direct), so a batch of builds is compiled with `cc -O1` into
ONE program (tests/random/main.c is generated) that runs every model on the
graph's inputs and prints the error of every output against gen.py's
float64 reference.

A build passes when dnncc accepts the model (a refused --force-primitive
pick must leave no file behind), its C compiles, it runs, the
input and output counts and sizes match, and every output o has
    max|got - want| / max|want| <= tolerance
(absolute when want is all zeros). The tolerance is 1e-4, and 1e-3 when
--report shows a Winograd or FFT primitive among the chosen ones: their
transforms amplify rounding with the tile size (tests/test_primitives.c
allows 5e-4, and 2e-3 for F(6x6, 3x3), at up to 256 channels), while every
other primitive sums the same float32 products in another order. Measured
here (gcc 12, AVX-512 Xeon) over about 1100 compiled builds: at most 8.5e-7
without and 3.1e-6 with Winograd/FFT, so both bounds leave two orders of
magnitude for other compilers and larger graphs, while a wrong index, pad,
layout or weight order moves outputs by percents.

A failing build prints the seed, graph index and build label, and its model,
inputs, reference outputs and a replay script (the dnncc command line and the
run.py line that reruns only it) go to --faildir/SEED_INDEX_LABEL/. The exit
status is 1 when any build failed, 0 otherwise; 77 (skipped) without torch,
numpy or onnx.
"""

import argparse
import hashlib
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time

try:
    import numpy as np
    import onnx
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gen
except ImportError as e:      # pragma: no cover - depends on the machine
    print("run.py: skipped: %s" % e)
    sys.exit(77)

# The selection strategies every graph is built under. Add new ones here;
# OPTIONAL_STRATEGIES are used only when `dnncc --strategy S` accepts them.
STRATEGIES = ["greedy", "canonical", "sum2d", "reference",
              "family:sum2d", "family:direct", "family:im2", "family:kn2",
              "family:winograd", "family:fft", "family:depthwise"]
OPTIONAL_STRATEGIES = ["pbqp"]

# The --profiled build: PBQP on costs that `dnncc --profile --threads 2`
# measures for this graph on this machine (one timed run per case, into the
# work directory's cache), solved again as an ILP by GLPK: dnncc exits
# non-zero when the optima differ, and check_profiled reads --report.
PROFILED_ARGS = ["--strategy", "pbqp", "--profile", "--threads", "2", "--runs", "1",
                 "--verify-ilp"]

# A share of the builds is compiled as README tells users to, warnings
# being errors: gcc's -O2 propagates the constant sizes generated code
# passes into the kernels and warns about some loops only then (a Relu over
# 6336 floats once did: -Waggressive-loop-optimizations).
# The strict builds are also compiled (not linked or run) by every other
# compiler of STRICT_COMPILERS that is installed, with the same flags: clang
# for all of them, arm-none-eabi-gcc (for a Cortex-M4F, as README's firmware
# users build) for the portable ones: those for a target of
# PORTABLE_TARGETS, which are all strict.
STRICT_CFLAGS = ["-O2", "-Wall", "-Wextra", "-pedantic", "-Wundef", "-Werror"]
STRICT_SHARE = 0.25
PORTABLE_TARGETS = ("c99", "cortex-m")
STRICT_COMPILERS = [("clang", [], False),      # (compiler, flags, portable builds only)
                    ("arm-none-eabi-gcc", ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                                           "-mfpu=fpv4-sp-d16"], True)]

TOL = 1e-4
TOL_LOSSY = 1e-3          # a Winograd or FFT primitive was chosen
LOSSY = re.compile(r"\bconv_(winograd|fft)_")


def accepts(dnncc, work, options):
    """Whether this dnncc compiles a tiny model (the first fixed graph,
    written to work/probe.onnx) with these options: an unknown strategy,
    or --verify-ilp in a dnncc built without GLPK, is refused."""
    path = os.path.join(work, "probe.onnx")
    if not os.path.exists(path):
        onnx.save(gen.fixed_graphs()[0][1], path)
    p = subprocess.run([dnncc, path, "-o", os.path.join(work, "probe.c")] + options,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode == 0


def accepted_strategies(dnncc, work):
    """STRATEGIES plus the optional ones this dnncc accepts."""
    return list(STRATEGIES) + [s for s in OPTIONAL_STRATEGIES
                               if accepts(dnncc, work, ["--strategy", s])]


def list_primitives(dnncc):
    out = subprocess.run([dnncc, "--list-primitives"], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    return [l.split()[0] for l in out.splitlines()[1:] if l.startswith("conv_")]


class Build:
    """One dnncc run: a graph under one strategy and options."""

    def __init__(self, graph, label, args):
        self.graph = graph          # Case
        self.label = label          # e.g. family_direct, force1
        self.args = args            # dnncc options
        self.name = "%s_%s" % (graph.tag, label)
        self.lossy = False
        self.error = None           # why it failed, or None
        self.strict = False         # compiled with STRICT_CFLAGS
        self.portable = False       # its --target (or an equal program's) is portable
        self.compiled_by = []       # the STRICT_COMPILERS that compiled it too


class Case:
    """One graph: its model and data, written under the work directory."""

    def __init__(self, tag, seed, index, model, inputs, outputs):
        self.tag = tag              # C-identifier prefix: g17, end5x5
        self.seed = seed            # None for the fixed graphs
        self.index = index          # graph index or fixed name
        self.model = model
        self.inputs = inputs        # [(name, float32 array)]
        self.outputs = outputs      # [(name, float64 array)]
        self.convs = [n.name for n in model.graph.node if n.op_type == "Conv"]

    def write(self, d):
        self.path = os.path.join(d, self.tag + ".onnx")
        onnx.save(self.model, self.path)
        self.in_path = os.path.join(d, self.tag + ".in.bin")
        self.ref_path = os.path.join(d, self.tag + ".ref.bin")
        with open(self.in_path, "wb") as f:
            for _, a in self.inputs:
                f.write(np.ascontiguousarray(a, dtype=np.float32).tobytes())
        with open(self.ref_path, "wb") as f:
            for _, a in self.outputs:
                f.write(np.ascontiguousarray(a, dtype=np.float64).tobytes())


def plan_builds(case, strategies, prims, nforced, profiled=False):
    """The builds of one graph: every strategy, then nforced forced ones,
    then with profiled one PBQP build on costs measured at 2 threads.
    Each build draws its options from its own generator, seeded by the graph
    and its label, so it is the same build whatever else runs."""
    builds = []
    for s in strategies:
        builds.append(Build(case, re.sub(r"[^A-Za-z0-9]", "_", s), ["--strategy", s]))
    for k in range(nforced if case.convs else 0):
        builds.append(Build(case, "force%d" % k, []))
    if profiled:
        builds.append(Build(case, "profiled2", PROFILED_ARGS))
    for b in builds:
        rng = b.rng = random.Random("%s/%s/%s" % (case.seed, case.index, b.label))
        b.strict = b.label == "profiled2" or rng.random() < STRICT_SHARE
        if b.label == "profiled2":
            continue                # measured costs, default target and weights
        if b.label.startswith("force"):
            b.args = ["--strategy", rng.choice(strategies)]
            b.forces = {n: rng.choice(prims) for n in case.convs if rng.random() < 0.8}
        p = rng.random()
        target = "c99" if p < 0.15 else "x86-64-v3" if p < 0.3 else "cortex-m" if p < 0.4 else None
        if target:
            b.args += ["--target", target]
        b.portable = target in PORTABLE_TARGETS
        b.strict |= b.portable
        p = rng.random()
        if p < 0.25:
            b.args += ["--weights", "c-array"]
        elif p < 0.5:
            b.args += ["--weights", "embed"]
    return builds


def dnncc_cmd(dnncc, b, d):
    cmd = [dnncc, b.graph.path, "-o", os.path.join(d, b.name + ".c"), "--name", b.name,
           "--report"] + b.args
    for n, p in sorted(getattr(b, "forces", {}).items()):
        cmd += ["--force-primitive", "%s=%s" % (n, p)]
    return cmd


def check_profiled(report):
    """What is wrong with a profiled build's --report, or None: its costs
    must be the measured 2-thread ones, every node's from the table, the
    PBQP optimum proven and agreed by the ILP, and no other strategy's
    prediction under the same costs below it (printed to 0.01 us)."""
    m = re.search(r"^costs: measured: --profile, .*\b2 threads\); (\d+) distinct costs from the "
                  r"table, (\d+) from the built-in model", report, re.M)
    if not m:
        return "--report does not say the costs were measured at 2 threads:\n" + report
    if int(m.group(2)):
        return "%s costs came from the built-in model, not the profile:\n%s" % (m.group(2), report)
    line = re.search(r"^  pbqp: .*$", report, re.M)
    if not line or "proven optimal" not in line.group(0) or "the ILP agrees" not in line.group(0):
        return "the PBQP optimum is not proven and agreed by the ILP:\n" + report
    pred = dict(re.findall(r"^    (\S+) +([0-9.]+)", report.split("every strategy under the same costs")
                           [-1], re.M))
    if "pbqp" not in pred:
        return "--report lists no pbqp prediction:\n" + report
    best = min(float(v) for v in pred.values())
    if float(pred["pbqp"]) > best + 0.01:
        return "pbqp predicts %s us, another strategy %.2f us:\n%s" % (pred["pbqp"], best, report)
    return None


def compile_model(dnncc, b, d, prims, rng):
    """Runs dnncc; for a forced build, re-picks the rows dnncc says do not
    apply (up to 12 rounds, then leaves those nodes to the strategy)."""
    b.dnncc = dnncc
    for _ in range(12):
        cmd = dnncc_cmd(dnncc, b, d)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        b.cmd = cmd
        if p.returncode == 0:
            b.lossy = bool(LOSSY.search(p.stdout))
            b.report = p.stdout
            if b.label == "profiled2":
                b.error = check_profiled(p.stdout)
                return b.error is None
            return True
        partial = [f for f in (b.name + ".c", b.name + ".h", b.name + ".weights.bin")
                   if os.path.exists(os.path.join(d, f))]
        if partial:
            b.error = "dnncc failed (exit %d) and left %s behind:\n%s" % (
                p.returncode, " ".join(partial), p.stdout)
            return False
        refused = re.findall(r"node '([^']+)'.*--force-primitive: \S+ (?:does not apply|packs its weights)",
                             p.stdout)
        if not hasattr(b, "forces") or not refused or \
                len(refused) != len([l for l in p.stdout.splitlines() if l.strip()]):
            b.error = "dnncc failed (exit %d):\n%s" % (p.returncode, p.stdout)
            return False
        for n in refused:
            b.forces[n] = rng.choice(prims)
    for n in refused:
        del b.forces[n]
    return compile_model(dnncc, b, d, prims, rng)


def write_main(builds, d):
    """The C program that runs every model of the batch: `main [FIRST]` runs
    builds FIRST.. in order, printing `run NAME` before each (so a crash names
    its model) and `out NAME K ERR MAXREF` for each output."""
    L = []
    L.append("#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>")
    for b in builds:
        L.append('#include "%s.h"' % b.name)
    L.append("""
struct model {
	const char *name, *in_path, *ref_path;
	int nin, nout, want_nin, want_nout;
	const size_t *isz, *osz;          /* from the generated code */
	const size_t *want_isz, *want_osz; /* from the reference */
	int (*run)(const float *const inputs[], float *const outputs[]);
};
""")
    for i, b in enumerate(builds):
        L.append("static const size_t want_isz%d[] = {%s};" %
                 (i, ", ".join(str(a.size) for _, a in b.graph.inputs)))
        L.append("static const size_t want_osz%d[] = {%s};" %
                 (i, ", ".join(str(a.size) for _, a in b.graph.outputs)))
    L.append("static const struct model models[] = {")
    for i, b in enumerate(builds):
        up = b.name.upper()
        L.append('\t{"%s", "%s", "%s", %s_NUM_INPUTS, %s_NUM_OUTPUTS, %d, %d, %s_input_sizes, '
                 '%s_output_sizes, want_isz%d, want_osz%d, %s_run},' %
                 (b.name, os.path.basename(b.graph.in_path), os.path.basename(b.graph.ref_path),
                  up, up, len(b.graph.inputs), len(b.graph.outputs), b.name, b.name, i, i, b.name))
    L.append("};")
    L.append("""
static int run_one(const struct model *m)
{
	if (m->nin != m->want_nin || m->nout != m->want_nout) {
		printf("bad %s counts %d inputs %d outputs, want %d and %d\\n", m->name, m->nin,
		       m->nout, m->want_nin, m->want_nout);
		return 1;
	}
	for (int k = 0; k < m->nin; k++)
		if (m->isz[k] != m->want_isz[k]) {
			printf("bad %s input %d has %zu elements, want %zu\\n", m->name, k, m->isz[k],
			       m->want_isz[k]);
			return 1;
		}
	for (int k = 0; k < m->nout; k++)
		if (m->osz[k] != m->want_osz[k]) {
			printf("bad %s output %d has %zu elements, want %zu\\n", m->name, k, m->osz[k],
			       m->want_osz[k]);
			return 1;
		}
	float **in = malloc(sizeof(float *) * (size_t)m->nin);
	float **out = malloc(sizeof(float *) * (size_t)m->nout);
	double **ref = malloc(sizeof(double *) * (size_t)m->nout);
	FILE *fi = fopen(m->in_path, "rb"), *fr = fopen(m->ref_path, "rb");
	if (!fi || !fr) {
		printf("bad %s cannot open %s or %s\\n", m->name, m->in_path, m->ref_path);
		return 1;
	}
	for (int k = 0; k < m->nin; k++) {
		in[k] = malloc(m->isz[k] * sizeof(float));
		if (fread(in[k], sizeof(float), m->isz[k], fi) != m->isz[k]) {
			printf("bad %s short read of %s\\n", m->name, m->in_path);
			return 1;
		}
	}
	for (int k = 0; k < m->nout; k++) {
		out[k] = malloc(m->osz[k] * sizeof(float));
		for (size_t e = 0; e < m->osz[k]; e++)
			out[k][e] = NAN;   /* an output never written shows as NaN */
		ref[k] = malloc(m->osz[k] * sizeof(double));
		if (fread(ref[k], sizeof(double), m->osz[k], fr) != m->osz[k]) {
			printf("bad %s short read of %s\\n", m->name, m->ref_path);
			return 1;
		}
	}
	fclose(fi);
	fclose(fr);
	int rc = m->run((const float *const *)in, out);
	if (rc != 0) {
		printf("bad %s run returned %d\\n", m->name, rc);
		return 1;
	}
	for (int k = 0; k < m->nout; k++) {
		double err = 0.0, maxref = 0.0;
		int nan = 0;
		for (size_t e = 0; e < m->osz[k]; e++) {
			double dv = fabs((double)out[k][e] - ref[k][e]);
			if (dv != dv)
				nan = 1;
			else if (dv > err)
				err = dv;
			if (fabs(ref[k][e]) > maxref)
				maxref = fabs(ref[k][e]);
		}
		printf("out %s %d %.9g %.9g\\n", m->name, k, nan ? NAN : err, maxref);
	}
	for (int k = 0; k < m->nin; k++)
		free(in[k]);
	for (int k = 0; k < m->nout; k++) {
		free(out[k]);
		free(ref[k]);
	}
	free(in);
	free(out);
	free(ref);
	return 0;
}

int main(int argc, char **argv)
{
	int first = argc > 1 ? atoi(argv[1]) : 0;
	int n = (int)(sizeof models / sizeof models[0]);
	for (int i = first; i < n; i++) {
		printf("run %s\\n", models[i].name);
		fflush(stdout);
		run_one(&models[i]);
		fflush(stdout);
	}
	return 0;
}""")
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write("\n".join(L) + "\n")


def code_key(b, d):
    """What a build's program depends on: its C without the opening comment
    (which names the command line) with the name replaced, and its weights
    file. Builds of one graph with equal keys are the same program: only the
    first is compiled and run, the others share its result."""
    with open(os.path.join(d, b.name + ".c")) as f:
        text = f.read()
    text = text[text.index("*/") + 2:]
    text = text.replace(b.name, "NAME").replace(b.name.upper(), "UPPERNAME")
    key = [b.graph.tag, text]
    w = os.path.join(d, b.name + ".weights.bin")
    if os.path.exists(w):
        with open(w, "rb") as f:
            key.append(f.read())
    return hashlib.sha1(repr(key).encode()).hexdigest()


def installed_compilers():
    """The STRICT_COMPILERS on PATH."""
    return [c for c in STRICT_COMPILERS if shutil.which(c[0])]


def compile_elsewhere(b, d, others):
    """Compiles a strict build's file with each of others (installed
    STRICT_COMPILERS) that takes it: the first failure, or None."""
    for cc, flags, portable_only in others:
        if portable_only and not b.portable:
            continue
        cmd = [cc, "-std=c99"] + flags + STRICT_CFLAGS + ["-c", b.name + ".c", "-o", os.devnull]
        p = subprocess.run(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if p.returncode != 0:
            return "%s failed on the generated code:\n%s" % (" ".join(cmd), p.stdout)
        b.compiled_by.append(cc)
    return None


def run_batch(builds, d, cc, cflags, jobs, others):
    """Compiles the accepted builds of a batch into one program and runs it;
    sets b.error on the builds that fail and b.errs to their output errors."""
    ok = []
    reps = {}
    for b in builds:
        if b.error is not None:
            continue
        key = code_key(b, d)
        if key in reps:
            b.same_as = reps[key]
            reps[key].strict |= b.strict
            reps[key].portable |= b.portable
        else:
            reps[key] = b
            ok.append(b)
    # Compile each generated file on its own, so a compile error names its build.
    procs = []
    pending = list(ok)
    while pending or procs:
        while pending and len(procs) < jobs:
            b = pending.pop(0)
            cmd = [cc, "-std=c99"] + (STRICT_CFLAGS if b.strict else cflags) + \
                ["-c", b.name + ".c", "-o", b.name + ".o"]
            procs.append((b, subprocess.Popen(cmd, cwd=d, stdout=subprocess.PIPE,
                                              stderr=subprocess.STDOUT, universal_newlines=True)))
        b, p = procs.pop(0)
        out, _ = p.communicate()
        if p.returncode != 0:
            b.error = "cc %sfailed on the generated code:\n%s" % (
                " ".join(STRICT_CFLAGS) + " " if b.strict else "", out)
        elif b.strict:
            b.error = compile_elsewhere(b, d, others)
    ok = [b for b in ok if b.error is None]
    if not ok:
        return
    write_main(ok, d)
    p = subprocess.run([cc, "-std=c99"] + cflags + ["-o", "main", "main.c"] +
                       [b.name + ".o" for b in ok] + ["-lm"], cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        for b in ok:
            b.error = "linking the batch failed:\n" + p.stdout
        return
    byname = {b.name: b for b in ok}
    for b in ok:
        b.errs = []
    first = 0
    while first < len(ok):
        p = subprocess.run(["./main", str(first)], cwd=d, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        last = None
        for line in p.stdout.splitlines():
            f = line.split()
            if not f:
                continue
            if f[0] == "run":
                last = byname[f[1]]
            elif f[0] == "out":
                byname[f[1]].errs.append((int(f[2]), float(f[3]), float(f[4])))
            elif f[0] == "bad":
                byname[f[1]].error = line
        if p.returncode == 0:
            break
        # It crashed in `last`: record that and go on with the next model.
        last.error = "the generated code crashed (status %d)" % p.returncode
        first = ok.index(last) + 1
    for b in builds:
        rep = getattr(b, "same_as", None)
        if rep is not None:
            b.errs, b.error = getattr(rep, "errs", []), rep.error
        if b.error is not None:
            continue
        tol = TOL_LOSSY if b.lossy else TOL
        if len(b.errs) != len(b.graph.outputs):
            b.error = "printed %d of %d outputs" % (len(b.errs), len(b.graph.outputs))
            continue
        b.worst = 0.0
        for k, err, maxref in b.errs:
            rel = err / maxref if maxref > 0 else err
            if not rel <= tol:
                b.error = ("output %d ('%s'): max|got - want| / max|want| = %.3g > %g "
                           "(max|want| = %.3g)" % (k, b.graph.outputs[k][0], rel, tol, maxref))
                break
            b.worst = max(b.worst, rel)


def save_failure(b, faildir, here, max_ops):
    g = b.graph
    d = os.path.join(faildir, "%s_%s_%s" % (g.seed if g.seed is not None else "fixed",
                                            g.index, b.label))
    os.makedirs(d, exist_ok=True)
    for p in (g.path, g.in_path, g.ref_path):
        shutil.copy(p, d)
    for ext in (".c", ".h"):
        src = os.path.join(os.path.dirname(g.path), b.name + ext)
        if os.path.exists(src):
            shutil.copy(src, d)
    sel = ("--fixed-only --graph %s" % g.index if g.seed is None
           else "--seed %d --first %d --count 1 --max-ops %d" % (g.seed, g.index, max_ops))
    wd = os.path.dirname(g.path)
    cmd = [c.replace(wd + os.sep, "") for c in getattr(b, "cmd", [])]
    with open(os.path.join(d, "replay.sh"), "w") as f:
        f.write("#!/bin/sh\n# seed %s graph %s build %s: %s\n" %
                (g.seed, g.index, b.label, b.error.splitlines()[0]))
        f.write("# dnncc on the model saved here:\n#   cd %s && %s\n" %
                (shlex.quote(os.path.abspath(d)), " ".join(shlex.quote(c) for c in cmd)))
        f.write("# the build and comparison again (graphs are a function of the seed):\n")
        nforced = int(b.label[5:]) + 1 if b.label.startswith("force") else 0
        f.write("exec /usr/bin/python3 %s --dnncc %s %s --forced %d --only %s "
                "--work /tmp/dnncc-replay --faildir /tmp/dnncc-replay-failures -v\n" %
                (shlex.quote(os.path.join(here, "run.py")), shlex.quote(os.path.abspath(b.dnncc)),
                 sel, nforced, b.label))
    os.chmod(os.path.join(d, "replay.sh"), 0o755)
    with open(os.path.join(d, "error.txt"), "w") as f:
        f.write(b.error + "\n")
    return d


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dnncc", default=os.environ.get("DNNCC", "./dnncc"))
    ap.add_argument("--cc", default=os.environ.get("CC") or "cc")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0, help="first graph index")
    ap.add_argument("--count", type=int, default=20, help="random graphs")
    ap.add_argument("--forced", type=int, default=2, help="--force-primitive builds per graph")
    ap.add_argument("--profiled", type=int, default=0,
                    help="the first N random graphs also get a PBQP build on costs "
                    "profiled at 2 threads, checked against GLPK (--verify-ilp); "
                    "skipped when dnncc has no GLPK")
    ap.add_argument("--max-ops", type=int, default=10, help="random graphs have 2..N operations "
                    "(an inception block or a Gemm head counts as one)")
    ap.add_argument("--fixed", action="store_true", help="also the issue-7 graphs")
    ap.add_argument("--fixed-only", action="store_true", help="only the issue-7 graphs")
    ap.add_argument("--graph", help="with --fixed-only: only this fixed graph")
    ap.add_argument("--only", help="only the build with this label (e.g. family_direct)")
    ap.add_argument("--batch", type=int, default=48, help="builds per program")
    ap.add_argument("--jobs", type=int, default=1, help="parallel C compiles")
    ap.add_argument("--cflags", default="-O1", help="C compiler options (default -O1)")
    ap.add_argument("--dnncc-only", action="store_true",
                    help="only run dnncc (no C compile, no comparison): a quick sweep for "
                    "refusals, verifier errors and crashes")
    ap.add_argument("--work", default="tests/random/work")
    ap.add_argument("--faildir", default="tests/random/failures")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()

    t0 = time.time()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    strategies = accepted_strategies(a.dnncc, a.work)
    prims = list_primitives(a.dnncc)
    print("strategies: %s" % " ".join(strategies), flush=True)
    others = installed_compilers()
    print("strict builds also compiled by: %s" % (" ".join(c[0] for c in others) or "none"),
          flush=True)

    cases = []
    if a.fixed or a.fixed_only:
        for name, m, ins, outs in gen.fixed_graphs():
            if a.graph is None or a.graph == name:
                cases.append(Case(name, None, name, m, ins, outs))
    if not a.fixed_only:
        for i in range(a.first, a.first + a.count):
            m, ins, outs = gen.random_graph(a.seed, i, a.max_ops)
            cases.append(Case("g%d" % i, a.seed, i, m, ins, outs))

    profiled = a.profiled if "pbqp" in strategies and accepts(a.dnncc, a.work,
                                                              ["--verify-ilp"]) else 0
    if a.profiled and not profiled:
        print("run.py: no --profiled builds: dnncc lacks the pbqp strategy or GLPK", flush=True)
    if profiled:
        os.environ["DNNCC_CACHE_DIR"] = os.path.join(os.path.abspath(a.work), "cost-cache")
    builds = []
    for c in cases:
        bs = plan_builds(c, strategies, prims, a.forced,
                         c.seed is not None and c.index < a.first + profiled)
        builds += [b for b in bs if a.only is None or b.label == a.only]

    if not builds:
        print("run.py: no builds selected (graph without a Conv for a forced build?)")
        return 2
    failed = []
    nbatch = 0
    for start in range(0, len(builds), a.batch):
        batch = builds[start:start + a.batch]
        d = os.path.join(a.work, "b%d" % nbatch)
        nbatch += 1
        os.makedirs(d)
        written = set()
        for b in batch:
            if b.graph.tag not in written:
                b.graph.write(d)
                written.add(b.graph.tag)
            compile_model(a.dnncc, b, d, prims, b.rng)
        if a.dnncc_only:
            for b in batch:
                b.worst = 0.0
                if b.error is None and not os.path.exists(os.path.join(d, b.name + ".c")):
                    b.error = "dnncc exited 0 but wrote no %s.c" % b.name
        else:
            run_batch(batch, d, a.cc, a.cflags.split(), a.jobs, others)
        for b in batch:
            g = b.graph
            where = ("seed %d graph %d" % (g.seed, g.index) if g.seed is not None
                     else "fixed graph %s" % g.index)
            if b.error is not None:
                fd = save_failure(b, a.faildir, here, a.max_ops)
                print("FAIL %s build %s (%s): %s\n     saved in %s" %
                      (where, b.label, " ".join(b.args), b.error.strip(), fd), flush=True)
                failed.append(b)
            elif a.verbose:
                print("ok   %s build %s worst %.2e%s" %
                      (where, b.label, b.worst, " (winograd/fft)" if b.lossy else ""))
        if not a.keep:
            shutil.rmtree(d)
        done = builds[:start + len(batch)]
        print("batch %d: %d of %d builds done, %d failed; worst %.2e, winograd/fft %.2e; %.0f s" %
              (nbatch - 1, len(done), len(builds), len(failed),
               max([b.worst for b in done if b.error is None and not b.lossy] or [0]),
               max([b.worst for b in done if b.error is None and b.lossy] or [0]),
               time.time() - t0), flush=True)
    worst = max([b.worst for b in builds if b.error is None and not b.lossy] or [0])
    worst_lossy = max([b.worst for b in builds if b.error is None and b.lossy] or [0])
    distinct = len([b for b in builds if getattr(b, "same_as", None) is None])
    tm = os.times()
    print("%d graphs, %d builds (%d distinct programs), %d failed; worst relative error %.2e "
          "(winograd/fft %.2e); %.0f s, %.0f s of CPU" %
          (len(cases), len(builds), distinct, len(failed), worst, worst_lossy, time.time() - t0,
           tm.user + tm.system + tm.children_user + tm.children_system))
    print("strict: %d programs by %s%s" % (
        len([b for b in builds if b.strict and getattr(b, "same_as", None) is None]), a.cc,
        "".join(", %d also by %s" % (len([b for b in builds if c[0] in b.compiled_by]), c[0])
                for c in others)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
