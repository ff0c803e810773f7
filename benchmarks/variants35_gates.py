"""Held-out gated cells written before wave 35d's speed work on gated recurrent cells, each with a
careful hand-written gradient ``NAME_grad`` (one joined product per sweep where the gates share
weights): an LSTM whose forget gate adds a bias of 1.0 inline and whose loss reads the last state
only, an IndRNN-like gated cell (elementwise recurrent weights), a highway network looped over its
layers, a GRU whose per-gate weights come in lists, and a GRU whose gates' weights are the leading
axis of 3-d arrays.  variants.py registers them; variants_programs.py re-exports them.  Measured
only: no pass was written reading their generated code.
"""

import math

import numpy as np


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_forget_bias(W, U, b, xs, ys):
    """An LSTM (columns i, f, g, o) whose forget gate adds 1.0 inline, the width ``U.shape[0]``, a
    mean squared error of the last state only (wrt W, U and b)."""
    H = U.shape[0]
    h = np.zeros((xs.shape[1], H))
    c = np.zeros_like(h)
    for t in range(xs.shape[0]):
        a = xs[t] @ W + h @ U + b
        i = _sigmoid(a[:, :H])
        f = _sigmoid(a[:, H:2 * H] + 1.0)
        g = np.tanh(a[:, 2 * H:3 * H])
        o = _sigmoid(a[:, 3 * H:])
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.mean((h - ys) ** 2)


def lstm_forget_bias_grad(W, U, b, xs, ys):
    H = U.shape[0]
    T, B, _ = xs.shape
    h, c = np.zeros((B, H)), np.zeros((B, H))
    saved = []
    for t in range(T):
        a = xs[t] @ W + h @ U + b
        i, f = _sigmoid(a[:, :H]), _sigmoid(a[:, H:2 * H] + 1.0)
        g, o = np.tanh(a[:, 2 * H:3 * H]), _sigmoid(a[:, 3 * H:])
        c_new = f * c + i * g
        tc = np.tanh(c_new)
        saved.append((h, c, i, f, g, o, tc))
        h, c = o * tc, c_new
    gW, gU, gb = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    h_bar = 2.0 * (h - ys) / h.size
    c_bar = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        h_prev, c_prev, i, f, g, o, tc = saved[t]
        dc = c_bar + h_bar * o * (1.0 - tc * tc)
        da = np.concatenate([dc * g * i * (1.0 - i), dc * c_prev * f * (1.0 - f), dc * i * (1.0 - g * g),
                             h_bar * tc * o * (1.0 - o)], axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        gb += da.sum(axis=0)
        h_bar = da @ U.T
        c_bar = dc * f
    return gW, gU, gb


def indrnn_gated(W, u, b, xs):
    """An IndRNN-like gated cell: the recurrence is elementwise (rows of u scale the state), the
    input's product one matrix of two column blocks (gate, candidate); squares summed at every
    step (wrt W, u and b)."""
    H = u.shape[1]
    h = np.zeros((xs.shape[1], H))
    total = 0.0
    for t in range(xs.shape[0]):
        ax = xs[t] @ W + b
        z = _sigmoid(ax[:, :H] + u[0] * h)
        cand = np.tanh(ax[:, H:] + u[1] * h)
        h = z * h + (1.0 - z) * cand
        total = total + 0.5 * np.sum(h * h)
    return total


def indrnn_gated_grad(W, u, b, xs):
    H = u.shape[1]
    T, B, _ = xs.shape
    h = np.zeros((B, H))
    saved = []
    for t in range(T):
        ax = xs[t] @ W + b
        z = _sigmoid(ax[:, :H] + u[0] * h)
        cand = np.tanh(ax[:, H:] + u[1] * h)
        h_new = z * h + (1.0 - z) * cand
        saved.append((h, z, cand, h_new))
        h = h_new
    gW, gu, gb = np.zeros_like(W), np.zeros_like(u), np.zeros_like(b)
    h_bar = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        h_prev, z, cand, h_new = saved[t]
        h_bar = h_bar + h_new
        daz = h_bar * (h_prev - cand) * z * (1.0 - z)
        dac = h_bar * (1.0 - z) * (1.0 - cand * cand)
        da = np.concatenate([daz, dac], axis=1)
        gW += xs[t].T @ da
        gb += da.sum(axis=0)
        gu[0] += (daz * h_prev).sum(axis=0)
        gu[1] += (dac * h_prev).sum(axis=0)
        h_bar = h_bar * z + daz * u[0] + dac * u[1]
    return gW, gu, gb


def highway_depth(Wh, bh, Wt, bt, x, y):
    """A highway network looped over its layers (weights stacked on a leading axis): a transform
    gate mixes a tanh layer with the carried input; a mean squared error (wrt all four weights)."""
    for layer in range(Wh.shape[0]):
        hl = np.tanh(x @ Wh[layer] + bh[layer])
        gate = _sigmoid(x @ Wt[layer] + bt[layer])
        x = gate * hl + (1.0 - gate) * x
    return np.mean((x - y) ** 2)


def highway_depth_grad(Wh, bh, Wt, bt, x, y):
    L, d = Wh.shape[0], Wh.shape[2]
    W = np.concatenate([Wh, Wt], axis=2)
    bb = np.concatenate([bh, bt], axis=1)
    saved = []
    for layer in range(L):
        a = x @ W[layer] + bb[layer]
        hl, gate = np.tanh(a[:, :d]), _sigmoid(a[:, d:])
        saved.append((x, hl, gate))
        x = gate * hl + (1.0 - gate) * x
    gW, gb = np.zeros_like(W), np.zeros_like(bb)
    x_bar = 2.0 * (x - y) / x.size
    for layer in range(L - 1, -1, -1):
        x_prev, hl, gate = saved[layer]
        da = np.concatenate([x_bar * gate * (1.0 - hl * hl), x_bar * (hl - x_prev) * gate * (1.0 - gate)], axis=1)
        gW[layer] = x_prev.T @ da
        gb[layer] = da.sum(axis=0)
        x_bar = x_bar * (1.0 - gate) + da @ W[layer].T
    return gW[:, :, :d], gb[:, :d], gW[:, :, d:], gb[:, d:]


def list_gates(Ws, Us, xs):
    """A GRU whose per-gate weights come in lists [update, reset, candidate], the reset applied to
    the candidate's recurrent product; squares summed at every step (wrt both lists)."""
    h = np.zeros((xs.shape[1], Us[0].shape[0]))
    loss = 0.0
    for x in xs:
        z = _sigmoid(x @ Ws[0] + h @ Us[0])
        r = _sigmoid(x @ Ws[1] + h @ Us[1])
        cand = np.tanh(x @ Ws[2] + r * (h @ Us[2]))
        h = (1.0 - z) * h + z * cand
        loss = loss + np.sum(h ** 2)
    return loss


def list_gates_grad(Ws, Us, xs):
    n = Us[0].shape[0]
    T, B, _ = xs.shape
    W, U = np.concatenate(Ws, axis=1), np.concatenate(Us, axis=1)
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        ax, ah = xs[t] @ W, h @ U
        z, r = _sigmoid(ax[:, :n] + ah[:, :n]), _sigmoid(ax[:, n:2 * n] + ah[:, n:2 * n])
        hc = ah[:, 2 * n:]
        cand = np.tanh(ax[:, 2 * n:] + r * hc)
        h_new = (1.0 - z) * h + z * cand
        saved.append((h, z, r, hc, cand, h_new))
        h = h_new
    gW, gU = np.zeros_like(W), np.zeros_like(U)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, z, r, hc, cand, h_new = saved[t]
        h_bar = h_bar + 2.0 * h_new
        dac = h_bar * z * (1.0 - cand * cand)
        daz = h_bar * (cand - h_prev) * z * (1.0 - z)
        dar = dac * hc * r * (1.0 - r)
        dax = np.concatenate([daz, dar, dac], axis=1)
        dah = np.concatenate([daz, dar, dac * r], axis=1)
        gW += xs[t].T @ dax
        gU += h_prev.T @ dah
        h_bar = h_bar * (1.0 - z) + dah @ U.T
    return [gW[:, :n], gW[:, n:2 * n], gW[:, 2 * n:]], [gU[:, :n], gU[:, n:2 * n], gU[:, 2 * n:]]


def stacked_gates(W, U, b, xs):
    """A GRU-like cell (update gate, tanh candidate) whose gates' weights are the leading axis of
    3-d arrays (W[0], W[1]; b of shape (2, n)); a mean of squares at every step (wrt W, U and b)."""
    h = np.zeros((xs.shape[1], U.shape[1]))
    loss = 0.0
    for t in range(xs.shape[0]):
        z = _sigmoid(xs[t] @ W[0] + h @ U[0] + b[0])
        cand = np.tanh(xs[t] @ W[1] + h @ U[1] + b[1])
        h = z * h + (1.0 - z) * cand
        loss = loss + np.mean(h ** 2)
    return loss


def stacked_gates_grad(W, U, b, xs):
    n = U.shape[1]
    T, B, _ = xs.shape
    Wc, Uc, bc = np.concatenate([W[0], W[1]], axis=1), np.concatenate([U[0], U[1]], axis=1), b.reshape(-1)
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        a = xs[t] @ Wc + h @ Uc + bc
        z, cand = _sigmoid(a[:, :n]), np.tanh(a[:, n:])
        h_new = z * h + (1.0 - z) * cand
        saved.append((h, z, cand, h_new))
        h = h_new
    gW, gU, gb = np.zeros_like(Wc), np.zeros_like(Uc), np.zeros_like(bc)
    h_bar = np.zeros((B, n))
    scale = 2.0 / (B * n)
    for t in range(T - 1, -1, -1):
        h_prev, z, cand, h_new = saved[t]
        h_bar = h_bar + scale * h_new
        da = np.concatenate([h_bar * (h_prev - cand) * z * (1.0 - z), h_bar * (1.0 - z) * (1.0 - cand * cand)],
                            axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        gb += da.sum(axis=0)
        h_bar = h_bar * z + da @ Uc.T
    return (np.stack([gW[:, :n], gW[:, n:]]), np.stack([gU[:, :n], gU[:, n:]]), gb.reshape(2, n))


def forget_bias_args(T=25, B=16, n_in=16, n_h=48, seed=351):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 4 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 4 * n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(4 * n_h),
            rng.standard_normal((T, B, n_in)), 0.5 * rng.standard_normal((B, n_h)))


def indrnn_args(T=25, B=16, n_in=16, n_h=48, seed=352):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 2 * n_h)) / math.sqrt(n_in), rng.uniform(-0.9, 0.9, (2, n_h)),
            0.1 * rng.standard_normal(2 * n_h), rng.standard_normal((T, B, n_in)))


def highway_args(L=10, B=64, d=48, seed=353):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((L, d, d)) / math.sqrt(d), 0.1 * rng.standard_normal((L, d)),
            rng.standard_normal((L, d, d)) / math.sqrt(d), 0.1 * rng.standard_normal((L, d)) - 1.0,
            rng.standard_normal((B, d)), 0.5 * rng.standard_normal((B, d)))


def list_gates_args(T=25, B=16, n_in=16, n_h=48, seed=354):
    rng = np.random.default_rng(seed)
    return ([rng.standard_normal((n_in, n_h)) / math.sqrt(n_in) for _ in range(3)],
            [rng.standard_normal((n_h, n_h)) / math.sqrt(n_h) for _ in range(3)], rng.standard_normal((T, B, n_in)))


def stacked_args(T=25, B=16, n_in=16, n_h=48, seed=355):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((2, n_in, n_h)) / math.sqrt(n_in), rng.standard_normal((2, n_h, n_h)) / math.sqrt(n_h),
            0.1 * rng.standard_normal((2, n_h)), rng.standard_normal((T, B, n_in)))
