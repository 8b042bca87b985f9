#!/usr/bin/python3
"""check_vectorised.py - issue 8's rule that no network spends more than 5%
of its time in a convolution row whose inner loop is scalar where a
vectorised row applies to the same layer.

    check_vectorised.py [--max-share F] REPORT LAYERS.tsv [REPORT LAYERS.tsv ...]

REPORT is `dnncc ... --report` output: its line "scalar rows where a
vectorised row applies: NODE (ROW), ...; N layers, T µs predicted" (or
"none") names those layers (passes/select.c decides, from the rows' cost
descriptions and predicates). LAYERS.tsv is the per-layer profile of the
same build's generated code (`--instrument`; bench/strategies_main.c and
tests/select/vectorised.sh write it: node, op, primitive, estimate_us,
measured_us). For each pair, prints the share of the measured time spent in
those layers, and exits 1 if any share is above F (default 0.05), 2 on
unreadable input.
"""
import argparse
import sys

PREFIX = "scalar rows where a vectorised row applies:"


def scalar_nodes(report):
    """The node names the report lists; None when it has no such line."""
    with open(report, errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line.startswith(PREFIX):
                continue
            rest = line[len(PREFIX):].strip()
            if rest == "none":
                return set()
            rest = rest.rsplit(";", 1)[0]
            nodes = set()
            for item in rest.split("), "):
                name = item.rsplit(" (", 1)[0].strip()
                if name:
                    nodes.add(name)
            return nodes
    return None


def share(report, layers):
    """(share of measured time in the listed layers, their names, total µs)."""
    nodes = scalar_nodes(report)
    if nodes is None:
        raise ValueError(f"{report}: no '{PREFIX}' line (not --report output of this dnncc?)")
    total = bad = 0.0
    seen = set()
    with open(layers) as f:
        header = next(f).rstrip("\n").split("\t")
        if header[:5] != ["node", "op", "primitive", "estimate_us", "measured_us"]:
            raise ValueError(f"{layers}: not a per-layer profile")
        for line in f:
            node, op, prim, est, meas = line.rstrip("\n").split("\t")[:5]
            total += float(meas)
            if node in nodes:
                bad += float(meas)
                seen.add(node)
    if nodes - seen:
        raise ValueError(f"{layers}: no row for {', '.join(sorted(nodes - seen))}")
    return (bad / total if total > 0 else 0.0), sorted(nodes), total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-share", type=float, default=0.05)
    ap.add_argument("files", nargs="+", help="REPORT LAYERS.tsv pairs")
    a = ap.parse_args()
    if len(a.files) % 2:
        ap.error("expected REPORT LAYERS.tsv pairs")
    worst = 0
    for report, layers in zip(a.files[::2], a.files[1::2]):
        try:
            sh, nodes, total = share(report, layers)
        except (OSError, ValueError, StopIteration) as e:
            print(f"check_vectorised: {e}", file=sys.stderr)
            return 2
        verdict = "FAIL" if sh > a.max_share else "ok"
        print(f"{verdict}: {report}: {100 * sh:.1f}% of {total:.1f} µs in scalar rows where a "
              f"vectorised row applies ({len(nodes)} layers{': ' if nodes else ''}"
              f"{', '.join(nodes[:5])}{' ...' if len(nodes) > 5 else ''}); limit "
              f"{100 * a.max_share:g}%")
        if sh > a.max_share:
            worst = 1
    return worst


if __name__ == "__main__":
    sys.exit(main())
