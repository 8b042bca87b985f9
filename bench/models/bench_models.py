#!/usr/bin/python3
"""bench_models.py - `make bench-models`: whole networks through dnncc's
generated code, onnxruntime, OpenVINO and PyTorch, side by side (issue 9).

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision,
python3-onnx, python3-numpy); onnxruntime and OpenVINO run in the Python that
has them (--rt-python, default the first `python3` on PATH that is not this
one: the pyenv python3 that `pip install onnxruntime openvino` went to).

For every network (nets.py: seven torchvision classifiers at batch 1 and the
four MLPerf Tiny shapes, random weights with fixed seeds):
  1. export to ONNX with PyTorch's output as the reference (torch_side.py;
     cached in the work folder, --fresh exports again);
  2. per engine and thread count, in a process of its own:
     dnncc        dnncc NET.onnx -o model.c --name model --threads T
                  --profile (--dnncc-flags: the selection on costs measured
                  on this machine, through dnncc's profile cache), then
                  `cc -std=c99 -O2 model.c time_main.c -lm` (the README's
                  build; built once, before the rounds), run; a --threads
                  that dnncc refuses is recorded as "not supported" with
                  dnncc's message
     onnxruntime, openvino   runtime_side.py
     pytorch      torch_side.py time (torch.set_num_threads(T))
     Each process times the first call alone, then warm-up, then at least
     --runs calls and --min-time seconds (timing.py, time_main.c): wall
     clock, and the process's CPU time per call (all threads together).
     The engines take turns in --rounds rounds (default 3; every other
     round in the reverse order), each round a fresh process per engine, so
     a noisy minute on a shared machine falls on all of them rather than on
     whichever engine's turn it was. The figures reported are the medians
     over the rounds of each round's median (wall and CPU), of its first
     call and of its start-up; the minimum and maximum over all calls; each
     round's median is kept in models.tsv (round_ms);
  3. checks every output against PyTorch's reference: max |got - want|, and
     that over max |want| (a network "matches" at rel <= 1e-4).
The machine's peak (bench/peak: single-core FMA loop per ISA) and read
bandwidth are measured first; each network's GFLOP (2 x multiply-adds of
Conv/Gemm/MatMul) over its median time, over peak x threads, is its
fraction of peak.

Results (--out, default bench/results): models.tsv (one row per network,
engine and thread count, with the date and load average it was measured at;
a run over a subset replaces only its own rows), models.md (the tables, with
CPU, peak, bandwidth, load and date) and models.png (gnuplot bar chart of
the median times, log scale). Progress goes to the terminal.

OpenBLAS (under PyTorch and numpy) runs at half speed with the
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE the project's machines set: this
script removes both from its own environment and its children's (the make
target also runs it under `env -u`).
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import nets  # noqa: E402
from timing import cpu_name, median  # noqa: E402

ENGINES = ["dnncc", "onnxruntime", "openvino", "pytorch"]
# A core-to-core round trip above this (ns) means the two cores shared no L3
# (bench/peak roundtrip: 50-90 shared, 310-360 split on the Zen 4 VMs).
SPLIT_L3_NS = 200
TSV_FIELDS = ["model", "engine", "threads", "status", "median_ms", "min_ms", "max_ms",
              "first_ms", "first_cpu_ms", "init_ms", "runs", "cpu_ms", "gflop", "gflops", "frac_peak", "max_abs_err", "rel_err",
              "build_s", "version", "load", "date", "round_ms", "round_c2c_ns", "note"]
MATCH_TOL = 1e-4

for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(var, None)


def log(msg):
    print(msg, flush=True)


def run(cmd, cwd=None, timeout=3600, env=None):
    """(exit status, stdout+stderr) of cmd; status 124 on timeout."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=env, universal_newlines=True)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out + f"\ntimed out after {timeout} s"


def parse_result(text):
    for line in text.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return None


def first_lines(text, n=2):
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return " / ".join(lines[-n:]) if lines else "(no output)"


def loadavg():
    return "%.2f %.2f %.2f" % os.getloadavg()


def find_rt_python(given):
    if given:
        return given
    for d in os.environ.get("PATH", "").split(os.pathsep):
        cand = os.path.join(d, "python3")
        if os.access(cand, os.X_OK) and os.path.realpath(cand) != os.path.realpath(sys.executable):
            return cand
    return "python3"


def compare(got_path, want_path):
    """(max abs error, that over max |want|), or raises ValueError."""
    got = np.fromfile(got_path, dtype="<f4").astype(np.float64)
    want = np.fromfile(want_path, dtype="<f4").astype(np.float64)
    if got.size != want.size:
        raise ValueError(f"{got.size} output values, expected {want.size}")
    if not np.all(np.isfinite(got)):
        raise ValueError(f"{np.count_nonzero(~np.isfinite(got))} outputs are not finite")
    err = float(np.abs(got - want).max())
    return err, err / float(np.abs(want).max())


class Bench:
    def __init__(self, a):
        self.a = a
        self.work = os.path.abspath(a.work)
        os.makedirs(self.work, exist_ok=True)
        self.rt_python = find_rt_python(a.rt_python)
        self.peak = None
        self.bandwidth = None
        self.bandwidth2 = None

    # -- the machine -------------------------------------------------------
    def roundtrip(self):
        """ns for two threads on CPUs 0 and 1 to pass a cache line there and
        back (bench/peak roundtrip), or None: 50-90 ns on the Zen 4 VMs, or
        310-360 ns while the host has put their two vCPUs on cores without a
        shared L3, when 2-thread runs are slower (bench/README.md)."""
        if not self.a.peak or not os.access(self.a.peak, os.X_OK):
            return None
        rc, out = run([self.a.peak, "roundtrip"], timeout=60)
        for line in out.splitlines():
            w = line.split()
            if rc == 0 and len(w) == 2 and w[0] == "roundtrip_ns":
                return float(w[1])
        return None

    def measure_machine(self):
        if not self.a.peak or not os.access(self.a.peak, os.X_OK):
            log(f"peak: no bench/peak program at {self.a.peak}; fractions of peak left out")
            return
        log("measuring the single-core peak (FMA loop) and read bandwidth ...")
        rc, out = run([self.a.peak, "5"], timeout=600)
        isa_peaks = {}
        for line in out.splitlines():
            w = line.split()
            if len(w) == 3 and w[0] == "peak_gflops":
                isa_peaks[w[1]] = float(w[2])
            elif len(w) == 2 and w[0] == "bandwidth_gbs":
                self.bandwidth = float(w[1])
            elif len(w) == 2 and w[0] == "bandwidth2_gbs":
                self.bandwidth2 = float(w[1])
        if rc != 0 or not isa_peaks:
            log(f"peak: failed: {first_lines(out)}")
            return
        self.peak_isa = max(isa_peaks, key=isa_peaks.get)
        self.peak = isa_peaks[self.peak_isa]
        self.isa_peaks = isa_peaks
        log("peak: " + ", ".join(f"{k} {v:.1f} GFLOP/s" for k, v in isa_peaks.items()) +
            f" per core; read bandwidth {self.bandwidth:.1f} GB/s (one core)" +
            (f", {self.bandwidth2:.1f} GB/s (two threads)" if self.bandwidth2 else ""))

    # -- export --------------------------------------------------------------
    def export(self, name):
        base = os.path.join(self.work, name)
        if not self.a.fresh and all(os.path.exists(base + s)
                                    for s in (".onnx", ".input.bin", ".output.bin", ".json")):
            with open(base + ".json") as f:
                return json.load(f)
        log(f"  exporting {name} to ONNX ...")
        rc, out = run([sys.executable, os.path.join(HERE, "torch_side.py"), "export", name,
                       self.work])
        if rc != 0:
            raise RuntimeError(f"export failed: {first_lines(out, 4)}")
        with open(base + ".json") as f:
            return json.load(f)

    # -- engines ---------------------------------------------------------------
    def build_dnncc(self, name, threads):
        """Generates and compiles the model at this thread count: a dict with
        the build's folder, its time and dnncc's version, or a row's status
        and note when dnncc or cc fails."""
        d = os.path.join(self.work, f"{name}.dnncc-{threads}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        t0 = time.time()
        cmd = [self.a.dnncc, os.path.join(self.work, name + ".onnx"), "-o",
               os.path.join(d, "model.c"), "--name", "model", "--threads", str(threads)]
        cmd += self.a.dnncc_flags.split()
        rc, out = run(cmd, timeout=1800)
        if rc != 0:
            if threads > 1 and "thread" in out.lower():
                return {"status": "not supported", "note": first_lines(out, 1)}
            return {"status": "failed", "note": "dnncc: " + first_lines(out)}
        cc = self.a.cc.split() + ["-std=c99", "-O2"] + self.a.cflags.split() + [
            "-I.", "-o", "run", "model.c", os.path.join(HERE, "time_main.c"), "-lm"]
        rc, out = run(cc, cwd=d, timeout=3600)
        if rc != 0:
            return {"status": "failed", "note": "cc: " + first_lines(out)}
        rc, ver = run([self.a.dnncc, "--version"])
        return {"dir": d, "build_s": time.time() - t0, "version": first_lines(ver, 1)}

    def time_dnncc(self, name, threads, build):
        rc, out = run(["./run", os.path.join(self.work, name + ".input.bin"),
                       os.path.join(self.work, f"{name}.dnncc-{threads}.bin"), str(self.a.runs),
                       str(self.a.min_time)], cwd=build["dir"], timeout=3600)
        res = parse_result(out)
        if rc != 0 or res is None:
            return {"status": "failed", "note": "run: " + first_lines(out)}
        res["build_s"] = build["build_s"]
        res["version"] = build["version"]
        return res

    def clean_dnncc(self, build):
        if not self.a.keep and "dir" in build:
            shutil.rmtree(build["dir"], ignore_errors=True)

    def time_python(self, engine, name, threads):
        if engine == "pytorch":
            cmd = [sys.executable, os.path.join(HERE, "torch_side.py"), "time", name, self.work]
        else:
            cmd = [self.rt_python, os.path.join(HERE, "runtime_side.py"), engine, name, self.work]
        cmd += [str(threads), str(self.a.runs), str(self.a.min_time)]
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                   MKL_NUM_THREADS=str(threads))
        rc, out = run(cmd, env=env)
        if rc == 3:
            return {"status": "not installed", "note": first_lines(out, 1)}
        res = parse_result(out)
        if rc != 0 or res is None:
            return {"status": "failed", "note": first_lines(out)}
        return res

    def time_once(self, name, engine, threads, build):
        """One round of one engine at one thread count: its process's result
        dict (status "ok" or why not)."""
        if engine == "dnncc":
            if "dir" not in build:
                return dict(build)
            res = self.time_dnncc(name, threads, build)
        else:
            res = self.time_python(engine, name, threads)
        res.setdefault("status", "ok")
        return res

    def finish(self, name, meta, engine, threads, rounds, load, took, c2c=()):
        """The models.tsv row of an engine at a thread count from its rounds:
        medians over the rounds' medians (wall, CPU), first calls and
        start-ups; min and max over every call; the output of the last round
        checked against PyTorch's."""
        row = {"model": name, "engine": engine, "threads": threads, "gflop": meta["gflop"],
               "load": load, "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")}
        bad = [r for r in rounds if r.get("status") != "ok"]
        if bad or not rounds:
            row.update(bad[0] if bad else {"status": "failed", "note": "no round ran"})
        else:
            row.update(rounds[-1])
            for k in ("median_ms", "cpu_ms", "first_ms", "first_cpu_ms", "init_ms"):
                vals = sorted(r[k] for r in rounds if r.get(k) is not None)
                if vals:
                    row[k] = median(vals)
            row["min_ms"] = min(r["min_ms"] for r in rounds)
            row["max_ms"] = max(r["max_ms"] for r in rounds)
            row["runs"] = sum(r["runs"] for r in rounds)
            row["round_ms"] = "/".join(f"{r['median_ms']:.4g}" for r in rounds)
            if c2c and all(c is not None for c in c2c):
                row["round_c2c_ns"] = "/".join(f"{c:.0f}" for c in c2c[:len(rounds)])
        if row["status"] == "ok":
            try:
                err, rel = compare(os.path.join(self.work, f"{name}.{engine}-{threads}.bin"),
                                   os.path.join(self.work, name + ".output.bin"))
                row["max_abs_err"], row["rel_err"] = err, rel
                if rel > MATCH_TOL:
                    row["status"] = "WRONG"
                    row["note"] = f"output differs from PyTorch's: rel err {rel:.3g} > {MATCH_TOL}"
            except (OSError, ValueError) as e:
                row["status"] = "WRONG"
                row["note"] = str(e)
            row["gflops"] = meta["gflop"] / (row["median_ms"] * 1e-3)
            if self.peak:
                row["frac_peak"] = row["gflops"] / (self.peak * threads)
        if row["status"] in ("ok", "WRONG") and "max_abs_err" in row:
            msg = (f"{row['median_ms']:10.3f} ms median of {len(rounds)} round"
                   f"{'s' if len(rounds) > 1 else ''} ({row['round_ms']}; min {row['min_ms']:.3f}, "
                   f"first call {row['first_ms']:.3f}, CPU {row['cpu_ms']:.3f}, {row['runs']} runs), "
                   f"{row['gflops']:.1f} GFLOP/s, max err {row['max_abs_err']:.2g} "
                   f"(rel {row['rel_err']:.2g})")
            if row["status"] == "WRONG":
                msg += "  WRONG: " + row["note"]
        else:
            msg = f"{row['status']}: {row.get('note', '')}"
        log(f"  {engine:12s} {threads} thread{'s' if threads > 1 else ' '}: {msg}  [{took:.0f} s]")
        return row

    def measure(self, name, meta, engines, threads):
        """Every engine at every thread count on one network, in rounds
        (the engines take turns, the order reversed every other round): the
        models.tsv rows."""
        jobs = [(e, t) for e in engines for t in threads]
        load = loadavg()
        builds = {t: self.build_dnncc(name, t) for t in threads} if "dnncc" in engines else {}
        per = {j: [] for j in jobs}
        took = {j: 0.0 for j in jobs}
        c2c = []
        for r in range(self.a.rounds):
            c2c.append(self.roundtrip() if any(t > 1 for t in threads) else None)
            for j in (jobs if r % 2 == 0 else jobs[::-1]):
                if per[j] and per[j][-1].get("status") != "ok":
                    continue  # failed or refused: once is enough
                t0 = time.time()
                res = self.time_once(name, j[0], j[1], builds.get(j[1], {}))
                took[j] += time.time() - t0
                per[j].append(res)
            if self.a.rounds > 1:
                log(f"    round {r + 1}/{self.a.rounds}"
                    + (f" (core-to-core {c2c[-1]:.0f} ns)" if c2c[-1] is not None else "") + ": "
                    + ", ".join(
                    f"{e} {t}T " + (f"{p[-1]['median_ms']:.4g}" if p[-1].get("status") == "ok"
                                    else p[-1].get("status", "?"))
                    for (e, t), p in per.items()))
        rows = [self.finish(name, meta, e, t, per[(e, t)], load, took[(e, t)], c2c)
                for e, t in jobs]
        for b in builds.values():
            self.clean_dnncc(b)
        return rows


# -- results ---------------------------------------------------------------------
def fmt(v, spec):
    return "" if v is None or v == "" else format(v, spec)


def read_tsv(path):
    """(rows as dicts, the '# ' header lines) of a models.tsv; empty if none."""
    rows, header = [], []
    if os.path.exists(path):
        with open(path) as f:
            text = [ln.rstrip("\n") for ln in f]
        header = [ln[2:] for ln in text if ln.startswith("# ")]
        lines = [ln for ln in text if not ln.startswith("#")]
        if lines:
            head = lines[0].split("\t")
            for ln in lines[1:]:
                rows.append(dict(zip(head, ln.split("\t"))))
    return rows, header


def write_tsv(path, rows, header):
    with open(path + ".tmp", "w") as f:
        for h in header:
            f.write(f"# {h}\n")
        f.write("\t".join(TSV_FIELDS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(k, "")).replace("\t", " ") for k in TSV_FIELDS) + "\n")
    os.replace(path + ".tmp", path)


def num(r, k):
    try:
        return float(r.get(k, ""))
    except ValueError:
        return None


def cell_ms(r):
    if r is None:
        return "-"
    if r.get("status") in ("ok", "WRONG"):
        v = num(r, "median_ms")
        s = f"{v:.3g}" if v < 10 else f"{v:.0f}" if v >= 100 else f"{v:.1f}"
        return s + (" WRONG" if r.get("status") == "WRONG" else "")
    return r.get("status", "-")


def engine_table(by, models, cols, cell):
    """A markdown table, a row per network and a column per (engine, threads),
    each cell cell(row of models.tsv or None)."""
    lines = ["| network | " + " | ".join(f"{e} {t}T" for e, t in cols) + " |",
             "|---" * (len(cols) + 1) + "|"]
    for m in models:
        lines.append(f"| {m} | " + " | ".join(cell(by.get((m, e, str(t)))) for e, t in cols) + " |")
    return lines


def state_rounds(r, split):
    """The round medians (ms) of a models.tsv row measured in rounds whose
    core-to-core round trip says the two cores shared an L3 (split False)
    or not (split True), sorted; empty where the row has no per-round record."""
    if not r or r.get("status") != "ok" or not r.get("round_c2c_ns") or not r.get("round_ms"):
        return []
    try:
        ms = [float(v) for v in r["round_ms"].split("/")]
        c2c = [float(v) for v in r["round_c2c_ns"].split("/")]
    except ValueError:
        return []
    return sorted(t for t, c in zip(ms, c2c) if (c > SPLIT_L3_NS) == split)


def state_table(by, models, t):
    """At t threads, each engine's median over the rounds that began with a
    shared L3 and over those that began with split ones, and the faster of
    onnxruntime and OpenVINO over dnncc in each state: a 2-thread figure
    depends on which L3s the two vCPUs got that round, and the engines were
    timed side by side within each round. Only the networks and engines
    with such rounds; nothing where no round was split."""
    if t < 2:
        return []
    states = (("shared", False), ("split", True))

    def rounds(m, e, split):
        return state_rounds(by.get((m, e, str(t))), split)

    if not any(rounds(m, "dnncc", True) for m in models):
        return []
    engines = [e for e in ENGINES if any(rounds(m, e, sp) for m in models for _, sp in states)]
    models = [m for m in models if any(rounds(m, "dnncc", sp) for _, sp in states)]
    lines = ["", f"At {t} threads, by the state each round began in (round trip under"
             f" {SPLIT_L3_NS} ns: the two cores shared an L3): median over those rounds in ms,"
             " the number of rounds in parentheses; the last columns as above, per state (a"
             " round can change state midway, the label is its start):", "",
             "| network | " + " | ".join(f"{e} {s}" for e in engines for s, _ in states) + " | " +
             " | ".join(f"best other / dnncc {s}" for s, _ in states) + " |",
             "|---" * (1 + len(engines) * len(states) + len(states)) + "|"]
    for m in models:
        cells, ratios = [], []
        for e in engines:
            for _, split in states:
                v = rounds(m, e, split)
                cells.append(f"{median(v):.3g} ({len(v)})" if v else "-")
        for _, split in states:
            d = rounds(m, "dnncc", split)
            o = [median(v) for v in (rounds(m, e, split) for e in ("onnxruntime", "openvino")) if v]
            ratios.append(f"{min(o) / median(d):.2f}x" if d and o else "-")
        lines.append(f"| {m} | " + " | ".join(cells + ratios) + " |")
    return lines


def write_markdown(path, rows, header, models, cols):
    by = {(r["model"], r["engine"], str(r["threads"])): r for r in rows}
    lines = ["# Whole networks: dnncc against onnxruntime, OpenVINO and PyTorch", ""]
    lines += [h for h in header] + [""]
    lines += ["Median time per call in ms (batch 1, fp32; the autoencoder at batch 4), wall clock,"
              " after warm-up. `not supported`: the engine refused that thread count. The last"
              " columns: the faster of onnxruntime and OpenVINO over dnncc at the same threads"
              " (above 1: dnncc is faster).", ""]
    threads = sorted({t for _, t in cols})
    lines.append("| network | GFLOP | " + " | ".join(f"{e} {t}T" for e, t in cols) +
                 " | dnncc 1T init | dnncc 1T first call | " +
                 " | ".join(f"best other {t}T / dnncc {t}T" for t in threads) + " |")
    lines.append("|---" * (len(cols) + 4 + len(threads)) + "|")
    for m in models:
        g = next((num(r, "gflop") for k, r in by.items() if k[0] == m), None)
        cells = [cell_ms(by.get((m, e, str(t)))) for e, t in cols]
        first = by.get((m, "dnncc", "1"))
        ok1 = first and first.get("status") == "ok"
        fc = fmt(num(first, "first_ms"), ".3g") if ok1 else "-"
        ini = fmt(num(first, "init_ms"), ".3g") if ok1 and first.get("init_ms") not in (None, "") else "-"
        ratios = []
        for t in threads:
            d = by.get((m, "dnncc", str(t)))
            others = [num(r, "median_ms") for e in ("onnxruntime", "openvino")
                      for r in [by.get((m, e, str(t)))] if r and r.get("status") == "ok"]
            if d and d.get("status") == "ok" and others:
                ratios.append(f"{min(others) / num(d, 'median_ms'):.2f}x")
            else:
                ratios.append("-")
        lines.append(f"| {m} | {fmt(g, '.3g')} | " + " | ".join(cells) + f" | {ini} | {fc} | " +
                     " | ".join(ratios) + " |")
    c2c = [(m, r.get("round_c2c_ns")) for m in models
           for r in [by.get((m, "dnncc", str(max(threads))))] if r and r.get("round_c2c_ns")]
    if c2c:
        lines += ["", "Core-to-core round trip before each round, ns (bench/peak roundtrip; above"
                  f" {SPLIT_L3_NS} the two vCPUs shared no L3 that round, and 2-thread runs that pass data"
                  " between their threads were slower): " +
                  ", ".join(f"{m} {v}" for m, v in c2c) + "."]
    lines += state_table(by, models, max(threads))
    lines += ["", "Median process CPU time per call in ms (all of the engine's threads together:"
              " on a shared machine the fairer figure at one thread, where wall time also counts"
              " the time other jobs held the core):", ""]
    def cpu_cell(r):
        c = num(r, "cpu_ms") if r and r.get("status") in ("ok", "WRONG") else None
        return f"{c:.3g}" if c is not None else "-"
    lines += engine_table(by, models, cols, cpu_cell)
    peak = None
    for h in header:
        if h.startswith("Measured peak: "):
            peak = float(h.split()[2])
    lines += ["", "Fraction of the machine's peak reached: GFLOP over the median wall time over"
              " (measured single-core peak x threads); in parentheses GFLOP over the median CPU"
              " time (all threads) over the single-core peak, what each core-second the engine"
              " used delivered, the fairer figure when the machine is shared:", ""]
    def peak_cell(r):
        f = num(r, "frac_peak") if r else None
        c, g = (num(r, "cpu_ms"), num(r, "gflop")) if r else (None, None)
        cell = f"{100 * f:.1f}%" if f is not None else "-"
        if f is not None and peak and c and g:
            cell += f" ({100 * g / (c * 1e-3) / peak:.1f}%)"
        return cell
    lines += engine_table(by, models, cols, peak_cell)
    lines += ["", "Largest |output - PyTorch's output| (relative to max |PyTorch's output| in"
              " parentheses):", ""]
    def err_cell(r):
        a, rel = (num(r, "max_abs_err"), num(r, "rel_err")) if r else (None, None)
        return f"{a:.1e} ({rel:.0e})" if a is not None else "-"
    lines += engine_table(by, models, cols, err_cell)
    notes = [r for r in rows if r.get("note") and r.get("status") != "ok"]
    if notes:
        lines += ["", "Notes:", ""]
        seen = set()
        for r in notes:
            key = (r["engine"], r["status"], r["note"])
            if r["status"] == "not supported" and key in seen:
                continue
            seen.add(key)
            lines.append(f"- {r['model']}, {r['engine']} {r['threads']}T: {r['status']}: "
                         f"{r['note']}")
    lines += ["", "Measured by `make bench-models` (bench/models/bench_models.py); per-row load"
              " and date in models.tsv."]
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


def write_plot(outdir, rows, models, cols, title, field="median_ms", name="models"):
    by = {(r["model"], r["engine"], str(r["threads"])): r for r in rows}
    dat = os.path.join(outdir, name + "_plot.dat")
    with open(dat, "w") as f:
        f.write("network " + " ".join(f'"{e} {t}T"' for e, t in cols) + "\n")
        for m in models:
            vals = []
            for e, t in cols:
                r = by.get((m, e, str(t)))
                v = num(r, field) if r and r.get("status") == "ok" else None
                vals.append(f"{v:.6g}" if v else "NaN")
            f.write(m + " " + " ".join(vals) + "\n")
    gp = os.path.join(HERE, "plot.gp")
    if not shutil.which("gnuplot"):
        log("gnuplot not found: models.png not drawn (apt-get install gnuplot-nox)")
        return
    what = "Median CPU time per inference (all threads)" if field == "cpu_ms" else \
        "Median time per inference"
    rc, out = run(["gnuplot", "-e", f"datafile='{dat}'; outfile='{os.path.join(outdir, name)}.png';"
                   f" ncols={len(cols)}; plottitle='{title}'; what='{what}'", gp])
    if rc != 0:
        log(f"gnuplot failed: {first_lines(out, 4)}")


def write_tables(outdir, rows, header, title):
    models = [m for m in nets.ALL if any(r["model"] == m for r in rows)]
    cols = [(e, t) for e in ENGINES for t in sorted({int(r["threads"]) for r in rows})
            if any(r["engine"] == e and int(r["threads"]) == t for r in rows)]
    write_markdown(os.path.join(outdir, "models.md"), rows, header, models, cols)
    if not title:
        title = next((h[5:].split(",")[0] for h in header if h.startswith("CPU: ")), "")
    write_plot(outdir, rows, models, cols, title)
    write_plot(outdir, rows, models, cols, title, "cpu_ms", "models_cpu")


def main():
    ap = argparse.ArgumentParser(description="dnncc against onnxruntime, OpenVINO and PyTorch "
                                 "on whole networks (make bench-models)")
    ap.add_argument("--model", action="append", help=f"network (repeatable or comma-separated;"
                    f" default all): {' '.join(nets.ALL)}")
    ap.add_argument("--engine", action="append",
                    help=f"engine (repeatable or comma-separated; default all): {' '.join(ENGINES)}")
    ap.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds in which the engines take turns (3)")
    ap.add_argument("--runs", type=int, default=10,
                    help="at least this many timed calls per round (10)")
    ap.add_argument("--min-time", type=float, default=0.5,
                    help="and at least this many seconds of timed calls per round (0.5)")
    ap.add_argument("--out", default="bench/results", help="results folder (bench/results)")
    ap.add_argument("--work", default="bench/models-out", help="exports and builds (bench/models-out)")
    ap.add_argument("--dnncc", default="./dnncc")
    ap.add_argument("--dnncc-flags", default="--profile",
                    help="dnncc options (default --profile; \"\" for the built-in cost model)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cflags", default="", help="extra flags for the generated code's build")
    ap.add_argument("--peak", default="bench/peak", help="the bench/peak program")
    ap.add_argument("--rt-python", default="", help="Python with onnxruntime and openvino")
    ap.add_argument("--fresh", action="store_true", help="export the models again")
    ap.add_argument("--keep", action="store_true", help="keep the generated code")
    ap.add_argument("--tables-only", action="store_true",
                    help="measure nothing: redraw models.md and models.png from models.tsv")
    a = ap.parse_args()

    def split(vals, known, what):
        out = [v for x in (vals or [",".join(known)]) for v in x.split(",") if v]
        bad = [v for v in out if v not in known]
        if bad:
            ap.error(f"unknown {what} {' '.join(bad)}; known: {' '.join(known)}")
        return out
    models = split(a.model, nets.ALL, "network")
    engines = split(a.engine, ENGINES, "engine")
    threads = [int(t) for t in a.threads.split(",")]
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    os.makedirs(a.out, exist_ok=True)
    tsv = os.path.join(a.out, "models.tsv")
    if a.tables_only:
        rows, header = read_tsv(tsv)
        write_tables(a.out, rows, header, "")
        return 0

    b = Bench(a)
    cpu = cpu_name()
    start_load = loadavg()
    log(f"bench-models: {cpu}, {os.cpu_count()} cores, load {start_load}")
    log(f"networks: {' '.join(models)}; engines: {' '.join(engines)}; threads: "
        f"{' '.join(map(str, threads))}; onnxruntime/OpenVINO through {b.rt_python}")
    b.measure_machine()

    rows = []
    t_all = time.time()
    earlier = read_tsv(tsv)[0]

    def save(final):
        """Merges the rows measured so far into models.tsv (they replace their
        own keys) and redraws the tables; called after every network, so an
        interrupted run keeps what it measured."""
        key = lambda r: (r["model"], r["engine"], str(r["threads"]))  # noqa: E731
        new = {key(r) for r in rows}
        merged = [r for r in earlier if key(r) not in new] + \
            [{k: (fmt(v, ".6g") if isinstance(v, float) else v) for k, v in r.items()}
             for r in rows]
        order = {m: i for i, m in enumerate(nets.ALL)}
        merged.sort(key=lambda r: (order.get(r["model"], 99), ENGINES.index(r["engine"])
                                   if r["engine"] in ENGINES else 9, int(r["threads"])))
        end_load = loadavg()
        now = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
        header = [f"CPU: {cpu}, {os.cpu_count()} cores ({platform.machine()})."]
        if b.peak:
            header.append(f"Measured peak: {b.peak:.1f} GFLOP/s per core ({b.peak_isa} FMA loop;"
                          " " + ", ".join(f"{k} {v:.1f}" for k, v in b.isa_peaks.items()) +
                          f"); read bandwidth {b.bandwidth:.1f} GB/s on one core" +
                          (f", {b.bandwidth2:.1f} GB/s by two threads together"
                           if b.bandwidth2 else "") + " (bench/peak).")
        header.append(f"Last run {now}{'' if final else ' (interrupted or in progress)'}: load"
                      f" average {start_load} at the start, {end_load} at the end (1, 5, 15"
                      f" minutes); {os.cpu_count()} cores.")
        header.append(f"dnncc's code built with `{(a.cc + ' -std=c99 -O2 ' + a.cflags).strip()}`;"
                      f" dnncc options: `{('--threads T ' + a.dnncc_flags).strip()}`.")
        header.append("OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE were unset for every engine.")
        write_tsv(tsv, merged, header)
        write_tables(a.out, merged, header,
                     f"{cpu}, load {start_load.split()[0]}-{end_load.split()[0]}, {now[:10]}")

    for i, m in enumerate(models, 1):
        try:
            meta = b.export(m)
        except RuntimeError as e:
            log(f"[{i}/{len(models)}] {m}: {e}")
            continue
        log(f"[{i}/{len(models)}] {m}: {meta['gflop']:.3f} GFLOP, input "
            f"{'x'.join(map(str, meta['input_shape']))}, load {loadavg()}, "
            f"{time.time() - t_all:.0f} s so far")
        rows += b.measure(m, meta, engines, threads)
        save(i == len(models))
    log(f"done in {time.time() - t_all:.0f} s; results in {tsv}, models.md, models.png")
    bad = [r for r in rows if r.get("status") in ("WRONG", "failed")]
    for r in bad:
        log(f"{r['status']}: {r['model']} {r['engine']} {r['threads']}T: {r.get('note', '')}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
