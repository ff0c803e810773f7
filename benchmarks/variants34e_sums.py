"""Held-out variants of wave 34e (jit="numba": a full sum beside an elementwise chain, such as a
bias's gradient, in the loop fusion makes), each with a careful hand-written gradient ``NAME_grad``.
Written before the wave's tuning, the way other users write these regressions; measured only,
never tuned on.  variants.py registers them; benchmarks/test_variants.py checks them.
"""

import numpy as np


def logcosh_bias(w, b, X, y):
    """Log-cosh regression with a bias (wrt w and b): its derivative is tanh of the residual."""
    r = X @ w + b - y
    return np.mean(np.log(np.cosh(r)))


def logcosh_bias_grad(w, b, X, y):
    r_bar = np.tanh(X @ w + b - y) / y.shape[0]
    return X.T @ r_bar, r_bar.sum()


def tanh_output_mse(w, b, X, y):
    """A tanh unit fitted by squared error (wrt w and b)."""
    out = np.tanh(X @ w + b)
    return np.sum((out - y) ** 2) / len(y)


def tanh_output_mse_grad(w, b, X, y):
    out = np.tanh(X @ w + b)
    a_bar = (2.0 / len(y)) * (out - y) * (1.0 - out * out)
    return X.T @ a_bar, a_bar.sum()


def pseudo_huber_bias(w, b, X, y, delta):
    """The pseudo-Huber loss with a bias (wrt w and b): a square root and a division."""
    r = (X @ w + b - y) / delta
    return delta ** 2 * np.sum(np.sqrt(1.0 + r * r) - 1.0)


def pseudo_huber_bias_grad(w, b, X, y, delta):
    r = (X @ w + b - y) / delta
    z_bar = delta * r / np.sqrt(1.0 + r * r)
    return X.T @ z_bar, z_bar.sum()


def sigmoid_tanh_nll(w, b, X, y):
    """Logistic regression with its sigmoid written through tanh, labels 0/1 (wrt w and b)."""
    p = 0.5 * (1.0 + np.tanh(0.5 * (X @ w + b)))
    return -np.mean(y * np.log(p + 1e-12) + (1.0 - y) * np.log(1.0 - p + 1e-12))


def sigmoid_tanh_nll_grad(w, b, X, y):
    t = np.tanh(0.5 * (X @ w + b))
    p = 0.5 * (1.0 + t)
    p_bar = -(y / (p + 1e-12) - (1.0 - y) / (1.0 - p + 1e-12)) / y.shape[0]
    z_bar = p_bar * 0.25 * (1.0 - t * t)
    return X.T @ z_bar, z_bar.sum()


def margin_logaddexp(w, b, X, s):
    """Logistic loss of margins, labels -1/+1 (wrt w and b)."""
    return np.sum(np.logaddexp(0.0, -s * (X @ w + b))) / s.size


def margin_logaddexp_grad(w, b, X, s):
    m = s * (X @ w + b)
    z_bar = -s * 0.5 * (1.0 - np.tanh(0.5 * m)) / s.size
    return X.T @ z_bar, z_bar.sum()


def sums_args(n=10_000, d=100, seed=340, signs=False, extra=()):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) / np.sqrt(d) + 0.3 * rng.standard_normal(n)
    if signs:
        y = np.where(y > 0.0, 1.0, -1.0)
    return (0.1 * rng.standard_normal(d), 0.1, X, y, *extra)


def binary_args(n=10_000, d=100, seed=341):
    w, b, X, y = sums_args(n, d, seed)
    return w, b, X, (y > 0.0).astype(np.float64)
