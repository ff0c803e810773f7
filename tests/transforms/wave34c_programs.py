"""Wave 34c: gated cells whose gates' width is computed from a shape at run time (``b.shape[0] // 2``,
``W.shape[1] // 3``, ``len(b) // 2``, ``W.shape[1] - U.shape[0]``), compiled as not 1 behind a test
(driver/computed_lengths.py), with rows where the width IS 1 (a state of width 1 broadcast against a
wider product, where the code assuming nothing must sum it back), negative (a slice ``b[:n]`` that
drops the end) or zero (test_wave34c.py runs them; benchmarks/variants34_gates.py times their larger kin)."""

from __future__ import annotations

import numpy as np


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def mgu_bias(W, U, b, xs):
    """A minimal gated unit, the width ``b.shape[0] // 2``, the candidate reading the gated state."""
    m = b.shape[0] // 2
    h = np.zeros((xs.shape[1], m))
    total = 0.0
    for t in range(xs.shape[0]):
        f = _sigmoid(xs[t] @ W[:, :m] + h @ U[:, :m] + b[:m])
        cand = np.tanh(xs[t] @ W[:, m:] + (f * h) @ U[:, m:] + b[m:])
        h = (1.0 - f) * h + f * cand
        total = total + np.sum(h ** 2)
    return total


def cifg_lstm(W, U, b, xs):
    """A coupled input-forget LSTM (i = 1 - f), the width ``b.shape[0] // 3``, a mean of squares."""
    n = b.shape[0] // 3
    h = np.zeros((xs.shape[1], n))
    c = np.zeros((xs.shape[1], n))
    loss = 0.0
    for x in xs:
        a = x @ W + h @ U + b
        f = _sigmoid(a[:, :n])
        o = _sigmoid(a[:, n:2 * n])
        g = np.tanh(a[:, 2 * n:])
        c = f * c + (1.0 - f) * g
        h = o * np.tanh(c)
        loss = loss + np.mean(h ** 2)
    return loss


def reset_after(W, U, b, xs):
    """A GRU with its reset after the recurrent product, the width ``W.shape[1] // 3``."""
    k = W.shape[1] // 3
    h = np.zeros((xs.shape[1], k))
    loss = 0.0
    for x in xs:
        ax = x @ W + b
        ah = h @ U
        z = _sigmoid(ax[:, :k] + ah[:, :k])
        r = _sigmoid(ax[:, k:2 * k] + ah[:, k:2 * k])
        cand = np.tanh(ax[:, 2 * k:] + r * ah[:, 2 * k:])
        h = z * h + (1.0 - z) * cand
        loss = loss + np.sum(h * h)
    return loss


def len_halves(W, b, xs):
    """The width ``len(b) // 2``, a ReLU candidate, the gate's bias sliced (a kink at 0 in one row)."""
    n = len(b) // 2
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        f = _sigmoid(x @ W[:, :n] + b[:n])
        h = f * h + (1.0 - f) * np.maximum(x @ W[:, n:] + b[n:], 0.0)
        total = total + np.sum(h ** 2)
    return total


def difference_width(W, U, xs):
    """The candidate's width a difference of two lengths (``W.shape[1] - U.shape[0]``)."""
    n = U.shape[0]
    k = W.shape[1] - n
    h = np.zeros((xs.shape[1], n))
    out = 0.0
    for x in xs:
        z = _sigmoid(x @ W[:, :n] + h @ U[:, :n])
        cand = np.tanh(x @ W[:, n:n + k] + h @ U[:, n:])
        h = z * h + (1.0 - z) * cand
        out = out + np.sum(h * h)
    return out


def width_one_broadcast(W, b, xs):
    """``n = b.shape[0] // 2`` is 1 here: the state ``np.zeros((B, n)) + b[:n]`` of width 1 broadcasts
    against the product's width in the first step; b's adjoint sums it back."""
    n = b.shape[0] // 2
    h = np.zeros((xs.shape[1], n)) + b[:n]
    total = 0.0
    for x in xs:
        h = np.tanh(x @ W + h)
        total = total + np.sum(h ** 2)
    return total


def negative_width(W, b, xs):
    """``n = b.shape[0] - 5`` is negative here: ``b[:n]`` and ``W[:, :n]`` drop the last columns."""
    n = b.shape[0] - 5
    total = 0.0
    for x in xs:
        total = total + np.sum(np.tanh(x @ W[:, :n] + b[:n]) ** 2)
    return total


def zero_width(W, b, xs):
    """``n = b.shape[0] // 5`` is 0 here: a gate of no columns, and the rest of b read by ``b[n:]``."""
    n = b.shape[0] // 5
    h = np.zeros((xs.shape[1], b.shape[0] - n))
    total = 0.0
    for x in xs:
        h = np.tanh(x @ W[:, n:] + b[n:] + 0.5 * h) + np.sum(x @ W[:, :n])
        total = total + np.sum(h ** 2)
    return total


def _gates(rng, k, n=2, n_in=3, T=3, B=2):
    return 0.5 * rng.normal(size=(n_in, k * n)), 0.5 * rng.normal(size=(n, k * n)), 0.1 * rng.normal(size=k * n), \
        rng.normal(size=(T, B, n_in))


def _len_halves(rng, n=2):
    W, _, b, xs = _gates(rng, 2, n)
    xs[:, 0, :] = 0.0
    b[n:] = 0.0  # (a candidate exactly 0 in a row of zero inputs: the ReLU's kink)
    return W, b, xs


PROGRAMS = [
    ("mgu_bias_W", mgu_bias, lambda rng: _gates(rng, 2), 0),
    ("mgu_bias_b", mgu_bias, lambda rng: _gates(rng, 2), 2),
    ("mgu_bias_one_U", mgu_bias, lambda rng: _gates(rng, 2, n=1), 1),
    ("cifg_lstm_U", cifg_lstm, lambda rng: _gates(rng, 3), 1),
    ("cifg_lstm_one_b", cifg_lstm, lambda rng: _gates(rng, 3, n=1), 2),
    ("reset_after_W", reset_after, lambda rng: _gates(rng, 3), 0),
    ("reset_after_b", reset_after, lambda rng: _gates(rng, 3), 2),
    ("len_halves_W", len_halves, _len_halves, 0),
    ("len_halves_one_b", len_halves, lambda rng: _len_halves(rng, n=1), 1),
    ("difference_width_W", difference_width, lambda rng: (_gates(rng, 2)[0], *_gates(rng, 2)[1::2]), 0),
    ("difference_width_one_U", difference_width, lambda rng: (_gates(rng, 2, n=1)[0], *_gates(rng, 2, n=1)[1::2]), 1),
    ("width_one_broadcast_b", width_one_broadcast, lambda rng: (0.5 * rng.normal(size=(3, 3)), 0.3 * rng.normal(size=3),
                                                             rng.normal(size=(3, 2, 3))), 1),
    ("width_one_broadcast_W", width_one_broadcast, lambda rng: (0.5 * rng.normal(size=(3, 3)), 0.3 * rng.normal(size=3),
                                                             rng.normal(size=(3, 2, 3))), 0),
    ("negative_width_b", negative_width, lambda rng: (0.5 * rng.normal(size=(3, 4)), 0.3 * rng.normal(size=4),
                                                      rng.normal(size=(3, 2, 3))), 1),
    ("zero_width_W", zero_width, lambda rng: (0.5 * rng.normal(size=(3, 4)), 0.3 * rng.normal(size=4),
                                              rng.normal(size=(3, 2, 3))), 0),
]
