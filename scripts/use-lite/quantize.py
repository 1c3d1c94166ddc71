"""Builds models/use-lite-int8/ from models/use-lite/: the same encoder with its ten weight matrices in
int8, for the turn verifier (its MatMuls are ~88 % of the encoder's time, and the encoder most of a
/verify-turn request's; docs/concurrency.md).

Each MatMul x @ W becomes an integer product on onnxruntime's u8 x s8 kernels:
  - W per output column, symmetric, 7 bits (|q| <= 63): without VNNI, x86 kernels sum pairs of u8 x s8
    products in int16 (VPMADDUBSW), and 255 x 63 x 2 stays inside it where 255 x 127 x 2 does not, so
    every CPU computes the same integers;
  - x per row (one token's vector), symmetric around 128, from that row's largest magnitude, computed in
    the graph: a row's integers depend on that row alone, so a text embeds the same whatever its batch
    (per-tensor dynamic quantization would tie every text's result to the others in its batch);
  - the int32 product times the row's and the column's scales.
The other ops (embeddings, layer norms, attention, pooling) stay in float32. Run with Debian's
python3-onnx and python3-numpy:

    /usr/bin/python3 scripts/use-lite/quantize.py [in_dir] [out_dir]
"""

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
SRC = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "models/use-lite"
OUT = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "models/use-lite-int8"
W_MAX = 63
X_MAX = 127


def quantize(model: onnx.ModelProto) -> tuple[onnx.ModelProto, int]:
    g = model.graph
    weights = {i.name: i for i in g.initializer}
    inits = [numpy_helper.from_array(a, n) for n, a in [
        ("q_x_max", np.array(X_MAX, np.float32)), ("q_tiny", np.array(1e-12, np.float32)),
        ("q_x_zero", np.array(128, np.uint8)), ("q_flat", np.array([-1], np.int64)),
        ("q_first", np.array([0], np.int64)), ("q_last", np.array([-1], np.int64)),
    ]]
    nodes, done = [], 0
    for node in g.node:
        w = weights.get(node.input[1]) if node.op_type == "MatMul" and len(node.input) == 2 else None
        if w is None or len(w.dims) != 2:
            nodes.append(node)
            continue
        W = numpy_helper.to_array(w).astype(np.float32)
        k, n = W.shape
        w_scale = np.abs(W).max(axis=0) / W_MAX
        w_scale[w_scale == 0] = 1.0
        p = f"q{done}_"
        inits += [numpy_helper.from_array(np.clip(np.round(W / w_scale), -W_MAX, W_MAX).astype(np.int8), p + "w"),
                  numpy_helper.from_array(w_scale.astype(np.float32), p + "w_scale"),
                  numpy_helper.from_array(np.array([-1, k], np.int64), p + "rows_shape"),
                  numpy_helper.from_array(np.array([n], np.int64), p + "n")]
        x, y = node.input[0], node.output[0]

        def op(op_type, inputs, output, **attrs):
            nodes.append(helper.make_node(op_type, inputs, [output if output == y else p + output], name=f"{p}{output}", **attrs))

        op("Shape", [x], "x_shape")
        op("Reshape", [x, p + "rows_shape"], "rows")                                      # [M, k]
        op("Abs", [p + "rows"], "abs")
        op("ReduceMax", [p + "abs"], "row_max", axes=[1], keepdims=1)                     # [M, 1]
        op("Max", [p + "row_max", "q_tiny"], "row_max_safe")                              # a padded row is all zeros
        op("Div", [p + "row_max_safe", "q_x_max"], "x_scale")
        op("Reshape", [p + "x_scale", "q_flat"], "x_scale_1d")                           # [M]
        op("Shape", [p + "x_scale_1d"], "m")
        op("ConstantOfShape", [p + "m"], "x_zero", value=helper.make_tensor("v", TensorProto.UINT8, [1], [128]))
        op("QuantizeLinear", [p + "rows", p + "x_scale_1d", p + "x_zero"], "x_q", axis=0)
        op("MatMulInteger", [p + "x_q", p + "w", "q_x_zero"], "product")                   # [M, n] int32
        op("Cast", [p + "product"], "product_f", to=TensorProto.FLOAT)
        op("Mul", [p + "product_f", p + "x_scale"], "by_row")
        op("Mul", [p + "by_row", p + "w_scale"], "out_rows")
        op("Slice", [p + "x_shape", "q_first", "q_last"], "lead")
        op("Concat", [p + "lead", p + "n"], "out_shape", axis=0)
        op("Reshape", [p + "out_rows", p + "out_shape"], y)
        done += 1
    used = {i for nd in nodes for i in nd.input}
    graph = helper.make_graph(nodes, g.name + "_int8", list(g.input), list(g.output),
                              [i for i in list(g.initializer) + inits if i.name in used])
    out = helper.make_model(graph, opset_imports=list(model.opset_import), producer_name="tutor-reward use-lite quantize.py")
    out.ir_version = model.ir_version
    onnx.checker.check_model(out)
    return out, done


if __name__ == "__main__":
    model, count = quantize(onnx.load(str(SRC / "model.onnx")))
    OUT.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(OUT / "model.onnx"))
    shutil.copyfile(SRC / "tokenizer.json", OUT / "tokenizer.json")
    manifest = json.loads((SRC / "manifest.json").read_text())
    manifest.update(name=f"{manifest['name']}-int8", version=f"{manifest['version']}, int8 MatMuls (scripts/use-lite/quantize.py)")
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {OUT} ({count} MatMuls in int8, model.onnx {(OUT / 'model.onnx').stat().st_size} bytes)")
