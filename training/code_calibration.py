"""Step 8 of `npm run train:verifier`: the code scaling of `reveals_answer` (issue 75). The dimension layers are
calibrated on MRBench's math (calibrate.py); on code their probabilities do not mean the same. For each code
domain (src/verify/code-domain.ts: the task gives reference_code, or only the student's code is known) a Platt
scaling σ(a·logit(p) + c) is fit (dimensions.platt) on the calibration split of the coding situations with
known bugs (training/build/code_reveals.json, written by code-reveals.ts), with Platt's smoothed targets and a ≥ 0 (where the
model ranks the revealing candidates the checks leave below the honest ones, a = 0: every candidate gets the base rate), and put into the shipped manifest as
`code_calibration`. The evaluation split is reported by `npm run check:reveals-fix`, through the service."""

import json
from pathlib import Path

import numpy as np

import dimensions

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "training" / "build"
SHIP = ROOT / "models" / "verifier"


data = json.loads((BUILD / "code_reveals.json").read_text())
manifest = json.loads((SHIP / "manifest.json").read_text())
scalings, report = {}, {}
for domain, rows in data["domains"].items():
    p = np.clip(np.array(rows["p"], np.float64), 1e-7, 1 - 1e-7)
    y = np.array(rows["y"], np.float64)
    # Platt's own targets, (N+ + 1)/(N+ + 2) and 1/(N- + 2) rather than 1 and 0: the candidates are built from
    # a few templates, which the model may separate perfectly, and the fit must stay finite.
    n_pos, n_neg = y.sum(), len(y) - y.sum()
    soft = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    a, c = dimensions.platt_fit(np.log(p / (1 - p)), soft)
    if a <= 0:
        # The model's order says nothing here (the checks find what reveals): the best a ≥ 0 is 0, the base rate.
        a, c = 0.0, float(np.log(soft.mean() / (1 - soft.mean())))
    after = 1 / (1 + np.exp(-(a * np.log(p / (1 - p)) + c)))
    scalings[domain] = {"a": round(float(a), 6), "c": round(float(c), 6)}
    report[domain] = {"candidates": len(y), "revealing": int(y.sum()), **scalings[domain],
                      "ece_before": round(dimensions.reliability(p, y)["ece"], 4),
                      "ece_after": round(dimensions.reliability(after, y)["ece"], 4)}
    print(f"{domain}: {report[domain]}")
(SHIP / "manifest.json").write_text(json.dumps({**manifest, "code_calibration": scalings}, indent=2) + "\n")
metrics = json.loads((SHIP / "metrics.json").read_text())
metrics["code_calibration"] = {"fit_on": f"calibration split, {data['tasks']} tasks, candidates the checks do not flag (in sample)",
                               "model": data["model"], "domains": report}
(SHIP / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
