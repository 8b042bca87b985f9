#!/usr/bin/python3
"""models.py - writes the small ONNX models of tests/robust/run.sh into the
folder given (default: this script's folder). They are committed; rerun this
after changing it. Needs the onnx package (Debian's python3-onnx).

  passthrough.onnx   no node: the graph output is the graph input [1,3,4,4]
  big_input.onnx     Relu on a [1,1,20000,20000] input: 1.6 GB, over the
                     default activation limit
  huge_weight.onnx   MatMul with an initializer declared [70000,70000]
                     (19.6 GB) whose data is absent: refused for its size
                     before the missing data is noticed
  weights_1mib.onnx  MatMul [1,1024] x [1024,257]: just over 1 MiB of weights
  two_live.onnx      Relu and Sigmoid of a [1,1,512,512] input, then their
                     sum: two 1 MiB activations live at once (a 2 MiB arena)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(graph, path):
    model = helper.make_model(graph, producer_name="dnncc tests/robust/models.py",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    f32 = TensorProto.FLOAT

    x = helper.make_tensor_value_info("x", f32, [1, 3, 4, 4])
    save(helper.make_graph([], "passthrough", [x], [x]), os.path.join(out, "passthrough.onnx"))

    x = helper.make_tensor_value_info("x", f32, [1, 1, 20000, 20000])
    y = helper.make_tensor_value_info("y", f32, [1, 1, 20000, 20000])
    relu = helper.make_node("Relu", ["x"], ["y"], name="relu")
    save(helper.make_graph([relu], "big_input", [x], [y]), os.path.join(out, "big_input.onnx"))

    x = helper.make_tensor_value_info("x", f32, [1, 70000])
    y = helper.make_tensor_value_info("y", f32, [1, 70000])
    w = TensorProto()
    w.name = "w"
    w.data_type = f32
    w.dims.extend([70000, 70000])
    mm = helper.make_node("MatMul", ["x", "w"], ["y"], name="fc")
    save(helper.make_graph([mm], "huge_weight", [x], [y], initializer=[w]),
         os.path.join(out, "huge_weight.onnx"))

    x = helper.make_tensor_value_info("x", f32, [1, 1024])
    y = helper.make_tensor_value_info("y", f32, [1, 257])
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((1024, 257)).astype(np.float32), "w")
    mm = helper.make_node("MatMul", ["x", "w"], ["y"], name="fc")
    save(helper.make_graph([mm], "weights_1mib", [x], [y], initializer=[w]),
         os.path.join(out, "weights_1mib.onnx"))

    x = helper.make_tensor_value_info("x", f32, [1, 1, 512, 512])
    y = helper.make_tensor_value_info("y", f32, [1, 1, 512, 512])
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="relu"),
             helper.make_node("Sigmoid", ["x"], ["b"], name="sigmoid"),
             helper.make_node("Add", ["a", "b"], ["y"], name="add")]
    save(helper.make_graph(nodes, "two_live", [x], [y]), os.path.join(out, "two_live.onnx"))


if __name__ == "__main__":
    main()
