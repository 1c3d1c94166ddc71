"""Step 6 of `npm run train:verifier`: what serving the verifier on the int8 encoder changes.

The verifier is trained and evaluated (nested) on the float encoder's embeddings and served on its int8
copy (models/use-lite-int8, scripts/use-lite/quantize.py). int8-scores.ts scored every training request
both ways with the shipped model; this compares the two on the same requests (in sample: what the
quantization moves, not a held-out figure), adds the result to models/verifier/metrics.json as
`int8_serving` and re-renders evaluation.md.

    /usr/bin/python3 training/int8_agreement.py
"""

import json
from pathlib import Path

import numpy as np

import report
from evaluation import DIMENSIONS, dim_targets, mrbench_metrics, roc_auc

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "training" / "build"
SHIP = ROOT / "models" / "verifier"

examples = json.loads((BUILD / "examples.json").read_text())["examples"]
scored = json.loads((BUILD / "int8_scores.json").read_text())
rows = scored["rows"]
assert len(rows) == len(examples), f"{len(rows)} scored requests against {len(examples)} examples"
MR = [i for i, e in enumerate(examples) if e["source"] == "mrbench"]
MD = [i for i, e in enumerate(examples) if e["source"] == "mathdial"]


def gaps(idx, a="float", b="int8"):
    d = np.concatenate([np.abs(np.subtract(rows[i][a], rows[i][b])).ravel() for i in idx])
    return {"candidates": int(d.size), "max": float(d.max()), "mean": float(d.mean()), "p99": float(np.percentile(d, 99))}


def same_order(idx):
    """Of every two candidates of one request, the share the two encoders rank the same way."""
    same = total = 0
    for i in idx:
        a, b = np.array(rows[i]["float"]), np.array(rows[i]["int8"])
        for j in range(len(a)):
            for k in range(j + 1, len(a)):
                total += 1
                same += np.sign(a[j] - a[k]) == np.sign(b[j] - b[k])
    return {"pairs": total, "same_order": same / total}


def mathdial_auc(key):
    """ROC AUC of each dialogue's mean turn score against its outcome."""
    by = {}
    for i in MD:
        by.setdefault(examples[i]["group"], (examples[i]["outcome"], []))[1].append(rows[i][key][0])
    return roc_auc([np.mean(s) for _, s in by.values()], [o for o, _ in by.values()])


row_of = {id(examples[i]): rows[i] for i in MR}
mr = {key: mrbench_metrics([examples[i] for i in MR], lambda e, key=key: row_of[id(e)][key]) for key in ("float", "int8")}
cands = [(i, j) for i in MR for j in range(len(examples[i]["candidates"]))]
positive = np.array([dim_targets(examples[i]["candidates"][j]) for i, j in cands]) == 1.0
dims = {key: np.array([rows[i][f"{key}_dimensions"][j] for i, j in cands]) for key in ("float", "int8")}
best_same = sum(int(np.argmax(rows[i]["float"]) == np.argmax(rows[i]["int8"])) for i in MR)
cosine = np.concatenate([rows[i]["cosine"] for i in range(len(rows))])

result = {
    "encoders": {"trained_on": scored["float_encoder"], "served_on": scored["int8_encoder"]},
    "note": "in sample: the shipped model on the requests it was trained on, served on each encoder",
    "score_gap": {"all": gaps(range(len(rows))), "mrbench": gaps(MR), "mathdial": gaps(MD)},
    "dimension_gap": gaps(MR, "float_dimensions", "int8_dimensions"),
    "mrbench": {"float": mr["float"], "int8": mr["int8"], **same_order(MR), "best_candidate_same": best_same, "contexts": len(MR)},
    "mathdial_roc_auc": {"float": mathdial_auc("float"), "int8": mathdial_auc("int8")},
    "dimensions_roc_auc": {name: {key: roc_auc(dims[key][:, d], positive[:, d]) for key in ("float", "int8")}
                           for d, (name, _, _) in enumerate(DIMENSIONS)},
    "candidate_embedding_cosine": {"texts": int(cosine.size), "min": float(cosine.min()), "mean": float(cosine.mean())},
}
metrics = json.loads((SHIP / "metrics.json").read_text())
metrics["int8_serving"] = result
(SHIP / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
report.write(SHIP)
print(json.dumps(result, indent=1))
