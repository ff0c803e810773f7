"""Held-out gated cells written before wave 36d's speed work on gated recurrent cells, each with a
careful hand-written gradient ``NAME_grad`` (one joined product per sweep where the gates share
weights): a GRU taking its three gates from np.split of one input product and one recurrent
product (reset after the product), a peephole LSTM with one peephole vector per gate passed
separately, a plain IndRNN (ReLU, elementwise recurrent weights, a readout at every step), a GRU
whose weight matrices come in dicts keyed by gate name (reset before the recurrent product), and
a cell writing its state into a preallocated array ``H[t + 1] = ...``.  variants.py registers
them; variants_programs.py re-exports them.  Measured before any change; no pass was written
reading their generated code.
"""

import math

import numpy as np


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def split_gru(W, U, b, xs, ys):
    """A GRU (update, reset, candidate) whose gates come from np.split of one input product and
    one recurrent product, the reset applied after the recurrent product; a squared error against
    a target at every step, averaged over the steps (wrt W, U and b)."""
    h = np.zeros((xs.shape[1], U.shape[0]))
    loss = 0.0
    for t in range(xs.shape[0]):
        xz, xr, xc = np.split(xs[t] @ W + b, 3, axis=1)
        hz, hr, hc = np.split(h @ U, 3, axis=1)
        z = _sigmoid(xz + hz)
        r = _sigmoid(xr + hr)
        c = np.tanh(xc + r * hc)
        h = (1.0 - z) * c + z * h
        loss = loss + np.sum((h - ys[t]) ** 2)
    return loss / xs.shape[0]


def split_gru_grad(W, U, b, xs, ys):
    n = U.shape[0]
    T, B, _ = xs.shape
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        ax, ah = xs[t] @ W + b, h @ U
        z = _sigmoid(ax[:, :n] + ah[:, :n])
        r = _sigmoid(ax[:, n:2 * n] + ah[:, n:2 * n])
        hc = ah[:, 2 * n:]
        c = np.tanh(ax[:, 2 * n:] + r * hc)
        h_new = (1.0 - z) * c + z * h
        saved.append((h, z, r, hc, c, h_new))
        h = h_new
    gW, gU, gb = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    h_bar = np.zeros((B, n))
    scale = 2.0 / T
    for t in range(T - 1, -1, -1):
        h_prev, z, r, hc, c, h_new = saved[t]
        h_bar = h_bar + scale * (h_new - ys[t])
        dac = h_bar * (1.0 - z) * (1.0 - c * c)
        daz = h_bar * (h_prev - c) * z * (1.0 - z)
        dar = dac * hc * r * (1.0 - r)
        dax = np.concatenate([daz, dar, dac], axis=1)
        dah = np.concatenate([daz, dar, dac * r], axis=1)
        gW += xs[t].T @ dax
        gb += dax.sum(axis=0)
        gU += h_prev.T @ dah
        h_bar = h_bar * z + dah @ U.T
    return gW, gU, gb


def peephole_vectors(W, U, p_i, p_f, p_o, xs, ys):
    """A peephole LSTM (columns i, f, g, o read by explicit slices), one peephole vector per gate
    passed separately: the input and forget gates look at the old cell, the output gate at the
    new one; a mean squared error at every step (wrt W, U and the three peepholes)."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    c = np.zeros((xs.shape[1], n))
    loss = 0.0
    for t in range(xs.shape[0]):
        a = xs[t] @ W + h @ U
        i = _sigmoid(a[:, 0:n] + p_i * c)
        f = _sigmoid(a[:, n:2 * n] + p_f * c)
        g = np.tanh(a[:, 2 * n:3 * n])
        c = f * c + i * g
        o = _sigmoid(a[:, 3 * n:4 * n] + p_o * c)
        h = o * np.tanh(c)
        loss = loss + np.mean((h - ys[t]) ** 2)
    return loss


def peephole_vectors_grad(W, U, p_i, p_f, p_o, xs, ys):
    n = U.shape[0]
    T, B, _ = xs.shape
    h, c = np.zeros((B, n)), np.zeros((B, n))
    saved = []
    for t in range(T):
        a = xs[t] @ W + h @ U
        i = _sigmoid(a[:, :n] + p_i * c)
        f = _sigmoid(a[:, n:2 * n] + p_f * c)
        g = np.tanh(a[:, 2 * n:3 * n])
        c_new = f * c + i * g
        o = _sigmoid(a[:, 3 * n:] + p_o * c_new)
        tc = np.tanh(c_new)
        h_new = o * tc
        saved.append((h, c, i, f, g, c_new, o, tc, h_new))
        h, c = h_new, c_new
    gW, gU = np.zeros_like(W), np.zeros_like(U)
    gpi, gpf, gpo = np.zeros_like(p_i), np.zeros_like(p_f), np.zeros_like(p_o)
    h_bar, c_bar = np.zeros((B, n)), np.zeros((B, n))
    scale = 2.0 / (B * n)
    for t in range(T - 1, -1, -1):
        h_prev, c_prev, i, f, g, c_new, o, tc, h_new = saved[t]
        h_bar = h_bar + scale * (h_new - ys[t])
        dao = h_bar * tc * o * (1.0 - o)
        dc = c_bar + h_bar * o * (1.0 - tc * tc) + dao * p_o
        dai = dc * g * i * (1.0 - i)
        daf = dc * c_prev * f * (1.0 - f)
        da = np.concatenate([dai, daf, dc * i * (1.0 - g * g), dao], axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        gpi += (dai * c_prev).sum(axis=0)
        gpf += (daf * c_prev).sum(axis=0)
        gpo += (dao * c_new).sum(axis=0)
        h_bar = da @ U.T
        c_bar = dc * f + dai * p_i + daf * p_f
    return gW, gU, gpi, gpf, gpo


def indrnn_relu(W, u, b, V, xs, ys):
    """A plain IndRNN: h = relu(x W + u * h + b) with elementwise recurrent weights u, a linear
    readout at every step against a target, squared errors averaged over the steps (wrt W, u, b
    and V)."""
    h = np.zeros((xs.shape[1], u.shape[0]))
    loss = 0.0
    for t in range(xs.shape[0]):
        h = np.maximum(xs[t] @ W + u * h + b, 0.0)
        loss = loss + np.sum((h @ V - ys[t]) ** 2)
    return loss / xs.shape[0]


def indrnn_relu_grad(W, u, b, V, xs, ys):
    T, B, _ = xs.shape
    n = u.shape[0]
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        pre = xs[t] @ W + u * h + b
        h_new = np.maximum(pre, 0.0)
        saved.append((h, pre > 0.0, h_new))
        h = h_new
    gW, gu, gb, gV = np.zeros_like(W), np.zeros_like(u), np.zeros_like(b), np.zeros_like(V)
    h_bar = np.zeros((B, n))
    scale = 2.0 / T
    for t in range(T - 1, -1, -1):
        h_prev, on, h_new = saved[t]
        d_out = scale * (h_new @ V - ys[t])
        gV += h_new.T @ d_out
        da = (h_bar + d_out @ V.T) * on
        gW += xs[t].T @ da
        gu += (da * h_prev).sum(axis=0)
        gb += da.sum(axis=0)
        h_bar = da * u
    return gW, gu, gb, gV


def dict_gates(Ws, Us, xs):
    """A GRU whose weight matrices come in dicts keyed by gate name ("update", "reset",
    "cand"), the reset applied to the state before the candidate's recurrent product; squares
    summed at every step (wrt both dicts)."""
    h = np.zeros((xs.shape[1], Us["update"].shape[0]))
    total = 0.0
    for x in xs:
        z = _sigmoid(x @ Ws["update"] + h @ Us["update"])
        r = _sigmoid(x @ Ws["reset"] + h @ Us["reset"])
        c = np.tanh(x @ Ws["cand"] + (r * h) @ Us["cand"])
        h = z * h + (1.0 - z) * c
        total = total + np.sum(h ** 2)
    return total


def dict_gates_grad(Ws, Us, xs):
    n = Us["update"].shape[0]
    T, B, _ = xs.shape
    W = np.concatenate([Ws["update"], Ws["reset"], Ws["cand"]], axis=1)
    Uzr, Uc = np.concatenate([Us["update"], Us["reset"]], axis=1), Us["cand"]
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        ax, ah = xs[t] @ W, h @ Uzr
        z = _sigmoid(ax[:, :n] + ah[:, :n])
        r = _sigmoid(ax[:, n:2 * n] + ah[:, n:])
        rh = r * h
        c = np.tanh(ax[:, 2 * n:] + rh @ Uc)
        h_new = z * h + (1.0 - z) * c
        saved.append((h, z, r, rh, c, h_new))
        h = h_new
    gW, gUzr, gUc = np.zeros_like(W), np.zeros_like(Uzr), np.zeros_like(Uc)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, z, r, rh, c, h_new = saved[t]
        h_bar = h_bar + 2.0 * h_new
        dac = h_bar * (1.0 - z) * (1.0 - c * c)
        daz = h_bar * (h_prev - c) * z * (1.0 - z)
        d_rh = dac @ Uc.T
        dazr = np.concatenate([daz, d_rh * h_prev * r * (1.0 - r)], axis=1)
        gW += xs[t].T @ np.concatenate([dazr, dac], axis=1)
        gUzr += h_prev.T @ dazr
        gUc += rh.T @ dac
        h_bar = h_bar * z + d_rh * r + dazr @ Uzr.T
    return ({"update": gW[:, :n], "reset": gW[:, n:2 * n], "cand": gW[:, 2 * n:]},
            {"update": gUzr[:, :n], "reset": gUzr[:, n:], "cand": gUc})


def state_array(Wz, Uz, Wc, Uc, xs, ys):
    """An update-gated tanh cell writing its state into a preallocated array (H[0] the zero
    state, H[t + 1] = ...), a mean squared error of every state read back as H[1:] (wrt all four
    weight matrices)."""
    T = xs.shape[0]
    H = np.zeros((T + 1, xs.shape[1], Uz.shape[0]))
    for t in range(T):
        z = _sigmoid(xs[t] @ Wz + H[t] @ Uz)
        H[t + 1] = z * H[t] + (1.0 - z) * np.tanh(xs[t] @ Wc + H[t] @ Uc)
    return np.mean((H[1:] - ys) ** 2)


def state_array_grad(Wz, Uz, Wc, Uc, xs, ys):
    n = Uz.shape[0]
    T, B, _ = xs.shape
    W, U = np.concatenate([Wz, Wc], axis=1), np.concatenate([Uz, Uc], axis=1)
    H = np.zeros((T + 1, B, n))
    saved = []
    for t in range(T):
        a = xs[t] @ W + H[t] @ U
        z, c = _sigmoid(a[:, :n]), np.tanh(a[:, n:])
        H[t + 1] = z * H[t] + (1.0 - z) * c
        saved.append((z, c))
    H_bar = 2.0 * (H[1:] - ys) / ys.size
    gW, gU = np.zeros_like(W), np.zeros_like(U)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        z, c = saved[t]
        h_bar = h_bar + H_bar[t]
        da = np.concatenate([h_bar * (H[t] - c) * z * (1.0 - z), h_bar * (1.0 - z) * (1.0 - c * c)], axis=1)
        gW += xs[t].T @ da
        gU += H[t].T @ da
        h_bar = h_bar * z + da @ U.T
    return gW[:, :n], gU[:, :n], gW[:, n:], gU[:, n:]


def split_gru_args(T=25, B=16, n_in=16, n_h=48, seed=361):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 3 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 3 * n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(3 * n_h),
            rng.standard_normal((T, B, n_in)), 0.5 * rng.standard_normal((T, B, n_h)))


def peephole_args(T=25, B=16, n_in=16, n_h=48, seed=362):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 4 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 4 * n_h)) / math.sqrt(n_h),
            0.3 * rng.standard_normal(n_h), 0.3 * rng.standard_normal(n_h), 0.3 * rng.standard_normal(n_h),
            rng.standard_normal((T, B, n_in)), 0.5 * rng.standard_normal((T, B, n_h)))


def indrnn_args(T=25, B=16, n_in=16, n_h=48, seed=363):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, n_h)) / math.sqrt(n_in), rng.uniform(-0.9, 0.9, n_h),
            0.1 * rng.standard_normal(n_h), rng.standard_normal((n_h, 4)) / math.sqrt(n_h),
            rng.standard_normal((T, B, n_in)), 0.5 * rng.standard_normal((T, B, 4)))


def dict_gates_args(T=25, B=16, n_in=16, n_h=48, seed=364):
    rng = np.random.default_rng(seed)
    names = ("update", "reset", "cand")
    return ({k: rng.standard_normal((n_in, n_h)) / math.sqrt(n_in) for k in names},
            {k: rng.standard_normal((n_h, n_h)) / math.sqrt(n_h) for k in names}, rng.standard_normal((T, B, n_in)))


def state_array_args(T=25, B=16, n_in=16, n_h=48, seed=365):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, n_h)) / math.sqrt(n_in), rng.standard_normal((n_h, n_h)) / math.sqrt(n_h),
            rng.standard_normal((n_in, n_h)) / math.sqrt(n_in), rng.standard_normal((n_h, n_h)) / math.sqrt(n_h),
            rng.standard_normal((T, B, n_in)), 0.5 * rng.standard_normal((T, B, n_h)))
