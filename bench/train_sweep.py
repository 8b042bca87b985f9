#!/usr/bin/python3
"""train_sweep.py - issue 10's sweep (`make bench-train-sweep`, also run by
`make bench-train`): Fashion-MNIST epoch time against batch size for several
MLP architectures, dnncc's generated training code (CPU C) beside PyTorch on
the CPU with the same number of threads. Debian's /usr/bin/python3 (torch,
onnx, numpy) runs it.

Per architecture (make_model.py --hidden, default 100 / 256,128 /
1024,1024: 784-100-10, 784-256-128-10, 784-1024-1024-10) and batch size B
(default 16 32 64 128 256 512 1024), softmax cross-entropy, Adam lr 0.001,
same initial parameters:
  dnncc    dnncc --train MODEL -o mlp.c --batch B --optimizer adam --lr 0.001
           [--threads T], built with `cc -std=c99 -O2` and linked with
           samples/fashion_train/trainer.c; a --threads dnncc refuses is
           recorded as "not supported" with its message
  pytorch  bench/train_torch.py --threads T
Both train 2 epochs over the same fixed number of batches (--batches,
default 50: the first 50 x B training images, shuffled), and the second
epoch's rate (images/s, wall clock) over B is the time per batch; the epoch time in the
table is that x floor(60000 / B), the batches of one epoch of the full
training set (the trainers drop the last partial batch). The first epoch is
the warm-up (page faults, allocator, thread start). Both trainers' epochs
include the batch assembly (gather + scaling to [0, 1]); dnncc's also one
forward pass every 16 steps for its progress bar's accuracy.

CUDA: `dnncc --train --target cuda` is measured only where a GPU is lent
(tests/gpu/run.sh runs it); here its columns say "not measured (no GPU
lent)", never an estimate.

Results: bench/results/train_sweep.tsv, train_sweep.md and train_sweep.png
(gnuplot: s/epoch against batch, log-log). Progress goes to the terminal.
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed from the environment
(PyTorch runs on OpenBLAS, which they slow down).
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import time

for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(var, None)

TRAIN_IMAGES = 60000
FIELDS = ["arch", "batch", "engine", "threads", "status", "s_per_batch", "s_per_epoch",
          "images_per_s", "cpu_s_per_epoch", "batches", "load", "date", "note"]


def log(msg):
    print(msg, flush=True)


def run(cmd, cwd=None, timeout=3600):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, universal_newlines=True)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout} s"


def tail(text, n=2):
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return " / ".join(lines[-n:]) if lines else "(no output)"


def parse_epochs(text):
    """(images/s of the last 'epoch E: T s, R images/s' line, CPU s per epoch
    of the run). The rate, not T: T is printed to 10 ms only."""
    rates = re.findall(r"^epoch \d+: [0-9.]+ s, ([0-9.]+) images/s", text, re.M)
    cpu = re.search(r"CPU time ([0-9.]+) s per epoch", text)
    return (float(rates[-1]) if rates else None), (float(cpu.group(1)) if cpu else None)


def first_thread_line(text):
    for ln in text.splitlines():
        if "thread" in ln.lower():
            return ln.strip()
    return tail(text, 1)


class Sweep:
    def __init__(self, a):
        self.a = a
        self.work = os.path.abspath(a.work)
        os.makedirs(self.work, exist_ok=True)
        self.src = os.path.abspath(a.srcdir)
        self.build = os.path.abspath(a.builddir)

    def model(self, hidden):
        path = os.path.join(self.work, f"mlp_{hidden.replace(',', '_')}.onnx")
        if not os.path.exists(path):
            rc, out = run([sys.executable, os.path.join(self.src, "samples/fashion_train/make_model.py"),
                           path + ".tmp.onnx", "--hidden", hidden])
            if rc != 0:
                raise RuntimeError(f"make_model.py --hidden {hidden}: {tail(out)}")
            os.replace(path + ".tmp.onnx", path)
        return path

    def dnncc(self, model, hidden, batch, threads):
        d = os.path.join(self.work, f"dnncc_{hidden.replace(',', '_')}_b{batch}_t{threads}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        cmd = [self.a.dnncc, "--train", model, "-o", os.path.join(d, "mlp.c"), "--batch",
               str(batch), "--optimizer", "adam", "--lr", "0.001"]
        if threads != 1:
            cmd += ["--threads", str(threads)]
        rc, out = run(cmd)
        if rc != 0:
            if threads != 1 and "thread" in out.lower():
                return {"status": "not supported", "note": first_thread_line(out)}
            return {"status": "failed", "note": "dnncc: " + tail(out)}
        cc = self.a.cc.split()
        pb_cflags = os.environ.get("PROTOBUF_C_CFLAGS", "").split()
        pb_libs = (os.environ.get("PROTOBUF_C_LIBS") or "-lprotobuf-c").split()
        steps = [cc + ["-std=c99", "-O2", "-c", "mlp.c", "-o", "mlp.o"],
                 cc + ["-std=c99", "-O2", "-D_POSIX_C_SOURCE=200809L", "-I.", "-I" + self.build,
                       "-I" + self.src] + pb_cflags +
                 [os.path.join(self.src, "samples/fashion_train/trainer.c"),
                  os.path.join(self.build, "frontend/onnx.pb-c.c"), "mlp.o", "-o", "trainer"] +
                 pb_libs + ["-lz", "-lm"]]
        if threads != 1:
            steps[0].insert(-4, "-pthread")
            steps[1].append("-pthread")
        for c in steps:
            rc, out = run(c, cwd=d)
            if rc != 0:
                return {"status": "failed", "note": "cc: " + tail(out)}
        rc, out = run(["./trainer", "--epochs", "2", "--limit", str(self.a.batches * batch)],
                      cwd=d)
        if not self.a.keep:
            shutil.rmtree(d, ignore_errors=True)
        return self.result(rc, out)

    def pytorch(self, model, batch, threads):
        rc, out = run([sys.executable, os.path.join(self.src, "bench/train_torch.py"), model,
                       "--epochs", "2", "--batch", str(batch), "--threads", str(threads),
                       "--limit", str(self.a.batches * batch), "--optimizer", "adam",
                       "--lr", "0.001"])
        return self.result(rc, out)

    def result(self, rc, out):
        rate, cpu = parse_epochs(out)
        if rc != 0 or not rate:
            return {"status": "failed", "note": tail(out)}
        return {"status": "ok", "rate": rate, "cpu": cpu}

    def point(self, model, hidden, batch, engine, threads):
        load = "%.2f %.2f %.2f" % os.getloadavg()
        t0 = time.time()
        res = self.dnncc(model, hidden, batch, threads) if engine == "dnncc" else \
            self.pytorch(model, batch, threads)
        row = {"arch": "784-" + hidden.replace(",", "-") + "-10", "batch": batch,
               "engine": engine, "threads": threads, "status": res["status"],
               "batches": self.a.batches, "load": load, "note": res.get("note", ""),
               "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")}
        if res["status"] == "ok":
            per_batch = batch / res["rate"]
            row.update(s_per_batch="%.6g" % per_batch,
                       s_per_epoch="%.4g" % (per_batch * (TRAIN_IMAGES // batch)),
                       images_per_s="%.0f" % (batch / per_batch))
            if res["cpu"] is not None:  # the run's CPU s per epoch of --batches batches
                row["cpu_s_per_epoch"] = "%.4g" % (res["cpu"] / self.a.batches *
                                                   (TRAIN_IMAGES // batch))
            msg = (f"{float(row['s_per_epoch']):8.3f} s/epoch ({1e3 * per_batch:.3f} ms/batch, "
                   f"{row['images_per_s']} images/s)")
        else:
            msg = f"{res['status']}: {row['note']}"
        log(f"  {row['arch']:18s} batch {batch:5d} {engine:8s} {threads}T: {msg}  "
            f"[{time.time() - t0:.0f} s, load {load.split()[0]}]")
        return row


def write_outputs(a, rows, header, threads):
    out = a.out
    with open(os.path.join(out, "train_sweep.tsv.tmp"), "w") as f:
        for h in header:
            f.write(f"# {h}\n")
        f.write("\t".join(FIELDS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(k, "")) for k in FIELDS) + "\n")
    os.replace(os.path.join(out, "train_sweep.tsv.tmp"), os.path.join(out, "train_sweep.tsv"))

    by = {(r["arch"], r["batch"], r["engine"], r["threads"]): r for r in rows}
    archs = list(dict.fromkeys(r["arch"] for r in rows))
    batches = sorted({r["batch"] for r in rows})
    cols = [("dnncc", t) for t in threads] + [("pytorch", t) for t in threads]
    lines = ["# Fashion-MNIST MLP training: epoch time against batch size", ""]
    lines += header + [""]
    lines += ["Seconds per epoch of the 60,000 training images (wall clock; time per batch"
              f" measured over {a.batches} batches after a warm-up epoch, times the"
              " floor(60000 / batch) batches of an epoch); in parentheses the same from the"
              " process's CPU time (both epochs of the run; all threads summed), the fairer"
              " figure on a shared machine. dnncc: `dnncc --train`'s C,"
              " `cc -std=c99 -O2`; PyTorch: CPU, the same threads. Adam, softmax"
              " cross-entropy. The CUDA columns are not measured: no GPU was lent to this"
              " run (tests/gpu/run.sh is the script that measures them on one).", ""]
    for arch in archs:
        lines += [f"## {arch}", ""]
        head = ["batch"] + [f"{'dnncc C' if e == 'dnncc' else 'PyTorch'} {t}T" for e, t in cols]
        head += ["PyTorch 1T / dnncc 1T", "dnncc CUDA, 1-batch pool", "dnncc CUDA, several-batch pools",
                 "copy share"]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|---" * len(head) + "|")
        for b in batches:
            cells = [str(b)]
            for e, t in cols:
                r = by.get((arch, b, e, t))
                if r is None:
                    cells.append("-")
                elif r["status"] != "ok":
                    cells.append(r["status"])
                else:
                    cells.append(r["s_per_epoch"] + (f" ({r['cpu_s_per_epoch']})"
                                                     if r.get("cpu_s_per_epoch") else ""))
            d, p = by.get((arch, b, "dnncc", 1)), by.get((arch, b, "pytorch", 1))
            ratio = "-"
            if d and p and d["status"] == "ok" and p["status"] == "ok":
                ratio = "%.2fx" % (float(p["s_per_epoch"]) / float(d["s_per_epoch"]))
            cells += [ratio] + ["not measured (no GPU lent)"] * 3
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    notes = {(r["engine"], r["threads"], r["status"], r["note"]) for r in rows
             if r["status"] != "ok"}
    if notes:
        lines += ["Notes:", ""] + [f"- {e} {t}T: {s}: {n}" for e, t, s, n in sorted(notes)] + [""]
    lines += ["Per-point load average and date are in train_sweep.tsv. Made by `make bench-train-sweep` (bench/train_sweep.py)."]
    with open(os.path.join(out, "train_sweep.md"), "w") as f:
        f.write("\n".join(lines) + "\n")

    dat = os.path.join(out, "train_sweep_plot.dat")
    with open(dat, "w") as f:
        for arch in archs:
            for e, t in cols:
                f.write(f'"{arch}, {"dnncc C" if e == "dnncc" else "PyTorch"} {t}T"\n')
                for b in batches:
                    r = by.get((arch, b, e, t))
                    v = r["s_per_epoch"] if r and r["status"] == "ok" else "NaN"
                    f.write(f"{b} {v}\n")
                f.write("\n\n")
    if shutil.which("gnuplot"):
        rc, o = run(["gnuplot", "-e", f"datafile='{dat}'; outfile='"
                     f"{os.path.join(out, 'train_sweep.png')}'; nsets={len(archs) * len(cols)};"
                     f" plottitle='{header[0][5:].split(';')[0]}, {header[0].split('run ')[1][:10]}'",
                     os.path.join(a.srcdir, "bench/train_sweep.gp")])
        if rc != 0:
            log("gnuplot failed: " + tail(o, 4))


def main():
    ap = argparse.ArgumentParser(description="epoch time against batch size, dnncc --train vs"
                                 " PyTorch (issue 10)")
    ap.add_argument("--hidden", action="append",
                    help="hidden layer sizes, e.g. 256,128 (repeatable; default 100, 256,128,"
                    " 1024,1024)")
    ap.add_argument("--batch", default="16,32,64,128,256,512,1024")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--engine", default="dnncc,pytorch")
    ap.add_argument("--batches", type=int, default=50, help="batches timed per point (50)")
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--work", default="bench/train-sweep-out")
    ap.add_argument("--dnncc", default="./dnncc")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--srcdir", default=".")
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    hidden = a.hidden or ["100", "256,128", "1024,1024"]
    batches = [int(b) for b in a.batch.split(",")]
    threads = [int(t) for t in a.threads.split(",")]
    engines = a.engine.split(",")
    if not os.path.exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"):
        log("train_sweep: /usr/share/datasets/fashion-mnist is missing "
            "(apt-get install dataset-fashion-mnist)")
        return 1
    if any(b * a.batches > TRAIN_IMAGES for b in batches):
        ap.error(f"--batches {a.batches} x the largest batch passes the {TRAIN_IMAGES} images")
    os.makedirs(a.out, exist_ok=True)
    s = Sweep(a)
    cpu = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load0 = "%.2f %.2f %.2f" % os.getloadavg()
    log(f"train sweep: {cpu}, {os.cpu_count()} cores, load {load0}; {len(hidden)} architectures x"
        f" {len(batches)} batch sizes x {engines} x threads {threads}, {a.batches} batches each")
    rows = []
    t0 = time.time()
    n, total = 0, len(hidden) * len(batches)
    for h in hidden:
        model = s.model(h)
        for b in batches:
            n += 1
            log(f"[{n}/{total}] 784-{h.replace(',', '-')}-10, batch {b} "
                f"({time.time() - t0:.0f} s so far)")
            for e in engines:
                for t in threads:
                    rows.append(s.point(model, h, b, e, t))
    load1 = "%.2f %.2f %.2f" % os.getloadavg()
    date = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    header = [f"CPU: {cpu}, {os.cpu_count()} cores; run {date}; load average {load0} at the"
              f" start, {load1} at the end (1, 5, 15 min).",
              "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE were unset for every run."]
    write_outputs(a, rows, header, threads)
    log(f"done in {time.time() - t0:.0f} s: {a.out}/train_sweep.md, .tsv, .png")
    return 1 if any(r["status"] == "failed" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
