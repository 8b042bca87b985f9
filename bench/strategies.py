#!/usr/bin/python3
"""strategies.py - the paper's Figures 5 and 6 (Anderson & Gregg, CGO 2018)
redone on this machine: every selection strategy end to end on the issue 8
networks, with a measured cost table, predicted beside measured.

    /usr/bin/python3 bench/strategies.py [--quick] [options]   (make bench-strategies)

For every network (torchvision models with random weights, exported by
tests/e2e/export_models.py into the end-to-end test's cache):
  1. `dnncc profile` measures its layers (through dnncc's cache, so a second
     run of the benchmark measures nothing) into WORK/MODEL.costs.tsv;
  2. build, --jobs (2) at a time: for every strategy, `dnncc --strategy S
     --costs that table --report --instrument` compiles it (the report's
     "predicted:" line is the strategy's predicted total: every layer and
     transform); strategies whose generated code is identical (the same
     choice) are built and timed once; the code is built with `$CC -O2
     -std=c99` together with bench/strategies_main.c, and at one thread
     --instrument's clock is the thread's CPU time;
  3. time, one build at a time: strategies_main fills the input, calls
     model_run once to warm up, then times up to --runs calls (at most
     --max-seconds) and writes the per-layer profile of those calls;
  4. one row per (network, threads, strategy) goes into OUT/strategies.tsv:
     the predicted total, the measured median (processor time at one thread,
     which a loaded machine disturbs less than wall time; wall time beside
     it), the speedup over sum2d, measured/predicted, and the split of the
     measured time that --instrument gives: the layers with an estimate
     against the rest, and the share spent in convolution rows whose inner
     loop is not vectorised (RT_COST simd 0 in runtime/fam_*.def).
     OUT/strategies_layers.tsv breaks each build's time down by group of
     layers (convolutions per family, transforms, pools, ...), predicted
     against measured: where the prediction misses. OUT/strategies.md is
     the summary: per network pbqp's predicted and measured time (within
     15%?) and the fastest strategy, then every strategy's time and pbqp's
     speedup over it.
--quick (what `make bench-strategies` runs) is sized for the seven networks
x every strategy in about 15 minutes on a quiet 2-core Xeon: profiles with
--runs 3, 5 timed calls of at most 3 s, and one timed call, without
--instrument, for sum2d and reference (seconds per call on VGG-16).
Rows already in the TSV for other networks or strategies are kept, so one
network or one strategy can be rerun alone (--models, --strategies). The
header records the CPU, the compiler, the load average before and after
and the date. bench/plot_strategies.gp draws OUT/strategies.png from it.

A strategy whose build or run fails, or whose one run exceeds
--run-timeout seconds, gets a row with status "failed: ..." or "timeout"
and no time. Progress, with an estimate of the time left, goes to the
terminal.
"""
import argparse
import glob
import hashlib
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
    # only the strategies that ran somewhere: an all-missing column would
    # draw an empty cluster slot (and gnuplot warns about it)
    ran = [s for s in STRATEGIES
           if any(rows.get((m, "1", s), {}).get("speedup_vs_sum2d") for m in models)]
    with open(dat + ".tmp", "w") as f:
        f.write("# speedup over sum2d, measured (from strategies.tsv, threads 1; "
                "'-' where the strategy did not run)\nmodel\t" + "\t".join(ran) + "\n")
        for m in models:
            vals = [rows.get((m, "1", s), {}).get("speedup_vs_sum2d", "") or "-"
                    for s in ran]
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


def group_of(op, prim):
    """The per-layer breakdown's group: transforms, convolutions by family
    (the row name's second word), the other layers by op."""
    if prim.startswith("layout_"):
        return "transform"
    if op == "Conv":
        parts = prim.split("_")
        return "conv:" + (parts[1] if len(parts) > 1 else prim)
    return op


def layer_groups(path):
    """{group: [layers, predicted µs, measured µs]} from a per-layer profile."""
    g = {}
    with open(path) as f:
        next(f)
        for line in f:
            node, op, prim, est, meas = line.rstrip("\n").split("\t")
            e = g.setdefault(group_of(op, prim), [0, 0.0, 0.0])
            e[0] += 1
            e[1] += float(est)
            e[2] += float(meas)
    return g


def write_groups(path, groups, header_lines):
    """OUT/strategies_layers.tsv: per network and strategy, where the
    prediction misses (measured against predicted per group of layers)."""
    with open(path + ".tmp", "w") as f:
        for h in header_lines:
            f.write(f"# {h}\n")
        f.write("model\tthreads\tstrategy\tgroup\tlayers\tpredicted_us\tmeasured_us\t"
                "measured_over_predicted\tshare_of_measured\n")
        for (m, t, s) in sorted(groups, key=lambda k: (MODELS.index(k[0]) if k[0] in MODELS
                                                          else 99, k[1], k[2])):
            g = groups[(m, t, s)]
            total = sum(v[2] for v in g.values()) or 1.0
            for name, (n, est, meas) in sorted(g.items(), key=lambda kv: -kv[1][2]):
                ratio = fmt(meas / est, 3) if est > 0 else ""
                f.write(f"{m}\t{t}\t{s}\t{name}\t{n}\t{est:.1f}\t{meas:.1f}\t{ratio}\t"
                        f"{meas / total:.3f}\n")
    os.replace(path + ".tmp", path)


def write_md(path, rows, header_lines):
    """OUT/strategies.md: per network and thread count, pbqp's predicted and
    measured time, then every strategy's measured time and pbqp's speedup
    over it (above 1: pbqp is faster)."""
    with open(path + ".tmp", "w") as f:
        f.write("# Selection strategies end to end (make bench-strategies)\n\n")
        for h in header_lines:
            f.write(f"- {h}\n")
        keys = sorted({(k[0], k[1]) for k in rows},
                      key=lambda k: (MODELS.index(k[0]) if k[0] in MODELS else 99, int(k[1])))
        f.write("\n## PBQP: predicted against measured\n\n"
                "| network | threads | predicted ms | measured ms | measured / predicted | "
                "within 15% | fastest strategy measured | pbqp / fastest |\n"
                "|---|---|---|---|---|---|---|---|\n")
        for m, t in keys:
            r = rows.get((m, t, "pbqp"))
            if not r:
                continue
            pred, meas = num(r, "predicted_us"), num(r, "measured_us")
            timed = [(num(x, "measured_us"), k[2]) for k, x in rows.items()
                     if k[0] == m and k[1] == t and num(x, "measured_us")]
            best = min(timed) if timed else (None, "")
            ok = "yes" if pred and meas and abs(meas / pred - 1) <= 0.15 else "no"
            f.write(f"| {m} | {t} | {fmt(pred and pred / 1e3, 2)} | {fmt(meas and meas / 1e3, 2)}"
                    f" | {fmt(pred and meas and meas / pred, 2)} | {ok} | {best[1]} | "
                    f"{fmt(meas and best[0] and meas / best[0], 3)} |\n")
        strategies = [s for s in STRATEGIES if any(k[2] == s for k in rows)]
        f.write("\n## Every strategy: measured ms (predicted ms), pbqp's speedup over it\n\n"
                "| network | threads | " + " | ".join(strategies) + " |\n"
                "|---|---|" + "---|" * len(strategies) + "\n")
        for m, t in keys:
            base = num(rows.get((m, t, "pbqp"), {}), "measured_us")
            cells = []
            for s in strategies:
                r = rows.get((m, t, s))
                meas = num(r, "measured_us") if r else None
                pred = num(r, "predicted_us") if r else None
                if not r:
                    cells.append("")
                elif meas is None:
                    cells.append(r.get("status", ""))
                else:
                    sp = f", x{base and meas / base:.2f}" if base and s != "pbqp" else ""
                    cells.append(f"{meas / 1e3:.2f} ({fmt(pred and pred / 1e3, 2) or '-'}){sp}")
            f.write(f"| {m} | {t} | " + " | ".join(cells) + " |\n")
    os.replace(path + ".tmp", path)


def code_hash(path):
    """Hash of generated code without its header comment (which names the
    strategy): strategies that chose the same are built and timed once."""
    with open(path, "rb") as f:
        text = f.read()
    end = text.find(b"*/")
    return hashlib.sha1(text[end:] if end >= 0 else text).hexdigest()


def main():
    src = os.path.dirname(here())
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated, from: " + " ".join(MODELS))
    ap.add_argument("--strategies", default=",".join(STRATEGIES),
                    help="comma-separated, default: " + " ".join(STRATEGIES))
    ap.add_argument("--threads", default="1", help="comma-separated thread counts "
                    "(passed as --threads N to dnncc and its profile)")
    ap.add_argument("--quick", action="store_true",
                    help="the timed whole run (about 15 min on a quiet 2-core Xeon): "
                    "--runs 5 --max-seconds 3 --profile-runs 3 --slow-runs 1")
    ap.add_argument("--runs", type=int, default=None, help="timed calls per strategy (median; "
                    "default 9, --quick 5)")
    ap.add_argument("--min-runs", type=int, default=3, help="timed calls at least (default 3)")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="stop timing a strategy after this long, at least --min-runs calls "
                    "(default 20, --quick 3)")
    ap.add_argument("--slow-runs", type=int, default=None,
                    help="timed calls (and no per-layer profile) for sum2d and reference, "
                    "whose calls take seconds (default: as the others; --quick 1)")
    ap.add_argument("--run-timeout", type=float, default=120.0,
                    help="give up on a strategy whose warm-up call takes longer")
    ap.add_argument("--profile-runs", type=int, default=None,
                    help="dnncc profile --runs (timed samples per case; default 15, --quick 3)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="dnncc and cc jobs run at once while building (timing is one at a time)")
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
    # the timed programs run inside their build folders: relative paths given
    # here (a --work of work/bs) would name files that are not there
    a.work, a.out, a.e2e_dir = (os.path.abspath(x) for x in (a.work, a.out, a.e2e_dir))
    if a.runs is None:
        a.runs = 5 if a.quick else 9
    if a.max_seconds is None:
        a.max_seconds = 3.0 if a.quick else 20.0
    if a.profile_runs is None:
        a.profile_runs = 3 if a.quick else 15
    if a.slow_runs is None and a.quick:
        a.slow_runs = 1

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

    rows = read_tsv(tsv)
    groups = {}
    gpath = os.path.join(a.out, "strategies_layers.tsv")
    if os.path.exists(gpath):
        with open(gpath) as f:
            for line in f:
                if line.startswith("#") or line.startswith("model\t"):
                    continue
                m, t, s, grp, n, est, meas = line.rstrip("\n").split("\t")[:7]
                groups.setdefault((m, t, s), {})[grp] = [int(n), float(est), float(meas)]

    def header():
        return [
            "bench/strategies.py: every selection strategy end to end (issue 8, "
            "Figures 5 and 6 of Anderson & Gregg)",
            f"cpu: {cpu_name()}",
            f"compiler: {cc_version} (-O2 -std=c99)",
            f"date: {started}; load average before: {load_before}; after: {loadavg()}",
            f"runs: median of up to {a.runs} calls after one warm-up (at least {a.min_runs}, "
            f"at most {a.max_seconds:g} s" +
            (f"; sum2d and reference {a.slow_runs}" if a.slow_runs else "") +
            f"); dnncc profile --runs {a.profile_runs}" + (" (--quick)" if a.quick else ""),
            "measured_us: median processor time per call at 1 thread (wall time "
            "with more threads); all times in microseconds",
            "predicted_us: dnncc --report's predicted total under the measured "
            "table (every layer: convolutions, other layers, fully-connected, transforms)",
            "est_layers_us / est_sum_us: measured time / estimate of the layers "
            "that have an estimate (--instrument's per-layer times: thread CPU time at 1 "
            "thread, wall time scaled to sum to measured_us with more); other_layers_us: "
            "measured time of the rest; scalar_conv_share: share of the time in convolution "
            "rows without SIMD",
        ]

    def save():
        h = header()
        write_tsv(tsv, rows, h)
        write_md(os.path.join(a.out, "strategies.md"), rows, h)
        if groups:
            write_groups(gpath, groups, h)

    def slow(s):
        return a.slow_runs is not None and s in ("sum2d", "reference")

    # 1. profiles (through dnncc's cache)
    t_bench = time.time()
    tables = {}
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
            tables[(m, t)] = table
    t_profiled = time.time()

    # 2. build: dnncc and cc, --jobs at a time; identical code is built once
    jobs = [(m, t, s) for m in models for t in threads for s in strategies]

    def workdir(m, t, s):
        return os.path.join(a.work, f"{m}.t{t}.{s.replace(':', '_')}")

    def build(job):
        m, t, s = job
        d = workdir(m, t, s)
        os.makedirs(d, exist_ok=True)
        for old in glob.glob(os.path.join(d, "*")):
            os.remove(old)
        onnx = os.path.join(a.e2e_dir, m + ".onnx")
        topt = [] if t == "1" else ["--threads", t]
        inst = [] if a.no_instrument or slow(s) else ["--instrument"]
        rc, sec = run([a.dnncc, onnx, "-o", os.path.join(d, "model.c"), "--name", "model",
                       "--strategy", s, "--costs", tables[(m, t)], "--report",
                       "--max-weights", "4096"] + inst + topt,
                      os.path.join(d, "report.txt"), timeout=1800)
        if rc != 0:
            return f"failed: dnncc: {tail(os.path.join(d, 'report.txt'), 1)}", None
        h = code_hash(os.path.join(d, "model.c"))
        with lock:
            first = built.setdefault((m, t, h), job)
        if first != job:
            return "same", first
        defs = [] if not inst else ["-DINSTRUMENT"]
        if inst and t == "1":
            defs.append("-DDNNCC_PROFILE_CLOCK=CLOCK_THREAD_CPUTIME_ID")
        rc, sec = run(a.cc.split() + ["-O2", "-std=c99", "-I.", "-o", "run"] + defs +
                      ["model.c", driver, "-lm"] + (["-lpthread"] if t != "1" else []),
                      os.path.join(d, "cc.log"), timeout=1800, cwd=d)
        if rc != 0:
            return f"failed: cc: {tail(os.path.join(d, 'cc.log'), 1)}", None
        return "ok", None

    import concurrent.futures
    import threading
    lock = threading.Lock()
    built = {}
    outcome = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = {ex.submit(build, j): j for j in jobs}
        for k, fu in enumerate(concurrent.futures.as_completed(futs)):
            j = futs[fu]
            outcome[j] = fu.result()
            el = time.time() - t_profiled
            print(f"[build {k + 1}/{len(jobs)}] {j[0]} threads {j[1]} {j[2]}: "
                  f"{outcome[j][0]}{' as ' + outcome[j][1][2] if outcome[j][1] else ''}; "
                  f"about {el / (k + 1) * (len(jobs) - k - 1) / 60:.1f} min of building left",
                  flush=True)
    t_built = time.time()

    # 3. time, one at a time (the machine otherwise quiet)
    def measure(job):
        m, t, s = job
        d = workdir(m, t, s)
        r = {"model": m, "threads": t, "strategy": s, "status": "ok"}
        rows[job] = r
        status, same = outcome[job]
        if status.startswith("failed"):
            r["status"] = status
            return
        pred = predicted(os.path.join(d, "report.txt"))
        r["predicted_us"] = fmt(pred)
        if same:
            o = rows.get(same, {})
            for k in ("measured_us", "wall_median_us", "wall_min_us", "runs", "est_layers_us",
                      "est_sum_us", "other_layers_us", "scalar_conv_share"):
                r[k] = o.get(k, "")
            r["status"] = o.get("status", "ok") if o.get("status", "ok") != "ok" else \
                f"ok (same code as {same[2]})"
            if same in groups:
                groups[job] = groups[same]
            return
        layers = os.path.join(d, "layers.tsv")
        n_runs = a.slow_runs if slow(s) else a.runs
        min_runs = min(a.min_runs, n_runs)
        rc, sec = run(["./run", str(n_runs), str(a.max_seconds), layers, str(min_runs)],
                      os.path.join(d, "run.log"),
                      timeout=a.run_timeout + a.max_seconds + a.run_timeout * n_runs, cwd=d)
        if rc == "timeout":
            r["status"] = "timeout"
            return
        if rc != 0:
            r["status"] = f"failed: run: {tail(os.path.join(d, 'run.log'), 1)}"
            return
        with open(os.path.join(d, "run.log")) as f:
            kv = dict(p.split("=") for p in f.read().split() if "=" in p)
        cpu, wall = float(kv["cpu_median_us"]), float(kv["wall_median_us"])
        meas = cpu if t == "1" else wall
        r.update({"measured_us": fmt(meas), "wall_median_us": fmt(wall),
                  "wall_min_us": kv["wall_min_us"], "runs": kv["runs"]})
        if os.path.exists(layers):
            em, es, other, sc = layer_split(layers, scalar)
            if t != "1":
                # wall time per layer: scale to the measured total (load
                # inflates every layer's wall time alike, to first order)
                k = meas / (em + other) if em + other > 0 else 1.0
                em, other = em * k, other * k
            r.update({"est_layers_us": fmt(em), "est_sum_us": fmt(es),
                      "other_layers_us": fmt(other), "scalar_conv_share": fmt(sc, 3)})
            groups[job] = layer_groups(layers)
            os.replace(layers, os.path.join(a.work, f"{m}.t{t}.{s.replace(':', '_')}"
                                            ".layers.tsv"))
        if not a.keep:
            for f in glob.glob(os.path.join(d, "*")):
                if os.path.basename(f) not in ("report.txt", "run.log"):
                    os.remove(f)

    order = [j for j in jobs if not outcome[j][1]] + [j for j in jobs if outcome[j][1]]
    for k, j in enumerate(order):
        measure(j)
        r = rows[j]
        meas, pred = num(r, "measured_us"), num(r, "predicted_us")
        ratio = f"; measured/predicted {meas / pred:.2f}" if meas and pred else ""
        el = time.time() - t_built
        print(f"[time {k + 1}/{len(order)}] {j[0]} threads {j[1]} {j[2]}: "
              f"{fmt(meas and meas / 1e3, 2) or r['status']} ms, predicted "
              f"{fmt(pred and pred / 1e3, 2) or '-'} ms{ratio}; about "
              f"{el / (k + 1) * (len(order) - k - 1) / 60:.1f} min of timing left", flush=True)
        save()  # after each, so an interrupted run keeps what it measured
    print(f"wrote {tsv} in {(time.time() - t_bench) / 60:.1f} min (profiles "
          f"{(t_profiled - t_bench) / 60:.1f}, builds {(t_built - t_profiled) / 60:.1f}, timing "
          f"{(time.time() - t_built) / 60:.1f}); load average now {loadavg()} (before: "
          f"{load_before})")


if __name__ == "__main__":
    main()
