"""Programs of test_wave35c.py: wave 35's held-out piecewise losses (benchmarks/variants35_piecewise.py)
at small sizes, the losses its rewrites were tuned on, and the shapes the rewrites read, some at exact
ties and kinks:

* HELD OUT: SVR's loss as two hinges, Berhu as |r| plus a squared hinge, a quantile Huber, |r| capped and
  squared, the soft-threshold residual squared, a two-sided squared hinge around an interval;
* TUNED ON: Huber by a squared hinge, by np.minimum of np.maximum, by a clip plus its excess, by a chain of
  two np.where and by boolean masks; smooth L1 by np.minimum; Huber with two deltas; the squared
  epsilon-insensitive loss by np.where on |r|;
* NOT A CLIP: a derivative that jumps at the band's ends (its pieces do not meet: kept as written), a band
  tested on a value rounded otherwise than the residual (its pieces are not exactly the forms'), a band
  whose bounds the caller gives in the wrong order or as one point (the order the rewrite assumes fails
  where it runs: the code as it was).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import variants20_piecewise as v20  # noqa: E402
import variants31_signs as v31  # noqa: E402
import variants33_piecewise as v33  # noqa: E402
import variants34_piecewise as v34  # noqa: E402
import variants35_piecewise as v35  # noqa: E402

# ---- NOT A CLIP ----


def huber_jump(w, X, y, d):
    """A Huber-like loss whose slope jumps from d to 2d past the band: its gradient is no clip."""
    r = X @ w - y
    return np.sum(np.where(np.abs(r) <= d, 0.5 * r * r, 2.0 * d * np.abs(r) - 1.5 * d * d))


def rounded_band(w, X, y, d):
    """Huber whose band is tested on ``3 r - 2 r``: r in exact arithmetic, rounded otherwise near the band's
    ends, so NumPy's pieces are not the forms' (kept as written)."""
    r = X @ w - y
    q = 3.0 * r - 2.0 * r
    return np.sum(np.where(np.abs(q) <= d, 0.5 * r * r, d * np.abs(r) - 0.5 * d * d))


# ---- arguments ----


def residual(n=12, d=3, extra=(0.8,)):
    def make(rng):
        X = rng.standard_normal((n, d))
        y = X @ rng.standard_normal(d) + rng.standard_normal(n)
        return (0.4 * rng.standard_normal(d), X, y) + tuple(extra)
    return make


def residual_ties(extra, at=None):
    """Residuals X w - y exactly at[0], -at[-1] and 0 on the first rows (X of integers, w of few binary
    digits); `at` defaults to `extra`."""
    at = extra if at is None else at

    def make(rng):
        X = rng.integers(-3, 4, (10, 3)).astype(float)
        w = np.array([0.5, -0.25, 0.75])
        s = X @ w
        y = s + rng.standard_normal(10)
        y[:3] = s[:3] - np.array([at[0], -at[-1], 0.0])
        return (w, X, y) + tuple(extra)
    return make


PROGRAMS = [
    ("eps_two_hinges", v35.eps_two_hinges, residual(extra=(0.6,)), 0),
    ("berhu_hinge", v35.berhu_hinge, residual(extra=(0.7,)), 0),
    ("quantile_huber", v35.quantile_huber, residual(extra=(0.3, 0.8)), 0),
    ("capped_abs_square", v35.capped_abs_square, residual(extra=(1.1,)), 0),
    ("soft_threshold_sq", v35.soft_threshold_sq, residual(extra=(0.5,)), 0),
    ("interval_sq_hinge", v35.interval_sq_hinge, residual(extra=(0.5,)), 0),
    ("huber_sq_hinge", v20.huber_sq_hinge, residual(), 0),
    ("huber_minmax", v31.huber_minmax, residual(), 0),
    ("huber_clip_excess", v33.huber_clip_excess, residual(), 0),
    ("huber_where_chain", v33.huber_where_chain, residual(), 0),
    ("huber_bool_mask", v33.huber_bool_mask, residual(), 0),
    ("smooth_l1_min", v20.smooth_l1_min, residual(), 0),
    ("asym_huber", v34.asym_huber, residual(extra=(0.5, 1.0)), 0),
    ("eps_band_where", v31.eps_band_where, residual(extra=(0.6,)), 0),
    ("huber_jump", huber_jump, residual(), 0),
    ("rounded_band", rounded_band, residual(), 0),
    ("huber_sq_hinge_reversed", v20.huber_sq_hinge, residual(extra=(-0.8,)), 0),
    ("huber_clip_excess_point", v33.huber_clip_excess, residual(extra=(0.0,)), 0),
    # at ties: residuals exactly on the kinks (±d) and at 0
    ("huber_sq_hinge_ties", v20.huber_sq_hinge, residual_ties((0.75,)), 0),
    ("huber_clip_excess_ties", v33.huber_clip_excess, residual_ties((0.75,)), 0),
    ("smooth_l1_min_ties", v20.smooth_l1_min, residual_ties((0.75,)), 0),
    ("asym_huber_ties", v34.asym_huber, residual_ties((0.5, 0.75), at=(0.75, 0.5)), 0),
    ("huber_bool_mask_ties", v33.huber_bool_mask, residual_ties((0.75,)), 0),
    ("eps_band_where_ties", v31.eps_band_where, residual_ties((0.75,)), 0),
]
