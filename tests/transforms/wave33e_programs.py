"""Programs of test_wave33e.py: wave 33's held-out piecewise losses (benchmarks/variants33_piecewise.py)
at small sizes, the three losses the wave tuned on, and the shapes the optimizer's new rewrites read,
some at exact ties and kinks:

* HELD OUT: a pinball loss by np.where, the linear epsilon-insensitive loss by np.maximum, Huber by
  boolean masks, by a chain of two np.where and as a clipped square plus d |r - clip(r)|, log-cosh
  clipped by np.minimum / np.maximum, the smoothed hinge by a np.where chain, a dead zone squared as
  r - np.clip(r, ...);
* TUNED ON: Huber as a square less a squared hinge, smooth L1 through np.minimum, a winsorised square;
* DECIDED EXTREMA: an extremum read only inside the selection its adjoint makes (backend/optimize/
  selected_extrema.py): its operand a number, on the right, broadcast against a larger value, read
  also outside the selection (it stays), in a divisor (it stays), np.clip of two parameter bounds;
* NUMBER TESTS: np.clip's band anded with its bounds' test (joined_selections.py), bounds of one
  value (0.0) included.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import variants20_piecewise as v20  # noqa: E402
import variants31_signs as v31  # noqa: E402
import variants33_piecewise as v33  # noqa: E402

# ---- DECIDED EXTREMA ----


def hinge_cubed_left(x, c):
    """np.maximum(c, x) with the number first, cubed: the adjoint reads the maximum under x >= c."""
    m = np.maximum(c, x)
    return np.sum(m * m * m) + np.sum(np.sin(x))


def cap_square(x):
    """np.minimum(x, 1.0) squared: the minimum is x where x <= 1.0."""
    m = np.minimum(x, 1.0)
    return np.sum(m * m)


def broadcast_floor(x, v):
    """np.maximum of a column and a row, squared and summed (wrt x: the operand kept is smaller)."""
    m = np.maximum(x[:, None], v[None, :])
    return np.sum(m * m)


def floor_kept(x):
    """A maximum read outside the selection too (its value is the loss): it stays."""
    m = np.maximum(x, 0.25)
    return np.sum(m * m) + np.sum(m)


def floor_divisor(x):
    """A maximum in a divisor (its operand could be 0 where the condition fails): it stays."""
    m = np.maximum(x, 0.5)
    return np.sum(np.log(m) + 1.0 / m)


def clip_bounds(x, lo, hi):
    """np.clip of two parameters, squared."""
    c = np.clip(x, lo, hi)
    return np.sum(c * c) + np.sum(x)


def minmax_nested(x, d):
    """np.maximum(np.minimum(x, d), -d) squared (a clip by two calls)."""
    c = np.maximum(np.minimum(x, d), -d)
    return 0.5 * np.sum(c * c)


# ---- arguments ----


def residual(n=12, d=3, extra=(0.8,), signs=False):
    def make(rng):
        X = rng.standard_normal((n, d))
        y = X @ rng.standard_normal(d) + rng.standard_normal(n)
        return (0.4 * rng.standard_normal(d), X, np.sign(y) if signs else y) + tuple(extra)
    return make


def residual_ties(extra):
    """Residuals X w - y exactly ±extra[0] and 0 on the first rows (X of integers, w of few binary digits)."""
    def make(rng):
        X = rng.integers(-3, 4, (10, 3)).astype(float)
        w = np.array([0.5, -0.25, 0.75])
        y = X @ w + rng.standard_normal(10)
        s = X @ w
        y[:3] = s[:3] - np.array([extra[0], -extra[0], 0.0])
        return (w, X, y) + tuple(extra)
    return make


def _vector(rng, n=9, at=()):
    x = rng.standard_normal(n)
    x[:len(at)] = at
    return x


PROGRAMS = [
    ("pinball_where", v33.pinball_where, residual(extra=(0.3,)), 0),
    ("eps_linear_max", v33.eps_linear_max, residual(extra=(0.5,)), 0),
    ("huber_bool_mask", v33.huber_bool_mask, residual(), 0),
    ("huber_where_chain", v33.huber_where_chain, residual(), 0),
    ("logcosh_minmax", v33.logcosh_minmax, residual(extra=(1.5,)), 0),
    ("huber_clip_excess", v33.huber_clip_excess, residual(), 0),
    ("smooth_hinge", v33.smooth_hinge, lambda rng: residual(signs=True, extra=(0.01,))(rng), 0),
    ("dead_zone_clip", v33.dead_zone_clip, residual(extra=(0.5,)), 0),
    ("huber_sq_hinge", v20.huber_sq_hinge, residual(extra=(0.8,)), 0),
    ("smooth_l1_min", v20.smooth_l1_min, residual(extra=(0.8,)), 0),
    ("winsor_sq", v31.winsor_sq, residual(extra=(0.8,)), 0),
    ("hinge_cubed_left", hinge_cubed_left, lambda rng: (_vector(rng), 0.2), 0),
    ("cap_square", cap_square, lambda rng: (2.0 * _vector(rng),), 0),
    ("broadcast_floor", broadcast_floor, lambda rng: (_vector(rng, 5), _vector(rng, 4)), 0),
    ("floor_kept", floor_kept, lambda rng: (_vector(rng),), 0),
    ("floor_divisor", floor_divisor, lambda rng: (_vector(rng) + 1.0,), 0),
    ("clip_bounds", clip_bounds, lambda rng: (_vector(rng), -0.4, 0.6), 0),
    ("minmax_nested", minmax_nested, lambda rng: (_vector(rng), 0.7), 0),
    # at ties: residuals exactly on the kinks (the gradient's half shares, or 0 where the loss is smooth)
    ("winsor_sq_ties", v31.winsor_sq, residual_ties((0.75,)), 0),
    ("huber_sq_hinge_ties", v20.huber_sq_hinge, residual_ties((0.75,)), 0),
    ("cap_square_ties", cap_square, lambda rng: (_vector(rng, at=(1.0, 1.0, 0.0)),), 0),
    ("clip_bounds_one_value", clip_bounds, lambda rng: (_vector(rng, at=(0.0, 0.5)), 0.0, 0.0), 0),
]
