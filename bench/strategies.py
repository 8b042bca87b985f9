#!/usr/bin/python3
"""strategies.py - the paper's Figures 5 and 6 (Anderson & Gregg, CGO 2018)
redone on this machine: every selection strategy end to end on the issue 8
networks, with a measured cost table, predicted beside measured.

    /usr/bin/python3 bench/strategies.py [options]       (make bench-strategies)

For every network (torchvision models with random weights, exported by
tests/e2e/export_models.py into the end-to-end test's cache):
  1. `dnncc profile` measures its layers (through dnncc's cache, so a second
     run of the benchmark measures nothing) into WORK/MODEL.costs.tsv;
  2. for every strategy, `dnncc --strategy S --costs that table --report
     --instrument` compiles it; the report's "predicted:" line is the
     strategy's predicted total (convolutions and layout transforms, the
     costs the selection sees);
  3. the generated C is built with `$CC -O2 -std=c99` together with
     bench/strategies_main.c, which fills the input, calls model_run once
     to warm up, then times up to --runs calls (at most --max-seconds) and
     writes the per-layer profile of those calls;
  4. one row per (network, threads, strategy) goes into OUT/strategies.tsv:
     the predicted total, the measured median (processor time at one thread,
     which a loaded machine disturbs less than wall time; wall time beside
     it), the speedup over sum2d, measured/predicted, and the split of the
     measured time that --instrument gives: the layers with an estimate
     (convolutions, transforms) against the rest (pools, fully-connected
     layers, element-wise ops, ...), and the share spent in convolution
     rows whose inner loop is not vectorised (RT_COST simd 0 in
     runtime/fam_*.def).
Rows already in the TSV for other networks or strategies are kept, so one
network or one strategy can be rerun alone (--models, --strategies). The
header records the CPU, the compiler, the load average before and after
and the date. bench/plot_strategies.gp draws OUT/strategies.png from it.

A strategy whose build or run fails, or whose one run exceeds
--run-timeout seconds (the reference kernels on VGG-16), gets a row with
status "failed: ..." or "timeout" and no time. Progress, with an estimate
of the time left, goes to the terminal.
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"))
from timing import cpu_name  # noqa: E402

MODELS = ["alexnet", "vgg16", "googlenet", "resnet18", "resnet50", "mobilenet_v2",
          "squeezenet1_1"]
STRATEGIES = ["pbqp", "greedy", "canonical", "sum2d", "family:direct", "family:im2",
              "family:kn2", "family:winograd", "family:fft", "family:depthwise", "reference"]
COLUMNS = ["model", "threads", "strategy", "predicted_us", "measured_us", "wall_median_us",
           "wall_min_us", "runs", "speedup_vs_sum2d", "predicted_speedup_vs_sum2d",
           "measured_over_predicted", "est_layers_us", "est_sum_us", "other_layers_us",
           "scalar_conv_share", "status"]


def here():
    return os.path.dirname(os.path.abspath(__file__))


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def scalar_rows(srcdir):
    """Primitive rows whose RT_COST declares no SIMD (simd field 0)."""
    rows = set()
    for path in glob.glob(os.path.join(srcdir, "runtime", "fam_*.def")):
        with open(path) as f:
            text = f.read()
        for m in re.finditer(r"PRIM\((\w+),.*?RT_COST\(\s*([^,]+),", text, re.S):
            if m.group(2).strip() == "0":
                rows.add(m.group(1))
    return rows


def fmt(x, digits=1):
    return "" if x is None else f"{x:.{digits}f}"


def read_tsv(path):
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        header = None
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if header is None:
                header = fields
                continue
            r = dict(zip(header, fields))
            rows[(r["model"], r["threads"], r["strategy"])] = r
    return rows


def num(r, key):
    try:
        return float(r.get(key, ""))
    except ValueError:
        return None


def write_tsv(path, rows, header_lines):
    """All rows, in MODELS x threads x STRATEGIES order, speedups recomputed."""
    def order(key):
        m, t, s = key
        return (MODELS.index(m) if m in MODELS else len(MODELS), m, int(t),
                STRATEGIES.index(s) if s in STRATEGIES else len(STRATEGIES), s)
    for (m, t, s), r in rows.items():
        base = rows.get((m, t, "sum2d"))
        meas, pred = num(r, "measured_us"), num(r, "predicted_us")
        bm = num(base, "measured_us") if base else None
        bp = num(base, "predicted_us") if base else None
        r["speedup_vs_sum2d"] = fmt(bm / meas, 3) if bm and meas else ""
        r["predicted_speedup_vs_sum2d"] = fmt(bp / pred, 3) if bp and pred else ""
        r["measured_over_predicted"] = fmt(meas / pred, 3) if meas and pred else ""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for h in header_lines:
            f.write(f"# {h}\n")
        f.write("\t".join(COLUMNS) + "\n")
        for key in sorted(rows, key=order):
            f.write("\t".join(str(rows[key].get(c, "")) for c in COLUMNS) + "\n")
    os.replace(tmp, path)
    # the plot's input: one line per network, the speedup of each strategy
    dat = os.path.join(os.path.dirname(path), "strategies_speedup.dat")
    models = [m for m in MODELS if any(k[0] == m for k in rows)]
    with open(dat + ".tmp", "w") as f:
        f.write("# speedup over sum2d, measured (from strategies.tsv, threads 1; "
                "'-' where the strategy did not run)\nmodel\t" + "\t".join(STRATEGIES) + "\n")
        for m in models:
            vals = [rows.get((m, "1", s), {}).get("speedup_vs_sum2d", "") or "-"
                    for s in STRATEGIES]
            f.write(m + "\t" + "\t".join(vals) + "\n")
    os.replace(dat + ".tmp", dat)


def run(cmd, log, timeout=None, cwd=None):
    """Runs cmd, its output into log; returns (status, seconds)."""
    t0 = time.time()
    with open(log, "w") as f:
        try:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout,
                                cwd=cwd).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return rc, time.time() - t0


def tail(path, n=3):
    try:
        with open(path, errors="replace") as f:
            return " | ".join(line.strip() for line in f.readlines()[-n:])
    except OSError:
        return ""


def predicted(report):
    """The strategy's predicted total (µs) from --report, None without one."""
    with open(report, errors="replace") as f:
        for line in f:
            if line.strip().startswith("predicted:"):
                m = re.search(r"=\s*([0-9.]+)\s*µs", line)
                if m:
                    return float(m.group(1))
    return None


def layer_split(path, scalar):
    """From the per-layer profile: measured µs in rows with an estimate, the
    sum of those estimates, µs in rows without one, the share of the total
    in scalar convolution rows."""
    est_meas = est_sum = other = scal = total = 0.0
    with open(path) as f:
        next(f)
        for line in f:
            node, op, prim, est, meas = line.rstrip("\n").split("\t")
            est, meas = float(est), float(meas)
            total += meas
            if est > 0:
                est_meas += meas
                est_sum += est
            else:
                other += meas
            if op == "Conv" and prim in scalar:
                scal += meas
    return est_meas, est_sum, other, (scal / total if total > 0 else 0.0)


def main():
    src = os.path.dirname(here())
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated, from: " + " ".join(MODELS))
    ap.add_argument("--strategies", default=",".join(STRATEGIES),
                    help="comma-separated, default: " + " ".join(STRATEGIES))
    ap.add_argument("--threads", default="1", help="comma-separated thread counts "
                    "(passed as --threads N to dnncc and its profile)")
    ap.add_argument("--runs", type=int, default=9, help="timed calls per strategy (median)")
    ap.add_argument("--max-seconds", type=float, default=20.0,
                    help="stop timing a strategy after this long (at least 3 calls)")
    ap.add_argument("--run-timeout", type=float, default=120.0,
                    help="give up on a strategy whose warm-up call takes longer")
    ap.add_argument("--profile-runs", type=int, default=15,
                    help="dnncc profile --runs (timed samples per case)")
    ap.add_argument("--no-instrument", action="store_true",
                    help="build without --instrument (no per-layer split)")
    ap.add_argument("--dnncc", default=os.environ.get("DNNCC", os.path.join(os.getcwd(), "dnncc")))
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--e2e-dir", default=os.path.join(os.getcwd(), "tests", "e2e-cache"),
                    help="where the exported models are (exported when missing)")
    ap.add_argument("--work", default=os.path.join(os.getcwd(), "bench", "strategies-work"))
    ap.add_argument("--out", default=os.path.join(src, "bench", "results"))
    ap.add_argument("--keep", action="store_true", help="keep the generated code")
    a = ap.parse_args()

    models = [m for m in a.models.split(",") if m]
    strategies = [s for s in a.strategies.split(",") if s]
    threads = [t for t in a.threads.split(",") if t]
    for m in models:
        if m not in MODELS:
            ap.error(f"unknown model {m}")
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    tsv = os.path.join(a.out, "strategies.tsv")
    scalar = scalar_rows(src)
    driver = os.path.join(here(), "strategies_main.c")
    load_before = loadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    cc_version = subprocess.run(a.cc.split() + ["--version"], capture_output=True,
                                text=True).stdout.split("\n")[0]

    missing = [m for m in models if not os.path.exists(os.path.join(a.e2e_dir, m + ".onnx"))]
    if missing:
        print(f"exporting {' '.join(missing)} into {a.e2e_dir}", flush=True)
        rc = subprocess.run(["/usr/bin/python3", os.path.join(src, "tests", "e2e",
                                                              "export_models.py"),
                             a.e2e_dir] + missing).returncode
        if rc:
            sys.exit(f"export_models.py failed (exit status {rc})")

    def save():
        write_tsv(tsv, rows, [
            "bench/strategies.py: every selection strategy end to end (issue 8, "
            "Figures 5 and 6 of Anderson & Gregg)",
            f"cpu: {cpu_name()}",
            f"compiler: {cc_version} (-O2 -std=c99)",
            f"date: {started}; load average before: {load_before}; after: {loadavg()}",
            f"runs: median of up to {a.runs} calls after one warm-up (at most "
            f"{a.max_seconds:g} s); dnncc profile --runs {a.profile_runs}",
            "measured_us: median processor time per call at 1 thread (wall time "
            "with more threads); all times in microseconds",
            "predicted_us: dnncc --report's predicted total under the measured "
            "table (convolutions and layout transforms only)",
            "est_layers_us / est_sum_us: measured time / estimate of the layers "
            "that have an estimate (--instrument's per-layer wall times, scaled to sum to "
            "measured_us); other_layers_us: measured time of the rest; scalar_conv_share: "
            "share of the time in convolution rows without SIMD",
        ])

    def one(m, t, s, onnx, table, topt):
        d = os.path.join(a.work, f"{m}.t{t}.{s.replace(':', '_')}")
        os.makedirs(d, exist_ok=True)
        for old in glob.glob(os.path.join(d, "*")):
            os.remove(old)
        r = {"model": m, "threads": t, "strategy": s, "status": "ok"}
        rows[(m, t, s)] = r
        inst = [] if a.no_instrument else ["--instrument"]
        rc, sec = run([a.dnncc, onnx, "-o", os.path.join(d, "model.c"), "--name", "model",
                       "--strategy", s, "--costs", table, "--report",
                       "--max-weights", "4096"] + inst + topt,
                      os.path.join(d, "report.txt"), timeout=1800)
        if rc != 0:
            r["status"] = f"failed: dnncc: {tail(os.path.join(d, 'report.txt'), 1)}"
            print(f"    {r['status']}", flush=True)
            return
        pred = predicted(os.path.join(d, "report.txt"))
        r["predicted_us"] = fmt(pred)
        print(f"    dnncc {sec:.1f} s; predicted {fmt(pred and pred / 1000, 2) or '-'} ms",
              flush=True)
        defs = [] if a.no_instrument else ["-DINSTRUMENT"]
        rc, sec = run(a.cc.split() + ["-O2", "-std=c99", "-I.", "-o", "run"] + defs +
                      ["model.c", driver, "-lm"] + (["-lpthread"] if t != "1" else []),
                      os.path.join(d, "cc.log"), timeout=1800, cwd=d)
        if rc != 0:
            r["status"] = f"failed: cc: {tail(os.path.join(d, 'cc.log'), 1)}"
            print(f"    {r['status']}", flush=True)
            return
        print(f"    cc -O2 {sec:.1f} s", flush=True)
        layers = os.path.join(d, "layers.tsv")
        rc, sec = run(["./run", str(a.runs), str(a.max_seconds), layers],
                      os.path.join(d, "run.log"),
                      timeout=a.run_timeout + a.max_seconds + a.run_timeout, cwd=d)
        if rc == "timeout":
            r["status"] = "timeout"
            print(f"    timed out (--run-timeout {a.run_timeout:g} s)", flush=True)
            return
        if rc != 0:
            r["status"] = f"failed: run: {tail(os.path.join(d, 'run.log'), 1)}"
            print(f"    {r['status']}", flush=True)
            return
        with open(os.path.join(d, "run.log")) as f:
            kv = dict(p.split("=") for p in f.read().split() if "=" in p)
        cpu, wall = float(kv["cpu_median_us"]), float(kv["wall_median_us"])
        meas = cpu if t == "1" else wall
        r.update({"measured_us": fmt(meas), "wall_median_us": fmt(wall),
                  "wall_min_us": kv["wall_min_us"], "runs": kv["runs"]})
        if not a.no_instrument and os.path.exists(layers):
            em, es, other, sc = layer_split(layers, scalar)
            # the instrumented rows are wall time: scale them to the processor
            # time measured above (load inflates every layer's wall time
            # alike, to first order)
            k = meas / (em + other) if em + other > 0 else 1.0
            em, other = em * k, other * k
            r.update({"est_layers_us": fmt(em), "est_sum_us": fmt(es),
                      "other_layers_us": fmt(other), "scalar_conv_share": fmt(sc, 3)})
            os.replace(layers, os.path.join(a.work, f"{m}.t{t}.{s.replace(':', '_')}"
                                            ".layers.tsv"))
        ratio = f"; measured/predicted {meas / pred:.2f}" if pred else ""
        print(f"    measured {meas / 1000:.2f} ms (median of {kv['runs']}, wall "
              f"{wall / 1000:.2f} ms){ratio}", flush=True)
        if not a.keep:
            for f in glob.glob(os.path.join(d, "*")):
                if os.path.basename(f) not in ("report.txt", "run.log"):
                    os.remove(f)

    rows = read_tsv(tsv)
    jobs = [(m, t, s) for m in models for t in threads for s in strategies]
    done = 0
    t_bench = time.time()
    for m in models:
        onnx = os.path.join(a.e2e_dir, m + ".onnx")
        for t in threads:
            topt = [] if t == "1" else ["--threads", t]
            table = os.path.join(a.work, f"{m}.t{t}.costs.tsv")
            print(f"[{m}] dnncc profile (cached; --runs {a.profile_runs}) ...", flush=True)
            t0 = time.time()
            # the profile's own progress bar and ETA go to the terminal
            rc = subprocess.run([a.dnncc, "profile", onnx, "-o", table, "--runs",
                                 str(a.profile_runs)] + topt).returncode
            if rc:
                sys.exit(f"dnncc profile {onnx} failed (exit status {rc})")
            print(f"[{m}] profiled in {time.time() - t0:.1f} s", flush=True)
            for s in strategies:
                done += 1
                elapsed = time.time() - t_bench
                eta = "" if done == 1 else \
                    f", about {elapsed / (done - 1) * (len(jobs) - done + 1) / 60:.0f} min left"
                print(f"[{done}/{len(jobs)}] {m} threads {t} {s}{eta}", flush=True)
                one(m, t, s, onnx, table, topt)
                save()  # after each, so an interrupted run keeps what it measured
    print(f"wrote {tsv} in {(time.time() - t_bench) / 60:.1f} min; load average now "
          f"{loadavg()} (before: {load_before})")


if __name__ == "__main__":
    main()
