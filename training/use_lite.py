"""USE-lite (models/use-lite/model.onnx) as a PyTorch module, loaded from the ONNX file's own weights, so
that the encoder can be fine-tuned. The layers follow scripts/use-lite/convert.py op for op; `parity()`
checks the module against the ONNX model's embeddings that training/features.ts wrote."""

import math
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
P = "module_apply_default.Encoder_en.KonaTransformer.Encode."


def onnx_weights(path=ROOT / "models/use-lite/model.onnx"):
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}


class Layer(nn.Module):
    """Pre-norm transformer layer; layer 0 widens 256 → 512 through a projected residual."""

    def __init__(self, w, n, dim_in, dim_attn, heads):
        super().__init__()
        t = lambda a: nn.Parameter(torch.tensor(np.array(a, np.float32)))
        base, stack = f"{P}Layer_{n}.TransformerLayer.", f"{P}TransformerStack.Layer_{n}.TransformerLayer."
        ln = lambda part: (t(w[f"{base}{part}layer_prepostprocess.layer_norm.layer_norm_scale.ConcatPartitions.concat"]),
                           t(w[f"{base}{part}layer_prepostprocess.layer_norm.layer_norm_bias.ConcatPartitions.concat"]))
        self.ln1_g, self.ln1_b = ln("")
        self.ln2_g, self.ln2_b = ln("FFN.")
        self.qkv_w, self.qkv_b = t(w[f"qkv_{n}"]), t(w[f"{base}MultiheadAttention.qkv_transform_single.bias.ConcatPartitions.concat"])
        self.out_w, self.out_b = t(w[f"out_{n}"]), t(w[f"{base}MultiheadAttention.output_transform_single.bias.ConcatPartitions.concat"])
        self.ff1_w, self.ff1_b = t(w[f"{stack}FFN.conv1.Tensordot.Reshape_1"]), t(w[f"{base}FFN.conv1.bias.ConcatPartitions.concat"])
        self.ff2_w, self.ff2_b = t(w[f"{stack}FFN.conv2.Tensordot.Reshape_1"]), t(w[f"{base}FFN.conv2.bias.ConcatPartitions.concat"])
        if dim_in != 512:
            self.res_w, self.res_b = t(w[f"{base}dense.kernel.ConcatPartitions.concat"]), t(w[f"{base}dense.bias.ConcatPartitions.concat"])
        else:
            self.res_w = None
        self.dim_in, self.dim, self.heads = dim_in, dim_attn, heads
        self.scale = 0.125 if n == 0 else 1 / math.sqrt(128)

    def forward(self, x, mask3, bias):
        b, length, _ = x.shape
        residual = (x @ self.res_w + self.res_b) * mask3 if self.res_w is not None else x
        h = nn.functional.layer_norm(x, (self.dim_in,), self.ln1_g, self.ln1_b, 1e-6)
        q, k, v = (h @ self.qkv_w + self.qkv_b).split(self.dim, dim=-1)
        split = lambda z: z.reshape(b, length, self.heads, self.dim // self.heads).transpose(1, 2)
        att = torch.softmax((split(q) * self.scale) @ split(k).transpose(2, 3) + bias, dim=-1) @ split(v)
        x = att.transpose(1, 2).reshape(b, length, self.dim) @ self.out_w + self.out_b + residual
        h = nn.functional.layer_norm(x, (512,), self.ln2_g, self.ln2_b, 1e-6)
        return (torch.relu(h @ self.ff1_w + self.ff1_b) @ self.ff2_w + self.ff2_b) * mask3 + x


class UseLite(nn.Module):
    """input_ids [B, L] int64, attention_mask [B, L] → unit sentence embeddings [B, 512]."""

    def __init__(self, w=None):
        super().__init__()
        w = w if w is not None else onnx_weights()
        self.embeddings = nn.Parameter(torch.tensor(w["module.Embeddings_en"]))
        key = next(k for k in w if k.endswith("AddTimingSignal.TimingSignal.ExpandDims_1"))
        self.register_buffer("inv_timescales", torch.tensor(w[key]))
        self.layers = nn.ModuleList([Layer(w, 0, 256, 256, 4), Layer(w, 1, 512, 512, 4)])
        self.tanh_w = nn.Parameter(torch.tensor(w["module.Encoder_en.hidden_layers.tanh_layer_0.weights"]))
        self.tanh_b = nn.Parameter(torch.tensor(w["module.Encoder_en.hidden_layers.tanh_layer_0.bias"]))

    def embed(self, input_ids, attention_mask):
        """Token embeddings with the timing signal [B, L, 256], the mask [B, L, 1], the attention bias."""
        mask = attention_mask.to(torch.float32)
        mask3 = mask.unsqueeze(-1)
        emb = self.embeddings[input_ids] * mask3
        pos = torch.arange(input_ids.shape[1], dtype=torch.float32).unsqueeze(1) * self.inv_timescales
        timing = torch.cat([torch.sin(pos), torch.cos(pos)], dim=-1)
        x = emb + (emb + timing * mask3)  # the TF graph adds the embeddings twice
        return x, mask3, ((1 - mask) * -1e9).unsqueeze(1).unsqueeze(2)

    def forward(self, input_ids, attention_mask):
        x, mask3, bias = self.embed(input_ids, attention_mask)
        for layer in self.layers:
            x = layer(x, mask3, bias)
        pooled = (x * mask3).sum(1) / mask3.sum(1).clamp(min=1)
        h = torch.tanh(pooled @ self.tanh_w + self.tanh_b)
        return h / h.norm(dim=-1, keepdim=True).clamp(min=1e-6)


def batch_ids(id_lists):
    """Pads token id lists to one [B, L] batch with its attention mask."""
    length = max(1, max(len(x) for x in id_lists))
    ids = torch.zeros((len(id_lists), length), dtype=torch.int64)
    mask = torch.zeros((len(id_lists), length), dtype=torch.int64)
    for i, x in enumerate(id_lists):
        ids[i, :len(x)] = torch.tensor(x, dtype=torch.int64)
        mask[i, :len(x)] = 1
    return ids, mask


def parity(model, id_lists, vectors, batch=64):
    """Cosine of the module's embeddings with the ONNX model's (vectors [n, 512]) for each text."""
    model.eval()
    out = []
    with torch.no_grad():
        for s in range(0, len(id_lists), batch):
            e = model(*batch_ids(id_lists[s:s + batch])).numpy()
            v = vectors[s:s + batch]
            out.extend((e * v).sum(1) / np.linalg.norm(e, axis=1) / np.linalg.norm(v, axis=1))
    return np.array(out)
