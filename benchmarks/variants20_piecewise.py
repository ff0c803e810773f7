"""Held-out piecewise losses written after the rewrite of backend/optimize/cases.py, to check it
was not tuned on variants18_contract.py's four (benchmarks/variants.py registers them): hinge,
Huber through np.clip and through a squared hinge, a leaky-ReLU layer by np.where, Tukey's
biweight with a float mask, smooth L1 through np.minimum, and a capped L1.

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np


def hinge_l2(w, X, y, lam):
    """The SVM's hinge loss on labels of +-1, plus a ridge term."""
    return np.mean(np.maximum(0.0, 1.0 - y * (X @ w))) + lam * np.sum(w * w)


def hinge_l2_grad(w, X, y, lam):
    active = (1.0 - y * (X @ w)) > 0.0
    return -(X.T @ np.where(active, y, 0.0)) / len(y) + 2.0 * lam * w


def huber_clip(w, X, y, delta):
    """Huber's loss through np.clip: c = clip(r, -d, d), c (r - c / 2)."""
    r = X @ w - y
    c = np.clip(r, -delta, delta)
    return np.sum(c * (r - 0.5 * c)) / len(y)


def huber_clip_grad(w, X, y, delta):
    return X.T @ np.clip(X @ w - y, -delta, delta) / len(y)


def huber_sq_hinge(w, X, y, delta):
    """Huber's loss as a square less the square of what exceeds delta."""
    r = X @ w - y
    e = np.maximum(np.abs(r) - delta, 0.0)
    return np.mean(0.5 * r * r - 0.5 * e * e)


def huber_sq_hinge_grad(w, X, y, delta):
    return X.T @ np.clip(X @ w - y, -delta, delta) / len(y)


def leaky_layer(W, X, v, y):
    """One leaky-ReLU layer by np.where, a linear read-out, squared error (wrt W)."""
    H = X @ W
    A = np.where(H > 0.0, H, 0.01 * H)
    return np.mean((A @ v - y) ** 2)


def leaky_layer_grad(W, X, v, y):
    H = X @ W
    slope = np.where(H > 0.0, 1.0, 0.01)
    e = (np.where(H > 0.0, H, 0.01 * H) @ v - y) * (2.0 / len(y))
    return X.T @ (np.outer(e, v) * slope)


def tukey_mask(w, X, y, c):
    """Tukey's biweight, the inside of the window a float mask."""
    r = X @ w - y
    inside = (np.abs(r) < c).astype(float)
    u = 1.0 - (r / c) ** 2
    return c * c / 6.0 * np.sum(inside * (1.0 - u ** 3) + (1.0 - inside))


def tukey_mask_grad(w, X, y, c):
    r = X @ w - y
    u = 1.0 - (r / c) ** 2
    return X.T @ np.where(np.abs(r) < c, r * u * u, 0.0)


def smooth_l1_min(w, X, y, beta):
    """Smooth L1 through np.minimum: m = min(|r|, b), m^2 / 2b + |r| - m."""
    a = np.abs(X @ w - y)
    m = np.minimum(a, beta)
    return np.sum(0.5 * m * m / beta + a - m)


def smooth_l1_min_grad(w, X, y, beta):
    return X.T @ np.clip((X @ w - y) / beta, -1.0, 1.0)


def capped_l1(w, X, y, cap):
    """L1 capped at `cap`: outliers past it do not pull."""
    return np.sum(np.minimum(np.abs(X @ w - y), cap))


def capped_l1_grad(w, X, y, cap):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) < cap, np.sign(r), 0.0)


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def residual_args(n=10_000, d=20, seed=21, extra=(1.0,), signs=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = 0.3 * rng.standard_normal(d)
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (w, X, np.sign(y) if signs else y) + tuple(extra)


def layer_args(n=2000, d=30, h=40, seed=22):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return (rng.standard_normal((d, h)) / np.sqrt(d), X, rng.standard_normal(h) / np.sqrt(h),
            rng.standard_normal(n))
