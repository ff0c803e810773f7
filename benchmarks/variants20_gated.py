"""Gated cells held out from issue 26's speed work (written after it, timed before and after):
an LSTM in PyTorch's layout (stacked weights [4H, D], np.split into i, f, g, o) and a light GRU
(no reset gate, a ReLU candidate), each with its careful hand-written NumPy gradient."""

import math

import numpy as np


def _sigmoid(x):
    return 1 / (np.exp(-x) + 1)


def lstm_stacked(W_ih, W_hh, b, xs, ys):
    """PyTorch's layout: x @ W_ih.T + h @ W_hh.T + b split four ways, an error at every step."""
    n = W_hh.shape[1]
    h, c = np.zeros((xs.shape[1], n)), np.zeros((xs.shape[1], n))
    loss = 0.0
    for t in range(xs.shape[0]):
        i, f, g, o = np.split(xs[t] @ W_ih.T + h @ W_hh.T + b, 4, axis=1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        loss = loss + np.sum((h - ys[t]) ** 2)
    return loss


def lstm_stacked_grad(W_ih, W_hh, b, xs, ys):
    n = W_hh.shape[1]
    T, B, _ = xs.shape
    h, c = np.zeros((B, n)), np.zeros((B, n))
    saved = []
    for t in range(T):
        z = xs[t] @ W_ih.T + h @ W_hh.T + b
        s = 1.0 / (1.0 + np.exp(-z))
        tg = np.tanh(z[:, 2 * n:3 * n])
        c_prev, h_prev = c, h
        c = s[:, n:2 * n] * c + s[:, :n] * tg
        tc = np.tanh(c)
        h = s[:, 3 * n:] * tc
        saved.append((h_prev, c_prev, s, tg, tc, h))
    gW, gU, gb = np.zeros_like(W_ih), np.zeros_like(W_hh), np.zeros_like(b)
    dz = np.empty((B, 4 * n))
    h_bar, c_bar = np.zeros((B, n)), np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, c_prev, s, tg, tc, h = saved[t]
        si, sf, so = s[:, :n], s[:, n:2 * n], s[:, 3 * n:]
        h_bar = h_bar + 2.0 * (h - ys[t])
        dz[:, 3 * n:] = h_bar * tc * so * (1.0 - so)
        c_bar = c_bar + h_bar * so * (1.0 - tc * tc)
        dz[:, :n] = c_bar * tg * si * (1.0 - si)
        dz[:, n:2 * n] = c_bar * c_prev * sf * (1.0 - sf)
        dz[:, 2 * n:3 * n] = c_bar * si * (1.0 - tg * tg)
        c_bar = c_bar * sf
        gW += dz.T @ xs[t]
        gU += dz.T @ h_prev
        gb += dz.sum(axis=0)
        h_bar = dz @ W_hh
    return gW, gU, gb


def ligru(W, U, xs):
    """A light GRU: both gates' weights side by side, read by column slices; a ReLU candidate."""
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


def ligru_grad(W, U, xs):
    n = U.shape[0]
    T, B, _ = xs.shape
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        a = xs[t] @ W + h @ U
        z = 1.0 / (1.0 + np.exp(-a[:, :n]))
        pre = a[:, n:]
        cand = np.maximum(pre, 0.0)
        h_prev = h
        h = z * h + (1.0 - z) * cand
        saved.append((h_prev, z, cand, pre > 0.0, h))
    gW, gU = np.zeros_like(W), np.zeros_like(U)
    da = np.empty((B, 2 * n))
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, z, cand, on, h = saved[t]
        h_bar = h_bar + 2.0 * h
        da[:, :n] = h_bar * (h_prev - cand) * z * (1.0 - z)
        da[:, n:] = h_bar * (1.0 - z) * on
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        h_bar = h_bar * z + da @ U.T
    return gW, gU


def lstm_stacked_args(T=20, B=16, n_in=16, n_h=48, seed=26):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((4 * n_h, n_in)) / math.sqrt(n_in),
            rng.standard_normal((4 * n_h, n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(4 * n_h),
            rng.standard_normal((T, B, n_in)), 0.3 * rng.standard_normal((T, B, n_h)))


def ligru_args(T=25, B=16, n_in=16, n_h=48, seed=27):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 2 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 2 * n_h)) / math.sqrt(n_h), rng.standard_normal((T, B, n_in)))
