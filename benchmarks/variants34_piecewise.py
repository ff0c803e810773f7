"""Held-out piecewise losses of wave 34 (issue 26), written before its speed work and never tuned on:
Tukey's biweight by np.where, a Cauchy loss of a square capped by np.minimum, an asymmetric Huber
with two deltas as a clipped square plus two hinges, the squared hinge ``np.maximum(0, 1 - y f) ** 2``,
a tiny ReLU network's squared error, the pinball loss as ``(tau - (r < 0)) * r``, an L1 capped by
np.where, and a hard-tanh (np.clip) network's read-out.  variants.py registers them;
tests/transforms/wave34d_programs.py checks them small and at their ties.

Each program has its hand-written gradient, ``NAME_grad``.
"""

import numpy as np


def tukey_window(w, X, y, c):
    """Tukey's biweight: c^2/6 (1 - (1 - (r/c)^2)^3) inside the window, c^2/6 outside, by np.where."""
    r = X @ w - y
    u = 1.0 - (r / c) ** 2
    return np.sum(np.where(np.abs(r) <= c, c * c / 6.0 * (1.0 - u ** 3), c * c / 6.0)) / len(y)


def tukey_window_grad(w, X, y, c):
    r = X @ w - y
    u = 1.0 - (r / c) ** 2
    return X.T @ np.where(np.abs(r) <= c, r * u * u, 0.0) / len(y)


def cauchy_capped(w, X, y, cap):
    """A Cauchy loss log(1 + r^2) of the square capped at `cap` by np.minimum."""
    r = X @ w - y
    return np.mean(np.log1p(np.minimum(r * r, cap)))


def cauchy_capped_grad(w, X, y, cap):
    r = X @ w - y
    q = r * r
    return X.T @ np.where(q < cap, 2.0 * r / (1.0 + q), 0.0) / len(y)


def asym_huber(w, X, y, lo, hi):
    """Huber with two deltas: the square of r clipped to [-lo, hi] plus linear hinges past each end."""
    r = X @ w - y
    q = np.clip(r, -lo, hi)
    return np.sum(0.5 * q * q + hi * np.maximum(r - hi, 0.0) + lo * np.maximum(-r - lo, 0.0)) / len(y)


def asym_huber_grad(w, X, y, lo, hi):
    return X.T @ np.clip(X @ w - y, -lo, hi) / len(y)


def sq_hinge_zero_first(w, X, y, lam):
    """The squared hinge of the margin, np.maximum(0, 1 - y f) ** 2, a mean, plus a ridge term."""
    f = X @ w
    return np.mean(np.maximum(0.0, 1.0 - y * f) ** 2) + lam * np.dot(w, w)


def sq_hinge_zero_first_grad(w, X, y, lam):
    h = np.maximum(1.0 - y * (X @ w), 0.0)
    return -2.0 * (X.T @ (y * h)) / len(y) + 2.0 * lam * w


def relu_mlp(W1, w2, X, y):
    """A one-hidden-layer ReLU network, np.maximum(H, 0), its squared error (wrt both layers)."""
    A = np.maximum(X @ W1, 0.0)
    e = A @ w2 - y
    return 0.5 * np.mean(e * e)


def relu_mlp_grad(W1, w2, X, y):
    H = X @ W1
    A = np.maximum(H, 0.0)
    e = (A @ w2 - y) / len(y)
    return X.T @ ((H > 0.0) * np.outer(e, w2)), A.T @ e


def pinball_bool(w, X, y, tau):
    """The pinball loss written (tau - (r < 0)) r: a boolean in the arithmetic."""
    r = y - X @ w
    return np.mean((tau - (r < 0.0)) * r)


def pinball_bool_grad(w, X, y, tau):
    r = y - X @ w
    return -(X.T @ (tau - (r < 0.0))) / len(y)


def capped_l1_where(w, X, y, cap):
    """L1 capped at `cap` by np.where on |r|."""
    a = np.abs(X @ w - y)
    return np.sum(np.where(a > cap, cap, a))


def capped_l1_where_grad(w, X, y, cap):
    r = X @ w - y
    return X.T @ np.where(np.abs(r) > cap, 0.0, np.sign(r))


def hardtanh_mlp(W1, w2, X, y):
    """A hard-tanh network, np.clip(H, -1, 1), its squared error (wrt both layers)."""
    A = np.clip(X @ W1, -1.0, 1.0)
    return np.sum((A @ w2 - y) ** 2) / len(y)


def hardtanh_mlp_grad(W1, w2, X, y):
    H = X @ W1
    A = np.clip(H, -1.0, 1.0)
    e = 2.0 * (A @ w2 - y) / len(y)
    return X.T @ ((np.abs(H) < 1.0) * np.outer(e, w2)), A.T @ e


# ---- arguments: (benchmark sizes by default, small ones for the checks) ---------------------


def residual_args(n=10_000, d=30, seed=341, extra=(1.0,), signs=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = 0.3 * rng.standard_normal(d)
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return (w, X, np.sign(y) if signs else y) + tuple(extra)


def mlp_args(n=2000, d=20, h=32, seed=342):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return (rng.standard_normal((d, h)) / np.sqrt(d), rng.standard_normal(h) / np.sqrt(h), X,
            np.tanh(X @ rng.standard_normal(d)))
