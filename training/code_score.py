"""Step 9 of `npm run train:verifier`: the score on code tasks (issue 75).

The served score is the head's logit + w (log P(providing_guidance) + log P(actionability)) (finetune.py),
both probabilities from dimension layers fit to MRBench's raters, who favour questions: held out, a worse
candidate with a tutor's short question appended (training/hard-negatives.ts) outranks a better one of its
context far more often than without it. On code that let a wrong hint with "Can you see why?" appended
outrank the correct Socratic question. So on code tasks (src/verify/code-domain.ts) the service reads a
second output, `logit_code`: the same head and w, the two layers fit again on MRBench's candidates *and* the
hard negatives, each labelled as the candidate it extends (appending a question does not make a wrong turn
right). Math requests keep the score MRBench selected. (A head trained on the hard negatives too, beside these
layers, overshot: held out, an appended question then lowered a candidate, and MRBench ranked worse still.)

Evaluated nested on finetune.py's outer folds (MRBench by conversation; the head's held-out logits from
train.py; the layers at the shipped L2, fit without the fold): MRBench pairwise accuracy and hit rate of both
scores, and the hard negatives' lift. The layers are then fit on everything and put into model.onnx as
`logit_code` (the graph's other outputs unchanged; a code score already there is replaced, so this step runs
again on its own); the manifest names it `code_logit`."""

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import dimensions
import report
from use_lite import onnx_weights
from evaluation import DIMENSIONS, dim_targets, folds, hard_negative_metrics, held_out_metrics

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "training" / "build"
SHIP = ROOT / "models" / "verifier"
FOLDS = 5

data = json.loads((BUILD / "examples.json").read_text())
V = np.fromfile(BUILD / "vectors.f32", dtype=np.float32).reshape(-1, data["dim"])
examples = data["examples"]
group = [e["group"] for e in examples]
MR = [i for i, e in enumerate(examples) if e["source"] == "mrbench"]
metrics = json.loads((SHIP / "metrics.json").read_text())
W = metrics["composite"]["w_served"]
NAMES = [d for d, _, _ in DIMENSIONS]
PG, ACT = NAMES.index("providing_guidance"), NAMES.index("actionability")
L2 = np.array([metrics["training"]["dimension_layers"]["shipped_l2"][NAMES[d]] for d in (PG, ACT)], np.float32)


def inputs(responses, items, extra):
    """The layers' inputs (dimensions.inputs) of these responses in the contexts of `items` (example, k)."""
    return dimensions.inputs(V[responses], V[[examples[i]["context"] for i, _ in items]], V[[examples[i]["task"] for i, _ in items]], extra)


cand = [(i, j) for i in MR for j in range(len(examples[i]["candidates"]))]
hard = [(i, k) for i in MR for k in range(len(examples[i].get("hard_negatives", [])))]
of_hard = lambda i, k: examples[i]["hard_negatives"][k]
XD = inputs([examples[i]["candidates"][j]["response"] for i, j in cand], cand, [examples[i]["candidates"][j]["extra"] for i, j in cand])
XH = inputs([of_hard(i, k)["response"] for i, k in hard], hard, [of_hard(i, k)["extra"] for i, k in hard])
YD = np.array([dim_targets(examples[i]["candidates"][j]) for i, j in cand], np.float32)[:, [PG, ACT]]
YH = np.array([dim_targets(examples[i]["candidates"][of_hard(i, k)["of"]]) for i, k in hard], np.float32)[:, [PG, ACT]]
rows_d = {i: np.array([n for n, (i2, _) in enumerate(cand) if i2 == i]) for i in MR}
rows_h = {i: np.array([n for n, (i2, _) in enumerate(hard) if i2 == i], int) for i in MR}

# Nested: each outer fold's layers fit without it, with and without the hard negatives.
outer = folds([group[i] for i in MR], FOLDS)
f_d = np.array([outer[group[i]] for i, _ in cand])
f_h = np.array([outer[group[i]] for i, _ in hard])
head = {int(k): np.array(v) for k, v in json.loads((BUILD / "head_nested_scores.json").read_text()).items()}
head_hard = {int(k): np.array(v) for k, v in json.loads((BUILD / "head_nested_hard.json").read_text()).items()}
logsig = lambda z: -np.logaddexp(0, -z)
report_rows = {}
for name, with_hard in (("served", False), ("code", True)):
    held_d, held_h = np.zeros(YD.shape, np.float32), np.zeros(YH.shape, np.float32)
    for j in range(FOLDS):
        X, Y = XD[f_d != j], YD[f_d != j]
        if with_hard:
            X, Y = np.concatenate([X, XH[f_h != j]]), np.concatenate([Y, YH[f_h != j]])
        Wj, bj = dimensions.fit(X, Y, L2)
        held_d[f_d == j], held_h[f_h == j] = XD[f_d == j] @ Wj + bj, XH[f_h == j] @ Wj + bj
    score = {i: head[i] + W * logsig(held_d[rows_d[i]]).sum(1) for i in MR}
    score_hard = {i: head_hard[i] + W * logsig(held_h[rows_h[i]]).sum(1) for i in MR if len(rows_h[i])}
    report_rows[name] = {"mrbench": held_out_metrics(examples, score), "hard_negatives": hard_negative_metrics(examples, score, score_hard),
                         "roc_auc": {NAMES[d]: float(a) for d, a in zip((PG, ACT), dimensions.aucs(held_d, (YD == 1).astype(int)))}}
    print(name, json.dumps(report_rows[name]), flush=True)

# What ships: the two layers fit on every MRBench candidate and hard negative.
W2, b2 = dimensions.fit(np.concatenate([XD, XH]), np.concatenate([YD, YH]), L2)
head_w = onnx_weights(ROOT / "models/verifier-head/model.onnx")
model = onnx.load(str(SHIP / "model.onnx"))
g = model.graph
# A code score from an earlier run of this step is replaced.
mine = lambda name: name == "logit_code" or name.startswith("code_")
kept = [n for n in g.node if not any(mine(o) for o in n.output)]
del g.node[:]
g.node.extend(kept)
kept = [i for i in g.initializer if not mine(i.name)]
del g.initializer[:]
g.initializer.extend(kept)
kept = [o for o in g.output if not mine(o.name)]
del g.output[:]
g.output.extend(kept)
taken = {i.name for i in g.input} | {o for n in g.node for o in n.output} | {i.name for i in g.initializer}
assert not any(mine(name) for name in taken), "a name of the code score is the graph's own"
# [r, r⊙c, r⊙t, r·c, r·t] once; the head reads the hand features standardized, the layers raw.
g.node.extend([
    helper.make_node("Mul", ["response", "context"], ["code_rc"]),
    helper.make_node("Mul", ["response", "task"], ["code_rt"]),
    helper.make_node("ReduceSum", ["code_rc", "code_axis"], ["code_rc_dot"], keepdims=1),
    helper.make_node("ReduceSum", ["code_rt", "code_axis"], ["code_rt_dot"], keepdims=1),
    helper.make_node("Sub", ["extra", "code_extra_mean"], ["code_extra_c"]),
    helper.make_node("Div", ["code_extra_c", "code_extra_scale"], ["code_extra_n"]),
    helper.make_node("Concat", ["response", "code_rc", "code_rt", "code_rc_dot", "code_rt_dot", "extra"], ["code_x"], axis=-1),
    helper.make_node("Concat", ["response", "code_rc", "code_rt", "code_rc_dot", "code_rt_dot", "code_extra_n"], ["code_x_head"], axis=-1),
    helper.make_node("MatMul", ["code_x_head", "code_head_W"], ["code_head_raw"]),
    helper.make_node("Add", ["code_head_raw", "code_head_b"], ["code_head"]),
    helper.make_node("MatMul", ["code_x", "code_W"], ["code_dims_raw"]),
    helper.make_node("Add", ["code_dims_raw", "code_b"], ["code_dims"]),
    # log σ(z) = −softplus(−z), summed over guidance and actionability.
    helper.make_node("Neg", ["code_dims"], ["code_neg"]),
    helper.make_node("Softplus", ["code_neg"], ["code_softplus"]),
    helper.make_node("ReduceSum", ["code_softplus", "code_axis"], ["code_penalty"], keepdims=1),
    helper.make_node("Mul", ["code_penalty", "code_w"], ["code_weighted"]),
    helper.make_node("Sub", ["code_head", "code_weighted"], ["logit_code"]),
])
g.initializer.extend([
    numpy_helper.from_array(np.array([-1], np.int64), "code_axis"),
    numpy_helper.from_array(head_w["extra_mean"].astype(np.float32), "code_extra_mean"),
    numpy_helper.from_array(head_w["extra_scale"].astype(np.float32), "code_extra_scale"),
    numpy_helper.from_array(head_w["W"].astype(np.float32), "code_head_W"),
    numpy_helper.from_array(head_w["b"].astype(np.float32), "code_head_b"),
    numpy_helper.from_array(W2.astype(np.float32), "code_W"),
    numpy_helper.from_array(b2.astype(np.float32), "code_b"),
    numpy_helper.from_array(np.array([W], np.float32), "code_w"),
])
g.output.append(helper.make_tensor_value_info("logit_code", TensorProto.FLOAT, ["n", 1]))
onnx.checker.check_model(model)
onnx.save(model, str(SHIP / "model.onnx"))

manifest = json.loads((SHIP / "manifest.json").read_text())
(SHIP / "manifest.json").write_text(json.dumps({**manifest, "code_logit": "logit_code"}, indent=2) + "\n")
metrics["code_score"] = {
    "score": "head logit + w (log P(providing_guidance) + log P(actionability)), the two layers fit on MRBench and its hard negatives",
    "w": W, "l2": L2.tolist(), "hard_negatives": len(hard), "tails": len(data["hard_negative_tails"]),
    "nested": report_rows,
}
(SHIP / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
report.write(SHIP)
