#!/usr/bin/env python3
"""runtime_side.py - onnxruntime's and OpenVINO's part of `make bench-models`.
Run with the Python that has them (pip install onnxruntime openvino numpy;
here the pyenv python3 on PATH, not Debian's /usr/bin/python3).

  runtime_side.py ENGINE NAME DIR THREADS RUNS MIN_TIME

ENGINE is onnxruntime or openvino. Loads DIR/NAME.onnx and DIR/NAME.input.bin
(shape from DIR/NAME.json), times one inference per call (timing.py; model
loading and compilation are not timed, the first inference is reported
apart), writes the output to DIR/NAME.ENGINE-THREADS.bin and prints
'RESULT {json}'. Exit status 3 when the engine is not installed.

onnxruntime: CPUExecutionProvider, intra_op_num_threads = THREADS,
inter_op_num_threads = 1, sequential execution, all graph optimisations.
OpenVINO: device CPU, INFERENCE_NUM_THREADS = THREADS, one stream,
PERFORMANCE_HINT LATENCY, INFERENCE_PRECISION_HINT f32 (without it OpenVINO
may compute in bf16 on CPUs that have it, which is not the fp32 comparison).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402


def main():
    if len(sys.argv) != 7 or sys.argv[1] not in ("onnxruntime", "openvino"):
        print(__doc__, file=sys.stderr)
        return 2
    engine, name, outdir = sys.argv[1:4]
    threads, runs, min_time = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    try:
        import numpy as np
        if engine == "onnxruntime":
            import onnxruntime as ort
        else:
            import openvino as ov
    except ImportError as e:
        print(f"not installed for {sys.executable}: {e}")
        return 3
    base = os.path.join(outdir, name)
    with open(base + ".json") as f:
        meta = json.load(f)
    x = np.fromfile(base + ".input.bin", dtype="<f4").reshape(meta["input_shape"])
    out = {}
    if engine == "onnxruntime":
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        sess = ort.InferenceSession(base + ".onnx", so, providers=["CPUExecutionProvider"])
        in_name = sess.get_inputs()[0].name

        def call():
            out["y"] = sess.run(None, {in_name: x})[0]
        version = "onnxruntime " + ort.__version__
    else:
        core = ov.Core()
        compiled = core.compile_model(base + ".onnx", "CPU", {
            "INFERENCE_NUM_THREADS": threads, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_PRECISION_HINT": "f32"})
        req = compiled.create_infer_request()

        def call():
            req.infer({0: x})
            out["y"] = req.get_output_tensor(0).data
        version = "openvino " + ov.__version__
    result = timing.measure(call, runs, min_time)
    np.asarray(out["y"], dtype="<f4").tofile(f"{base}.{engine}-{threads}.bin")
    result["version"] = version
    timing.report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
