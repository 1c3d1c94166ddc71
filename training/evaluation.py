"""Held-out measures shared by the two verifier trainers (train.py: the embedding head; finetune.py: the
fine-tuned encoder): conversation folds, MRBench pairwise accuracy and best-of-N hit rate, ROC AUC, and
the bootstraps over contexts and over problems."""

import numpy as np

SEED = 13


def label(x):
    return {"Yes": 1.0, "To some extent": 0.5}.get(x, 0.0)


DIMENSIONS = [  # (output name, MRBench annotation, value of each label)
    ("mistake_identification", "Mistake_Identification", label),
    ("mistake_location", "Mistake_Location", label),
    ("reveals_answer", "Revealing_of_the_Answer", lambda x: 1.0 if x.startswith("Yes") else 0.0),
    ("providing_guidance", "Providing_Guidance", label),
    ("actionability", "Actionability", label),
    ("coherence", "Coherence", label),
    ("encouraging_tone", "Tutor_Tone", lambda x: 1.0 if x == "Encouraging" else 0.0),
    ("humanlike", "humanlikeness", label),
]


def dim_targets(cand):
    """An MRBench candidate's target per dimension (DIMENSIONS' order)."""
    return [f(cand["annotation"][key]) for _, key, f in DIMENSIONS]


def both_yes(c):
    return c["pg"] == "Yes" and c["act"] == "Yes"


def folds(groups, k=5, seed=SEED):
    uniq = sorted(set(groups))
    rng = np.random.default_rng(seed)
    rng.shuffle(uniq)
    return {g: i % k for i, g in enumerate(uniq)}


def problem(group):
    """The problem of a MathDial group (md:<line>:<qid>): 430 dialogues share 319 problems."""
    return group.rsplit(":", 1)[1]


def by_problem(groups, k=5, seed=SEED):
    """Folds of MathDial dialogues that keep every dialogue of a problem in one fold, so that no held-out
    dialogue has its problem's other dialogues in training."""
    f = folds(sorted({problem(g) for g in groups}), k, seed)
    return {g: f[problem(g)] for g in groups}


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
        hits += np.mean([1.0 if both_yes(cands[i]) else 0.0 for i in top])
    return {"pairwise_accuracy": correct / pairs, "pairs": pairs, "best_of_n_hit_rate": hits / len(exs), "contexts": len(exs)}


def held_out_metrics(examples, scores):
    """mrbench_metrics of the MRBench examples in `scores` (example index -> its candidates' scores)."""
    by_id = {id(examples[i]): list(s) for i, s in scores.items()}
    return mrbench_metrics([examples[i] for i in sorted(scores)], lambda e: by_id[id(e)])


def hard_negative_metrics(examples, scores, hard):
    """Held-out hard negatives (features.ts): how far another tutor's question appended to a candidate lifts
    its logit, and how often the candidate outranks one its raters judged better, with the question and
    without. scores: example index → held-out logits of its candidates; hard: → of its hard negatives."""
    lifts, above, above_plain, pairs = [], 0, 0, 0
    for i, zh in hard.items():
        z, zh = np.asarray(scores[i]).ravel(), np.asarray(zh).ravel()
        cands = examples[i]["candidates"]
        q = [label(c["pg"]) + label(c["act"]) for c in cands]
        for k, h in enumerate(examples[i]["hard_negatives"]):
            lifts.append(float(zh[k] - z[h["of"]]))
            for a in range(len(cands)):
                if q[a] > q[h["of"]]:
                    pairs += 1
                    above += int(zh[k] > z[a])
                    above_plain += int(z[h["of"]] > z[a])
    return {"hard_negatives": len(lifts), "mean_logit_lift": float(np.mean(lifts)), "share_lifted": float(np.mean(np.array(lifts) > 0)),
            "pairs": pairs, "above_better_with_question": above / pairs, "above_better_without": above_plain / pairs}


def linked_mrbench(examples, mr_idx):
    """MathDial/Bridge group -> the MRBench groups of the same conversation (`linked` in examples.json)."""
    out = {}
    for i in mr_idx:
        for g in examples[i].get("linked", []):
            out.setdefault(g, set()).add(examples[i]["group"])
    return out


def criterion(m):
    return m["pairwise_accuracy"] + m["best_of_n_hit_rate"]


def _weighted_auc(value, k, positive, w):
    """ROC AUC with item weights (a resample's multiplicities); `value` is each item's rank among the k
    distinct scores. Ties count one half."""
    p = np.bincount(value, weights=w * positive, minlength=k)
    n = np.bincount(value, weights=w * (1 - positive), minlength=k)
    return float((p * (np.cumsum(n) - n / 2)).sum() / (p.sum() * n.sum()))


def roc_auc(scores, labels):
    """Ties count one half."""
    distinct, value = np.unique(np.asarray(scores, float), return_inverse=True)
    return _weighted_auc(value, len(distinct), np.asarray(labels, float), 1.0)


# Scorers that need no training, evaluated on every context.
BASELINES = {
    "random": lambda e: [0.0] * len(e["candidates"]),
    "longest_response": lambda e: [c["length"] for c in e["candidates"]],
    "asks_a_question": lambda e: [1.0 if "?" in c["text"] else 0.0 for c in e["candidates"]],
}


def context_parts(e, s):
    """One context's (correct pairs, pairs, hit) as mrbench_metrics counts them, for the paired bootstrap."""
    m = mrbench_metrics([e], lambda _: s)  # every MRBench V1 context has at least one counted pair
    return (m["pairwise_accuracy"] * m["pairs"], m["pairs"], m["best_of_n_hit_rate"])


def paired_bootstrap(exs, mine, others, resamples=2000, seed=SEED):
    """95% intervals of (mine − other) over contexts resampled with replacement, for each other scorer.
    `mine` and each of `others` map a context to its candidates' scores."""
    per = lambda fn: np.array([context_parts(e, fn(e)) for e in exs])
    v = per(mine)
    samples = np.random.default_rng(seed).integers(0, len(exs), size=(resamples, len(exs)))
    out = {}
    for name, fn in others.items():
        o = per(fn)
        d_pair = v[samples, 0].sum(1) / v[samples, 1].sum(1) - o[samples, 0].sum(1) / o[samples, 1].sum(1)
        d_hit = v[samples, 2].mean(1) - o[samples, 2].mean(1)
        out[name] = {"pairwise_accuracy_diff_95ci": [float(np.percentile(d_pair, 2.5)), float(np.percentile(d_pair, 97.5))],
                     "best_of_n_hit_rate_diff_95ci": [float(np.percentile(d_hit, 2.5)), float(np.percentile(d_hit, 97.5))]}
    return out


def auc_bootstrap(scores, labels, clusters, minus=None, resamples=2000, seed=SEED):
    """95% interval of the ROC AUC of `scores`, or paired of its difference from the AUC of `minus`, with
    whole clusters (an MRBench conversation's candidates, a MathDial problem's dialogues) resampled with
    replacement: items of one cluster are not independent."""
    labels = np.asarray(labels, float)
    keys, cluster = np.unique(np.asarray(clusters), return_inverse=True)
    ranked = [np.unique(np.asarray(s, float), return_inverse=True) for s in ([scores] if minus is None else [scores, minus])]
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(resamples):
        w = np.bincount(rng.integers(0, len(keys), len(keys)), minlength=len(keys))[cluster].astype(float)
        a = [_weighted_auc(v, len(u), labels, w) for u, v in ranked]
        out.append(a[0] if minus is None else a[0] - a[1])
    return [float(np.percentile(out, 2.5)), float(np.percentile(out, 97.5))]
