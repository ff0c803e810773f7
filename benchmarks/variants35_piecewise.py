"""Held-out piecewise losses of wave 35 (issue 26), written before its speed work and never tuned on:
SVR's epsilon-insensitive loss as two hinges ``max(r - eps, 0) + max(-r - eps, 0)``, the reverse Huber
(Berhu) as ``|r|`` plus a squared hinge, a quantile Huber (an asymmetric weight by np.where times Huber
spelled with np.minimum of |r|), the square of |r| capped by np.minimum, the soft-threshold residual
``sign(r) max(|r| - lam, 0)`` squared, and a two-sided squared hinge around an interval of targets.
variants.py registers them; tests/transforms/wave35c_programs.py checks them small and at their kinks.

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np


def eps_two_hinges(w, X, y, eps):
    """SVR's epsilon-insensitive loss as the sum of two hinges, one on each side of the band."""
    r = X @ w - y
    return np.sum(np.maximum(r - eps, 0.0) + np.maximum(-r - eps, 0.0)) / len(y)


def eps_two_hinges_grad(w, X, y, eps):
    r = X @ w - y
    return X.T @ ((r > eps) * 1.0 - (r < -eps)) / len(y)


def eps_two_hinges_value_and_grad(w, X, y, eps):
    r = X @ w - y
    excess = np.abs(r) - eps
    above = excess > 0.0
    return np.sum(excess[above]) / len(y), X.T @ np.where(above, np.sign(r), 0.0) / len(y)


def berhu_hinge(w, X, y, c):
    """The reverse Huber (Berhu): |r| inside c, (r^2 + c^2) / 2c past it, as |r| + max(|r| - c, 0)^2 / 2c."""
    a = np.abs(X @ w - y)
    return np.mean(a + np.maximum(a - c, 0.0) ** 2 / (2.0 * c))


def berhu_hinge_grad(w, X, y, c):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) > c, r / c, np.sign(r)) / len(y)


def quantile_huber(w, X, y, tau, d):
    """A quantile Huber: Huber's loss m (|r| - m / 2), m = min(|r|, d), weighted tau above, 1 - tau below."""
    r = y - X @ w
    a = np.abs(r)
    m = np.minimum(a, d)
    return np.mean(np.where(r < 0.0, 1.0 - tau, tau) * m * (a - 0.5 * m))


def quantile_huber_grad(w, X, y, tau, d):
    r = y - X @ w
    return -(X.T @ (np.where(r < 0.0, 1.0 - tau, tau) * np.clip(r, -d, d))) / len(y)


def quantile_huber_value_and_grad(w, X, y, tau, d):
    r = y - X @ w
    a = np.abs(r)
    m = np.minimum(a, d)
    weight = np.where(r < 0.0, 1.0 - tau, tau)
    return np.mean(weight * m * (a - 0.5 * m)), -(X.T @ (weight * np.clip(r, -d, d))) / len(y)


def capped_abs_square(w, X, y, c):
    """The square of |r| capped at c by np.minimum (a truncated quadratic)."""
    m = np.minimum(np.abs(X @ w - y), c)
    return np.sum(m * m) / len(y)


def capped_abs_square_grad(w, X, y, c):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) < c, 2.0 * r, 0.0) / len(y)


def soft_threshold_sq(w, X, y, lam):
    """The soft-threshold residual sign(r) max(|r| - lam, 0), its squares summed."""
    r = X @ w - y
    s = np.sign(r) * np.maximum(np.abs(r) - lam, 0.0)
    return 0.5 * np.sum(s * s)


def soft_threshold_sq_grad(w, X, y, lam):
    r = X @ w - y
    return X.T @ (r - np.clip(r, -lam, lam))


def interval_sq_hinge(w, X, y, half):
    """A two-sided squared hinge: predictions outside [y - half, y + half] pay the square of the miss."""
    f = X @ w
    below = np.maximum(y - half - f, 0.0)
    above = np.maximum(f - y - half, 0.0)
    return np.mean(below ** 2 + above ** 2)


def interval_sq_hinge_grad(w, X, y, half):
    r = X @ w - y
    return 2.0 * (X.T @ (r - np.clip(r, -half, half))) / len(y)


def interval_sq_hinge_value_and_grad(w, X, y, half):
    r = X @ w - y
    miss = r - np.clip(r, -half, half)
    return (miss @ miss) / len(y), 2.0 * (X.T @ miss) / len(y)


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def residual_args(n=10_000, d=30, seed=351, extra=(1.0,)):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = 0.3 * rng.standard_normal(d)
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (w, X, y) + tuple(extra)
