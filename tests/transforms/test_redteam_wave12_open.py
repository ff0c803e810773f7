"""What the red team's twelfth wave found that is still open (test_redteam_wave12_findings.py holds the
classes fixed): NaN where the truth is finite at documented special points and reasonable code still
refused at its line.  Each is a strict xfail naming its class; references are float64 central differences
of the function.  vmap of gradients that keep a tape (section 3) is fixed: its strict xfails passed, and
are now checks of the batched gradients."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import redteam_wave12 as wave
from . import redteam_wave12_idioms as idioms
from . import redteam_wave12_models as models
from . import redteam_wave12_points as points
from .corpus import Program
from .matrix import OK, REFUSED, run

HERE = "test_redteam_wave12_open.py"
R = np.random.default_rng(12)


def open_class(name: str, cases):
    """`cases` as pytest params, each a strict xfail naming the class."""
    return [pytest.param(*c, marks=pytest.mark.xfail(strict=True, reason=name)) for c in cases]


def _gradient_is_right(f, args, wrt=0):
    want = central_difference(f, args, wrt)
    np.testing.assert_allclose(srcdiff.grad(f, wrt=wrt)(*args), want, rtol=1e-6, atol=1e-8)


# ---- 1. NaN where the truth is finite, at points docs/guarantees.md names (OPEN) ------------------------
# * a matrix function through eigh at a repeated eigenvalue (``V @ diag(exp(w)) @ V.T`` of 0.3 * I + ...):
#   the eigenvectors' adjoint divides by the gap; the matrix function itself is smooth (Daleckii-Krein).
# * the double-where guard ``np.where(x == 0, 0.0, f(np.where(x == 0, 1.0, x)))``: an equality guard,
#   NaN by design at the guarded point (srcdiff cannot tell a removable singularity from a definition).
# All NaN, never a silent number; test_..._is_nan_not_a_number pins that.

NAN_POINTS = [(models.sym_expm_eigh, (np.diag([0.3, 0.3, -0.2]),)),
              (points.x2_log_x2_where, (np.array([0.0, 0.5, -1.2, 0.0]),)),
              (points.expm1_over_x, (np.array([0.0, 0.3, -1.0]),))]


@pytest.mark.parametrize("f, args", open_class("NaN at a documented special point, truth finite", NAN_POINTS),
                         ids=lambda v: getattr(v, "__name__", ""))
def test_nan_at_documented_special_points(f, args):
    _gradient_is_right(f, args)


@pytest.mark.parametrize("f, args", NAN_POINTS, ids=lambda v: getattr(v, "__name__", ""))
def test_nan_at_documented_special_points_is_nan_not_a_number(f, args):
    got = srcdiff.grad(f)(*args)
    want = central_difference(f, args, 0)
    assert np.isnan(got).any()
    finite = np.isfinite(got)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-6, atol=1e-8)


# ---- 2. second derivatives of a distance at 0 (OPEN): NaN ---------------------------------------------
# The gradient of a Matérn kernel is exact on the diagonal (findings, class 7), its Hessian NaN there
# (a root's second derivative at its zero: docs/guarantees.md).

def test_hessian_of_a_matern_kernel_on_its_diagonal_is_nan_not_a_number():
    H = srcdiff.hessian(wave.matern52_ard)(np.array([0.1, -0.2]), R.normal(size=(4, 2)), R.normal(size=4))
    assert np.isnan(H).any()


# ---- 3. vmap of a gradient that keeps a tape (FIXED): batched ------------------------------------------
# A gradient of a loop keeps its values in a list (a tape): vmap(grad(f)) of every program with a Python loop
# was refused (20 of the wave's 100 array programs), also numpy.linalg.cholesky, matmul_adjoint_x,
# np.concatenate, np.interp, setitem: no batching rule.  Since wave 28 vmap batches a gradient's tape (lists and
# lists of lists grown in a loop), cholesky / solve rows and writes: these rows were strict xfails until wave 32
# found them passing; each example's gradient is checked against central differences.  Every other
# transformation of the three agrees too (grad, value_and_grad, jvp, vjp, check, a tree, jit="numba"; the
# Hessian of matern52_ard is NaN on its diagonal, section 2).  With jit="numba" the batched gradients of
# mpc_soft_bounds (builtin max) and matern52_ard (solve_rows) are refused at the user's line.

TAPES = [(wave.mpc_soft_bounds, (np.array([0.9, -0.3, 1.1, 0.2, -0.95]),)),
         (models.td_lambda, (R.normal(size=7), R.normal(size=6))),
         (wave.matern52_ard, (np.array([0.1, -0.2]), R.normal(size=(4, 2)), R.normal(size=4)))]


@pytest.mark.parametrize("f, args", TAPES, ids=lambda v: getattr(v, "__name__", ""))
def test_vmap_of_a_gradient_with_a_tape(f, args):
    xs = np.stack([args[0], 1.01 * args[0] + 0.01])
    in_axes = (0,) + (None,) * (len(args) - 1)
    want = np.stack([central_difference(f, [x, *args[1:]], 0) for x in xs])
    got = srcdiff.vmap(srcdiff.grad(f), in_axes=in_axes, per_example="allow")(xs, *args[1:])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    try:
        got = srcdiff.vmap(srcdiff.grad(f), in_axes=in_axes, jit="numba")(xs, *args[1:])
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename == f.__code__.co_filename, str(exc)
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


# ---- 4. reasonable code still refused, each at the user's line (OPEN) -----------------------------------
# Classes, one program each: an object of a user class built inside the function (a dataclass chosen by a
# run-time test and matched by ``match``), ``list(array)`` of rows passed to a recursive helper (a list given
# to a function of yours); scipy.stats.weibull_min and np.cov(rowvar=False) since differentiated (FIXED
# below), and a local alias of a library function (N = norm.cdf, reach15's row w12_library_function_alias).
# (reach12a/b: list +, islice, operator overloading, partials of bound methods, memo dicts; numba12:
# numba-only refusals; idioms14: np.piecewise of lambdas, np.vectorize, zip_longest, min with key=, np.ix_
# assembly, getattr(np, name), match with mapping patterns.  reach15, tests/transforms/test_reach15.py, rows
# named w12_*: a layer class with super().__call__ in a container, a classmethod of a dict with a
# cached_property, a dict of functions keyed by enum members, a parameter tree passed whole to a local
# function, a generator passed to another generator, itertools.groupby over static keys.)

REFUSED_CODE = [
    ("object_built_inside", idioms.match_class, (np.array([0.2, -0.1]), R.normal(size=5))),
    ("list_of_rows", idioms.de_casteljau, (R.normal(size=8),)),
    ("weibull_min", models.weibull_scipy, (np.array([0.3, 0.5]), np.array([0.5, 1.2, 2.0, 3.1, 0.7]),
                                           np.array([1.0, 1, 0, 1, 0]))),
    ("cov_rowvar_false", wave.enkf_analysis, (R.normal(size=(6, 2)), 0.7, 0.3 * R.normal(size=6))),
]


def _row(case):
    name, f, args, *wrt = case
    return run(Program(f"w12_open:{name}", f, args, wrt[0] if wrt else 0, HERE), ("grad",))


#: differentiated since (rules of their own, tests/transforms/test_rules15.py): rows of their own, no longer open
#: (scipy.stats.weibull_min, np.cov(rowvar=False)); an object chosen when the function runs and matched on its
#: class (reach15_programs.py's object_chosen_when_running: the statements after the choice written into each side)
FIXED = ('weibull_min', 'cov_rowvar_false', 'object_built_inside')
STILL_REFUSED = [c for c in REFUSED_CODE if c[0] not in FIXED]


@pytest.mark.parametrize("case", open_class("reasonable code refused", [(c,) for c in STILL_REFUSED]),
                         ids=lambda c: c[0])
def test_reasonable_code_refused(case):
    cell = _row(case).cells["grad"]
    assert cell.outcome == OK, cell.message


@pytest.mark.parametrize("case", [c for c in REFUSED_CODE if c[0] in FIXED], ids=lambda c: c[0])
def test_reasonable_code_now_differentiated(case):
    cell = _row(case).cells["grad"]
    assert cell.outcome == OK, cell.message


@pytest.mark.parametrize("case", STILL_REFUSED, ids=lambda c: c[0])
def test_reasonable_code_refused_names_the_users_line(case):
    row = _row(case)
    assert not row.excluded, row.excluded
    cell = row.cells["grad"]
    assert cell.outcome == REFUSED and cell.located, cell.message
