"""compare.py GOT WANT TOL - raw float32 outputs: prints the relative error
max |got - want| / max |want| and exits 1 when it exceeds TOL."""
import sys

import numpy as np

got = np.fromfile(sys.argv[1], dtype="<f4").astype(np.float64)
want = np.fromfile(sys.argv[2], dtype="<f4").astype(np.float64)
if got.size != want.size or not np.all(np.isfinite(got)):
    print(f"{got.size} values (expected {want.size}), finite: {np.all(np.isfinite(got))}")
    sys.exit(1)
rel = np.abs(got - want).max() / np.abs(want).max()
print(f"rel {rel:.3g}")
sys.exit(0 if rel <= float(sys.argv[3]) else 1)
