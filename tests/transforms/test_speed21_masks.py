"""Float masks taken case by case (backend/optimize/masks.py): arithmetic of a 0/1 mask made of a
comparison becomes ``np.where`` of its two simplified branches.  Programs written after the
rewrite (not the benchmark's smooth L1 only), each through every transformation (hessian and
numba included), in float32, against float64 central differences, against the unoptimised
(debug) gradient, and at the points where the mask's comparison ties."""

import sys
from pathlib import Path

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, speed_checks

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import variants18_contract as v18c  # noqa: E402
import variants20_piecewise as v20  # noqa: E402


def asymmetric_squares(w, X, y, k):
    """An expectile-like loss: squares weighted k above the fit, 1 below, by a float mask."""
    r = X @ w - y
    above = (r > 0.0).astype(float)
    return np.sum(above * k * r * r + (1.0 - above) * r * r) / len(y)


def huber_where_mask(w, X, y, c):
    """Huber's loss, its zone a mask made by np.where(cond, 1.0, 0.0)."""
    r = X @ w - y
    inside = np.where(np.abs(r) <= c, 1.0, 0.0)
    return np.sum(inside * 0.5 * r * r + (1.0 - inside) * c * (np.abs(r) - 0.5 * c))


def gated_tanh(x, v):
    """A mask of the input itself gating two smooth pieces, np.float64 spelled out."""
    pos = (x > 0.1).astype(np.float64)
    return np.sum(pos * np.tanh(x) * v + (1.0 - pos) * (x * v - x * x))


def band_two_masks(w, X, y, c):
    """Two masks, multiplied: a band |r| < c by its two sides."""
    r = X @ w - y
    lo = (r > -c).astype(float)
    hi = (r < c).astype(float)
    band = lo * hi
    return np.sum(band * r * r + (1.0 - band) * c * np.abs(r))


def row_mask_broadcast(W, X, y):
    """A mask of one column broadcast across the rows' outputs: another shape class than the
    products it scales, which a selection may keep but never drop."""
    big = (np.sum(X * X, axis=1, keepdims=True) > 3.0).astype(float)
    P = X @ W
    return np.sum(big * P * P + (1.0 - big) * np.sin(P)) + np.sum(y * P[:, 0])


def mask_read_twice(w, X, y, c):
    """The masked residual read by two reductions and by a product."""
    r = X @ w - y
    m = (np.abs(r) < c).astype(float)
    s = m * r + (1.0 - m) * c * np.sign(r)
    return np.sum(s * s) + np.sum(s) ** 2 + (X.T @ s) @ w


def mask_scaled_division(w, X, y, c, k):
    """Numbers divided by quotients inside both branches (like terms meet across a division)."""
    r = X @ w - y
    m = (r < c).astype(float)
    return np.sum(m * r * r / (c / k) + (1.0 - m) * (k * r) / (1.0 / c) + m * r / (k / c))


def _residual(n=12, d=3, extra=(0.8,), signs=False):
    return lambda rng: v20.residual_args(n=n, d=d, seed=int(rng.integers(1 << 30)), extra=extra, signs=signs)


def _gated(rng):
    x = rng.standard_normal(11)
    return x, rng.standard_normal(11)


def _rows(rng):
    X = rng.standard_normal((9, 3)) * 1.3
    return 0.5 * rng.standard_normal((3, 2)), X, rng.standard_normal(9)


PROGRAMS = [
    ("smooth_l1_mask", v18c.smooth_l1_mask,
     lambda rng: v18c.residual_args(n=10, d=3, m=2, seed=int(rng.integers(1 << 30)), extra=(0.9,)), 0),
    ("asymmetric_squares", asymmetric_squares, _residual(extra=(3.0,)), 0),
    ("huber_where_mask", huber_where_mask, _residual(), 0),
    ("gated_tanh", gated_tanh, _gated, 0),
    ("band_two_masks", band_two_masks, _residual(), 0),
    ("row_mask_broadcast", row_mask_broadcast, _rows, 0),
    ("mask_read_twice", mask_read_twice, _residual(extra=(0.7,)), 0),
    ("mask_scaled_division", mask_scaled_division, _residual(extra=(0.4, 1.7)), 0),
]


def programs():
    return corpus.from_table(PROGRAMS, "speed21", "test_speed21_masks", 21)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_optimised_equals_debug(program):
    """The selections round differently from the arithmetic they replace, by no more than that."""
    speed_checks.assert_optimised_equals_debug(program, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_hessian_and_numba(program):
    matrix.assert_ok(program, ("hessian",))
    matrix.assert_numba_included(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.parametrize("f, args", [
    (v18c.smooth_l1_mask, v18c.residual_args(n=10, d=3, m=2, extra=(0.9,))),
    (huber_where_mask, v20.residual_args(n=12, d=3)),
    (mask_scaled_division, v20.residual_args(n=12, d=3, extra=(0.4, 1.7))),
])
def test_the_mask_is_selected(f, args):
    """The mask's products by 0 and 1 are gone: one selection, no float mask made."""
    source = srcdiff.grad(f).source_for(*args)
    assert "np.where" in source and "astype" not in source, source
    # (the value keeps its arithmetic where a selection, counted as WHERE_COST passes, saves none)
    both = srcdiff.value_and_grad(f).source_for(*args)
    assert "X.T @ np.where(" in both or "X.T @ (np.where(" in both, both


@pytest.mark.parametrize("name, f, make, wrt", PROGRAMS, ids=[row[0] for row in PROGRAMS])
def test_float32_arguments_keep_the_value_dtype(name, f, make, wrt):
    """The float64 mask widens float32 operands: the value stays what f returns, float64 here
    (a selection of the float32 branches would have narrowed it)."""
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in make(np.random.default_rng(3))]
    value, _ = srcdiff.value_and_grad(f, wrt=wrt)(*args)
    assert np.asarray(value).dtype == np.asarray(f(*args)).dtype
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)


def test_numbers_of_a_common_factor_are_blended():
    """k r and r share r: the mask blends the numbers (no branch per element), the arrays are
    multiplied once, and the residual is read once."""
    source = srcdiff.grad(asymmetric_squares).source_for(*v20.residual_args(n=12, d=3, extra=(3.0,)))
    assert "X.T @ ((above * (2.0 / t11 * k) + (1.0 - above) * (2.0 / t11)) * r)" in source, source


def _ties(c):
    """w = 0, so the residual is -y: exactly at +-c (the mask's comparison ties), 0, inside, outside."""
    X = np.random.default_rng(5).standard_normal((8, 3))
    y = np.array([c, -c, 0.0, 0.25 * c, -0.5 * c, 3.0 * c, -4.0 * c, c])
    return np.zeros(3), X, y, c


@pytest.mark.parametrize("f", [asymmetric_squares, huber_where_mask, band_two_masks, mask_read_twice])
def test_at_the_comparison_the_taken_side_decides(f):
    """Where the comparison ties, the mask's value there picks the piece whose derivative counts,
    in the optimised gradient as in the unoptimised one, never NaN."""
    args = _ties(0.75)
    got = srcdiff.grad(f)(*args)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, srcdiff.grad(f, debug=True)(*args), rtol=1e-12, atol=1e-15)


def test_huber_ties_by_hand():
    """huber_where_mask at |r| = c is inside (``<=``): the gradient there is r itself."""
    w, X, y, c = _ties(0.75)
    r = X @ w - y
    want = X.T @ np.where(np.abs(r) <= c, r, c * np.sign(r))
    np.testing.assert_allclose(srcdiff.grad(huber_where_mask)(w, X, y, c), want, rtol=1e-12, atol=1e-15)
