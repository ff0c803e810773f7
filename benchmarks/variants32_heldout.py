"""Held-out variants of wave 32 (issue 26: recurrent cells read by slices, einsums of three operands,
small scalar polynomials), each with a careful hand-written gradient ``NAME_grad``.  Written before
the wave's tuning, the way other users write the same kinds of loss; measured only, never tuned on.
variants.py registers them; tests/transforms/wave32g_programs.py checks them.
"""

import math

import numpy as np


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ---- recurrent cells -----------------------------------------------------------------------------


def lstm_quarters(W, U, b, xs):
    """An LSTM whose four gates are column quarters of one pre-activation, bounds written k * n
    (wrt W, U and b); the hidden states' squares summed."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    c = np.zeros((xs.shape[1], n))
    loss = 0.0
    for t in range(xs.shape[0]):
        g = xs[t] @ W + h @ U + b
        i = _sigmoid(g[:, :n])
        f = _sigmoid(g[:, n:2 * n])
        o = _sigmoid(g[:, 2 * n:3 * n])
        c = f * c + i * np.tanh(g[:, 3 * n:])
        h = o * np.tanh(c)
        loss = loss + np.sum(h * h)
    return loss


def lstm_quarters_grad(W, U, b, xs):
    n = U.shape[0]
    T, B, _ = xs.shape
    h, c = np.zeros((B, n)), np.zeros((B, n))
    saved = []
    for t in range(T):
        g = xs[t] @ W + h @ U + b
        i, f, o = _sigmoid(g[:, :n]), _sigmoid(g[:, n:2 * n]), _sigmoid(g[:, 2 * n:3 * n])
        u = np.tanh(g[:, 3 * n:])
        c_prev, h_prev = c, h
        c = f * c + i * u
        tc = np.tanh(c)
        h = o * tc
        saved.append((h_prev, c_prev, i, f, o, u, tc, h))
    gW, gU, gb = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    h_bar, c_bar = np.zeros((B, n)), np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, c_prev, i, f, o, u, tc, h = saved[t]
        h_bar = h_bar + 2.0 * h
        c_bar = c_bar + h_bar * o * (1.0 - tc * tc)
        dg = np.concatenate([c_bar * u * i * (1.0 - i), c_bar * c_prev * f * (1.0 - f),
                             h_bar * tc * o * (1.0 - o), c_bar * i * (1.0 - u * u)], axis=1)
        gW += xs[t].T @ dg
        gU += h_prev.T @ dg
        gb += dg.sum(axis=0)
        h_bar = dg @ U.T
        c_bar = c_bar * f
    return gW, gU, gb


def lstm_args(T=20, B=16, n_in=16, n_h=48, seed=320):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 4 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 4 * n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(4 * n_h),
            rng.standard_normal((T, B, n_in)))


def min_gru_split(W, xs):
    """A minimal GRU (the gate and the candidate from the input alone), the two halves of one
    product taken by np.split; the last state against a target of ones (wrt W)."""
    h = np.zeros((xs.shape[1], W.shape[1] // 2))
    for x in xs:
        zg, cand = np.split(x @ W, 2, axis=1)
        z = _sigmoid(zg)
        h = (1.0 - z) * h + z * cand
    return 0.5 * np.sum((h - 1.0) ** 2)


def min_gru_split_grad(W, xs):
    n = W.shape[1] // 2
    T, B, _ = xs.shape
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        a = xs[t] @ W
        z = _sigmoid(a[:, :n])
        cand = a[:, n:]
        saved.append((h, z, cand))
        h = (1.0 - z) * h + z * cand
    gW = np.zeros_like(W)
    h_bar = h - 1.0
    for t in range(T - 1, -1, -1):
        h_prev, z, cand = saved[t]
        da = np.concatenate([h_bar * (cand - h_prev) * z * (1.0 - z), h_bar * z], axis=1)
        gW += xs[t].T @ da
        h_bar = h_bar * (1.0 - z)
    return gW


def min_gru_args(T=25, B=16, n_in=16, n_h=48, seed=321):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n_in, 2 * n_h)) / math.sqrt(n_in), rng.standard_normal((T, B, n_in))


def gru_reset(Wx, Uh, xs):
    """A GRU with a reset gate: update and reset gates from the first 2n columns, the candidate
    from the reset state times the last n columns of the recurrent weights (wrt Wx and Uh)."""
    n = Uh.shape[0]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for t in range(len(xs)):
        gx = xs[t] @ Wx
        zr = _sigmoid(gx[:, :2 * n] + h @ Uh[:, :2 * n])
        z, r = zr[:, :n], zr[:, n:]
        cand = np.tanh(gx[:, 2 * n:] + (r * h) @ Uh[:, 2 * n:])
        h = z * h + (1.0 - z) * cand
        total += np.mean(h ** 2)
    return total


def gru_reset_grad(Wx, Uh, xs):
    n = Uh.shape[0]
    T, B, _ = xs.shape
    h = np.zeros((B, n))
    Uzr, Uc = Uh[:, :2 * n], Uh[:, 2 * n:]
    saved = []
    for t in range(T):
        gx = xs[t] @ Wx
        zr = _sigmoid(gx[:, :2 * n] + h @ Uzr)
        z, r = zr[:, :n], zr[:, n:]
        rh = r * h
        cand = np.tanh(gx[:, 2 * n:] + rh @ Uc)
        saved.append((h, z, r, rh, cand))
        h = z * h + (1.0 - z) * cand
        saved[-1] = saved[-1] + (h,)
    gWx, gUh = np.zeros_like(Wx), np.zeros_like(Uh)
    h_bar = np.zeros((B, n))
    scale = 2.0 / (B * n)
    for t in range(T - 1, -1, -1):
        h_prev, z, r, rh, cand, h = saved[t]
        h_bar = h_bar + scale * h
        dc = h_bar * (1.0 - z) * (1.0 - cand * cand)
        rh_bar = dc @ Uc.T
        dzr = np.concatenate([h_bar * (h_prev - cand) * z * (1.0 - z), rh_bar * h_prev * r * (1.0 - r)], axis=1)
        dg = np.concatenate([dzr, dc], axis=1)
        gWx += xs[t].T @ dg
        gUh[:, :2 * n] += h_prev.T @ dzr
        gUh[:, 2 * n:] += rh.T @ dc
        h_bar = h_bar * z + rh_bar * r + dzr @ Uzr.T
    return gWx, gUh


def gru_reset_args(T=25, B=16, n_in=16, n_h=48, seed=322):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 3 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 3 * n_h)) / math.sqrt(n_h), rng.standard_normal((T, B, n_in)))


# ---- einsums of three operands -------------------------------------------------------------------


def quad_form(x, A, b):
    """A quadratic form 1/2 x^T A x - b^T x written as one einsum (wrt x and A)."""
    return 0.5 * np.einsum("i,ij,j->", x, A, x) - b @ x


def quad_form_grad(x, A, b):
    return 0.5 * (A @ x + x @ A) - b, 0.5 * np.outer(x, x)


def quad_args(d=300, seed=323):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(d), rng.standard_normal((d, d)) / d, rng.standard_normal(d)


def bilinear_sum(A, X, Y):
    """A regularised sum of bilinear forms over row pairs, np.einsum('ni,ij,nj->', ...) (wrt A)."""
    return np.einsum("ni,ij,nj->", X, A, Y) + 0.1 * np.sum(A * A)


def bilinear_sum_grad(A, X, Y):
    return X.T @ Y + 0.2 * A


def bilinear_args(n=2000, d=30, seed=324):
    rng = np.random.default_rng(seed)
    return 0.1 * rng.standard_normal((d, d)), rng.standard_normal((n, d)), rng.standard_normal((n, d))


def trilinear(T, x, y):
    """A vector-valued trilinear form T(x, y, .) by einsum, its squared norm (wrt T and x)."""
    v = np.einsum("i,j,ijk->k", x, y, T)
    return np.dot(v, v)


def trilinear_grad(T, x, y):
    v = np.einsum("i,j,ijk->k", x, y, T, optimize=True)
    v2 = 2.0 * v
    return np.einsum("i,j,k->ijk", x, y, v2), (T @ v2) @ y


def trilinear_args(d=30, k=40, seed=325):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((d, d, k)) / d, rng.standard_normal(d), rng.standard_normal(d)


# ---- small scalar polynomials --------------------------------------------------------------------


def cubic2(x, y):
    """A cubic in two floats."""
    return 3.0 * x ** 3 * y - 2.0 * x * y ** 2 + x - 5.0 * y


def cubic2_grad(x, y):
    return 9.0 * x * x * y - 2.0 * y * y + 1.0, 3.0 * x ** 3 - 4.0 * x * y - 5.0


def horner3(x, a, b):
    """A polynomial in x by Horner's rule, two of its coefficients parameters (wrt x, a, b)."""
    return ((a * x + b) * x - 2.0) * x + 0.5


def horner3_grad(x, a, b):
    return (3.0 * a * x + 2.0 * b) * x - 2.0, x * x * x, x * x


def scalar_args(seed=326):
    rng = np.random.default_rng(seed)
    return tuple(float(v) for v in rng.uniform(-1.0, 1.0, size=2))


def horner_args(seed=327):
    rng = np.random.default_rng(seed)
    return tuple(float(v) for v in rng.uniform(-1.0, 1.0, size=3))
