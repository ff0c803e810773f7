"""Held-out gated cells written before wave 33f's speed work on gated recurrent cells, each with a
careful hand-written gradient ``NAME_grad`` (one joined product per sweep where the gates share
weights): a minimal gated unit, a peephole LSTM whose gate weights are sliced under names before
the loop, a highway layer over time, a gated linear unit recurrence and a GRU whose gates read
the concatenation [x, h] by np.hstack.  variants.py registers them; variants_programs.py
re-exports them.  Measured only: no pass was written reading their generated code.
"""

import math

import numpy as np


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def mgu_cell(W, U, xs):
    """A minimal gated unit: the forget gate resets the state the candidate reads (wrt W and U)."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    loss = 0.0
    for x in xs:
        f = _sigmoid(x @ W[:, :n] + h @ U[:, :n])
        c = np.tanh(x @ W[:, n:] + (f * h) @ U[:, n:])
        h = (1.0 - f) * h + f * c
        loss = loss + np.mean(h ** 2)
    return loss


def mgu_cell_grad(W, U, xs):
    n = U.shape[0]
    T, B, _ = xs.shape
    Uf, Uc = U[:, :n], U[:, n:]
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        ax = xs[t] @ W
        f = _sigmoid(ax[:, :n] + h @ Uf)
        fh = f * h
        c = np.tanh(ax[:, n:] + fh @ Uc)
        saved.append((h, f, fh, c))
        h = (1.0 - f) * h + f * c
        saved[-1] += (h,)
    gW, gU = np.zeros_like(W), np.zeros_like(U)
    h_bar = np.zeros((B, n))
    scale = 2.0 / (B * n)
    for t in range(T - 1, -1, -1):
        h_prev, f, fh, c, h = saved[t]
        h_bar = h_bar + scale * h
        dac = h_bar * f * (1.0 - c * c)
        gU[:, n:] += fh.T @ dac
        dfh = dac @ Uc.T
        daf = (h_bar * (c - h_prev) + dfh * h_prev) * f * (1.0 - f)
        gU[:, :n] += h_prev.T @ daf
        gW += xs[t].T @ np.concatenate([daf, dac], axis=1)
        h_bar = h_bar * (1.0 - f) + dfh * f + daf @ Uf.T
    return gW, gU


def peephole_named(W, U, p, xs):
    """An LSTM with peepholes p (3, n) on the cell; each gate's weights under a name before the
    loop (columns i, f, o, g), the squared outputs summed (wrt W, U and p)."""
    n = U.shape[0]
    Wi, Wf, Wo, Wg = W[:, :n], W[:, n:2 * n], W[:, 2 * n:3 * n], W[:, 3 * n:]
    Ui, Uf, Uo, Ug = U[:, :n], U[:, n:2 * n], U[:, 2 * n:3 * n], U[:, 3 * n:]
    h = np.zeros((xs.shape[1], n))
    c = np.zeros((xs.shape[1], n))
    loss = 0.0
    for x in xs:
        i = _sigmoid(x @ Wi + h @ Ui + p[0] * c)
        f = _sigmoid(x @ Wf + h @ Uf + p[1] * c)
        g = np.tanh(x @ Wg + h @ Ug)
        c = f * c + i * g
        o = _sigmoid(x @ Wo + h @ Uo + p[2] * c)
        h = o * np.tanh(c)
        loss = loss + np.sum(h * h)
    return loss


def peephole_named_grad(W, U, p, xs):
    n = U.shape[0]
    T, B, _ = xs.shape
    h, c = np.zeros((B, n)), np.zeros((B, n))
    saved = []
    for t in range(T):
        a = xs[t] @ W + h @ U
        i = _sigmoid(a[:, :n] + p[0] * c)
        f = _sigmoid(a[:, n:2 * n] + p[1] * c)
        g = np.tanh(a[:, 3 * n:])
        c_new = f * c + i * g
        o = _sigmoid(a[:, 2 * n:3 * n] + p[2] * c_new)
        tc = np.tanh(c_new)
        saved.append((h, c, i, f, g, o, c_new, tc))
        h, c = o * tc, c_new
    gW, gU, gp = np.zeros_like(W), np.zeros_like(U), np.zeros_like(p)
    h_bar, c_bar = np.zeros((B, n)), np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, c_prev, i, f, g, o, c_new, tc = saved[t]
        h_bar = h_bar + 2.0 * o * tc
        dao = h_bar * tc * o * (1.0 - o)
        dc = c_bar + h_bar * o * (1.0 - tc * tc) + dao * p[2]
        dai = dc * g * i * (1.0 - i)
        daf = dc * c_prev * f * (1.0 - f)
        dag = dc * i * (1.0 - g * g)
        gp[0] += np.sum(dai * c_prev, axis=0)
        gp[1] += np.sum(daf * c_prev, axis=0)
        gp[2] += np.sum(dao * c_new, axis=0)
        da = np.concatenate([dai, daf, dao, dag], axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        h_bar = da @ U.T
        c_bar = dc * f + dai * p[0] + daf * p[1]
    return gW, gU, gp


def highway_time(Wh, Wt, Vt, bt, xs):
    """A highway layer applied over time: a transform gate from the state and the input mixes a
    tanh candidate with the carried state (wrt all four parameters)."""
    h = np.zeros(xs.shape[1:])
    total = 0.0
    for t in range(xs.shape[0]):
        x = xs[t]
        gate = _sigmoid(h @ Wt + x @ Vt + bt)
        cand = np.tanh(h @ Wh + x)
        h = gate * cand + (1.0 - gate) * h
        total = total + np.sum(h ** 2)
    return total


def highway_time_grad(Wh, Wt, Vt, bt, xs):
    T, B, n = xs.shape
    WW = np.concatenate([Wt, Wh], axis=1)
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        a = h @ WW
        gate = _sigmoid(a[:, :n] + xs[t] @ Vt + bt)
        cand = np.tanh(a[:, n:] + xs[t])
        h_new = gate * cand + (1.0 - gate) * h
        saved.append((h, gate, cand, h_new))
        h = h_new
    gWW, gVt, gbt = np.zeros_like(WW), np.zeros_like(Vt), np.zeros_like(bt)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, gate, cand, h_new = saved[t]
        h_bar = h_bar + 2.0 * h_new
        dat = h_bar * (cand - h_prev) * gate * (1.0 - gate)
        da = np.concatenate([dat, h_bar * gate * (1.0 - cand * cand)], axis=1)
        gWW += h_prev.T @ da
        gVt += xs[t].T @ dat
        gbt += dat.sum(axis=0)
        h_bar = h_bar * (1.0 - gate) + da @ WW.T
    return gWW[:, n:], gWW[:, :n], gVt, gbt


def glu_recurrence(W, U, b, xs, ys):
    """A gated linear unit over time: one product split into a linear half and its sigmoid gate,
    squashed by tanh; a linear readout against targets at every step (wrt W, U and b)."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    out = 0.0
    for t in range(xs.shape[0]):
        pre = xs[t] @ W + h @ U + b
        h = np.tanh(pre[:, :n] * _sigmoid(pre[:, n:]))
        out = out + np.sum(h * ys[t])
    return out


def glu_recurrence_grad(W, U, b, xs, ys):
    n = U.shape[0]
    T, B, _ = xs.shape
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        pre = xs[t] @ W + h @ U + b
        lin, s = pre[:, :n], _sigmoid(pre[:, n:])
        h_new = np.tanh(lin * s)
        saved.append((h, lin, s, h_new))
        h = h_new
    gW, gU, gb = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, lin, s, h_new = saved[t]
        du = (h_bar + ys[t]) * (1.0 - h_new * h_new)
        da = np.concatenate([du * s, du * lin * s * (1.0 - s)], axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        gb += da.sum(axis=0)
        h_bar = da @ U.T
    return gW, gU, gb


def hstack_gru(Wg, Wc, xs):
    """A GRU whose update and reset gates read np.hstack([x, h]) through one matrix and whose
    candidate reads np.hstack([x, r * h]) (wrt Wg and Wc)."""
    n = Wc.shape[1]
    h = np.zeros((xs.shape[1], n))
    loss = 0.0
    for x in xs:
        zr = _sigmoid(np.hstack([x, h]) @ Wg)
        z, r = zr[:, :n], zr[:, n:]
        c = np.tanh(np.hstack([x, r * h]) @ Wc)
        h = (1.0 - z) * h + z * c
        loss = loss + np.sum(h ** 2)
    return loss


def hstack_gru_grad(Wg, Wc, xs):
    n = Wc.shape[1]
    T, B, n_in = xs.shape
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        zr = _sigmoid(np.concatenate([xs[t], h], axis=1) @ Wg)
        z, r = zr[:, :n], zr[:, n:]
        c = np.tanh(xs[t] @ Wc[:n_in] + (r * h) @ Wc[n_in:])
        h_new = (1.0 - z) * h + z * c
        saved.append((h, z, r, c, h_new))
        h = h_new
    gWg, gWc = np.zeros_like(Wg), np.zeros_like(Wc)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, z, r, c, h_new = saved[t]
        h_bar = h_bar + 2.0 * h_new
        dac = h_bar * z * (1.0 - c * c)
        gWc[:n_in] += xs[t].T @ dac
        gWc[n_in:] += (r * h_prev).T @ dac
        drh = dac @ Wc[n_in:].T
        dzr = np.concatenate([h_bar * (c - h_prev) * z * (1.0 - z), drh * h_prev * r * (1.0 - r)], axis=1)
        gWg[:n_in] += xs[t].T @ dzr
        gWg[n_in:] += h_prev.T @ dzr
        h_bar = h_bar * (1.0 - z) + drh * r + dzr @ Wg[n_in:].T
    return gWg, gWc


def mgu_args(T=25, B=16, n_in=16, n_h=48, seed=331):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 2 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 2 * n_h)) / math.sqrt(n_h), rng.standard_normal((T, B, n_in)))


def peephole_args(T=25, B=16, n_in=16, n_h=48, seed=332):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 4 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 4 * n_h)) / math.sqrt(n_h), 0.3 * rng.standard_normal((3, n_h)),
            rng.standard_normal((T, B, n_in)))


def highway_args(T=25, B=16, n_in=16, n_h=48, seed=333):
    del n_in  # the highway's input has the state's width
    rng = np.random.default_rng(seed)
    return (0.9 * rng.standard_normal((n_h, n_h)) / math.sqrt(n_h),
            rng.standard_normal((n_h, n_h)) / math.sqrt(n_h), rng.standard_normal((n_h, n_h)) / math.sqrt(n_h),
            0.1 * rng.standard_normal(n_h), rng.standard_normal((T, B, n_h)))


def glu_args(T=25, B=16, n_in=16, n_h=48, seed=334):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 2 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 2 * n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(2 * n_h),
            rng.standard_normal((T, B, n_in)), rng.standard_normal((T, B, n_h)))


def hstack_args(T=25, B=16, n_in=16, n_h=48, seed=335):
    rng = np.random.default_rng(seed)
    width = n_in + n_h
    return (rng.standard_normal((width, 2 * n_h)) / math.sqrt(width),
            rng.standard_normal((width, n_h)) / math.sqrt(width), rng.standard_normal((T, B, n_in)))
