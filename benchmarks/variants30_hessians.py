"""Held-out programs for the Hessian's cost (issue 26: a Hessian of a few parameters costs a few
gradients), written after ad/batched_scales.py and api/hessians.py's numbers-first sweep, to check
neither was tuned on the variants they were measured on: data-fitting losses whose second
derivative passes a clip, an abs, a maximum of two values of one array or a masked square, and
a scalar loop of two float parameters (benchmarks/variants.py registers them).

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np


def logcosh_clip(w, X, y):
    """A log-cosh loss of a residual clipped to [-3, 3]."""
    return np.sum(np.log(np.cosh(np.clip(X @ w - y, -3.0, 3.0)))) / len(y)


def logcosh_clip_grad(w, X, y):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) <= 3.0, np.tanh(r), 0.0) / len(y)


def abs_times_residual(w, X, y):
    """The signed square |r| r: an abs whose second derivative is 2 sign(r)."""
    r = X @ w - y
    return np.mean(np.abs(r) * r)


def abs_times_residual_grad(w, X, y):
    r = X @ w - y
    return X.T @ (2.0 * np.abs(r)) / len(y)


def squared_quantile(w, X, y, tau):
    """The square of the check loss, written as np.maximum of two values of one array."""
    r = y - X @ w
    q = np.maximum(tau * r, (tau - 1.0) * r)
    return np.mean(q * q)


def squared_quantile_grad(w, X, y, tau):
    r = y - X @ w
    slope = np.where(r > 0.0, tau, tau - 1.0)
    return -(X.T @ (2.0 * r * slope * slope)) / len(y)


def masked_square_margin(w, X, y, lam):
    """A squared margin loss through np.where, and a ridge term."""
    m = y * (X @ w)
    return np.mean(np.where(m < 1.0, (1.0 - m) ** 2, 0.0)) + lam * (w @ w)


def masked_square_margin_grad(w, X, y, lam):
    m = y * (X @ w)
    return X.T @ (np.where(m < 1.0, -2.0 * (1.0 - m), 0.0) * y) / len(y) + 2.0 * lam * w


def logistic_growth(a, b, steps):
    """A scalar logistic-growth model stepped by Euler, a squared misfit at every step."""
    x, loss = 0.1, 0.0
    for k in range(steps):
        x = x + 0.05 * (a * x * (1.0 - x) - b * x)
        loss = loss + (x - 0.4 - 0.001 * k) ** 2
    return loss


def logistic_growth_grad(a, b, steps):
    x = 0.1
    dxa = dxb = 0.0
    ga = gb = 0.0
    for k in range(steps):
        rate = a * (1.0 - 2.0 * x) - b
        dxa, dxb = dxa + 0.05 * (x * (1.0 - x) + rate * dxa), dxb + 0.05 * (-x + rate * dxb)
        x = x + 0.05 * (a * x * (1.0 - x) - b * x)
        e = 2.0 * (x - 0.4 - 0.001 * k)
        ga, gb = ga + e * dxa, gb + e * dxb
    return ga, gb


def residual_args(n=10_000, d=30, seed=61, extra=()):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (0.3 * rng.standard_normal(d), X, y) + tuple(extra)


def signs_args(n=10_000, d=30, seed=62, extra=(0.01,)):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sign(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n))
    return (0.1 * rng.standard_normal(d), X, y) + tuple(extra)
