"""Held-out losses on a residual written through np.sign, abs, np.minimum / np.maximum and
np.where bands, in other users' spellings, written before the speed work of wave 31
(benchmarks/variants.py registers them).  `fair_abs` and `winsor_sq` were never looked at while
tuning: they are the held-out pair of the held-out set.

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np


def huber_where_abs(w, X, y, delta):
    """Huber's loss by np.where on |r| (the quadratic inside, the linear outside), a mean."""
    r = X @ w - y
    a = np.abs(r)
    return np.mean(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def huber_where_abs_grad(w, X, y, delta):
    return X.T @ np.clip(X @ w - y, -delta, delta) / len(y)


def l1_sign_ridge(w, X, y, lam):
    """L1 spelled r * sign(r), plus a ridge term."""
    r = X @ w - y
    return np.sum(r * np.sign(r)) / len(y) + lam * np.sum(w ** 2)


def l1_sign_ridge_grad(w, X, y, lam):
    return X.T @ np.sign(X @ w - y) / len(y) + 2.0 * lam * w


def fair_abs(w, X, y, c):
    """The Fair loss c^2 (|r|/c - log(1 + |r|/c)), through builtin abs."""
    r = X @ w - y
    u = abs(r) / c
    return c * c * np.sum(u - np.log1p(u))


def fair_abs_grad(w, X, y, c):
    r = X @ w - y
    return X.T @ (r / (1.0 + np.abs(r) / c))


def winsor_sq(w, X, y, c):
    """A squared loss of the residual winsorised at +-c by np.clip."""
    r = y - X @ w
    return 0.5 * np.mean(np.clip(r, -c, c) ** 2)


def winsor_sq_grad(w, X, y, c):
    r = y - X @ w
    return -(X.T @ np.where(np.abs(r) < c, r, 0.0)) / len(y)


def huber_minmax(w, X, y, delta):
    """Huber's loss with the clip spelled np.maximum(np.minimum(r, d), -d): c (r - c / 2)."""
    r = X @ w - y
    c = np.maximum(np.minimum(r, delta), -delta)
    return np.sum(c * (r - 0.5 * c)) / X.shape[0]


def huber_minmax_grad(w, X, y, delta):
    return X.T @ np.clip(X @ w - y, -delta, delta) / X.shape[0]


def eps_band_where(w, X, y, eps):
    """The squared epsilon-insensitive loss: (|r| - eps)^2 outside the band, 0 inside, by np.where."""
    r = X @ w - y
    a = np.abs(r)
    return np.sum(np.where(a > eps, (a - eps) ** 2, 0.0))


def eps_band_where_grad(w, X, y, eps):
    r = X @ w - y
    return X.T @ (2.0 * (r - np.clip(r, -eps, eps)))


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def residual_args(n=10_000, d=30, seed=311, extra=(1.0,)):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (0.3 * rng.standard_normal(d), X, y) + tuple(extra)
