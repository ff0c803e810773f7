"""Held-out piecewise losses of wave 36 (issue 26), written before its speed work and never tuned on:
Tukey's biweight with np.where (c^2/6 on each branch, a mean), log-cosh of a clipped residual, Cauchy's
loss past a threshold mask, the squared hinge of labels in {-1, 1}, a pinball loss of two quantiles and
the truncated L1 loss ``np.minimum(|r|, c)``.  variants.py registers them; tests/transforms/
wave36c_programs.py checks them small and at their kinks.

Each program has its hand-written gradient, ``NAME_grad``, and its hand-written value and gradient,
``NAME_value_and_grad`` (what a careful hand writes when it needs both: one pass over the residual).
"""

import numpy as np


def tukey_scaled_where(w, X, y, c):
    """Tukey's biweight by np.where, c^2/6 on each branch: c^2/6 (1 - (1 - (r/c)^2)^3) inside |r| <= c."""
    r = X @ w - y
    u = 1.0 - (r / c) ** 2
    return np.mean(np.where(np.abs(r) <= c, c * c / 6.0 * (1.0 - u ** 3), c * c / 6.0))


def tukey_scaled_where_grad(w, X, y, c):
    r = X @ w - y
    u = 1.0 - (r / c) ** 2
    return X.T @ np.where(np.abs(r) <= c, r * u * u, 0.0) / len(y)


def tukey_scaled_where_value_and_grad(w, X, y, c):
    r = X @ w - y
    inside = np.abs(r) <= c
    u = 1.0 - (r / c) ** 2
    uu = np.where(inside, u * u, 0.0)
    value = c * c / 6.0 * (1.0 - np.mean(uu * u))
    return value, X.T @ (r * uu) / len(y)


def logcosh_clipped(w, X, y, c):
    """log cosh of the residual clipped to [-c, c] (a log-cosh loss that turns flat past c)."""
    r = X @ w - y
    return np.mean(np.log(np.cosh(np.clip(r, -c, c))))


def logcosh_clipped_grad(w, X, y, c):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) < c, np.tanh(r), 0.0) / len(y)


def logcosh_clipped_value_and_grad(w, X, y, c):
    r = X @ w - y
    t = np.clip(r, -c, c)
    return np.mean(np.log(np.cosh(t))), X.T @ np.where(np.abs(r) < c, np.tanh(t), 0.0) / len(y)


def cauchy_mask(w, X, y, c, k):
    """Cauchy's loss log(1 + (r/c)^2), counted only where |r| > k (a dead zone by a float mask)."""
    r = X @ w - y
    outside = (np.abs(r) > k).astype(float)
    return np.sum(outside * np.log1p((r / c) ** 2)) / len(y)


def cauchy_mask_grad(w, X, y, c, k):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) > k, 2.0 * r / (c * c + r * r), 0.0) / len(y)


def cauchy_mask_value_and_grad(w, X, y, c, k):
    r = X @ w - y
    outside = np.abs(r) > k
    value = np.sum(np.log1p((r[outside] / c) ** 2)) / len(y)
    return value, X.T @ np.where(outside, 2.0 * r / (c * c + r * r), 0.0) / len(y)


def sq_hinge_labels(w, X, y, lam):
    """The squared hinge of labels y in {-1, 1}: max(0, 1 - y f)^2, with an L2 penalty."""
    f = X @ w
    return np.mean(np.maximum(0.0, 1.0 - y * f) ** 2) + 0.5 * lam * (w @ w)


def sq_hinge_labels_grad(w, X, y, lam):
    h = np.maximum(0.0, 1.0 - y * (X @ w))
    return -2.0 * (X.T @ (y * h)) / len(y) + lam * w


def sq_hinge_labels_value_and_grad(w, X, y, lam):
    h = np.maximum(0.0, 1.0 - y * (X @ w))
    return np.mean(h * h) + 0.5 * lam * (w @ w), -2.0 * (X.T @ (y * h)) / len(y) + lam * w


def pinball_two(w, X, y, lo, hi):
    """The pinball loss of two quantiles lo < hi of one prediction, summed."""
    r = y - X @ w
    below = r < 0.0
    return np.mean(np.where(below, (lo - 1.0) * r, lo * r) + np.where(below, (hi - 1.0) * r, hi * r))


def pinball_two_grad(w, X, y, lo, hi):
    r = y - X @ w
    return -(X.T @ np.where(r < 0.0, lo + hi - 2.0, lo + hi)) / len(y)


def pinball_two_value_and_grad(w, X, y, lo, hi):
    r = y - X @ w
    slope = np.where(r < 0.0, lo + hi - 2.0, lo + hi)
    return np.mean(slope * r), -(X.T @ slope) / len(y)


def truncated_l1(w, X, y, c):
    """The truncated L1 loss: |r| capped at c by np.minimum."""
    r = X @ w - y
    return np.sum(np.minimum(np.abs(r), c)) / len(y)


def truncated_l1_grad(w, X, y, c):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) < c, np.sign(r), 0.0) / len(y)


def truncated_l1_value_and_grad(w, X, y, c):
    r = X @ w - y
    a = np.abs(r)
    return np.sum(np.minimum(a, c)) / len(y), X.T @ np.where(a < c, np.sign(r), 0.0) / len(y)


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def residual_args(n=10_000, d=30, seed=361, extra=(1.0,), signs=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = 0.3 * rng.standard_normal(d)
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (w, X, np.sign(y) if signs else y) + tuple(extra)
