"""Programs of test_wave36c.py: wave 36's held-out piecewise losses (benchmarks/variants36_piecewise.py)
at small sizes, the rows its rewrites were tuned on, and the shapes the rewrites read, some at exact ties:

* HELD OUT: Tukey's biweight by np.where, log-cosh of a clipped residual, Cauchy's loss past a float mask,
  the squared hinge of ±1 labels, a pinball loss of two quantiles, the truncated L1 loss;
* TUNED ON: SVR's loss as two hinges (a gradient that jumps), a quantile Huber (a weight that jumps at 0
  times a clip), the interval squared hinge (a parameter named ``half``), the smoothed hinge of labels;
* SHAPES: a gradient of three constant pieces, a parameter named ``single`` beside Huber, a pinball loss
  by np.where summed (its value a selection of slopes times r), bounds in the wrong order (the order the
  rewrite assumes fails where it runs: the code as it was).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import variants33_piecewise as v33  # noqa: E402
import variants35_piecewise as v35  # noqa: E402
import variants36_piecewise as v36  # noqa: E402


def three_steps(w, X, y, c):
    """Slope 2 above c, -1 below -c, 0 between: a gradient of three constants, jumping at ±c."""
    r = X @ w - y
    return np.sum(np.where(r > c, 2.0 * (r - c), np.where(r < -c, -(r + c), 0.0)))


def huber_single(w, X, y, single):
    """Huber's loss whose delta is a parameter named ``single`` (the user's number, not NumPy's dtype)."""
    r = X @ w - y
    a = np.abs(r)
    return np.mean(np.where(a <= single, 0.5 * r * r, single * (a - 0.5 * single)))


def pinball_where_sum(w, X, y, tau):
    """A pinball loss by np.where of two lines, summed: its value one selection of slopes times r."""
    r = y - X @ w
    return np.sum(np.where(r >= 0.0, tau * r, (tau - 1.0) * r))


# ---- arguments ----


def residual(n=12, d=3, extra=(0.8,), signs=False):
    def make(rng):
        X = rng.standard_normal((n, d))
        y = X @ rng.standard_normal(d) + rng.standard_normal(n)
        return (0.4 * rng.standard_normal(d), X, np.sign(y) if signs else y) + tuple(extra)
    return make


def residual_ties(extra, at):
    """Residuals X w - y exactly at at[0], -at[-1] and 0 on the first rows (X of integers, w of few binary
    digits)."""
    def make(rng):
        X = rng.integers(-3, 4, (10, 3)).astype(float)
        w = np.array([0.5, -0.25, 0.75])
        s = X @ w
        y = s + rng.standard_normal(10)
        y[:3] = s[:3] - np.array([at[0], -at[-1], 0.0])
        return (w, X, y) + tuple(extra)
    return make


PROGRAMS = [
    ("tukey_scaled_where", v36.tukey_scaled_where, residual(extra=(2.5,)), 0),
    ("logcosh_clipped", v36.logcosh_clipped, residual(extra=(1.2,)), 0),
    ("cauchy_mask", v36.cauchy_mask, residual(extra=(1.5, 0.4)), 0),
    ("sq_hinge_labels", v36.sq_hinge_labels, residual(signs=True, extra=(0.01,)), 0),
    ("pinball_two", v36.pinball_two, residual(extra=(0.1, 0.9)), 0),
    ("truncated_l1", v36.truncated_l1, residual(extra=(1.3,)), 0),
    ("eps_two_hinges", v35.eps_two_hinges, residual(extra=(0.6,)), 0),
    ("quantile_huber", v35.quantile_huber, residual(extra=(0.3, 0.8)), 0),
    ("interval_sq_hinge", v35.interval_sq_hinge, residual(extra=(0.5,)), 0),
    ("smooth_hinge", v33.smooth_hinge, residual(signs=True, extra=(0.01,)), 0),
    ("three_steps", three_steps, residual(extra=(0.7,)), 0),
    ("huber_single", huber_single, residual(extra=(0.8,)), 0),
    ("pinball_where_sum", pinball_where_sum, residual(extra=(0.3,)), 0),
    ("eps_two_hinges_reversed", v35.eps_two_hinges, residual(extra=(-0.6,)), 0),
    ("quantile_huber_reversed", v35.quantile_huber, residual(extra=(0.3, -0.8)), 0),
    # at ties: residuals exactly on the kinks (±c) and at 0
    ("eps_two_hinges_ties", v35.eps_two_hinges, residual_ties((0.75,), (0.75,)), 0),
    ("quantile_huber_ties", v35.quantile_huber, residual_ties((0.3, 0.75), (0.75,)), 0),
    ("pinball_two_ties", v36.pinball_two, residual_ties((0.1, 0.9), (0.5,)), 0),
    ("three_steps_ties", three_steps, residual_ties((0.75,), (0.75,)), 0),
    ("pinball_where_sum_ties", pinball_where_sum, residual_ties((0.3,), (0.5,)), 0),
    ("truncated_l1_ties", v36.truncated_l1, residual_ties((0.75,), (0.75,)), 0),
]
