"""Held-out variants of two classes (benchmarks/variants.py registers them):

* broadcast products summed over axes, ``(A[:, :, None] * B[None]).sum(1)`` or
  ``((X[:, None, :] - C[None]) ** 2).sum(-1)``: contractions a careful hand writes as
  ``@`` / einsum, in the forward code and in the gradient;
* piecewise losses on a residual vector (``np.where``, ``np.abs``, ``np.minimum``,
  ``np.maximum``, masks): what a hand writes as one ``np.clip`` / ``np.where``.

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np

# ---- contractions ----------------------------------------------------------------------------


def rbf_pairs(A, B, w, ell):
    """Sum of RBF kernel values weighted per pair, the pairs spelled by broadcasting (wrt A)."""
    sq = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)
    K = np.exp(-0.5 * sq / ell ** 2)
    return np.sum(K * w[:, None]) / A.shape[0]


def rbf_pairs_grad(A, B, w, ell):
    diff = A[:, None, :] - B[None, :, :]
    K = np.exp(-0.5 * np.einsum("nmd,nmd->nm", diff, diff) / ell ** 2)
    G = -(K * w[:, None]) / (ell ** 2 * A.shape[0])
    return G.sum(axis=1)[:, None] * A - G @ B


def broadcast_matvec(W, X, Y):
    """A linear layer written as a broadcast product summed over the input axis (wrt W)."""
    Z = np.sum(X[:, :, None] * W[None, :, :], axis=1)
    return 0.5 * np.sum((np.tanh(Z) - Y) ** 2)


def broadcast_matvec_grad(W, X, Y):
    T = np.tanh(X @ W)
    return X.T @ ((T - Y) * (1.0 - T * T))


def centroid_em(C, X, beta):
    """Soft assignments, then weighted means of the points, centres on axis 0 (wrt C)."""
    D = np.sum((C[:, None, :] - X[None, :, :]) ** 2, axis=2)        # (k, n)
    E = np.exp(-beta * (D - D.min(axis=0)))
    R = E / E.sum(axis=0)                                           # responsibilities, (k, n)
    M = (R[:, :, None] * X[None, :, :]).sum(axis=1) / R.sum(axis=1)[:, None]
    return np.sum((M - C) ** 2)


def centroid_em_grad(C, X, beta):
    D = np.sum((C[:, None, :] - X[None, :, :]) ** 2, axis=2)
    E = np.exp(-beta * (D - D.min(axis=0)))
    R = E / E.sum(axis=0)
    s = R.sum(axis=1)
    M = (R @ X) / s[:, None]
    M_bar = 2.0 * (M - C)
    R_bar = (M_bar @ X.T - np.sum(M_bar * M, axis=1)[:, None]) / s[:, None]
    E_bar = (R_bar - np.sum(R_bar * R, axis=0)) / E.sum(axis=0)       # through R = E / sum
    D_bar = -beta * E * E_bar
    return 2.0 * (D_bar.sum(axis=1)[:, None] * C - D_bar @ X) - M_bar


def attention_scores(Q, K, V):
    """Scores as a broadcast product summed over the feature axis, softmax, weighted values."""
    S = (Q[:, None, :] * K[None, :, :]).sum(-1) / np.sqrt(Q.shape[1])
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P = P / P.sum(axis=1, keepdims=True)
    return np.sum((P @ V) ** 2)


def attention_scores_grad(Q, K, V):
    scale = 1.0 / np.sqrt(Q.shape[1])
    S = (Q @ K.T) * scale
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P = P / P.sum(axis=1, keepdims=True)
    P_bar = 2.0 * (P @ V) @ V.T
    S_bar = P * (P_bar - np.sum(P_bar * P, axis=1, keepdims=True)) * scale
    return S_bar @ K, S_bar.T @ Q


# ---- piecewise losses on a residual ----------------------------------------------------------


def huber_minimum(w, X, y, delta):
    """Huber's loss through np.minimum: q = min(|r|, d), q (|r| - q / 2)."""
    a = np.abs(X @ w - y)
    q = np.minimum(a, delta)
    return np.sum(q * (a - 0.5 * q)) / len(y)


def huber_minimum_grad(w, X, y, delta):
    r = X @ w - y
    return X.T @ np.clip(r, -delta, delta) / len(y)


def smooth_l1_mask(W, X, Y, beta):
    """Smooth L1 on a matrix of residuals, the quadratic zone a float mask."""
    R = X @ W - Y
    A = np.abs(R)
    small = (A < beta).astype(float)
    return np.sum(small * 0.5 * R * R / beta + (1.0 - small) * (A - 0.5 * beta))


def smooth_l1_mask_grad(W, X, Y, beta):
    R = X @ W - Y
    return X.T @ np.clip(R / beta, -1.0, 1.0)


def pinball_l2(w, X, y, tau, lam):
    """The quantile (pinball) loss, max(tau r, (tau - 1) r), plus a ridge term."""
    r = y - X @ w
    return np.mean(np.maximum(tau * r, (tau - 1.0) * r)) + lam * w @ w


def pinball_l2_grad(w, X, y, tau, lam):
    r = y - X @ w
    return -(X.T @ np.where(r > 0.0, tau, tau - 1.0)) / len(y) + 2.0 * lam * w


def eps_insensitive(w, X, y, eps):
    """SVR's squared epsilon-insensitive loss, the dead zone by np.where on |r|."""
    r = X @ w - y
    excess = np.where(np.abs(r) > eps, np.abs(r) - eps, 0.0)
    return np.sum(excess ** 2)


def eps_insensitive_grad(w, X, y, eps):
    r = X @ w - y
    return X.T @ (2.0 * np.sign(r) * np.maximum(np.abs(r) - eps, 0.0))


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def pairs_args(n=400, m=50, d=8, seed=11):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal((m, d)), rng.standard_normal(n), 1.5


def matvec_args(B=256, n_in=64, n_out=32, seed=12):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in), rng.standard_normal((B, n_in)),
            0.5 * rng.standard_normal((B, n_out)))


def em_args(k=6, n=1500, d=12, seed=13):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((k, d)), rng.standard_normal((n, d)), 0.7


def attention_args(n=64, d=32, d_v=16, seed=14):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, d)), rng.standard_normal((n, d)), rng.standard_normal((n, d_v)))


def residual_args(n=10_000, d=20, m=None, seed=15, extra=(1.0,)):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    W = 0.3 * rng.standard_normal((d,) if m is None else (d, m))
    Y = X @ rng.standard_normal(W.shape) + rng.standard_normal((n,) if m is None else (n, m))
    return (W, X, Y) + tuple(extra)
