"""Step 4 of `npm run train:verifier`: calibrates the shipped dimension probabilities (issue: a probability
should mean what it says).

Each dimension's logit z becomes a·z + c (Platt scaling, dimensions.platt). The scaling is fit on logits
held out from the layer that made them: every MRBench candidate's logit from dimensions.py's layers fit
without its conversation (5 folds, each dimension at its best L2), the same procedure that made the shipped
layer from all of them (cross-fitted calibration). Evaluated nested: each outer fold's layers and scaling
come from its training conversations only (dimensions.calibrated_nested), and evaluation.md reports each
dimension's expected calibration error, Brier score and ROC AUC before and after, a reliability diagram
(reliability.svg) and an operating threshold.

The scaling is put into model.onnx between the dimension layer and its sigmoid: the `dimensions` output
changes, the score does not (it reads the raw logits, on which its weight was chosen). expected.json's
dimensions are recomputed from the same build features; its scores are checked unchanged."""

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

import dimensions
import report
from evaluation import DIMENSIONS, SEED, dim_targets, folds

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "training" / "build"
SHIP = ROOT / "models" / "verifier"
VERSION = "2.4.0"
FOLDS = 5
THRESHOLDS = np.round(np.arange(0.05, 1.0, 0.05), 2)

data = json.loads((BUILD / "examples.json").read_text())
V = np.fromfile(BUILD / "vectors.f32", dtype=np.float32).reshape(-1, data["dim"])
examples = data["examples"]
group = [e["group"] for e in examples]
MR = [i for i, e in enumerate(examples) if e["source"] == "mrbench"]


def head_x(items):
    """The dimension layer's inputs [r, r⊙c, r⊙t, r·c, r·t, raw hand features] (finetune.head_x) of
    (example, candidate) pairs, from the float encoder's vectors."""
    return dimensions.inputs(V[[examples[i]["candidates"][j]["response"] for i, j in items]], V[[examples[i]["context"] for i, _ in items]],
                             V[[examples[i]["task"] for i, _ in items]], [examples[i]["candidates"][j]["extra"] for i, j in items])


def constant(model, name):
    node = next(n for n in model.graph.node if n.op_type == "Constant" and n.output[0] == name)
    return numpy_helper.to_array(node.attribute[0].t)


def dimension_layer(model):
    """The shipped layer's (W, b) and the tensor of its raw logits: the Add that feeds the `dimensions` sigmoid."""
    sigmoid = next(n for n in model.graph.node if n.op_type == "Sigmoid" and n.output[0] == "dimensions")
    add = next(n for n in model.graph.node if n.output[0] == sigmoid.input[0])
    matmul = next(n for n in model.graph.node if n.output[0] == add.input[0])
    return constant(model, matmul.input[1]), constant(model, add.input[1]), sigmoid


def with_scaling(model, sigmoid, A, C):
    """model with a·z + c inserted before the `dimensions` sigmoid (the score's branch keeps z)."""
    raw = sigmoid.input[0]
    nodes = [helper.make_node("Constant", [], ["calibration_a"], value=numpy_helper.from_array(A, "calibration_a")),
             helper.make_node("Constant", [], ["calibration_c"], value=numpy_helper.from_array(C, "calibration_c")),
             helper.make_node("Mul", [raw, "calibration_a"], ["calibration_scaled"]),
             helper.make_node("Add", ["calibration_scaled", "calibration_c"], ["calibration_logit"])]
    at = list(model.graph.node).index(sigmoid)
    for k, n in enumerate(nodes):
        model.graph.node.insert(at + k, n)
    sigmoid.input[0] = "calibration_logit"
    onnx.checker.check_model(model)
    return model


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def precision_recall(prob, positive, threshold):
    flagged = prob >= threshold
    tp = int((flagged & (positive == 1)).sum())
    return {"precision": tp / max(1, int(flagged.sum())), "recall": tp / max(1, int(positive.sum()))}


def operating(prob, positive):
    """The THRESHOLDS value with the best F1 (ties: the lower threshold), and its precision and recall."""
    def f1(t):
        pr = precision_recall(prob, positive, t)
        return 2 * pr["precision"] * pr["recall"] / max(1e-12, pr["precision"] + pr["recall"])
    best = max(THRESHOLDS, key=lambda t: (f1(t), -t))
    return {"threshold": float(best), **precision_recall(prob, positive, best)}


def brier(prob, positive):
    return float(((prob - positive) ** 2).mean())


cand = [(i, j) for i in MR for j in range(len(examples[i]["candidates"]))]
XD = head_x(cand)
YD = np.array([dim_targets(examples[i]["candidates"][j]) for i, j in cand], np.float32)
POS = (YD == 1.0).astype(int)
cand_groups = [group[i] for i, _ in cand]
outer = folds([group[i] for i in MR], FOLDS)

# Nested: held-out logits before and after each outer fold's own scaling.
raw, calibrated, picks, fold_scalings = dimensions.calibrated_nested(XD, YD, POS, cand_groups, outer, FOLDS, 3, SEED)
# What ships: the scaling fit on the held-out logits of every candidate (5 folds, each dimension's best L2).
l2, held = dimensions.best_of_grid(dimensions.grid_held(XD, YD, cand_groups, FOLDS, SEED), POS)
A, C = dimensions.calibrate(held, POS)

model = onnx.load(str(SHIP / "model.onnx"))
W, b, dims_sigmoid = dimension_layer(model)
shipped = XD @ W + b
report_rows = {}
for d, (name, _, _) in enumerate(DIMENSIONS):
    before, after = sigmoid(raw[:, d]), sigmoid(calibrated[:, d])
    report_rows[name] = {
        "before": dimensions.reliability(before, POS[:, d]),
        "after": dimensions.reliability(after, POS[:, d]),
        "brier_before": brier(before, POS[:, d]),
        "brier_after": brier(after, POS[:, d]),
        "roc_auc_before": float(dimensions.aucs(raw[:, d:d + 1], POS[:, d:d + 1])[0]),
        "roc_auc_after": float(dimensions.aucs(calibrated[:, d:d + 1], POS[:, d:d + 1])[0]),
        "at_0.5": precision_recall(after, POS[:, d], 0.5),
        "operating": operating(after, POS[:, d]),
        "shipped": {"a": float(A[d]), "c": float(C[d]), "l2_of_the_held_out_logits": float(l2[d])},
        # The shipped layer on its own training candidates (in sample, so optimistic): what the scaling meets.
        "in_sample_ece_shipped_after": dimensions.reliability(sigmoid(A[d] * shipped[:, d] + C[d]), POS[:, d])["ece"],
    }
    print(f"{name:24s} ECE {report_rows[name]['before']['ece']:.3f} → {report_rows[name]['after']['ece']:.3f}  "
          f"a {A[d]:.3f} c {C[d]:+.3f}  threshold {report_rows[name]['operating']['threshold']:.2f}", flush=True)

onnx.save(with_scaling(model, dims_sigmoid, A.astype(np.float32), C.astype(np.float32)), str(SHIP / "model.onnx"))
manifest = json.loads((SHIP / "manifest.json").read_text())
(SHIP / "manifest.json").write_text(json.dumps({**manifest, "version": VERSION}, indent=2) + "\n")

# expected.json: the served requests' dimensions through the scaling; the scores stay.
expected = json.loads((SHIP / "expected.json").read_text())
for check, row in zip(data["serving_checks"], expected):
    items = [(check["example"], j) for j in range(len(examples[check["example"]]["candidates"]))]
    z = head_x(items) @ W + b
    gap = np.abs(sigmoid(z) - np.array(row["dimensions"])).max()
    assert gap < 1e-4, f"the build's features do not reproduce expected.json's dimensions (gap {gap})"
    row["dimensions"] = sigmoid(z * A + C).round(6).tolist()
(SHIP / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")

metrics = json.loads((SHIP / "metrics.json").read_text())
metrics["dimensions_calibration"] = report_rows
metrics["dimensions_calibration_nested"] = {"l2_picks": picks, "scalings": fold_scalings}
metrics["shipped"]["version"] = VERSION
(SHIP / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
report.write()
