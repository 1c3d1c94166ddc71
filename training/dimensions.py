"""The eight MRBench dimension predictions that ship beside the turn score (finetune.py calls this).

One logistic layer per dimension over the head's inputs x = [r, r⊙c, r⊙t, r·c, r·t, hand features],
every column standardized on the training rows, trained on MRBench candidates alone (targets: Yes 1, To
some extent 0.5, No 0), each dimension with its own L2 strength from L2_GRID. Standardizing every column
matters: the embedding columns of unit vectors are ~0.04 apart, so an L2 that suits the turn score (which
wants it strong, train.py) starves the dimensions; fit jointly with the score in finetune.py's head, the
dimensions' held-out AUCs were 0.64–0.85, `reveals_answer` 0.825.

The standardization is folded into the weights, so the exported layer is x·W + b on the raw inputs."""

import numpy as np
import torch

from evaluation import folds, roc_auc

L2_GRID = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
STEPS, LR = 300, 0.02


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


def pick_l2(X, Y, positive, groups, k, seed):
    """Per dimension, the L2_GRID value with the best k-fold (by conversation) held-out ROC AUC."""
    fold_of = folds(groups, k, seed)
    scores = np.stack([aucs(cross_validated(X, Y, groups, fold_of, k, l2), positive) for l2 in L2_GRID])
    return np.array(L2_GRID)[scores.argmax(0)]


def nested(X, Y, positive, groups, outer_of, k_outer, k_inner, seed):
    """Held-out logits of every row: each outer fold's L2 per dimension picked by inner folds of its training
    conversations only. Returns the logits and the picks per outer fold."""
    out = np.zeros(Y.shape, np.float32)
    f = np.array([outer_of[g] for g in groups])
    picks = []
    for j in range(k_outer):
        tr = f != j
        l2 = pick_l2(X[tr], Y[tr], positive[tr], [g for g, t in zip(groups, tr) if t], k_inner, seed + 1 + j)
        W, b = fit(X[tr], Y[tr], l2)
        out[~tr] = X[~tr] @ W + b
        picks.append(l2.tolist())
    return out, picks
