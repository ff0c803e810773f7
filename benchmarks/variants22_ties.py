"""Held-out losses and layers whose np.maximum / np.minimum compares two values of one array,
written after backend/optimize/tie_shares.py to check it was not tuned on pinball_l2
(benchmarks/variants.py registers them): an asymmetric Laplace loss, a parametric ReLU layer,
a squared check loss through np.minimum, and a leaky absolute loss (np.maximum of a value and
its negative, each scaled); then np.maximum / np.minimum with a constant: a squared hinge, a ReLU layer
with a capped output, and the ramp loss.

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np


def asym_laplace(w, X, y, a, b):
    """The asymmetric Laplace negative log-likelihood's data term: a r above, -b r below."""
    r = X @ w - y
    return np.sum(np.maximum(a * r, -b * r)) / len(y)


def asym_laplace_grad(w, X, y, a, b):
    r = X @ w - y
    return X.T @ np.where(r > 0.0, a, -b) / len(y)


def prelu_layer(W, X, v, y, alpha):
    """A hidden parametric ReLU layer (max(z, alpha z), alpha < 1), squared error."""
    Z = X @ W
    H = np.maximum(Z, alpha * Z)
    e = H @ v - y
    return 0.5 * np.mean(e * e)


def prelu_layer_grad(W, X, v, y, alpha):
    Z = X @ W
    slope = np.where(Z > 0.0, 1.0, alpha)
    e = (Z * slope) @ v - y
    return X.T @ (np.outer(e / len(y), v) * slope)


def sq_check_min(w, X, y, tau):
    """A squared check loss spelled with np.minimum: min(-tau r, (1 - tau) r) is -check(r)."""
    r = y - X @ w
    m = np.minimum(-tau * r, (1.0 - tau) * r)
    return np.mean(m * m)


def sq_check_min_grad(w, X, y, tau):
    r = y - X @ w
    slope = np.where(r > 0.0, -tau, 1.0 - tau)
    return -(2.0 / len(y)) * (X.T @ (slope * slope * r))


def leaky_abs(w, X, y, c):
    """A robust loss max(r, -c r) weighted per sample: |r| above, c |r| below."""
    r = X @ w - y
    return np.mean(np.maximum(r, -c * r) * (1.0 + 0.1 * y * y))


def leaky_abs_grad(w, X, y, c):
    r = X @ w - y
    return X.T @ (np.where(r > 0.0, 1.0, -c) * (1.0 + 0.1 * y * y)) / len(y)


def sq_hinge_margin(w, X, y, lam):
    """The squared hinge: max(1 - y s, 0)^2 on signed labels, plus a ridge term (a constant side)."""
    m = np.maximum(1.0 - y * (X @ w), 0.0)
    return np.mean(m * m) + lam * np.sum(w * w)


def sq_hinge_margin_grad(w, X, y, lam):
    m = np.maximum(1.0 - y * (X @ w), 0.0)
    return -(2.0 / len(y)) * (X.T @ (m * y)) + 2.0 * lam * w


def relu2_layer(W, X, v, y):
    """A ReLU layer, its output capped at 3 by np.minimum, squared error (two constant sides)."""
    H = np.maximum(X @ W, 0.0)
    e = np.minimum(H @ v, 3.0) - y
    return np.mean(e * e)


def relu2_layer_grad(W, X, v, y):
    Z = X @ W
    s = np.maximum(Z, 0.0) @ v
    e = np.minimum(s, 3.0) - y
    ds = (2.0 / len(y)) * e * (s < 3.0)
    return X.T @ (np.outer(ds, v) * (Z > 0.0))


def ramp_loss(w, X, y):
    """The ramp loss min(max(1 - y s, 0), 2): a hinge capped, two constant sides."""
    return np.mean(np.minimum(np.maximum(1.0 - y * (X @ w), 0.0), 2.0))


def ramp_loss_grad(w, X, y):
    m = 1.0 - y * (X @ w)
    return -(X.T @ (((m > 0.0) & (m < 2.0)) * y)) / len(y)


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def residual_args(n=10_000, d=50, seed=41, extra=(1.0,)):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (0.3 * rng.standard_normal(d), X, y) + tuple(extra)


def signs_args(n=10_000, d=50, seed=43, extra=()):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sign(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n))
    return (0.1 * rng.standard_normal(d), X, y) + tuple(extra)


def layer_args(n=2000, d=30, h=40, seed=42):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return (rng.standard_normal((d, h)) / np.sqrt(d), X, rng.standard_normal(h) / np.sqrt(h),
            rng.standard_normal(n), 0.1)
