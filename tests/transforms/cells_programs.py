"""Gated recurrent cells and softmax shifts written the ways users write them (held out from
the speed work on benchmarks/variants18_*.py): test_cells.py runs them through every
transformation.  Each takes its sizes from its arguments' shapes."""

import numpy as np


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gru_reset_after(Wx, Wh, b, xs):
    """A GRU whose reset gate multiplies the recurrent matmul's result (cuDNN's form)."""
    n = Wh.shape[0]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for t in range(xs.shape[0]):
        gx = xs[t] @ Wx + b
        gh = h @ Wh
        z = _sigmoid(gx[:, :n] + gh[:, :n])
        r = _sigmoid(gx[:, n:2 * n] + gh[:, n:2 * n])
        cand = np.tanh(gx[:, 2 * n:] + r * gh[:, 2 * n:])
        h = z * h + (1.0 - z) * cand
        total = total + np.sum(h * h)
    return total / xs.shape[0]


def peephole_split(W, U, peep, xs, target):
    """An LSTM whose four gates come from np.split of one matmul of [x, h], peepholes as one
    (3, n) array indexed per gate, the last state scored."""
    B, n = xs.shape[1], U.shape[0]
    h, c = np.zeros((B, n)), np.zeros((B, n))
    for t in range(xs.shape[0]):
        gi, gf, gg, go = np.split(np.concatenate([xs[t], h], axis=1) @ W + h @ U, 4, axis=1)
        i = _sigmoid(gi + peep[0] * c)
        f = _sigmoid(gf + peep[1] * c + 1.0)
        c = f * c + i * np.tanh(gg)
        o = _sigmoid(go + peep[2] * c)
        h = o * np.tanh(c)
    return 0.5 * np.sum((h - target) ** 2)


def multihead_attention(Wq, Wk, X, heads):
    """Self-attention over heads made by reshaping the projections, softmax with a max shift."""
    n, d = X.shape[0], Wq.shape[1]
    k = d // heads
    Q = (X @ Wq).reshape(n, heads, k).transpose(1, 0, 2)
    K = (X @ Wk).reshape(n, heads, k).transpose(1, 0, 2)
    S = Q @ K.transpose(0, 2, 1) / np.sqrt(k)
    S = S - np.max(S, axis=-1, keepdims=True)
    P = np.exp(S)
    P = P / np.sum(P, axis=-1, keepdims=True)
    out = (P @ K).transpose(1, 0, 2).reshape(n, d)
    return np.sum(np.tanh(out) ** 2)


def log_softmax_xent(W, X, Y):
    """Cross-entropy through a log-softmax with its max shift (Y one-hot rows)."""
    Z = X @ W
    m = Z.max(axis=1, keepdims=True)
    logp = Z - m - np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True))
    return -np.sum(Y * logp) / X.shape[0]


def logsumexp_shift(W, X):
    """log(sum(exp)) written with the max added back: the max's value cancels."""
    Z = X @ W
    m = np.max(Z, axis=1)
    lse = m + np.log(np.sum(np.exp(Z - m[:, None]), axis=1))
    return np.sum(lse) + 0.1 * np.sum(W * W)


def min_gru(Wz, Wh, xs):
    """minGRU: gate and candidate from the input alone, h = (1 - z) h + z h~."""
    h = np.zeros((xs.shape[1], Wh.shape[1]))
    out = 0.0
    for t in range(xs.shape[0]):
        z = _sigmoid(xs[t] @ Wz)
        h = (1.0 - z) * h + z * (xs[t] @ Wh)
        out = out + np.mean(h ** 2)
    return out


def column_softmax_scores(Q, K, w):
    """Scores as a broadcast product summed over features, a softmax down each column with the
    column's max (no keepdims) subtracted."""
    S = (Q[:, None, :] * K[None, :, :]).sum(axis=2)
    E = np.exp(S - S.max(axis=0))
    return np.sum(E / E.sum(axis=0) * w)


def softmax_shift_kept(S, w):
    """exp(S - max) alone, not normalised: the max's value does not cancel (its gradient stays)."""
    P = np.exp(S - S.max(axis=1, keepdims=True))
    return np.sum(P * w)


def M(rng, *shape, scale=0.5):
    return scale * rng.standard_normal(shape)


PROGRAMS = [
    ("gru_reset_after", gru_reset_after, lambda r: (M(r, 3, 6), M(r, 2, 6), M(r, 6), M(r, 3, 2, 3)), 0),
    ("gru_reset_after_Wh", gru_reset_after, lambda r: (M(r, 3, 6), M(r, 2, 6), M(r, 6), M(r, 3, 2, 3)), 1),
    ("peephole_split", peephole_split, lambda r: (M(r, 5, 8), M(r, 2, 8), M(r, 3, 2), M(r, 3, 2, 3), M(r, 2, 2)), 0),
    ("peephole_split_peep", peephole_split,
     lambda r: (M(r, 5, 8), M(r, 2, 8), M(r, 3, 2), M(r, 3, 2, 3), M(r, 2, 2)), 2),
    ("multihead_attention", multihead_attention, lambda r: (M(r, 3, 4), M(r, 3, 4), M(r, 5, 3), 2), 0),
    ("log_softmax_xent", log_softmax_xent, lambda r: (M(r, 3, 4), M(r, 5, 3), np.eye(4)[[0, 3, 1, 1, 2]]), 0),
    ("logsumexp_shift", logsumexp_shift, lambda r: (M(r, 3, 4), M(r, 5, 3)), 0),
    ("min_gru", min_gru, lambda r: (M(r, 3, 2), M(r, 3, 2), M(r, 4, 2, 3)), 0),
    ("column_softmax_scores", column_softmax_scores, lambda r: (M(r, 4, 3), M(r, 5, 3), M(r, 4, 5)), 0),
    ("softmax_shift_kept", softmax_shift_kept, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
]
