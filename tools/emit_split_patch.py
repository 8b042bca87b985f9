#!/usr/bin/python3
"""emit_split_patch.py - carries a patch made against the old, single
backend/emit.c over to the split emitter (emit.c, emit_plan.c,
emit_runtime.c, emit_print.c, emit_internal.h).

The split moved functions with their bodies unchanged, so every hunk of
such a patch still applies, only to another file and at another line. Each
hunk for backend/emit.c is tried (patch --dry-run, default fuzz) on each
of the new files and applied to the one file where it fits; hunks for
other files are applied as they are. A hunk that fits nowhere (one that
touched the preamble, the types or a `static` that became extern) is
written to HUNK.rej files for hand merging and reported.

usage: tools/emit_split_patch.py PATCH [TREE]   (TREE: the split tree, default .)
Exit status: 0 when every hunk applied, 1 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

NEW = ["backend/emit_plan.c", "backend/emit_print.c", "backend/emit_runtime.c",
       "backend/emit.c", "backend/emit_internal.h"]


def file_patches(text):
    """[(path, header_lines, [hunk_lines...])] of a unified diff."""
    out = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        if lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            path = lines[i + 1][4:].split("\t")[0].strip()
            path = re.sub(r"^[ab]/", "", path)
            hdr = [lines[i], lines[i + 1]]
            i += 2
            hunks = []
            while i < len(lines) and lines[i].startswith("@@"):
                h = [lines[i]]
                i += 1
                while i < len(lines) and lines[i][:1] in (" ", "+", "-", "\\"):
                    h.append(lines[i])
                    i += 1
                hunks.append(h)
            out.append((path, hdr, hunks))
        else:
            i += 1
    return out


def try_apply(tree, target, hunk, dry):
    hdr = "--- a/%s\n+++ b/%s\n" % (target, target)
    with tempfile.NamedTemporaryFile("w", suffix=".patch", delete=False) as f:
        f.write(hdr + "".join(hunk))
        name = f.name
    cmd = ["patch", "-p1", "-s", "-N", "-r", "-", "-i", name]
    if dry:
        cmd.insert(1, "--dry-run")
    rc = subprocess.run(cmd, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT).returncode
    os.unlink(name)
    return rc == 0


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tree = sys.argv[2] if len(sys.argv) > 2 else "."
    failed = 0
    for path, hdr, hunks in file_patches(open(sys.argv[1]).read()):
        targets = NEW if path == "backend/emit.c" else [path]
        for h in hunks:
            where = next((t for t in targets if os.path.exists(os.path.join(tree, t)) and
                          try_apply(tree, t, h, True)), None)
            if where and try_apply(tree, where, h, False):
                print("%s %s -> %s" % (path, h[0].split("@@")[1].strip(), where))
                continue
            failed += 1
            rej = os.path.join(tree, "%s.hunk%d.rej" % (path, failed))
            with open(rej, "w") as f:
                f.write("".join(hdr + h))
            print("%s %s: fits nowhere, saved in %s" % (path, h[0].split("@@")[1].strip(), rej))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
