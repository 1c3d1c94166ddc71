"""Step 2 of `npm run train:word-vectors`: the word table of models/word-vectors.

USE-lite's embedding of a word alone says little of what the word adds to a sentence (a bag of such vectors
has cosine 0.32 with the sentence's own embedding, centred). So a linear map M is fit by ridge regression
from a sentence's bag of centred word vectors to its centred USE-lite embedding, on the sentences of
word-vectors.ts (held-out fit reported in the manifest). Each word's row is then (e_w − μ)·M: the mean of a
step's rows is the linear estimate of what USE-lite makes of the step, at the cost of a table lookup. The rows
are projected onto their first DIMS principal axes, scaled to unit length and stored as int8."""

import json
import shutil
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "training/.cache/word-vectors"
OUT = ROOT / "models/word-vectors"
DIMS = 96
RIDGE = 0.3
HELD_OUT = 0.15
SEED = 13

vocab = (CACHE / "vocab.txt").read_text().split("\n")[:-1]
rows = {w: i for i, w in enumerate(vocab)}
for line in (CACHE / "inflections.txt").read_text().split("\n")[:-1]:
    form, lemma = line.split(" ")
    rows.setdefault(form, rows[lemma])
detach = [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y"),
          ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""), ("er", ""), ("est", ""), ("er", "e"), ("est", "e")]


def row(w):  # as src/rewards/meaning/word-vectors.ts looks a word up
    if w in rows:
        return rows[w]
    for suffix, rep in detach:
        if len(w) > len(suffix) + 2 and w.endswith(suffix) and w[: -len(suffix)] + rep in rows:
            return rows[w[: -len(suffix)] + rep]
    return -1


e = np.fromfile(CACHE / "embeddings.f32", dtype=np.float32).reshape(-1, 512).astype(np.float64)
mu = e.mean(axis=0)
ec = e - mu

bags = json.loads((CACHE / "sentence-words.json").read_text())
y = np.fromfile(CACHE / "sentences.f32", dtype=np.float32).reshape(-1, 512).astype(np.float64)
x = np.zeros_like(y)
keep = np.zeros(len(bags), bool)
for i, bag in enumerate(bags):
    found = [r for r in map(row, bag) if r >= 0]
    if found:
        x[i] = ec[found].mean(axis=0)
        keep[i] = True
x, y = x[keep], y[keep]
y_mean = y.mean(axis=0)
yc = y - y_mean


def cos(a, b):
    return float(((a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)).mean())


def fit(a, b):
    return np.linalg.solve(a.T @ a + RIDGE * len(a) / 1000 * np.eye(512), a.T @ b)


order = np.random.default_rng(SEED).permutation(len(x))
test, train = order[: int(HELD_OUT * len(x))], order[int(HELD_OUT * len(x)) :]
held_out = cos(x[test] @ fit(x[train], yc[train]), yc[test])
baseline = cos(x[test], yc[test])
m = fit(x, yc)

mapped = ec @ m
_, s, vt = np.linalg.svd(mapped - mapped.mean(axis=0), full_matrices=False)
kept = float((s[:DIMS] ** 2).sum() / (s**2).sum())
z = mapped @ vt[:DIMS].T
z /= np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-12)
q = np.clip(np.rint(z * 127), -127, 127).astype(np.int8)
OUT.mkdir(parents=True, exist_ok=True)
q.tofile(OUT / "vectors.i8")
shutil.copy(CACHE / "vocab.txt", OUT / "vocab.txt")
shutil.copy(CACHE / "inflections.txt", OUT / "inflections.txt")
shutil.copy(CACHE / "known.txt", OUT / "known.txt")
# How much each word says: its inverse document frequency over the documents of word-vectors.ts (a tutoring
# conversation, a doc page, a source file), a word no document holds having the largest. A word found in most
# conversations whatever their problem ("great", "step", "answer") says nothing of any one question.
documents = json.loads((CACHE / "document-words.json").read_text())
df = np.zeros(len(vocab))
for doc in documents:
    for r in {row(w) for w in doc} - {-1}:
        df[r] += 1
idf = np.log((len(documents) + 1) / (df + 1))
np.rint(np.clip(idf / idf.max(), 0, 1) * 255).astype(np.uint8).tofile(OUT / "weights.u8")

counts = json.loads((CACHE / "counts.json").read_text())
manifest = {
    "name": "use-lite-words",
    "version": "use-lite-words@3",
    "source": "models/use-lite: each word embedded alone, centred, mapped by ridge regression onto sentence embeddings, PCA, unit rows, int8",
    "dims": DIMS,
    "words": counts["words"],
    "wordnet_lemmas": counts["wordnet_lemmas"],
    "inflections": counts["inflections"],
    "sentences": int(len(x)),
    "documents": len(documents),
    "held_out_sentences": int(len(test)),
    "held_out_cosine": {"mapped_bag_vs_use_lite": round(held_out, 4), "plain_bag_vs_use_lite": round(baseline, 4)},
    "variance_kept": round(kept, 4),
}
(OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
print(json.dumps(manifest))
