"""Held-out variants of two classes, written the way other users write them, each with a careful
hand-written gradient: Gaussian likelihoods through a Cholesky factor or a general solve, and
gated recurrent cells (one matmul split into gate slices, or one matmul per gate).

variants.py's table times them; variants_programs.py re-exports the functions (the table looks
them up there).
"""

import math

import numpy as np
import scipy.linalg as sl


def _rng(seed):
    return np.random.default_rng(seed)


# ---- linear-algebra likelihoods ----------------------------------------------------------------


def gp_matern_slogdet(log_ell, log_sf, log_sn, X, y):
    """A Matérn-3/2 GP: np.linalg.slogdet and np.linalg.solve on K, no factor by hand."""
    D = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1) + 1e-12)
    r = math.sqrt(3.0) * D / np.exp(log_ell)
    K = np.exp(2 * log_sf) * (1.0 + r) * np.exp(-r) + np.exp(2 * log_sn) * np.eye(len(y))
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet


def gp_matern_slogdet_grad(log_ell, log_sf, log_sn, X, y):
    D = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1) + 1e-12)
    ell, sf2, sn2 = math.exp(log_ell), math.exp(2 * log_sf), math.exp(2 * log_sn)
    r = math.sqrt(3.0) * D / ell
    e = np.exp(-r)
    K = sf2 * (1.0 + r) * e + sn2 * np.eye(len(y))
    c, low = sl.cho_factor(K, lower=True)
    alpha = sl.cho_solve((c, low), y)
    W = 0.5 * (sl.cho_solve((c, low), np.eye(len(y))) - np.outer(alpha, alpha))   # d nll = tr(W dK)
    # dK/dlog_ell = sf2 * r^2 e (d/dr of (1+r)e^-r is -r e^-r, dr/dlog_ell = -r)
    return np.sum(W * (sf2 * r * r * e)), 2.0 * np.sum(W * (sf2 * (1.0 + r) * e)), 2.0 * sn2 * np.trace(W)


def mvn_cho(mu, A, X):
    """A multivariate-normal log likelihood of samples X with covariance A A^T + I, through
    scipy.linalg.cho_factor / cho_solve (the mean and the covariance's factor differentiated)."""
    n, d = X.shape
    S = A @ A.T + np.eye(d)
    c, low = sl.cho_factor(S, lower=True)
    R = X - mu
    quad = np.sum(R * sl.cho_solve((c, low), R.T).T)
    logdet = 2.0 * np.sum(np.log(np.diag(c)))
    return 0.5 * quad + 0.5 * n * logdet


def mvn_cho_grad(mu, A, X):
    n, d = X.shape
    S = A @ A.T + np.eye(d)
    c, low = sl.cho_factor(S, lower=True)
    R = X - mu
    V = sl.cho_solve((c, low), R.T)                       # S^-1 R^T, d x n
    S_inv = sl.cho_solve((c, low), np.eye(d))
    S_bar = 0.5 * n * S_inv - 0.5 * V @ V.T               # symmetric
    return -V.sum(axis=1), 2.0 * S_bar @ A


def gp_tri_rbf(log_ell, log_sf, log_sn, X, y):
    """An RBF GP through solve_triangular, the log determinant from log(diag(L)) as a sum."""
    sq = np.sum(X * X, axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    K = np.exp(2.0 * log_sf - 0.5 * D * np.exp(-2.0 * log_ell)) + np.exp(2.0 * log_sn) * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    v = sl.solve_triangular(L, y, lower=True)
    return 0.5 * v @ v + np.log(np.diag(L)).sum() + 0.5 * len(y) * math.log(2 * math.pi)


def gp_tri_rbf_grad(log_ell, log_sf, log_sn, X, y):
    sq = np.sum(X * X, axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    Kse = np.exp(2.0 * log_sf - 0.5 * D * math.exp(-2.0 * log_ell))
    sn2 = math.exp(2.0 * log_sn)
    K = Kse + sn2 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = sl.cho_solve((L, True), y)
    W = 0.5 * (sl.cho_solve((L, True), np.eye(len(y))) - np.outer(alpha, alpha))
    WK = W * Kse
    return np.sum(WK * D) * math.exp(-2.0 * log_ell), 2.0 * np.sum(WK), 2.0 * sn2 * np.trace(W)


def gp_args(n=200, d=3, seed=18):
    rng = _rng(seed)
    X = rng.uniform(-2.0, 2.0, (n, d))
    return -0.1, 0.2, -1.5, X, np.sin(X.sum(axis=1)) + 0.1 * rng.standard_normal(n)


def mvn_args(n=500, d=60, seed=19):
    rng = _rng(seed)
    A = rng.standard_normal((d, d)) / math.sqrt(d)
    X = rng.standard_normal((n, d)) @ A.T + rng.standard_normal((n, d))
    return 0.1 * rng.standard_normal(d), A, X


# ---- gated recurrent cells ---------------------------------------------------------------------


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gru(W, U, b, xs, target):
    """A GRU: one input matmul split three ways, the reset gate inside the candidate's matmul,
    every step's state kept in a list and scored."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    hs = []
    for x in xs:
        a = x @ W + b
        z = _sigmoid(a[:, :n] + h @ U[:, :n])
        r = _sigmoid(a[:, n:2 * n] + h @ U[:, n:2 * n])
        c = np.tanh(a[:, 2 * n:] + (r * h) @ U[:, 2 * n:])
        h = (1.0 - z) * h + z * c
        hs.append(h)
    return np.mean((np.stack(hs) - target) ** 2)


def gru_grad(W, U, b, xs, target):
    n, (T, B, _) = U.shape[0], xs.shape
    h = np.zeros((B, n))
    saved = []
    Uzr, Uc = U[:, :2 * n], U[:, 2 * n:]
    for t in range(T):
        a = xs[t] @ W + b
        zr = 1.0 / (1.0 + np.exp(-(a[:, :2 * n] + h @ Uzr)))
        z, r = zr[:, :n], zr[:, n:]
        rh = r * h
        c = np.tanh(a[:, 2 * n:] + rh @ Uc)
        saved.append((h, zr, rh, c))
        h = (1.0 - z) * h + z * c
        saved[-1] += (h,)
    scale = 2.0 / (T * B * n)
    W_bar, U_bar, b_bar = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    a_bar = np.empty((B, 3 * n))
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, zr, rh, c, h_new = saved[t]
        z, r = zr[:, :n], zr[:, n:]
        h_bar = h_bar + scale * (h_new - target[t])
        c_pre = h_bar * z * (1.0 - c * c)
        a_bar[:, 2 * n:] = c_pre
        rh_bar = c_pre @ Uc.T
        a_bar[:, :n] = h_bar * (c - h_prev) * z * (1.0 - z)
        a_bar[:, n:2 * n] = rh_bar * h_prev * r * (1.0 - r)
        U_bar[:, 2 * n:] += rh.T @ c_pre
        U_bar[:, :2 * n] += h_prev.T @ a_bar[:, :2 * n]
        W_bar += xs[t].T @ a_bar
        b_bar += a_bar.sum(axis=0)
        h_bar = h_bar * (1.0 - z) + rh_bar * r + a_bar[:, :2 * n] @ Uzr.T
    return W_bar, U_bar, b_bar


def lstm_split(Wi, Wf, Wo, Wg, xs, target):
    """An LSTM with one matmul per gate on [x, h] (concatenated), its last state scored."""
    B, n = xs.shape[1], Wi.shape[1]
    h, c = np.zeros((B, n)), np.zeros((B, n))
    for t in range(xs.shape[0]):
        xh = np.concatenate([xs[t], h], axis=1)
        i = _sigmoid(xh @ Wi)
        f = _sigmoid(xh @ Wf + 1.0)
        o = _sigmoid(xh @ Wo)
        g = np.tanh(xh @ Wg)
        c = f * c + i * g
        h = o * np.tanh(c)
    return 0.5 * np.sum((h - target) ** 2)


def lstm_split_grad(Wi, Wf, Wo, Wg, xs, target):
    (T, B, m), n = xs.shape, Wi.shape[1]
    h, c = np.zeros((B, n)), np.zeros((B, n))
    saved = []
    for t in range(T):
        xh = np.concatenate([xs[t], h], axis=1)
        i = 1.0 / (1.0 + np.exp(-(xh @ Wi)))
        f = 1.0 / (1.0 + np.exp(-(xh @ Wf + 1.0)))
        o = 1.0 / (1.0 + np.exp(-(xh @ Wo)))
        g = np.tanh(xh @ Wg)
        c_prev = c
        c = f * c + i * g
        tc = np.tanh(c)
        h = o * tc
        saved.append((xh, c_prev, i, f, o, g, tc))
    grads = [np.zeros_like(w) for w in (Wi, Wf, Wo, Wg)]
    h_bar, c_bar = h - target, np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        xh, c_prev, i, f, o, g, tc = saved[t]
        c_bar = c_bar + h_bar * o * (1.0 - tc * tc)
        pre = (c_bar * g * i * (1.0 - i), c_bar * c_prev * f * (1.0 - f), h_bar * tc * o * (1.0 - o),
               c_bar * i * (1.0 - g * g))
        c_bar = c_bar * f
        xh_bar = 0.0
        for k, (w, p) in enumerate(zip((Wi, Wf, Wo, Wg), pre)):
            grads[k] += xh.T @ p
            xh_bar = xh_bar + p @ w.T
        h_bar = xh_bar[:, m:]
    return tuple(grads)


def lstm_peephole(W, U, b, p, xs, ys):
    """An LSTM with peephole weights p (3, n) on c, a readout at every step (a mean of squared
    errors), gates read by column blocks of one matmul written with np.split."""
    B, n = xs.shape[1], U.shape[0]
    h, c = np.zeros((B, n)), np.zeros((B, n))
    loss = 0.0
    for t in range(xs.shape[0]):
        zi, zf, zo, zg = np.split(xs[t] @ W + h @ U + b, 4, axis=1)
        i = _sigmoid(zi + p[0] * c)
        f = _sigmoid(zf + p[1] * c)
        g = np.tanh(zg)
        c = f * c + i * g
        o = _sigmoid(zo + p[2] * c)
        h = o * np.tanh(c)
        loss = loss + np.mean((h.sum(axis=1) - ys[t]) ** 2)
    return loss


def lstm_peephole_grad(W, U, b, p, xs, ys):
    (T, B, _), n = xs.shape, U.shape[0]
    h, c = np.zeros((B, n)), np.zeros((B, n))
    saved = []
    for t in range(T):
        z = xs[t] @ W + h @ U + b
        i = 1.0 / (1.0 + np.exp(-(z[:, :n] + p[0] * c)))
        f = 1.0 / (1.0 + np.exp(-(z[:, n:2 * n] + p[1] * c)))
        g = np.tanh(z[:, 3 * n:])
        c_prev, h_prev = c, h
        c = f * c + i * g
        o = 1.0 / (1.0 + np.exp(-(z[:, 2 * n:3 * n] + p[2] * c)))
        tc = np.tanh(c)
        h = o * tc
        saved.append((h_prev, c_prev, c, i, f, o, g, tc, h.sum(axis=1) - ys[t]))
    W_bar, U_bar, b_bar, p_bar = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b), np.zeros_like(p)
    z_bar = np.empty((B, 4 * n))
    h_bar, c_bar = np.zeros((B, n)), np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, c_prev, c, i, f, o, g, tc, e = saved[t]
        h_bar = h_bar + (2.0 / B) * e[:, None]
        zo = h_bar * tc * o * (1.0 - o)
        c_bar = c_bar + h_bar * o * (1.0 - tc * tc) + zo * p[2]
        zi = c_bar * g * i * (1.0 - i)
        zf = c_bar * c_prev * f * (1.0 - f)
        z_bar[:, :n], z_bar[:, n:2 * n], z_bar[:, 2 * n:3 * n] = zi, zf, zo
        z_bar[:, 3 * n:] = c_bar * i * (1.0 - g * g)
        p_bar[0] += np.sum(zi * c_prev, axis=0)
        p_bar[1] += np.sum(zf * c_prev, axis=0)
        p_bar[2] += np.sum(zo * c, axis=0)
        c_bar = c_bar * f + zi * p[0] + zf * p[1]
        W_bar += xs[t].T @ z_bar
        U_bar += h_prev.T @ z_bar
        b_bar += z_bar.sum(axis=0)
        h_bar = z_bar @ U.T
    return W_bar, U_bar, b_bar, p_bar


def gru_args(T=25, B=16, n_in=16, n_h=48, seed=20):
    rng = _rng(seed)
    return (rng.standard_normal((n_in, 3 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 3 * n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(3 * n_h),
            rng.standard_normal((T, B, n_in)), 0.3 * rng.standard_normal((T, B, n_h)))


def lstm_split_args(T=20, B=16, n_in=16, n_h=64, seed=21):
    rng = _rng(seed)
    ws = tuple(rng.standard_normal((n_in + n_h, n_h)) / math.sqrt(n_in + n_h) for _ in range(4))
    return ws + (rng.standard_normal((T, B, n_in)), 0.3 * rng.standard_normal((B, n_h)))


def lstm_peephole_args(T=20, B=16, n_in=16, n_h=64, seed=22):
    rng = _rng(seed)
    return (rng.standard_normal((n_in, 4 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 4 * n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(4 * n_h),
            0.2 * rng.standard_normal((3, n_h)), rng.standard_normal((T, B, n_in)), rng.standard_normal((T, B)))
