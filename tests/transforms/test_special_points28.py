"""Special points across transformations (red team, wave 28b): powers ``x ** 0``, ``x ** 1``,
``x ** 2``, ``x ** 0.5`` at and near 0, ``np.abs`` at 0, ``np.sqrt(x * x + eps)``, ``np.where``
whose untaken branch is inf or NaN (log of a negative, 1/x at 0), ties of ``np.maximum`` /
``np.minimum`` / builtin ``max``, ``np.clip`` at its bounds (redteam_wave28b_points.py).

Every first-order transformation (grad, value_and_grad, vjp, jacobian, jvp, a tree of the argument,
float32, per-example gradients, jit="numba") gives the derivative written by hand, never NaN, where
it exists, and the documented convention at a kink (``abs'(0) = 0``, ties shared half and half,
clip's bound sharing with `x`).  Second order (hessian, hvp) gives the exact second derivative, or
the documented NaN at a kink or tie, never a finite wrong number.  Points drawn by hypothesis near
the special points check the smooth ones against their formulas and against float64 central
differences.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numeric import central_difference

import srcdiff

from . import redteam_wave27b_cells as cells
from .redteam_wave28b_points import ROWS, SMOOTH

IDS = [r[0] for r in ROWS]
#: the rows the default run compiles with numba (seconds each; -m slow runs every row)
NUMBA_KEPT = {"pow1", "abs_at_zero", "where_reciprocal_small", "clip_at_bounds", "sqrt_eps"}


def _close(got, want, what, rtol=1e-7, atol=1e-9):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    documented_nan = np.isnan(want)
    assert np.all(np.isfinite(got[~documented_nan])), f"{what}: non-finite where the derivative is {want}: {got}"
    assert np.all(np.isnan(got[documented_nan])), f"{what}: a finite number where none exists: {got}"
    scale = max(1.0, float(np.max(np.abs(want[~documented_nan]))) if np.any(~documented_nan) else 1.0)
    np.testing.assert_allclose(got[~documented_nan], want[~documented_nan], rtol=rtol, atol=atol * scale,
                               err_msg=what)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, x, gradient, hessian", ROWS, ids=IDS)
def test_first_order_everywhere(name, f, x, gradient, hessian):
    with np.errstate(all="ignore"):
        answers = cells.kink_answers(f, (x,), 0)
    for transformation, got in answers.items():
        loose = transformation == "float32"
        _close(got, gradient, transformation, rtol=2e-3 if loose else 1e-7, atol=2e-3 if loose else 1e-9)
    assert srcdiff.grad(f)(x.astype(np.float32)).dtype == np.float32


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, x, gradient, hessian",
                         [r if r[0] in NUMBA_KEPT else pytest.param(*r, marks=pytest.mark.slow) for r in ROWS], ids=IDS)
def test_first_order_numba(name, f, x, gradient, hessian):
    with np.errstate(all="ignore"):
        got = srcdiff.grad(f, jit="numba")(x.copy())
    _close(got, gradient, "numba")


WITH_HESSIAN = [r for r in ROWS if r[4] is not None]
EQUALITY_GUARDS = {"where_reciprocal_zero"}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, x, gradient, hessian", WITH_HESSIAN, ids=[r[0] for r in WITH_HESSIAN])
def test_second_order_exact_or_the_documented_nan(name, f, x, gradient, hessian):
    # the gradient's component at a kink has no derivative in any direction (guarantees.md): NaN in
    # every Hessian-vector product, so in its column of the Hessian (``hessian(f)(x)[k] = hvp(f, x, e_k)``)
    # (an equality guard's NaN is only where the guarded value moves: `EQUALITY_GUARDS`)
    if name not in EQUALITY_GUARDS:
        hessian = np.where(np.any(np.isnan(hessian), axis=0, keepdims=True), np.nan, hessian)
    with np.errstate(all="ignore"):
        _close(srcdiff.hessian(f)(x.copy()), hessian, "hessian", rtol=1e-6)
        for k in range(x.size):
            _close(srcdiff.hvp(f, x.copy(), np.eye(x.size)[k]), hessian[k], f"hvp along {k}", rtol=1e-6)


# ---- points drawn near the special points ----

NEAR = st.one_of(st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e-300, 1e-12, -1e-12, 1.0, -1.0]),
                 st.floats(-1e-3, 1e-3), st.floats(-2.0, 2.0))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, d1, d2", SMOOTH, ids=[s[0] for s in SMOOTH])
@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(point=st.lists(NEAR, min_size=3, max_size=3))
def test_smooth_special_points_exact_near_zero(name, f, d1, d2, point):
    x = np.array(point)
    with np.errstate(all="ignore"):
        want1, want2 = d1(x), np.diag(d2(x))
        if not (np.all(np.isfinite(want1)) and np.all(np.isfinite(want2))):
            return  # (1/x at a subnormal overflows: no finite derivative to compare with)
        _close(srcdiff.grad(f)(x.copy()), want1, "grad", rtol=1e-9)
        _close(srcdiff.jvp(f, (x.copy(),), (np.ones(3),))[1], np.sum(want1), "jvp", rtol=1e-9)
        _close(srcdiff.vjp(f, x.copy())[1](1.0), want1, "vjp", rtol=1e-9)
        _close(srcdiff.hessian(f)(x.copy()), want2, "hessian", rtol=1e-8)
        _close(srcdiff.hvp(f, x.copy(), np.ones(3)), want2 @ np.ones(3), "hvp", rtol=1e-8)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, d1, d2", SMOOTH, ids=[s[0] for s in SMOOTH])
@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(point=st.lists(st.floats(0.6, 2.0) | st.floats(-2.0, -0.6), min_size=3, max_size=3))
def test_smooth_functions_agree_with_central_differences(name, f, d1, d2, point):
    x = np.array(point)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(srcdiff.grad(f)(x.copy()), central_difference(f, (x.copy(),), 0), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(d1(x), central_difference(f, (x.copy(),), 0), rtol=1e-5, atol=1e-6)
