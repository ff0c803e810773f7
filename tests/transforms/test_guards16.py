"""Guards spelled otherwise (guards16_programs.py) behave as the documented spelling in every
transformation: exact away from the guarded point (float64 central differences: grad,
value_and_grad, jvp, vjp, trees, hessian, jit="numba", float32), and at it NaN for the directions
that move the guarded value, the closed form for the others; never the guarded branch's own
derivative (docs/guarantees.md, "An equality guard" and "A measure of several values").
Thresholds (``abs(x) < 1e-12``) are not points and stay as written."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

from . import corpus, matrix
from .guards16_programs import EQUALITY, MEASURE_ROWS, THRESHOLDS

ROWS = EQUALITY + MEASURE_ROWS
IDS = [r[0] for r in ROWS]


def _program(row) -> corpus.Program:
    name, f, away, *_ = row
    return corpus.Program(f"guards16:{name}", f, away, 0, "guards16_programs")


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_every_transformation_is_exact_away_from_the_point(row):
    matrix.assert_ok(_program(row), matrix.FIRST_ORDER + ("hessian",))


def _at_point(got, want, mask) -> None:
    """NaN where the guard may put it (`mask`; None: anywhere), the closed form `want` elsewhere;
    at least one NaN (the guarded point's derivative is the continuation's, never the branch's)."""
    got = np.asarray(got, dtype=float)
    nan = np.isnan(got)
    assert nan.any(), got
    if mask is not None and want is not None:
        assert not nan[~mask].any(), got
        np.testing.assert_allclose(got[~mask], np.asarray(want)[~mask], rtol=1e-6, atol=1e-9)
    if want is not None:
        assert np.all(nan | np.isclose(got, want, rtol=1e-6, atol=1e-9)), (got, want)


def _want(row):
    """The closed form at the point, checked against central differences (which step off it)."""
    name, f, _, at, want, mask = row
    np.testing.assert_allclose(central_difference(f, at, 0), want, rtol=1e-6, atol=1e-8)
    return want


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_first_order_at_the_point_is_nan_or_the_closed_form(row):
    name, f, _, at, _, mask = row
    want = _want(row)
    x = at[0]
    for got in (srcdiff.grad(f)(*at), srcdiff.value_and_grad(f)(*at)[1], srcdiff.vjp(f, *at)[1](1.0)):
        got = got[0] if isinstance(got, tuple) else got
        _at_point(got, want, mask)
    ones = np.ones_like(np.asarray(x, dtype=float))
    _, tangent = srcdiff.jvp(f, at, (ones if np.ndim(x) else 1.0, *(np.zeros_like(a) for a in at[1:])))
    assert np.isnan(tangent), tangent
    if mask is not None:  # a direction that does not move the guarded element: exact
        direction = np.where(mask, 0.0, np.linspace(1.0, -2.0, x.size))
        _, tangent = srcdiff.jvp(f, at, (direction,))
        np.testing.assert_allclose(tangent, want @ direction, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_numba_at_and_away_from_the_point(row):
    name, f, away, at, _, mask = row
    try:
        g = srcdiff.grad(f, jit="numba")
        got_away = g(*away)
    except srcdiff.SrcDiffError as exc:  # a refusal must name the user's line
        assert exc.location is not None and exc.location.filename.endswith("guards16_programs.py"), exc
        return
    np.testing.assert_allclose(got_away, central_difference(f, away, 0), rtol=1e-6, atol=1e-9)
    _at_point(g(*at), _want(row), mask)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_float32_keeps_its_dtype_and_the_nan(row):
    name, f, away, at, _, mask = row
    if not isinstance(away[0], np.ndarray):
        away, at = (np.float32(away[0]), *away[1:]), (np.float32(at[0]), *at[1:])
    else:
        away, at = (away[0].astype(np.float32), *away[1:]), (at[0].astype(np.float32), *at[1:])
    got = srcdiff.grad(f)(*away)
    assert np.asarray(got).dtype == np.float32, type(got)
    np.testing.assert_allclose(got, central_difference(f, row[2], 0), rtol=2e-3, atol=2e-3)
    got = srcdiff.grad(f)(*at)
    assert np.asarray(got).dtype == np.float32
    assert np.isnan(got).any(), got


SCALAR = [r for r in EQUALITY if not isinstance(r[2][0], np.ndarray)]


@pytest.mark.parametrize("row", SCALAR, ids=[r[0] for r in SCALAR])
def test_second_order_at_the_point_is_nan_and_exact_away(row):
    """The hand-written sinc's second derivative at 0 is -1/3, the guarded branch's 0: NaN."""
    name, f, away, at, _, _ = row
    for got in (srcdiff.hessian(f)(*at), srcdiff.hvp(f, at[0], 1.0), srcdiff.grad(srcdiff.grad(f))(*at)):
        assert np.isnan(got), got
    want = hessian_difference(f, away)
    for got in (srcdiff.hessian(f)(*away), srcdiff.hvp(f, away[0], 1.0)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


MASKED = [r for r in EQUALITY if r[5] is not None]


@pytest.mark.parametrize("row", MASKED, ids=[r[0] for r in MASKED])
def test_second_order_of_a_guarded_element_in_a_vector(row):
    """NaN where the Hessian moves the guarded element, the other elements exact (hessian and hvp)."""
    _, f, _, at, _, mask = row
    want = hessian_difference(f, at)
    for H in (srcdiff.hessian(f)(*at), np.stack([srcdiff.hvp(f, at[0], e) for e in np.eye(3)])):
        assert np.isnan(H[0, 0])
        np.testing.assert_allclose(H[1:, 1:], want[1:, 1:], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("row", MEASURE_ROWS, ids=[r[0] for r in MEASURE_ROWS])
def test_hessian_of_a_measure_guard_at_the_point_is_nan(row):
    _, f, away, at, _, _ = row
    try:
        assert np.isnan(srcdiff.hessian(f)(*at)).any()
    except srcdiff.SrcDiffError as exc:  # math.sqrt's Python-float 1 / 0 at the point: refused at the line
        assert exc.location.filename.endswith("guards16_programs.py") and "ZeroDivisionError" in str(exc), exc
    np.testing.assert_allclose(srcdiff.hessian(f)(*away), hessian_difference(f, away), rtol=1e-4, atol=1e-6)


def tree_guard(t):
    x = t["x"]
    return (1.0 if x == 0.0 else math.expm1(x) / x) * t["s"]


def test_a_tree_argument_is_nan_in_the_guarded_leaf_only():
    got = srcdiff.grad(tree_guard)({"x": 0.0, "s": 3.0})
    assert np.isnan(got["x"]) and got["s"] == 1.0, got
    got = srcdiff.grad(tree_guard)({"x": 0.6, "s": 3.0})
    want = central_difference(lambda x: tree_guard({"x": x, "s": 3.0}), (0.6,), 0)
    np.testing.assert_allclose(got["x"], want, rtol=1e-6)
    np.testing.assert_allclose(got["s"], tree_guard({"x": 0.6, "s": 1.0}), rtol=1e-12)


@pytest.mark.parametrize("name, f", THRESHOLDS, ids=[t[0] for t in THRESHOLDS])
def test_a_threshold_is_not_a_point_and_stays_as_written(name, f):
    """``abs(x) < 1e-12`` holds on an interval: there the branch is the function, 0 is exact."""
    for x in (0.0, 1e-13):
        assert srcdiff.grad(f)(x) == 0.0
        assert srcdiff.hessian(f)(x) == 0.0
    np.testing.assert_allclose(srcdiff.grad(f)(0.6), central_difference(f, (0.6,), 0), rtol=1e-6)


def test_a_test_of_an_unrelated_value_changes_nothing():
    """``not n`` of an integer argument, ``not flag`` of a comparison: exact on both sides."""
    def f(x, n):
        if not n:
            return 2.0 * x
        return 3.0 * x

    assert srcdiff.grad(f)(0.0, 0) == 2.0 and srcdiff.grad(f)(0.0, 1) == 3.0

    def g(x):
        flag = x > 0.5
        if not flag:  # a test of a comparison: no point of x
            return 2.0 * x
        return 3.0 * x

    for x, want in ((0.2, 2.0), (0.9, 3.0)):
        assert srcdiff.grad(g)(x) == want and srcdiff.hessian(g)(x) == 0.0
        assert srcdiff.jvp(g, (x,), (1.0,))[1] == want

