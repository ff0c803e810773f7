"""Wave 31g's programs (test_speed_wave31g.py runs them): losses whose gradient holds a tie's
share of a share (np.clip's two bounds, np.minimum inside np.maximum, a chain of maxima), each
guarded by ``any_equal(x, bound, g)`` (backend/optimize/tie_shares.py), whose shape test now skips
np.broadcast_shapes in the usual case (rules/kinks.py).  The rows cover both the usual case (an
array of the share's shape against a number) and the others: bounds that are arrays of x's shape,
per-column bounds broadcast over rows, an operand of one column broadcast against bounds of three,
0-d array bounds; and the same at residuals exactly on the bounds, where central differences give
the half shares.
"""

from __future__ import annotations

import numpy as np


def logcosh_clip(w, X, y, c):
    """log cosh of a residual clipped to [-c, c]: two guarded shares on one array."""
    return np.sum(np.log(np.cosh(np.clip(X @ w - y, -c, c)))) / len(y)


def clip_array_bounds(x, lo, hi):
    """A square of x clipped to bounds that are arrays of x's shape."""
    return np.sum(np.clip(x, lo, hi) ** 2)


def clip_columns(W, lo, hi):
    """A matrix clipped to per-column bounds (rows broadcast against the bounds' vector)."""
    c = np.clip(W, lo, hi)
    return np.sum(np.sin(c) * W)


def clip_outer(x, bounds):
    """A column of x clipped against bounds of three: the share is wider than x."""
    c = np.clip(x[:, None], -bounds, bounds)
    return np.sum(c * c * bounds)


def minmax_chain(w, X, y, delta):
    """Huber's clip as np.maximum(np.minimum(r, d), -d), times the residual less half itself."""
    r = X @ w - y
    c = np.maximum(np.minimum(r, delta), -delta)
    return np.mean(c * (r - 0.5 * c))


def three_maxima(x, a, b):
    """A chain of maxima of one array against two numbers, then against the array itself."""
    m = np.maximum(np.maximum(x, a), b)
    return np.sum(np.maximum(m, 0.5 * x) ** 2)


def residual(n=12, d=3, extra=(0.8,)):
    def make(rng):
        X = rng.standard_normal((n, d))
        return (0.4 * rng.standard_normal(d), X, X @ rng.standard_normal(d) + rng.standard_normal(n)) + tuple(extra)
    return make


def tied_residual(at, n=12, d=3):
    """Residuals X @ w - y of which the first few are exactly `at[:-1]` (X of integers, w and y of
    few binary digits: no rounding moves them off the bounds), `at[-1]` the bound."""
    def make(rng):
        X = rng.integers(-3, 4, (n, d)).astype(float)
        w = np.array([0.5, -0.25, 0.75])[:d]
        y = X @ w + rng.standard_normal(n)
        for k, value in enumerate(at[:-1]):
            y[k] = X[k] @ w - value
        return (w, X, y, at[-1])
    return make


def _array_bounds(tied):
    def make(rng):
        x = rng.standard_normal(9)
        lo, hi = x - rng.uniform(0.1, 1.0, 9), x + rng.uniform(0.1, 1.0, 9)
        lo[::2] += 0.8  # half of them clipped from below
        if tied:
            lo[0], hi[1] = x[0], x[1]
        return x, lo, hi
    return make


def _columns(tied):
    def make(rng):
        W = rng.standard_normal((5, 3))
        lo, hi = np.array([-0.5, -1.0, -0.2]), np.array([0.5, 0.3, 1.0])
        if tied:
            W[0, 0], W[1, 1] = 0.5, -1.0
        return W, lo, hi
    return make


def _outer(tied):
    def make(rng):
        x = rng.standard_normal(6)
        if tied:
            x[0], x[1] = 0.5, -1.5
        return x, np.array([0.5, 1.0, 1.5])
    return make


def _maxima(tied):
    def make(rng):
        x = rng.standard_normal(9)
        if tied:
            x[0], x[1] = 0.25, -0.5
        return x, np.float64(-0.5), np.array(0.25)
    return make


PROGRAMS = [
    ("logcosh_clip", logcosh_clip, residual(extra=(0.9,)), 0),
    ("clip_array_bounds", clip_array_bounds, _array_bounds(False), 0),
    ("clip_columns", clip_columns, _columns(False), 0),
    ("clip_outer", clip_outer, _outer(False), 0),
    ("minmax_chain", minmax_chain, residual(), 0),
    ("three_maxima", three_maxima, _maxima(False), 0),
    # ---- TIES: the same exactly on the bounds ----
    ("logcosh_clip_ties", logcosh_clip, tied_residual((0.75, -0.75, 0.0, 0.75)), 0),
    ("clip_array_bounds_ties", clip_array_bounds, _array_bounds(True), 0),
    ("clip_columns_ties", clip_columns, _columns(True), 0),
    ("clip_outer_ties", clip_outer, _outer(True), 0),
    ("minmax_chain_ties", minmax_chain, tied_residual((0.75, -0.75, 0.0, 0.75)), 0),
    ("three_maxima_ties", three_maxima, _maxima(True), 0),
]
