"""Wave 31s's programs (test_speed_wave31s.py runs them): the held-out losses of
benchmarks/variants31_signs.py on small data, and the selections the optimizer joins or drops
(backend/optimize/joined_selections.py), some at exact ties and kinks (a residual at the band's
edge, at 0, a margin at a ramp's two corners), where central differences give the half shares.

* LOSSES: Huber by np.where on |r|, L1 as r * sign(r), the Fair loss through builtin abs, a
  winsorised square by np.clip, Huber with its clip spelled by np.minimum / np.maximum, the squared
  epsilon-insensitive loss by np.where;
* NESTED: selections on two conditions (a ramp, a band of np.minimum inside np.maximum, written
  nested by the user), and one selected twice on one condition;
* VALUES: sums of products of vectors of one shape (a loss's value, a number's adjoint), float masks
  read as factors (the adjoint of np.where's side that only abs reads);
* TIES: the same at residuals exactly on the kinks (of np.minimum, np.maximum, np.clip, abs: their
  half shares; np.where takes the branch its condition picks, not central differences' average).
"""

from __future__ import annotations

import numpy as np

# ---- LOSSES (benchmarks/variants31_signs.py's, other spellings of the same losses) ----


def huber_where_abs(w, X, y, delta):
    r = X @ w - y
    a = np.abs(r)
    return np.mean(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def l1_sign_ridge(w, X, y, lam):
    r = X @ w - y
    return np.sum(r * np.sign(r)) / len(y) + lam * np.sum(w ** 2)


def fair_abs(w, X, y, c):
    r = X @ w - y
    u = abs(r) / c
    return c * c * np.sum(u - np.log1p(u))


def winsor_sq(w, X, y, c):
    r = y - X @ w
    return 0.5 * np.mean(np.clip(r, -c, c) ** 2)


def huber_minmax(w, X, y, delta):
    r = X @ w - y
    c = np.maximum(np.minimum(r, delta), -delta)
    return np.sum(c * (r - 0.5 * c)) / X.shape[0]


def eps_band_where(w, X, y, eps):
    r = X @ w - y
    a = np.abs(r)
    return np.sum(np.where(a > eps, (a - eps) ** 2, 0.0))


# ---- NESTED: selections on two conditions, or twice on one ----


def ramp(w, X, y):
    """min(max(1 - y s, 0), 2): the two corners' selections nested in the adjoint."""
    return np.mean(np.minimum(np.maximum(1.0 - y * (X @ w), 0.0), 2.0))


def band_nested(x, lo, hi):
    """A band the user writes as nested selections: x^2 where lo < x < hi, else 0 (w's values stay
    off its edges, where it jumps)."""
    return np.sum(np.where(x > lo, np.where(x < hi, x * x, 0.0), 0.0))


def inside_by_zeros(x, lo, hi):
    """The same band written from its zero sides: 0 below lo, 0 above hi, (x - lo)(hi - x) between."""
    return np.sum(np.where(x < lo, 0.0, np.where(x > hi, 0.0, (x - lo) * (hi - x))))


def twice_selected(x, c):
    """One mask applied to a value and to what it makes: the second selection already decided."""
    m = np.where(x > c, x - c, 0.0)
    return np.sum(np.where(x > c, m * m, 0.0)) + np.sum(np.sin(x))


def relu_capped(W, x):
    """A ReLU capped by np.minimum, read through a product (wrt W)."""
    h = np.minimum(np.maximum(W @ x, 0.0), 1.5)
    return np.sum(h * h) + np.sum(np.cos(h))


# ---- VALUES: sums of products of vectors (dots), and float masks read as factors ----


def sq_minus_hinge(w, X, y, delta):
    """Huber as a square less the square of what passes delta: the value a mean of products."""
    r = X @ w - y
    e = np.maximum(np.abs(r) - delta, 0.0)
    return np.mean(0.5 * r * r - 0.5 * e * e)


def smooth_l1_builtin(w, X, y, beta):
    """Smooth L1 by np.where and builtin abs: the linear side's adjoint a float mask times a sign."""
    r = X @ w - y
    a = abs(r)
    return np.sum(np.where(a < beta, 0.5 * r * r / beta, a - 0.5 * beta))


def scale_fit(s, x, y):
    """A scale fitted by least squares plus an L1 term (wrt the number s): its adjoint a sum of products."""
    r = s * x - y
    return np.sum(r * r) / len(y) + 0.1 * np.sum(np.abs(r)) * s


def where_mask_times(x, c):
    """A float mask of the user's own, read as a factor twice."""
    m = np.where(x > c, 1.0, 0.0)
    return np.sum(m * x * x) + np.sum(np.sin(x) * m)


# ---- arguments ----


def residual(n=12, d=3, extra=(0.8,)):
    def make(rng):
        X = rng.standard_normal((n, d))
        return (0.4 * rng.standard_normal(d), X, X @ rng.standard_normal(d) + rng.standard_normal(n)) + tuple(extra)
    return make


def tied_residual(at, n=12, d=3):
    """Residuals X @ w - y of which the first few are exactly the values `at[:-1]` (a band's edges, 0;
    X of integers and w, y of few binary digits, so no rounding moves them off), `at[-1]` the band."""
    def make(rng):
        X = rng.integers(-3, 4, (n, d)).astype(float)
        w = np.array([0.5, -0.25, 0.75])[:d]
        y = X @ w + rng.standard_normal(n)
        for k, value in enumerate(at[:-1]):
            y[k] = X[k] @ w - value
        return (w, X, y, at[-1])
    return make


def signs(n=12, d=3):
    def make(rng):
        X = rng.standard_normal((n, d))
        return 0.6 * rng.standard_normal(d), X, np.sign(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n))
    return make


def ramp_at_corners(rng):
    """Margins 1 - y s of exactly 0 and 2 (the ramp's corners) on the first two rows."""
    X = rng.integers(-3, 4, (10, 3)).astype(float)
    X[0], X[1] = (2.0, 0.0, 0.0), (-2.0, 0.0, 0.0)
    w = np.array([0.5, -0.25, 0.75])
    y = np.sign(rng.standard_normal(10))
    y[0] = y[1] = 1.0
    return w, X, y


PROGRAMS = [
    ("huber_where_abs", huber_where_abs, residual(), 0),
    ("l1_sign_ridge", l1_sign_ridge, residual(extra=(0.01,)), 0),
    ("fair_abs", fair_abs, residual(extra=(1.3,)), 0),
    ("winsor_sq", winsor_sq, residual(extra=(0.9,)), 0),
    ("huber_minmax", huber_minmax, residual(), 0),
    ("eps_band_where", eps_band_where, residual(extra=(0.5,)), 0),
    ("ramp", ramp, signs(), 0),
    ("band_nested", band_nested, lambda rng: (rng.standard_normal(9), -0.3, 0.7), 0),
    ("inside_by_zeros", inside_by_zeros, lambda rng: (rng.standard_normal(9), -0.3, 0.7), 0),
    ("twice_selected", twice_selected, lambda rng: (rng.standard_normal(9), 0.1), 0),
    ("relu_capped", relu_capped, lambda rng: (rng.standard_normal((4, 3)), rng.standard_normal(3)), 0),
    ("sq_minus_hinge", sq_minus_hinge, residual(), 0),
    ("smooth_l1_builtin", smooth_l1_builtin, residual(extra=(0.7,)), 0),
    ("scale_fit", scale_fit, lambda rng: (0.7, rng.standard_normal(11), rng.standard_normal(11)), 0),
    ("where_mask_times", where_mask_times, lambda rng: (rng.standard_normal(9), 0.2), 0),
    # at the kinks: central differences give each side's half share
    ("huber_minmax_ties", huber_minmax, tied_residual((0.75, -0.75, 0.0, 0.75)), 0),
    ("huber_where_abs_ties", huber_where_abs, tied_residual((0.75, -0.75, 0.0, 0.75)), 0),
    ("eps_band_where_ties", eps_band_where, tied_residual((0.5, -0.5, 0.0, 0.5)), 0),
    ("winsor_sq_ties", winsor_sq, tied_residual((-1.25, 1.25, 0.0, 1.25)), 0),
    ("l1_sign_ridge_zero", l1_sign_ridge, tied_residual((0.0, 0.0, 0.01)), 0),
    ("ramp_corners", ramp, ramp_at_corners, 0),
    ("sq_minus_hinge_ties", sq_minus_hinge, tied_residual((0.75, -0.75, 0.0, 0.75)), 0),
]
