"""Held-out losses and layers written after the speed work of wave 30 (integer powers as products,
selections against 0.0 by a bit mask, fills of a sum's seed read as numbers, shape items in
contractions), none tuned on: other spellings of the losses and layers of variants20_piecewise.py,
variants21_masks.py, variants22_ties.py and variants18_contract.py (benchmarks/variants.py
registers them).

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np


def tukey_where(w, X, y, c):
    """Tukey's biweight by np.where, its cube a power: (c^2 / 6) (1 - (1 - (r/c)^2)^3) inside."""
    r = X @ w - y
    inside = np.abs(r) <= c
    return np.sum(np.where(inside, 1.0 - (1.0 - (r / c) ** 2) ** 3, 1.0)) * (c * c / 6.0)


def tukey_where_grad(w, X, y, c):
    r = X @ w - y
    u = 1.0 - (r / c) ** 2
    return X.T @ np.where(np.abs(r) <= c, r * u * u, 0.0)


def quartic_huber(w, X, y, delta):
    """A quartic inside the band, linear past it (a smoother Huber), through np.where."""
    r = X @ w - y
    a = np.abs(r)
    return np.mean(np.where(a <= delta, r ** 4 / (4.0 * delta ** 3), a - 0.75 * delta))


def quartic_huber_grad(w, X, y, delta):
    r = X @ w - y
    inner = np.abs(r) <= delta
    return X.T @ np.where(inner, r ** 3 / delta ** 3, np.sign(r)) / len(y)


def relu6_layer(W, X, v, y):
    """A ReLU6 hidden layer by np.clip, squared error (wrt W)."""
    H = np.clip(X @ W, 0.0, 6.0)
    e = H @ v - y
    return 0.5 * np.sum(e * e) / len(y)


def relu6_layer_grad(W, X, v, y):
    Z = X @ W
    e = (np.clip(Z, 0.0, 6.0) @ v - y) / len(y)
    return X.T @ (np.outer(e, v) * ((Z > 0.0) & (Z < 6.0)))


def smooth_l1_abs(w, X, y, beta):
    """Smooth L1 through builtin abs and np.where, the band's edge on the linear side."""
    r = X @ w - y
    a = abs(r)
    return np.sum(np.where(a < beta, 0.5 * r * r / beta, a - 0.5 * beta))


def smooth_l1_abs_grad(w, X, y, beta):
    return X.T @ np.clip((X @ w - y) / beta, -1.0, 1.0)


def cubed_hinge(w, X, y, lam):
    """A cubed hinge on labels of +-1 plus a ridge term."""
    m = np.maximum(1.0 - y * (X @ w), 0.0)
    return np.sum(m ** 3) / len(y) + lam * np.dot(w, w)


def cubed_hinge_grad(w, X, y, lam):
    m = np.maximum(1.0 - y * (X @ w), 0.0)
    return -3.0 * (X.T @ (m * m * y)) / len(y) + 2.0 * lam * w


def capped_sq(w, X, y, cap):
    """A squared loss capped at `cap` by np.minimum (outliers past it do not pull)."""
    r = y - X @ w
    return 0.5 * np.mean(np.minimum(r * r, cap))


def capped_sq_grad(w, X, y, cap):
    r = y - X @ w
    return -(X.T @ np.where(r * r < cap, r, 0.0)) / len(y)


def rbf_pairs_len(A, B, ell):
    """RBF kernel values summed over pairs by broadcasting, scaled by len(A) and a local n (wrt A)."""
    n = A.shape[0]
    D = A[:, None, :] - B[None, :, :]
    K = np.exp(-np.sum(D * D, axis=2) / (2.0 * ell * ell))
    return K.sum() / n + K.sum() / len(A)


def rbf_pairs_len_grad(A, B, ell):
    D = A[:, None, :] - B[None, :, :]
    K = np.exp(-np.einsum("nmd,nmd->nm", D, D) / (2.0 * ell * ell))
    G = -(2.0 / A.shape[0]) * K / (ell * ell)
    return G.sum(axis=1)[:, None] * A - G @ B


def dead_zone_max(w, X, y, eps):
    """The dead-zone squared loss through np.maximum of |r| - eps and 0."""
    r = X @ w - y
    e = np.maximum(np.abs(r) - eps, 0.0)
    return np.sum(e * e)


def dead_zone_max_grad(w, X, y, eps):
    r = X @ w - y
    return X.T @ (2.0 * (np.maximum(r - eps, 0.0) + np.minimum(r + eps, 0.0)))


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def residual_args(n=10_000, d=30, seed=51, extra=(1.0,), signs=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (0.3 * rng.standard_normal(d), X, np.sign(y) if signs else y) + tuple(extra)


def layer_args(n=2000, d=30, h=40, seed=52):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return (2.0 * rng.standard_normal((d, h)) / np.sqrt(d), X, rng.standard_normal(h) / np.sqrt(h),
            rng.standard_normal(n))


def pairs_args(n=300, m=60, d=8, seed=53):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal((m, d)), 1.5
