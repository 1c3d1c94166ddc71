"""Step 2 of `npm run train:verifier`: fits the turn verifier on the encoded training data, evaluates it
by cross-validation split by conversation, and writes training/build/{verifier.onnx,metrics.json}. Runs
on Debian's python3-numpy and python3-onnx: /usr/bin/python3 training/train.py

Not shipped yet (issue 5): on MRBench it beats every baseline on pairwise accuracy but not the
asks-a-question heuristic on best-of-N hit rate. The source weights and L2 were picked on this same
cross-validation, so its figures are optimistic.

The verifier is a logistic model over USE-lite sentence embeddings of the response r, the conversation
context c and the task t (each 512-d, unit length): features [r, r⊙c, r⊙t, r·c, r·t, asks-a-question,
log length]. Targets in [0, 1]: MathDial turn values v_t (Traver eqs. 1–2), MRBench's mean of
Providing_Guidance and Actionability (Yes 1, To some extent 0.5, No 0), Bridge expert 1 / novice 0.
"""

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "training" / "build"
OUT = BUILD
SEED = 13
L2 = 1e-4
EPOCHS = 400
SOURCE_WEIGHT = {"mathdial": 1.0, "mrbench": 5.0, "bridge": 1.0}

data = json.loads((BUILD / "examples.json").read_text())
V = np.fromfile(BUILD / "vectors.f32", dtype=np.float32).reshape(-1, data["dim"])
examples = data["examples"]


def features(r, c, t, extra):
    return np.concatenate([r, r * c, r * t, (r * c).sum(-1, keepdims=True), (r * t).sum(-1, keepdims=True), extra], axis=-1)


def rows(exs):
    X, y, w = [], [], []
    for e in exs:
        c, t = V[e["context"]], V[e["task"]]
        for cand in e["candidates"]:
            X.append(features(V[cand["response"]], c, t, np.array(cand["extra"], np.float32)))
            y.append(cand["target"])
            w.append(SOURCE_WEIGHT[e["source"]])
    return np.array(X, np.float32), np.array(y, np.float32), np.array(w, np.float32)


class Model:
    def fit(self, X, y, w):
        self.mu = X[:, -1:].mean(0)
        self.sd = X[:, -1:].std(0) + 1e-6
        X = self._prep(X)
        rng = np.random.default_rng(SEED)
        self.W = rng.normal(scale=0.01, size=X.shape[1]).astype(np.float32)
        self.b = np.float32(0)
        m, v, mb, vb, lr = np.zeros_like(self.W), np.zeros_like(self.W), 0.0, 0.0, 0.05
        wn = w / w.sum()
        for step in range(1, EPOCHS + 1):
            p = 1 / (1 + np.exp(-(X @ self.W + self.b)))
            g = X.T @ ((p - y) * wn) + L2 * self.W
            gb = float(((p - y) * wn).sum())
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            mb = 0.9 * mb + 0.1 * gb
            vb = 0.999 * vb + 0.001 * gb * gb
            corr = np.sqrt(1 - 0.999 ** step) / (1 - 0.9 ** step)
            self.W -= lr * corr * m / (np.sqrt(v) + 1e-8)
            self.b -= np.float32(lr * corr * mb / (np.sqrt(vb) + 1e-8))
        return self

    def _prep(self, X):
        X = X.copy()
        X[:, -1:] = (X[:, -1:] - self.mu) / self.sd  # only the length is standardized
        return X

    def predict(self, X):
        return 1 / (1 + np.exp(-(self._prep(X) @ self.W + self.b)))


def folds(groups, k=5):
    uniq = sorted(set(groups))
    rng = np.random.default_rng(SEED)
    rng.shuffle(uniq)
    return {g: i % k for i, g in enumerate(uniq)}


def label(x):
    return {"Yes": 1.0, "To some extent": 0.5}.get(x, 0.0)


def mrbench_metrics(exs, score_fn):
    """Pairwise accuracy over pairs whose PG or Actionability labels differ (the better pair member has
    the higher PG + Actionability; pairs better on one and worse on the other are skipped), and the
    best-of-N hit rate (the top candidate has PG = Yes and Actionability = Yes); ties count by expectation."""
    correct, pairs, hits = 0.0, 0, 0.0
    for e in exs:
        cands = e["candidates"]
        s = score_fn(e)
        q = [label(c["pg"]) + label(c["act"]) for c in cands]
        for i in range(len(cands)):
            for j in range(i + 1, len(cands)):
                if (cands[i]["pg"], cands[i]["act"]) == (cands[j]["pg"], cands[j]["act"]) or q[i] == q[j]:
                    continue
                better, worse = (i, j) if q[i] > q[j] else (j, i)
                pairs += 1
                correct += 1.0 if s[better] > s[worse] else 0.5 if s[better] == s[worse] else 0.0
        top = [i for i in range(len(cands)) if s[i] == max(s)]
        hits += np.mean([1.0 if cands[i]["pg"] == "Yes" and cands[i]["act"] == "Yes" else 0.0 for i in top])
    return {"pairwise_accuracy": correct / pairs, "pairs": pairs, "best_of_n_hit_rate": hits / len(exs), "contexts": len(exs)}


def roc_auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    s = np.asarray(scores)[order]
    i = 0
    while i < len(s):  # average ranks over ties
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    labels = np.asarray(labels)
    pos, neg = labels.sum(), len(labels) - labels.sum()
    return float((ranks[labels == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


by_source = {s: [e for e in examples if e["source"] == s] for s in SOURCE_WEIGHT}
mr, md, br = by_source["mrbench"], by_source["mathdial"], by_source["bridge"]

# MRBench, 5-fold by conversation: trained on MathDial, Bridge and the other MRBench folds.
fold = folds([e["group"] for e in mr])
scores = {}
for k in range(5):
    train = md + br + [e for e in mr if fold[e["group"]] != k]
    model = Model().fit(*rows(train))
    for e in mr:
        if fold[e["group"]] == k:
            X, _, _ = rows([e])
            scores[e["group"]] = model.predict(X)
rng = np.random.default_rng(SEED)
baselines = {
    "verifier": mrbench_metrics(mr, lambda e: list(scores[e["group"]])),
    "random": mrbench_metrics(mr, lambda e: [0.0] * len(e["candidates"])),
    "longest_response": mrbench_metrics(mr, lambda e: [c["length"] for c in e["candidates"]]),
    "asks_a_question": mrbench_metrics(mr, lambda e: [1.0 if "?" in c["text"] else 0.0 for c in e["candidates"]]),
}

# MathDial, 5-fold by dialogue: the mean turn score of a held-out dialogue against its outcome.
fold_md = folds([e["group"] for e in md])
dialogue_scores, dialogue_outcomes = [], []
for k in range(5):
    model = Model().fit(*rows([e for e in md if fold_md[e["group"]] != k] + mr + br))
    held = {}
    for e in md:
        if fold_md[e["group"]] == k:
            X, _, _ = rows([e])
            held.setdefault(e["group"], (e["outcome"], []))[1].append(float(model.predict(X)[0]))
    for outcome, s in held.values():
        dialogue_scores.append(float(np.mean(s)))
        dialogue_outcomes.append(outcome)
mathdial_auc = roc_auc(dialogue_scores, dialogue_outcomes)

# The shipped model: all data.
final = Model().fit(*rows(md + mr + br))
dim = data["dim"]
nodes = [
    helper.make_node("Mul", ["response", "context"], ["rc"]),
    helper.make_node("Mul", ["response", "task"], ["rt"]),
    helper.make_node("ReduceSum", ["rc", "axis_last"], ["rc_dot"], keepdims=1),
    helper.make_node("ReduceSum", ["rt", "axis_last"], ["rt_dot"], keepdims=1),
    helper.make_node("Sub", ["extra", "extra_mean"], ["extra_c"]),
    helper.make_node("Div", ["extra_c", "extra_scale"], ["extra_n"]),
    helper.make_node("Concat", ["response", "rc", "rt", "rc_dot", "rt_dot", "extra_n"], ["x"], axis=-1),
    helper.make_node("MatMul", ["x", "W"], ["logit_raw"]),
    helper.make_node("Add", ["logit_raw", "b"], ["logit"]),
    helper.make_node("Sigmoid", ["logit"], ["score"]),
]
mean = np.zeros(2, np.float32)
scale = np.ones(2, np.float32)
mean[1:], scale[1:] = final.mu, final.sd  # only the length is standardized
inits = [
    numpy_helper.from_array(final.W.reshape(-1, 1).astype(np.float32), "W"),
    numpy_helper.from_array(np.array([final.b], np.float32), "b"),
    numpy_helper.from_array(mean, "extra_mean"),
    numpy_helper.from_array(scale, "extra_scale"),
    numpy_helper.from_array(np.array([-1], np.int64), "axis_last"),
]
graph = helper.make_graph(
    nodes, "turn_verifier",
    [helper.make_tensor_value_info("response", TensorProto.FLOAT, ["n", dim]),
     helper.make_tensor_value_info("context", TensorProto.FLOAT, [1, dim]),
     helper.make_tensor_value_info("task", TensorProto.FLOAT, [1, dim]),
     helper.make_tensor_value_info("extra", TensorProto.FLOAT, ["n", 2])],
    [helper.make_tensor_value_info("score", TensorProto.FLOAT, ["n", 1])],
    inits,
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="tutor-reward training/train.py")
model.ir_version = 8
onnx.checker.check_model(model)
OUT.mkdir(parents=True, exist_ok=True)
onnx.save(model, str(OUT / "verifier.onnx"))

metrics = {
    "mrbench": baselines,
    "mathdial": {"roc_auc_mean_turn_score": mathdial_auc, "dialogues": len(dialogue_scores),
                 "successful": int(sum(dialogue_outcomes))},
    "training": {"mathdial_turns": len(md), "mrbench_contexts": len(mr),
                 "mrbench_candidates": sum(len(e["candidates"]) for e in mr), "bridge_pairs": len(br),
                 "l2": L2, "epochs": EPOCHS, "source_weight": SOURCE_WEIGHT, "seed": SEED},
}
(OUT / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
print(json.dumps(metrics, indent=2))
