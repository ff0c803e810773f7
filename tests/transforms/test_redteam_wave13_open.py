"""What the red team's thirteenth wave found that is still open (test_redteam_wave13_findings.py holds the
classes fixed): silent wrong derivatives at the zero of a measure of several values guarded by ``> 0`` and
of an odd extension through ``np.sign`` at 0, `srcdiff.vmap` of a gradient refused for want of batching
rules, and reasonable code still refused at its line.  Each is a strict xfail naming its class;
references are float64 central differences of the function (or the closed form, written out)."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import redteam_wave13 as data
from . import redteam_wave13_geometry as geometry
from . import redteam_wave13_library as library
from . import redteam_wave13_points as points
from .corpus import Program
from .matrix import OK, run

HERE = "test_redteam_wave13_open.py"


def open_class(name: str, cases):
    """`cases` as pytest params, each a strict xfail naming the class."""
    return [pytest.param(*c, marks=pytest.mark.xfail(strict=True, reason=name)) for c in cases]


# ---- 1. (FIXED since) ``n > 0`` of a measure of several values, at its zero --------------------------------
# ``np.where(np.hypot(x, y) > 0, g, c)`` (or ``np.linalg.norm(v) > 0``) holds everywhere but at the point
# where all the measured values are 0; there the branch taken, `c`, gave its own derivative: the truth when
# `g` is flat there (``n ** 3``) and silently wrong when it is not (``np.where(n > 0, x, 0.0)`` is x
# everywhere: gradient 1, srcdiff 0; the Hessian of ``np.where(n > 0, n ** 3 / safe, 0.0)`` = x**2 + y**2 is
# 2 I, srcdiff 0).  lower/measure_guards.py now takes `g`'s derivative where `g` equals `c` at the point and
# is made without the measure's kink, and NaN where it cannot know (test_measure_guards.py holds the class).


def hypot_identity(p):
    n = np.hypot(p[0], p[1])
    return np.where(n > 0, p[0], 0.0)


def norm_identity_if(v):
    n = np.linalg.norm(v)
    if n > 0:
        return v[0] + v[1]
    return 0.0


def hypot_squared_hessian(p):
    n = np.hypot(p[:, 0], p[:, 1])
    safe = np.where(n > 0, n, 1.0)
    return np.sum(np.where(n > 0, n ** 3 / safe, 0.0))


ZERO = np.zeros(2)


@pytest.mark.parametrize("f, want", [(hypot_identity, np.array([1.0, 0.0])), (norm_identity_if, np.array([1.0, 1.0]))],
                         ids=["hypot", "norm_if"])
def test_measure_of_several_values_guard_first_order(f, want):
    got = srcdiff.grad(f)(ZERO)
    assert np.isnan(got).all() or np.allclose(got, want), got  # NaN (refused at the point) or the truth


def test_measure_of_several_values_guard_hessian():
    got = srcdiff.hessian(hypot_squared_hessian)(np.zeros((1, 2))).reshape(2, 2)
    assert np.isnan(got).all() or np.allclose(got, 2 * np.eye(2)), got


def test_measure_of_several_values_guard_exact_away_from_zero():
    p = np.array([0.3, -0.4])
    np.testing.assert_allclose(srcdiff.grad(hypot_identity)(p), central_difference(hypot_identity, (p,), 0),
                               rtol=1e-7)


# ---- 1c. SILENT WRONG (OPEN, documented as not covered): odd extensions through np.sign at 0 ---------------
# The signed log transform of data cleaning, ``np.sign(x) * np.log1p(np.abs(x))``, is smooth at 0 with slope
# 1; srcdiff gives 0 there (sign(0) = 0 times abs'(0) = 0: "kinks composed at the same point",
# docs/guarantees.md), as for ``np.sign(x) * np.abs(x)`` and ``np.copysign(np.abs(x), x)`` (= x).  The
# truth needs sign(x) * sign(x) = 1 in the limit, which the conventions' product cannot see.


def signed_log1p(x):
    return np.sum(np.sign(x) * np.log1p(np.abs(x)))


def copysign_abs(x):
    return np.sum(np.copysign(np.abs(x), x) ** 3 + np.copysign(np.abs(x), x))


@pytest.mark.parametrize("f", open_class("np.sign(x) * g(|x|) at 0: the conventions' product",
                                         [(signed_log1p,), (copysign_abs,)]), ids=["signed_log1p", "copysign"])
def test_odd_extension_through_sign_at_zero(f):
    x = np.array([0.0, 0.8, -1.5])
    got = srcdiff.grad(f)(x)
    assert np.isnan(got[0]) or np.isclose(got[0], 1.0), got  # NaN (no derivative claimed) or the truth
    np.testing.assert_allclose(got[1:], central_difference(f, (x,), 0)[1:], rtol=1e-6)


# ---- 2. vmap of a gradient refused (OPEN): primitives without a batching rule ---------------------------------
# `srcdiff.vmap(srcdiff.grad(f))` batches the generated gradient; 83 of the wave's 95 programs with an array
# argument are refused, each naming the user's line, mostly for one primitive of the gradient's code:
# np.roll, np.diff, np.sort / np.argsort, np.interp, np.searchsorted, np.insert,
# np.cross, np.correlate, np.percentile of several levels, scipy.special.logsumexp, an index write
# (setitem), a recursive helper.  `srcdiff.jacobian` falls back to one pullback per row where batching
# refuses; vmap refuses instead (docs/api.md).

VMAP = [(geometry.shoelace_area, (geometry.SQUARE + 0.01,)), (points.f32_cumsum_normalise, (np.linspace(-1, 1, 5),)),
        (data.log_returns_clipped_vol, (100.0 + np.arange(6.0) ** 1.5,)),
        (points.sorted_sum_with_ties, (np.array([1.0, 0.5, -0.2]),)),
        (geometry.autocorrelation_lag1, (np.sin(np.arange(8.0)),))]


#: batched since (np.cumsum's batching rule, red team wave 12; np.roll's, ad/batching_moves.py; sorts and
#: loops, wave 26): rows of their own, no longer open
BATCHED = list(VMAP)  # (autocorrelation_lag1 one example at a time: vmap.per_example says why)


@pytest.mark.parametrize("f, args", open_class("vmap(grad(f)): no batching rule", [c for c in VMAP if c not in BATCHED])
                         + BATCHED, ids=lambda v: getattr(v, "__name__", ""))
def test_vmap_of_grad(f, args):
    x = args[0]
    batch = np.stack([x, 1.1 * x])
    got = srcdiff.vmap(srcdiff.grad(f))(batch)
    want = np.stack([central_difference(f, (row,), 0) for row in batch])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("f, args", VMAP, ids=lambda v: getattr(v, "__name__", ""))
def test_vmap_of_grad_refusal_names_the_users_line(f, args):
    x = args[0]
    try:
        srcdiff.vmap(srcdiff.grad(f))(np.stack([x, 1.1 * x]))
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename.endswith(".py"), exc


# ---- 3. reasonable code still refused, each at the user's line (OPEN) ---------------------------------------
# One program each from the wave.  Others work on lists, partials of methods and scipy.stats (reach12a/b)
# and on numba-only refusals (numba12), math.dist, zip_longest, **weights.get(name, d) and loops over
# np.unique (idioms14), writes through views, `out=` and helpers writing into the caller's array (views14,
# tests/transforms/test_views14.py): not repeated here.  Differentiated since (reach15,
# tests/transforms/test_reach15.py, rows named w13_*): an Enum from a config, an __init__ that computes,
# a method updating self, a closure made by a factory, a clamping decorator, sorted(..., key=lambda) of a
# list of tuples, lru_cache'd weights, a list of one array written by index, a dict updated in a loop.

R = np.random.default_rng(13)
REFUSED_CODE = [
    ("scipy_linalg_expm", library.linalg_expm_rotation, (0.4,)),
    ("scipy_linalg_lu", library.linalg_lu_solve, (R.normal(size=(3, 3)) + 3 * np.eye(3), R.normal(size=3))),
    ("np_histogram_weights", data.histogram_weights,
     (R.uniform(0.5, 1.5, size=10), R.normal(size=10), np.linspace(-3.0, 3.0, 5))),
    ("np_unique_values", data.unique_values_weighted, (R.normal(size=6),)),
    ("interp_knots", geometry.polyline_length_resample,
     (np.cumsum(np.abs(R.normal(size=(5, 2))), axis=0), R.uniform(0.05, 0.95, size=4))),
    ("irfft", geometry.zero_pad_irfft, (R.normal(size=4),)),
]


def _row(case):
    name, f, args, *wrt = case
    return run(Program(f"w13_open:{name}", f, args, wrt[0] if wrt else 0, HERE), ("grad",))


#: differentiated since (rules of their own, tests/transforms/test_rules15.py): rows of their own, no longer open
#: (scipy.linalg.expm and lu_factor/lu_solve, np.histogram's weights, np.unique's values, np.interp's knots,
#: np.fft.irfft)
FIXED = ('scipy_linalg_expm', 'scipy_linalg_lu', 'np_histogram_weights', 'np_unique_values', 'interp_knots',
         'irfft')
#: (every row is: the tests of the rows still refused, parametrized over none, could not fail and are gone;
#: a row added to REFUSED_CODE is differentiated, or test_reasonable_code_now_differentiated fails)


@pytest.mark.parametrize("case", REFUSED_CODE, ids=lambda c: c[0])
def test_reasonable_code_now_differentiated(case):
    cell = _row(case).cells["grad"]
    assert cell.outcome == OK, cell.message

