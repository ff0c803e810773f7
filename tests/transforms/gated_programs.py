"""Gated recurrent cells written as users write them, held out from the speed work on
benchmarks/variants18_linalg.py (the GRU, the split and peephole LSTMs): test_gated.py runs
them through every transformation.  Each takes its sizes from its arguments' shapes."""

import numpy as np


def sigmoid(x):
    return 1 / (np.exp(-x) + 1)


def tanh_sigmoid(x):
    """The logistic function through tanh (no overflow)."""
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def gate(x, h, W, U, b):
    return sigmoid(x @ W + h @ U + b)


def gru_helper(Wz, Uz, Wr, Ur, Wh, Uh, xs):
    """A GRU with one weight pair per gate and a helper for the gates, the mean state scored."""
    h = np.zeros((xs.shape[1], Uz.shape[0]))
    total = 0.0
    for x in xs:
        z = gate(x, h, Wz, Uz, 0.0)
        r = gate(x, h, Wr, Ur, 0.0)
        h = z * h + (1 - z) * np.tanh(x @ Wh + (r * h) @ Uh)
        total = total + np.mean(h)
    return total


def lstm_stacked(W_ih, W_hh, b, xs, ys):
    """An LSTM in PyTorch's layout: stacked weights [4H, D] used transposed, gates i, f, g, o from
    np.split, a squared error at every step."""
    n = W_hh.shape[1]
    h, c = np.zeros((xs.shape[1], n)), np.zeros((xs.shape[1], n))
    loss = 0.0
    for t in range(xs.shape[0]):
        i, f, g, o = np.split(xs[t] @ W_ih.T + h @ W_hh.T + b, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        loss = loss + np.sum((h - ys[t]) ** 2)
    return loss


def lstm_split_last_axis(W, xs, target):
    """A peephole-free LSTM on [x, h] with np.split along axis -1, the forget gate's bias 1."""
    B, n = xs.shape[1], W.shape[1] // 4
    h, c = np.zeros((B, n)), np.zeros((B, n))
    for t in range(xs.shape[0]):
        zi, zf, zo, zg = np.split(np.concatenate([xs[t], h], axis=-1) @ W, 4, axis=-1)
        c = tanh_sigmoid(zf + 1.0) * c + tanh_sigmoid(zi) * np.tanh(zg)
        h = tanh_sigmoid(zo) * np.tanh(c)
    return np.sum(h * target)


def ligru(W, U, xs):
    """A light GRU (no reset gate, a ReLU candidate), weights of both gates side by side in one
    matrix read by column slices."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    out = 0.0
    for t in range(xs.shape[0]):
        a = xs[t] @ W
        z = 1.0 / (1.0 + np.exp(-(a[:, :n] + h @ U[:, :n])))
        cand = np.maximum(a[:, n:] + h @ U[:, n:], 0.0)
        h = z * h + (1.0 - z) * cand
        out = out + np.sum(h ** 2)
    return out


def min_gru_split_weights(W, xs):
    """minGRU whose gate and candidate weights are np.split of one parameter (rows stacked)."""
    Wz, Wh = np.split(W, 2, axis=0)
    h = np.zeros((xs.shape[1], W.shape[0] // 2))
    for t in range(xs.shape[0]):
        z = sigmoid(xs[t] @ Wz.T)
        h = (1.0 - z) * h + z * (xs[t] @ Wh.T)
    return np.sum(np.tanh(h))


def unused_piece(x, w):
    """Three pieces of a split, the middle one unused."""
    a, _, c = np.split(x, 3)
    return np.sum(sigmoid(a) * w) + np.sum(c * c)


def M(rng, *shape, scale=0.5):
    return scale * rng.standard_normal(shape)


def _gru_args(r, d=3, n=2, T=3, B=2):
    return tuple(M(r, *s) for s in ((d, n), (n, n)) * 3) + (M(r, T, B, d),)


PROGRAMS = [
    ("gru_helper_Wz", gru_helper, _gru_args, 0),
    ("gru_helper_Ur", gru_helper, _gru_args, 3),
    ("gru_helper_Uh", gru_helper, _gru_args, 5),
    ("lstm_stacked_W_ih", lstm_stacked, lambda r: (M(r, 8, 3), M(r, 8, 2), M(r, 8), M(r, 3, 2, 3), M(r, 3, 2, 2)), 0),
    ("lstm_stacked_W_hh", lstm_stacked, lambda r: (M(r, 8, 3), M(r, 8, 2), M(r, 8), M(r, 3, 2, 3), M(r, 3, 2, 2)), 1),
    ("lstm_stacked_b", lstm_stacked, lambda r: (M(r, 8, 3), M(r, 8, 2), M(r, 8), M(r, 3, 2, 3), M(r, 3, 2, 2)), 2),
    ("lstm_split_last_axis", lstm_split_last_axis, lambda r: (M(r, 5, 8), M(r, 3, 2, 3), M(r, 2, 2)), 0),
    ("ligru_W", ligru, lambda r: (M(r, 3, 4), M(r, 2, 4), M(r, 3, 2, 3)), 0),
    ("ligru_U", ligru, lambda r: (M(r, 3, 4), M(r, 2, 4), M(r, 3, 2, 3)), 1),
    ("min_gru_split_weights", min_gru_split_weights, lambda r: (M(r, 4, 3), M(r, 3, 2, 3)), 0),
    ("unused_piece", unused_piece, lambda r: (M(r, 6), M(r, 2)), 0),
]
