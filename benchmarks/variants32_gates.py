"""Held-out gated cells written before wave 32l's speed work on products with one left operand and
adjacent column blocks of one matrix (backend/optimize/joined_scatters.py), each with a careful
hand-written gradient ``NAME_grad`` (one product per sweep over the joined gates).  variants.py
registers them; variants_programs.py re-exports them.  Measured only: the pass was written
reading gated_writes' generated code.

Ratios to the hand-written gradient (grad, CPU clock, median of 3 runs interleaved before /
after, ``--quick --no-numba``): three_gates 1.49x -> 1.24x, biased_gates 1.8x -> 1.69x,
named_gates 1.15x -> 1.16x (weights sliced before the loop under names: not joined, open).
"""

import math

import numpy as np


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def named_gates(W, U, xs):
    """Each gate's weights under a name before the loop (``W_z = W[:, :n]``), a tanh candidate."""
    n = U.shape[0]
    W_z, W_c = W[:, :n], W[:, n:]
    U_z, U_c = U[:, :n], U[:, n:]
    h = np.zeros((xs.shape[1], n))
    loss = 0.0
    for x in xs:
        z = _sigmoid(x @ W_z + h @ U_z)
        c = np.tanh(x @ W_c + h @ U_c)
        h = (1.0 - z) * h + z * c
        loss = loss + np.sum(h * h)
    return loss


def named_gates_grad(W, U, xs):
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    saved = []
    for x in xs:
        a = x @ W + h @ U
        z, c = _sigmoid(a[:, :n]), np.tanh(a[:, n:])
        h_prev = h
        h = (1.0 - z) * h + z * c
        saved.append((h_prev, z, c, h))
    gW, gU = np.zeros_like(W), np.zeros_like(U)
    h_bar = np.zeros_like(h)
    for t in range(len(saved) - 1, -1, -1):
        h_prev, z, c, h = saved[t]
        h_bar = h_bar + 2.0 * h
        da = np.concatenate([h_bar * (c - h_prev) * z * (1.0 - z), h_bar * z * (1.0 - c * c)], axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        h_bar = h_bar * (1.0 - z) + da @ U.T
    return gW, gU


def three_gates(W, U, xs):
    """An update gate, an output gate and a tanh candidate: three column blocks read in place."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    loss = 0.0
    for t in range(xs.shape[0]):
        z = _sigmoid(xs[t] @ W[:, :n] + h @ U[:, :n])
        o = _sigmoid(xs[t] @ W[:, n:2 * n] + h @ U[:, n:2 * n])
        c = np.tanh(xs[t] @ W[:, 2 * n:] + h @ U[:, 2 * n:])
        h = z * h + (1.0 - z) * c
        loss = loss + np.sum((o * h) ** 2)
    return loss


def three_gates_grad(W, U, xs):
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    saved = []
    for t in range(xs.shape[0]):
        a = xs[t] @ W + h @ U
        z, o, c = _sigmoid(a[:, :n]), _sigmoid(a[:, n:2 * n]), np.tanh(a[:, 2 * n:])
        h_prev = h
        h = z * h + (1.0 - z) * c
        saved.append((h_prev, z, o, c, h))
    gW, gU = np.zeros_like(W), np.zeros_like(U)
    h_bar = np.zeros_like(h)
    for t in range(xs.shape[0] - 1, -1, -1):
        h_prev, z, o, c, h = saved[t]
        dy = 2.0 * o * h
        hn_bar = h_bar + dy * o
        da = np.concatenate([hn_bar * (h_prev - c) * z * (1.0 - z), dy * h * o * (1.0 - o),
                             hn_bar * (1.0 - z) * (1.0 - c * c)], axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        h_bar = hn_bar * z + da @ U.T
    return gW, gU


def biased_gates(W, b, xs):
    """Per-gate products plus the bias's matching slice, a ReLU candidate (wrt W and b)."""
    n = b.shape[0] // 2
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        f = _sigmoid(x @ W[:, :n] + b[:n])
        cand = np.maximum(x @ W[:, n:] + b[n:], 0.0)
        h = f * h + (1.0 - f) * cand
        total = total + np.sum(h ** 2)
    return total


def biased_gates_grad(W, b, xs):
    n = b.shape[0] // 2
    h = np.zeros((xs.shape[1], n))
    saved = []
    for x in xs:
        a = x @ W + b
        f, cand = _sigmoid(a[:, :n]), np.maximum(a[:, n:], 0.0)
        h_prev = h
        h = f * h + (1.0 - f) * cand
        saved.append((h_prev, f, cand, a[:, n:] > 0.0, h))
    gW, gb = np.zeros_like(W), np.zeros_like(b)
    h_bar = np.zeros_like(h)
    for t in range(len(saved) - 1, -1, -1):
        h_prev, f, cand, on, h = saved[t]
        h_bar = h_bar + 2.0 * h
        da = np.concatenate([h_bar * (h_prev - cand) * f * (1.0 - f), h_bar * (1.0 - f) * on], axis=1)
        gW += xs[t].T @ da
        gb += da.sum(axis=0)
        h_bar = h_bar * f
    return gW, gb


def named_args(T=25, B=16, n_in=16, n_h=48, seed=321):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 2 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 2 * n_h)) / math.sqrt(n_h), rng.standard_normal((T, B, n_in)))


def three_args(T=25, B=16, n_in=16, n_h=48, seed=322):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 3 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 3 * n_h)) / math.sqrt(n_h), rng.standard_normal((T, B, n_in)))


def biased_args(T=25, B=16, n_in=16, n_h=48, seed=323):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 2 * n_h)) / math.sqrt(n_in), 0.1 * rng.standard_normal(2 * n_h),
            rng.standard_normal((T, B, n_in)))
