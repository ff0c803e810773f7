"""Wave 32f's programs (test_speed_wave32f.py runs them): the held-out losses of
benchmarks/variants32_losses.py on small data, and the shapes the optimizer's new rewrites read,
some at exact ties and kinks:

* LOSSES: Huber by np.where and as a clipped square plus d (|r| - |clip r|), smooth L1 written out,
  a squared hinge by np.where, a clipped L1, log-cosh plain and overflow-safe, Fair with np.log,
  Tukey through np.minimum;
* ZERO SHARES: a tie's half share of a gradient that is a product with the maximum's own value
  (backend/optimize/zero_ties.py): squared and cubed hinges, np.maximum(0.0, t) with its arguments
  swapped, a ReLU squared through an abs, and shares it must keep (the gradient not zero at the tie);
* TANGENTS: sinh over cosh of one value (backend/optimize/hyperbolic.py), np's and math's;
* LIKE TERMS: s + s, numbers into a selection, powers of two joined (backend/optimize/like_terms.py);
* BOUNDS ONE: np.clip whose two bounds may be one value (joined_selections.py's negated condition).
"""

from __future__ import annotations

import math

import numpy as np

# ---- LOSSES (benchmarks/variants32_losses.py's) ----


def huber_abs_where(w, X, y, d):
    r = X @ w - y
    return np.sum(np.where(np.abs(r) < d, 0.5 * r * r, d * np.abs(r) - 0.5 * d * d)) / len(y)


def huber_split_abs(w, X, y, d):
    r = X @ w - y
    c = np.clip(r, -d, d)
    return np.mean(0.5 * c * c + d * (np.abs(r) - np.abs(c)))


def smooth_l1_where(w, X, y, beta):
    a = np.abs(X @ w - y)
    return np.mean(np.where(a < beta, 0.5 * a ** 2 / beta, a - 0.5 * beta))


def sq_hinge_where(w, X, y, lam):
    h = 1.0 - y * (X @ w)
    return np.sum(np.where(h > 0.0, h * h, 0.0)) / len(y) + lam * w @ w


def clipped_l1(w, X, y, cap):
    return np.mean(np.clip(np.abs(X @ w - y), 0.0, cap))


def logcosh_plain(w, X, y):
    return np.mean(np.log(np.cosh(X @ w - y)))


def logcosh_stable(w, X, y):
    a = np.abs(X @ w - y)
    return np.sum(a + np.log1p(np.exp(-2.0 * a)) - np.log(2.0))


def fair_log(w, X, y, c):
    a = np.abs(X @ w - y)
    return c ** 2 * np.mean(a / c - np.log(1.0 + a / c))


def tukey_min(w, X, y, c):
    u = np.minimum(np.abs(X @ w - y) / c, 1.0)
    return c * c / 6.0 * np.sum(1.0 - (1.0 - u * u) ** 3)


# ---- ZERO SHARES ----


def sq_hinge_max(w, X, y):
    """The squared hinge through np.maximum: the square's adjoint 2 m g is 0 at the hinge."""
    m = np.maximum(1.0 - y * (X @ w), 0.0)
    return np.mean(m ** 2)


def cubed_relu_swapped(x):
    """np.maximum(0.0, t) with the zero first, cubed, beside a smooth term."""
    h = np.maximum(0.0, x - 0.5)
    return np.sum(h * h * h) + np.sum(np.cos(x))


def relu_sq_abs(x, c):
    """A dead zone squared: np.maximum(|x| - c, 0) squared, the share's factor through abs and sign."""
    e = np.maximum(np.abs(x) - c, 0.0)
    return np.sum(e * e) / 2.0


def share_kept(x):
    """A maximum whose gradient is not zero at its tie (3 m + m^2): the half share stays."""
    m = np.maximum(x, 0.0)
    return np.sum(3.0 * m + m * m)


def share_kept_other(x, y):
    """The gradient a product with a maximum of other values than the tie's: the share stays."""
    m = np.maximum(x, 0.0)
    k = np.maximum(y, 0.0)
    return np.sum(m * k + k)


# ---- TANGENTS ----


def logcosh_scaled(x, s):
    """log cosh of a scaled value, a mean times a number."""
    return 2.0 * np.mean(np.log(np.cosh(s * x)))


def logcosh_math(a, b):
    """Python floats: math.log(math.cosh(.)), the same rewrite on math's functions."""
    return math.log(math.cosh(a * b)) + a * a


def sinh_over_cosh_user(x):
    """The user's own tanh, sinh / cosh, squared."""
    t = np.sinh(x) / np.cosh(x)
    return np.sum(t * t)


# ---- LIKE TERMS ----


def square_in_band(x, c):
    """A square by np.where, the adjoint s + s of a selection."""
    return np.sum(np.where(np.abs(x) < c, x * x, c * np.abs(x)))


def scaled_hinge_square(x, c):
    """Numbers on both sides of a selection's product."""
    h = np.where(x > c, x - c, 0.0)
    return 0.25 * np.sum(h * h) * 3.0


# ---- BOUNDS ONE ----


def clip_square(x, c):
    """np.clip(x, -c, c) squared: its gradient zero everywhere where c is 0."""
    return np.sum(np.clip(x, -c, c) ** 2)


# ---- arguments ----


def residual(n=12, d=3, extra=(0.8,)):
    def make(rng):
        X = rng.standard_normal((n, d))
        return (0.4 * rng.standard_normal(d), X, X @ rng.standard_normal(d) + rng.standard_normal(n)) + tuple(extra)
    return make


def signs(n=12, d=3):
    def make(rng):
        X = rng.standard_normal((n, d))
        return 0.6 * rng.standard_normal(d), X, np.sign(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n))
    return make


def hinge_ties(rng):
    """Margins 1 - y s exactly 0 on the first rows (X of integers, w of few binary digits)."""
    X = rng.integers(-3, 4, (10, 3)).astype(float)
    w = np.array([0.5, -0.25, 0.75])
    y = np.sign(rng.standard_normal(10))
    X[0], y[0] = (2.0, 0.0, 0.0), 1.0  # s = 1: the hinge's kink
    X[1], y[1] = (0.0, -4.0, 0.0), 1.0
    return w, X, y


def _vector(rng, n=9, at=()):
    x = rng.standard_normal(n)
    x[:len(at)] = at
    return x


PROGRAMS = [
    ("huber_abs_where", huber_abs_where, residual(), 0),
    ("huber_split_abs", huber_split_abs, residual(), 0),
    ("smooth_l1_where", smooth_l1_where, residual(extra=(0.6,)), 0),
    ("sq_hinge_where", sq_hinge_where, lambda rng: signs()(rng) + (0.01,), 0),
    ("clipped_l1", clipped_l1, residual(extra=(1.1,)), 0),
    ("logcosh_plain", logcosh_plain, residual(extra=()), 0),
    ("logcosh_stable", logcosh_stable, residual(extra=()), 0),
    ("fair_log", fair_log, residual(extra=(0.9,)), 0),
    ("tukey_min", tukey_min, residual(extra=(2.0,)), 0),
    ("sq_hinge_max", sq_hinge_max, signs(), 0),
    ("cubed_relu_swapped", cubed_relu_swapped, lambda rng: (_vector(rng),), 0),
    ("relu_sq_abs", relu_sq_abs, lambda rng: (_vector(rng), 0.4), 0),
    ("share_kept", share_kept, lambda rng: (_vector(rng),), 0),
    ("share_kept_other", share_kept_other, lambda rng: (_vector(rng), _vector(rng)), 0),
    ("logcosh_scaled", logcosh_scaled, lambda rng: (_vector(rng), 1.3), 0),
    ("logcosh_math", logcosh_math, lambda rng: (0.7, -1.1), 0),
    ("sinh_over_cosh_user", sinh_over_cosh_user, lambda rng: (_vector(rng),), 0),
    ("square_in_band", square_in_band, lambda rng: (_vector(rng), 0.8), 0),
    ("scaled_hinge_square", scaled_hinge_square, lambda rng: (_vector(rng), 0.2), 0),
    ("clip_square", clip_square, lambda rng: (_vector(rng), 0.6), 0),
    # at the ties: a share whose gradient is 0 there (central differences agree: the loss is smooth)
    ("sq_hinge_max_ties", sq_hinge_max, hinge_ties, 0),
    ("cubed_relu_swapped_ties", cubed_relu_swapped, lambda rng: (_vector(rng, at=(0.5, 0.5)),), 0),
    ("relu_sq_abs_ties", relu_sq_abs, lambda rng: (_vector(rng, at=(0.375, -0.375, 0.0)), 0.375), 0),
    ("clip_square_one_bound", clip_square, lambda rng: (_vector(rng), 0.0), 0),
]
