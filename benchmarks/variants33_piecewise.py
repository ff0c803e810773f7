"""Held-out piecewise losses of wave 33 (issue 26), written before its speed work and never tuned on:
other users' spellings of a pinball loss by np.where, the linear epsilon-insensitive loss by
np.maximum, Huber by boolean masks times values and by a chain of two np.where, a log-cosh of a
residual clipped by np.minimum / np.maximum, Huber as a clipped square plus d |r - clip(r)|, the
quadratically smoothed hinge by a np.where chain, and a dead zone squared as r - np.clip(r, ...).
variants.py registers them; tests/transforms/wave33e_programs.py checks them small and at their ties.

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np


def pinball_where(w, X, y, tau):
    """The quantile (pinball) loss by np.where on the sign of y - X w."""
    r = y - X @ w
    return np.mean(np.where(r >= 0.0, tau * r, (tau - 1.0) * r))


def pinball_where_grad(w, X, y, tau):
    r = y - X @ w
    return -(X.T @ np.where(r >= 0.0, tau, tau - 1.0)) / len(y)


def eps_linear_max(w, X, y, eps):
    """SVR's (linear) epsilon-insensitive loss, np.maximum(|r| - eps, 0), summed."""
    return np.sum(np.maximum(np.abs(X @ w - y) - eps, 0.0))


def eps_linear_max_grad(w, X, y, eps):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) > eps, np.sign(r), 0.0)


def huber_bool_mask(w, X, y, d):
    """Huber's loss by a boolean mask and its negation multiplied into the two pieces."""
    r = X @ w - y
    small = np.abs(r) <= d
    return np.mean(small * (0.5 * r * r) + ~small * (d * np.abs(r) - 0.5 * d * d))


def huber_bool_mask_grad(w, X, y, d):
    return X.T @ np.clip(X @ w - y, -d, d) / len(y)


def huber_bool_mask_value_and_grad(w, X, y, d):
    r = X @ w - y
    a = np.abs(r)
    m = np.minimum(a, d)
    return np.mean(m * (a - 0.5 * m)), X.T @ np.clip(r, -d, d) / len(y)


def huber_where_chain(w, X, y, d):
    """Huber's loss by a chain of two np.where, the three pieces spelled out."""
    r = X @ w - y
    return np.sum(np.where(r > d, d * r - 0.5 * d * d,
                           np.where(r < -d, -d * r - 0.5 * d * d, 0.5 * r * r))) / len(y)


def huber_where_chain_grad(w, X, y, d):
    return X.T @ np.clip(X @ w - y, -d, d) / len(y)


def logcosh_minmax(w, X, y, c):
    """log-cosh of the residual clipped to [-c, c] by np.minimum of np.maximum."""
    r = X @ w - y
    return np.sum(np.log(np.cosh(np.minimum(np.maximum(r, -c), c)))) / len(y)


def logcosh_minmax_grad(w, X, y, c):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) < c, np.tanh(r), 0.0) / len(y)


def huber_clip_excess(w, X, y, d):
    """Huber's loss as half the clipped square plus d times |r - clip(r)|, a mean."""
    r = X @ w - y
    c = np.clip(r, -d, d)
    return np.mean(0.5 * c ** 2 + d * np.abs(r - c))


def huber_clip_excess_grad(w, X, y, d):
    return X.T @ np.clip(X @ w - y, -d, d) / len(y)


def smooth_hinge(w, X, y, lam):
    """The quadratically smoothed hinge on labels of +-1 by a np.where chain, plus a ridge term."""
    m = y * (X @ w)
    loss = np.where(m >= 1.0, 0.0, np.where(m <= 0.0, 0.5 - m, 0.5 * (1.0 - m) ** 2))
    return np.mean(loss) + lam * np.sum(w * w)


def smooth_hinge_grad(w, X, y, lam):
    m = y * (X @ w)
    return -(X.T @ (y * np.clip(1.0 - m, 0.0, 1.0))) / len(y) + 2.0 * lam * w


def smooth_hinge_value_and_grad(w, X, y, lam):
    m = y * (X @ w)
    c = np.clip(1.0 - m, 0.0, 1.0)
    value = np.mean(c * (1.0 - m - 0.5 * c)) + lam * (w @ w)
    return value, -(X.T @ (y * c)) / len(y) + 2.0 * lam * w


def dead_zone_clip(w, X, y, eps):
    """The squared dead-zone loss, what r passes the band by r - np.clip(r, -eps, eps)."""
    r = y - X @ w
    e = r - np.clip(r, -eps, eps)
    return np.sum(e * e)


def dead_zone_clip_grad(w, X, y, eps):
    r = y - X @ w
    return -2.0 * (X.T @ (r - np.clip(r, -eps, eps)))


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def residual_args(n=10_000, d=30, seed=331, extra=(1.0,), signs=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = 0.3 * rng.standard_normal(d)
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (w, X, np.sign(y) if signs else y) + tuple(extra)
