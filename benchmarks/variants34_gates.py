"""Held-out gated cells written before wave 34c's speed work on gated recurrent cells, each with a
careful hand-written gradient ``NAME_grad`` (one joined product per sweep where the gates share
weights): an LSTM whose input gate is coupled to its forget gate (i = 1 - f), a minimal gated unit
whose width is computed at run time from the bias, a GRU applying its reset after the recurrent
product, a cell reading its biases from a dict, and a cell splitting one W by np.split.
variants.py registers them; variants_programs.py re-exports them.  Measured only: no pass was
written reading their generated code.
"""

import math

import numpy as np


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def cifg_lstm(W, U, b, xs):
    """A coupled input-forget gate LSTM: the input gate is 1 - f; three column blocks (f, o, g)
    of W, U and b; the width from the bias as ``b.shape[0] // 3`` (wrt W, U and b)."""
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


def cifg_lstm_grad(W, U, b, xs):
    n = b.shape[0] // 3
    T, B, _ = xs.shape
    h, c = np.zeros((B, n)), np.zeros((B, n))
    saved = []
    for t in range(T):
        a = xs[t] @ W + h @ U + b
        f, o, g = _sigmoid(a[:, :n]), _sigmoid(a[:, n:2 * n]), np.tanh(a[:, 2 * n:])
        c_new = f * c + (1.0 - f) * g
        tc = np.tanh(c_new)
        h_new = o * tc
        saved.append((h, c, f, o, g, tc, h_new))
        h, c = h_new, c_new
    gW, gU, gb = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    h_bar, c_bar = np.zeros((B, n)), np.zeros((B, n))
    scale = 2.0 / (B * n)
    for t in range(T - 1, -1, -1):
        h_prev, c_prev, f, o, g, tc, h_new = saved[t]
        h_bar = h_bar + scale * h_new
        dc = c_bar + h_bar * o * (1.0 - tc * tc)
        da = np.concatenate([dc * (c_prev - g) * f * (1.0 - f), h_bar * tc * o * (1.0 - o),
                             dc * (1.0 - f) * (1.0 - g * g)], axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        gb += da.sum(axis=0)
        h_bar = da @ U.T
        c_bar = dc * f
    return gW, gU, gb


def mgu_bias(W, U, b, xs):
    """A minimal gated unit with biases, its width computed as ``b.shape[0] // 2``; the candidate
    reads the forget-gated state through the second half of U (wrt W, U and b)."""
    m = b.shape[0] // 2
    h = np.zeros((xs.shape[1], m))
    total = 0.0
    for t in range(xs.shape[0]):
        f = _sigmoid(xs[t] @ W[:, :m] + h @ U[:, :m] + b[:m])
        cand = np.tanh(xs[t] @ W[:, m:] + (f * h) @ U[:, m:] + b[m:])
        h = (1.0 - f) * h + f * cand
        total = total + np.sum(h ** 2)
    return total


def mgu_bias_grad(W, U, b, xs):
    m = b.shape[0] // 2
    T, B, _ = xs.shape
    Uf, Uc = U[:, :m], U[:, m:]
    h = np.zeros((B, m))
    saved = []
    for t in range(T):
        ax = xs[t] @ W + b
        f = _sigmoid(ax[:, :m] + h @ Uf)
        fh = f * h
        c = np.tanh(ax[:, m:] + fh @ Uc)
        h_new = (1.0 - f) * h + f * c
        saved.append((h, f, fh, c, h_new))
        h = h_new
    gW, gU, gb = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    h_bar = np.zeros((B, m))
    for t in range(T - 1, -1, -1):
        h_prev, f, fh, c, h_new = saved[t]
        h_bar = h_bar + 2.0 * h_new
        dac = h_bar * f * (1.0 - c * c)
        gU[:, m:] += fh.T @ dac
        dfh = dac @ Uc.T
        daf = (h_bar * (c - h_prev) + dfh * h_prev) * f * (1.0 - f)
        gU[:, :m] += h_prev.T @ daf
        da = np.concatenate([daf, dac], axis=1)
        gW += xs[t].T @ da
        gb += da.sum(axis=0)
        h_bar = h_bar * (1.0 - f) + dfh * f + daf @ Uf.T
    return gW, gU, gb


def gru_reset_after(W, U, b, xs):
    """A GRU with the reset applied after the recurrent product (r * (h @ U_n)), the width from
    ``W.shape[1] // 3``, the gates' columns z, r, n (wrt W, U and b)."""
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


def gru_reset_after_grad(W, U, b, xs):
    k = W.shape[1] // 3
    T, B, _ = xs.shape
    h = np.zeros((B, k))
    saved = []
    for t in range(T):
        ax = xs[t] @ W + b
        ah = h @ U
        z = _sigmoid(ax[:, :k] + ah[:, :k])
        r = _sigmoid(ax[:, k:2 * k] + ah[:, k:2 * k])
        hn = ah[:, 2 * k:]
        cand = np.tanh(ax[:, 2 * k:] + r * hn)
        h_new = z * h + (1.0 - z) * cand
        saved.append((h, z, r, hn, cand, h_new))
        h = h_new
    gW, gU, gb = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    h_bar = np.zeros((B, k))
    for t in range(T - 1, -1, -1):
        h_prev, z, r, hn, cand, h_new = saved[t]
        h_bar = h_bar + 2.0 * h_new
        dan = h_bar * (1.0 - z) * (1.0 - cand * cand)
        daz = h_bar * (h_prev - cand) * z * (1.0 - z)
        dar = dan * hn * r * (1.0 - r)
        dax = np.concatenate([daz, dar, dan], axis=1)
        dah = np.concatenate([daz, dar, dan * r], axis=1)
        gW += xs[t].T @ dax
        gb += dax.sum(axis=0)
        gU += h_prev.T @ dah
        h_bar = h_bar * z + dah @ U.T
    return gW, gU, gb


def dict_bias_cell(W, biases, xs):
    """An update-gated tanh cell whose biases come from a dict {"z": ..., "c": ...}; the gate and
    the candidate read column blocks of one W (wrt W and the dict)."""
    n = biases["z"].shape[0]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for t in range(xs.shape[0]):
        x = np.concatenate([xs[t], h], axis=1)
        z = _sigmoid(x @ W[:, :n] + biases["z"])
        c = np.tanh(x @ W[:, n:] + biases["c"])
        h = (1.0 - z) * h + z * c
        total = total + np.sum((h - 0.5) ** 2)
    return total


def dict_bias_cell_grad(W, biases, xs):
    n = biases["z"].shape[0]
    T, B, n_in = xs.shape
    bb = np.concatenate([biases["z"], biases["c"]])
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        x = np.concatenate([xs[t], h], axis=1)
        a = x @ W + bb
        z, c = _sigmoid(a[:, :n]), np.tanh(a[:, n:])
        h_new = (1.0 - z) * h + z * c
        saved.append((x, h, z, c, h_new))
        h = h_new
    gW, gb = np.zeros_like(W), np.zeros_like(bb)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        x, h_prev, z, c, h_new = saved[t]
        h_bar = h_bar + 2.0 * (h_new - 0.5)
        da = np.concatenate([h_bar * (c - h_prev) * z * (1.0 - z), h_bar * z * (1.0 - c * c)], axis=1)
        gW += x.T @ da
        gb += da.sum(axis=0)
        h_bar = h_bar * (1.0 - z) + da @ W[n_in:].T
    return gW, {"z": gb[:n], "c": gb[n:]}


def split_gates(W, U, xs):
    """A cell splitting one W and one U by np.split into three gates (update, output, candidate),
    the width from ``U.shape[0]`` (wrt W and U)."""
    Wz, Wo, Wc = np.split(W, 3, axis=1)
    Uz, Uo, Uc = np.split(U, 3, axis=1)
    h = np.zeros((xs.shape[1], U.shape[0]))
    loss = 0.0
    for x in xs:
        z = _sigmoid(x @ Wz + h @ Uz)
        o = _sigmoid(x @ Wo + h @ Uo)
        c = np.tanh(x @ Wc + h @ Uc)
        h = (1.0 - z) * h + z * c
        loss = loss + np.sum(o * h)
    return loss


def split_gates_grad(W, U, xs):
    n = U.shape[0]
    T, B, _ = xs.shape
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        a = xs[t] @ W + h @ U
        z, o, c = _sigmoid(a[:, :n]), _sigmoid(a[:, n:2 * n]), np.tanh(a[:, 2 * n:])
        h_new = (1.0 - z) * h + z * c
        saved.append((h, z, o, c, h_new))
        h = h_new
    gW, gU = np.zeros_like(W), np.zeros_like(U)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, z, o, c, h_new = saved[t]
        h_bar = h_bar + o
        da = np.concatenate([h_bar * (c - h_prev) * z * (1.0 - z), h_new * o * (1.0 - o),
                             h_bar * z * (1.0 - c * c)], axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        h_bar = h_bar * (1.0 - z) + da @ U.T
    return gW, gU


def cifg_args(T=25, B=16, n_in=16, n_h=48, seed=341):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 3 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 3 * n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(3 * n_h),
            rng.standard_normal((T, B, n_in)))


def mgu_bias_args(T=25, B=16, n_in=16, n_h=48, seed=342):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 2 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 2 * n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(2 * n_h),
            rng.standard_normal((T, B, n_in)))


def reset_after_args(T=25, B=16, n_in=16, n_h=48, seed=343):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 3 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 3 * n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(3 * n_h),
            rng.standard_normal((T, B, n_in)))


def dict_bias_args(T=25, B=16, n_in=16, n_h=48, seed=344):
    rng = np.random.default_rng(seed)
    width = n_in + n_h
    return (rng.standard_normal((width, 2 * n_h)) / math.sqrt(width),
            {"z": 0.1 * rng.standard_normal(n_h), "c": 0.1 * rng.standard_normal(n_h)},
            rng.standard_normal((T, B, n_in)))


def split_args(T=25, B=16, n_in=16, n_h=48, seed=345):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 3 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 3 * n_h)) / math.sqrt(n_h), rng.standard_normal((T, B, n_in)))
