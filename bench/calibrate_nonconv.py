#!/usr/bin/python3
"""calibrate_nonconv.py - fits the built-in model's rates of the
non-convolution kernels (runtime/nonconv.def: EFF_SCALAR, EFF_SIMD) to
times `dnncc profile` measured on real networks' layers.

    /usr/bin/python3 bench/calibrate_nonconv.py [--dnncc PATH] MODEL.onnx ...

For each model, `dnncc profile MODEL --emit-harness` gives the cases (row,
key, input and output floats, the current model's estimate) and `dnncc
profile MODEL -o TABLE` (through dnncc's cache) their measured medians. The
model of passes/nonconv.c (nc_model_us) is

    t = work x (v / (VL x EFF_SIMD) + (1 - v) / EFF_SCALAR) + bytes / BANDWIDTH

with work the element operations (a pool's output elements x kernel taps,
a global pool's or an element-wise op's elements), v the vectorised share
and VL the vector length (16 floats for AVX-512 when the channels allow,
else 8), bytes the floats read and written x 4, BANDWIDTH cost_bandwidth of
passes/cost_model.c. Per row the fit takes the median over its cases of
work / (t - bytes / BANDWIDTH) (the denominator at least t / 10), as
elements per ns (scalar rows) or per ns per lane (rows whose cases are all
vectorised), and prints the NCK line with the fitted value beside the
current one, and the model's median |log(estimate / measured)| before and
after. Rows without work (Concat: copies only) and rows with cases only
partly vectorised are reported, not fitted. Works from the rows' data
(kind, layout, SIMD bits), not their names. Run it on an idle machine; the
measured tables carry the load of the machine they were made on.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def read_nck():
    """{row: dict(kind, layout, simd, eff_scalar, eff_simd, line)} from nonconv.def."""
    rows = {}
    with open(os.path.join(SRC, "runtime", "nonconv.def")) as f:
        for line in f:
            m = re.match(r"NCK\((\w+),\s*(\w+),\s*(\w+),\s*([^,]+),\s*([0-9.]+),\s*([0-9.]+)\)",
                         line)
            if m:
                rows[m.group(1)] = {"kind": m.group(2), "layout": m.group(3),
                                    "simd": m.group(4).strip() != "0",
                                    "eff_scalar": float(m.group(5)),
                                    "eff_simd": float(m.group(6)), "line": line.strip()}
    return rows


def bandwidth():
    with open(os.path.join(SRC, "passes", "cost_model.c")) as f:
        m = re.search(r"cost_bandwidth\s*=\s*([0-9.e]+)", f.read())
    return float(m.group(1))


def block(layout):
    return 8 if layout == "RT_L_CHW8C" else 16 if layout == "RT_L_CHW16C" else 0


def work_and_lanes(kind, layout, key, isa_vl):
    """(element operations, vectorised share v, vector length) of one case,
    as nc_model_us counts them."""
    k = [int(x) for x in key.split(",")]
    if kind == "NC_POOL":
        N, C, H, W, oH, oW, kH, kW = k[:8]
        work, cc = N * C * oH * oW * kH * kW, block(layout) or C
        if layout == "RT_L_CHW":  # pool_cl.c runs CHW's vectors along W
            cc = 1 << 30
    elif kind == "NC_GPOOL":
        N, C = k[0], k[1]
        H, W = k[-2], k[-1]
        work, cc = N * C * H * W, block(layout) or C
    elif kind in ("NC_ACT", "NC_ELTWISE"):
        N, C, H, W = k[:4]
        work, cc = N * C * H * W, 1 << 30
    else:
        return 0, 0.0, 0
    vl = isa_vl
    if vl == 16 and cc % 16:
        vl = 8
    v = 0.0
    if cc >= vl:
        v = 1.0 if cc >= (1 << 30) else (cc // vl * vl) / cc
    return work, v, vl


def cases_of(dnncc, model, tmp):
    """[(row, key, nx, ny)] of the model's non-convolution cases, and its
    measured table {(row, key): median µs}."""
    d = os.path.join(tmp, os.path.basename(model) + ".harness")
    subprocess.run([dnncc, "profile", model, "--emit-harness", d], check=True,
                   stdout=subprocess.DEVNULL)
    cases = []
    with open(os.path.join(d, "harness.c")) as f:
        for line in f:
            m = re.match(r'\s*\{"nonconv", "(\w+)", "([0-9,]+)", (.*)\},\s*$', line)
            if m:
                fields = [x.strip() for x in m.group(3).split(",")]
                # conv, layout, p, variant, N, C, H, W, x, w, b, y, ws, estimate, nc
                cases.append((m.group(1), m.group(2), int(fields[8]), int(fields[11])))
    table = os.path.join(tmp, os.path.basename(model) + ".costs.tsv")
    subprocess.run([dnncc, "profile", model, "-o", table], check=True)
    measured = {}
    with open(table) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) == 7 and p[0] == "nonconv":
                measured[(p[1], p[2])] = float(p[3])
    return cases, measured


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dnncc", default=os.path.join(os.getcwd(), "dnncc"))
    ap.add_argument("--vl", type=int, default=16,
                    help="the host's vector length in floats (16 AVX-512, 8 AVX2)")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    nck, bw = read_nck(), bandwidth()
    samples = {}  # row -> [(work, v, vl, t_ns, bytes_ns)]
    with tempfile.TemporaryDirectory() as tmp:
        for model in a.models:
            cases, measured = cases_of(a.dnncc, model, tmp)
            for row, key, nx, ny in cases:
                if row not in nck or (row, key) not in measured:
                    continue
                r = nck[row]
                work, v, vl = work_and_lanes(r["kind"], r["layout"], key, a.vl)
                samples.setdefault(row, []).append(
                    (work, v if r["simd"] else 0.0, vl, measured[(row, key)] * 1e3,
                     4.0 * (nx + ny) / bw * 1e9))

    def model_ns(s, es, ev):
        work, v, vl, t, b = s
        if work == 0:
            return b
        return work * ((v / (vl * ev) if v > 0 else 0) + (1 - v) / es) + b

    def spread(ss, es, ev):
        return statistics.median(abs(math.log(model_ns(s, es, ev) / s[3])) for s in ss)

    print(f"# bench/calibrate_nonconv.py on {len(a.models)} models; cost_bandwidth {bw:g} B/s; "
          f"VL {a.vl}")
    print("# row: cases, median |log(model/measured)| now -> fitted; the NCK line to use")
    for row, ss in sorted(samples.items()):
        r = nck[row]
        es, ev = r["eff_scalar"], r["eff_simd"]
        with_work = [s for s in ss if s[0] > 0]
        if not with_work:
            print(f"{row}: {len(ss)} cases, copies only (no rate to fit); model/measured "
                  f"median {statistics.median(model_ns(s, es, ev) / s[3] for s in ss):.2f}")
            continue
        full = all(s[1] >= 1.0 for s in with_work)
        none = all(s[1] == 0.0 for s in with_work)
        if not (full or none):
            print(f"{row}: {len(ss)} cases, partly vectorised: not fitted")
            continue
        rates = [s[0] / max(s[3] - s[4], s[3] / 10) / (s[2] if full else 1) for s in with_work]
        fit = round(statistics.median(rates), 3)
        nes, nev = (es, fit) if full else (fit, ev)
        line = r["line"]
        m = re.match(r"(NCK\([^)]*?,)\s*([0-9.]+),\s*([0-9.]+)\)", line)
        new = f"{m.group(1)} {nes:g}, {nev:g})" if m else line
        print(f"{row}: {len(ss)} cases, {spread(ss, es, ev):.2f} -> {spread(ss, nes, nev):.2f}; "
              f"{new}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
