"""The eight MRBench dimension predictions that ship beside the turn score (finetune.py calls this).

One logistic layer per dimension over the head's inputs x = [r, r⊙c, r⊙t, r·c, r·t, hand features],
every column standardized on the training rows, trained on MRBench candidates alone (targets: Yes 1, To
some extent 0.5, No 0), each dimension with its own L2 strength from L2_GRID. Standardizing every column
matters: the embedding columns of unit vectors are ~0.04 apart, so an L2 that suits the turn score (which
wants it strong, train.py) starves the dimensions; fit jointly with the score in finetune.py's head, the
dimensions' held-out AUCs were 0.64–0.85, `reveals_answer` 0.825.

The standardization is folded into the weights, so the exported layer is x·W + b on the raw inputs.

Calibration: each dimension's logit z is mapped to a·z + c (Platt scaling, a > 0, so every ROC AUC is
unchanged), fit by maximum likelihood against the rater's Yes on logits held out from the layer that made
them, so that a probability p means "Yes about p of the time". Nested like the layers: an outer fold's
(a, c) come from its inner folds' held-out logits only."""

import numpy as np
import torch

from evaluation import folds, roc_auc

L2_GRID = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
STEPS, LR = 300, 0.02


def inputs(r, c, t, extra):
    """The layers' inputs [r, r⊙c, r⊙t, r·c, r·t, raw hand features] (finetune.head_x) of rows of response,
    context and task vectors (the float encoder's) and the responses' hand features."""
    rc, rt = r * c, r * t
    return np.concatenate([r, rc, rt, rc.sum(1, keepdims=True), rt.sum(1, keepdims=True), np.asarray(extra, np.float32)], 1)


def fit(X, Y, l2):
    """X [n, F] raw inputs, Y [n, D] targets in [0, 1], l2 a number or one per dimension → (W [F, D], b [D])
    on the raw inputs."""
    mu, sd = X.mean(0), X.std(0) + 1e-6
    Xs, Yt = torch.tensor((X - mu) / sd), torch.tensor(Y)
    lam = torch.as_tensor(np.broadcast_to(np.asarray(l2, np.float32), (Y.shape[1],)).copy())
    W = torch.zeros(X.shape[1], Y.shape[1], requires_grad=True)
    b = torch.zeros(Y.shape[1], requires_grad=True)
    opt = torch.optim.Adam([W, b], lr=LR)
    for _ in range(STEPS):
        # Each dimension's mean cross-entropy and its own penalty: the columns train independently.
        loss = torch.nn.functional.binary_cross_entropy_with_logits(Xs @ W + b, Yt, reduction="none").mean(0).sum()
        loss = loss + 0.5 * (lam * W.pow(2).sum(0)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    Ws = W.detach().numpy()
    return (Ws / sd[:, None]).astype(np.float32), (b.detach().numpy() - (mu / sd) @ Ws).astype(np.float32)


def aucs(logits, positive):
    return np.array([roc_auc(logits[:, d], positive[:, d]) for d in range(positive.shape[1])])


def cross_validated(X, Y, groups, fold_of, k, l2):
    """Held-out logits [n, D] of every row, its fold (fold_of: group → fold) left out of training."""
    out = np.zeros(Y.shape, np.float32)
    f = np.array([fold_of[g] for g in groups])
    for j in range(k):
        W, b = fit(X[f != j], Y[f != j], l2)
        out[f == j] = X[f == j] @ W + b
    return out


def grid_held(X, Y, groups, k, seed):
    """Held-out logits [len(L2_GRID), n, D] of every row at every L2_GRID value, k folds by conversation."""
    fold_of = folds(groups, k, seed)
    return np.stack([cross_validated(X, Y, groups, fold_of, k, l2) for l2 in L2_GRID])


def best_of_grid(held, positive):
    """Per dimension, the L2_GRID value with the best held-out ROC AUC, and the held-out logits [n, D] at it."""
    best = np.stack([aucs(h, positive) for h in held]).argmax(0)
    return np.array(L2_GRID)[best], held[best, :, np.arange(positive.shape[1])].T


def pick_l2(X, Y, positive, groups, k, seed):
    """Per dimension, the L2_GRID value with the best k-fold (by conversation) held-out ROC AUC."""
    return best_of_grid(grid_held(X, Y, groups, k, seed), positive)[0]


def platt(z, y, iterations=50):
    """(a, c) maximizing the likelihood of y ∈ [0, 1] under sigmoid(a·z + c), a > 0 (platt_fit)."""
    theta = platt_fit(z, y, iterations)
    assert theta[0] > 0, "a calibration that reverses a dimension's order"
    return theta


def platt_fit(z, y, iterations=50):
    """(a, c) maximizing the likelihood of y ∈ [0, 1] under sigmoid(a·z + c), whatever the sign of a: Newton's
    method on a convex two-parameter log loss, started at the identity, each step halved until the loss goes
    down (a full step from far off the optimum overshoots and diverges)."""
    z, y = z.astype(np.float64), y.astype(np.float64)
    theta = np.array([1.0, 0.0])
    Z = np.stack([z, np.ones_like(z)], 1)

    def loss(th):
        s = Z @ th
        return float((np.logaddexp(0, s) - y * s).sum())

    for _ in range(iterations):
        p = 1 / (1 + np.exp(-(Z @ theta)))
        grad = Z.T @ (p - y)
        hess = Z.T @ (Z * (p * (1 - p))[:, None]) + 1e-9 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        before = loss(theta)
        while loss(theta - step) > before and np.abs(step).max() > 1e-12:
            step = step / 2
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return theta


def calibrate(held_logits, positive):
    """Per dimension Platt scaling of held-out logits → (A [D], C [D]): calibrated logit = A·z + C."""
    ac = np.array([platt(held_logits[:, d], positive[:, d]) for d in range(positive.shape[1])])
    return ac[:, 0].astype(np.float32), ac[:, 1].astype(np.float32)


def reliability(prob, positive, bins=10):
    """Equal-width bins of predicted probability: per bin (count, mean prediction, share of Yes), and the
    expected calibration error Σ_b (n_b / n)·|mean prediction_b − share of Yes_b|."""
    edges = np.minimum((prob * bins).astype(int), bins - 1)
    rows, ece = [], 0.0
    for b in range(bins):
        m = edges == b
        if m.any():
            rows.append({"bin": [b / bins, (b + 1) / bins], "count": int(m.sum()), "mean_predicted": float(prob[m].mean()),
                         "share_yes": float(positive[m].mean())})
            ece += m.sum() / len(prob) * abs(prob[m].mean() - positive[m].mean())
    return {"ece": float(ece), "bins": rows}


def calibrated_nested(X, Y, positive, groups, outer_of, k_outer, k_inner, seed):
    """Held-out logits of every row: each outer fold's L2 per dimension and its calibration picked and fit by
    inner folds of its training conversations only. Returns the raw and the calibrated held-out logits, and
    the picks and calibrations per outer fold."""
    out, calibrated = np.zeros(Y.shape, np.float32), np.zeros(Y.shape, np.float32)
    f = np.array([outer_of[g] for g in groups])
    picks, calibrations = [], []
    for j in range(k_outer):
        tr = f != j
        held = grid_held(X[tr], Y[tr], [g for g, t in zip(groups, tr) if t], k_inner, seed + 1 + j)
        l2, inner_held = best_of_grid(held, positive[tr])
        A, C = calibrate(inner_held, positive[tr])
        W, b = fit(X[tr], Y[tr], l2)
        out[~tr] = X[~tr] @ W + b
        calibrated[~tr] = out[~tr] * A + C
        picks.append(l2.tolist())
        calibrations.append({"a": A.tolist(), "c": C.tolist()})
    return out, calibrated, picks, calibrations


def nested(X, Y, positive, groups, outer_of, k_outer, k_inner, seed):
    """calibrated_nested's raw held-out logits and L2 picks per outer fold."""
    out, _, picks, _ = calibrated_nested(X, Y, positive, groups, outer_of, k_outer, k_inner, seed)
    return out, picks
