"""Held-out losses and layers written with 0/1 float masks, after the rewrite of
backend/optimize/masks.py, to check it was not tuned on smooth_l1_mask (benchmarks/variants.py
registers them): an expectile regression whose weights are a mask, reverse Huber (berHu) with a
mask made by np.where, a ReLU layer spelled as a product by its mask, and a dead-zone loss whose
two sides are masks.

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np


def expectile_mask(w, X, y, tau):
    """Expectile regression: squares weighted tau above the fit and 1 - tau below it."""
    r = y - X @ w
    up = (r > 0.0).astype(float)
    weight = tau * up + (1.0 - tau) * (1.0 - up)
    return np.mean(weight * r * r)


def expectile_mask_grad(w, X, y, tau):
    r = y - X @ w
    return -(2.0 / len(y)) * (X.T @ (np.where(r > 0.0, tau, 1.0 - tau) * r))


def berhu_mask(w, X, y, c):
    """Reverse Huber: |r| near zero, (r^2 + c^2) / (2c) past c; the zone a np.where mask."""
    r = X @ w - y
    a = np.abs(r)
    near = np.where(a <= c, 1.0, 0.0)
    return np.sum(near * a + (1.0 - near) * (r * r + c * c) / (2.0 * c)) / len(y)


def berhu_mask_grad(w, X, y, c):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) <= c, np.sign(r), r / c) / len(y)


def relu_mask_layer(W, X, v, y):
    """A hidden ReLU layer spelled as the product of its input by its mask, squared error."""
    Z = X @ W
    on = (Z > 0.0).astype(float)
    H = on * Z
    e = H @ v - y
    return 0.5 * np.sum(e * e) / len(y)


def relu_mask_layer_grad(W, X, v, y):
    Z = X @ W
    e = (np.maximum(Z, 0.0) @ v - y) / len(y)
    return X.T @ (np.outer(e, v) * (Z > 0.0))


def dead_zone_mask(w, X, y, eps):
    """A squared loss with a dead zone |r| <= eps, its two sides as masks."""
    r = X @ w - y
    above = (r > eps).astype(float)
    below = (r < -eps).astype(float)
    return np.sum(above * (r - eps) ** 2) + np.sum(below * (r + eps) ** 2)


def dead_zone_mask_grad(w, X, y, eps):
    r = X @ w - y
    return X.T @ (2.0 * (np.maximum(r - eps, 0.0) + np.minimum(r + eps, 0.0)))


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def residual_args(n=10_000, d=20, seed=31, extra=(1.0,)):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (0.3 * rng.standard_normal(d), X, y) + tuple(extra)


def layer_args(n=2000, d=30, h=40, seed=32):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return rng.standard_normal((d, h)) / np.sqrt(d), X, rng.standard_normal(h) / np.sqrt(h), rng.standard_normal(n)
