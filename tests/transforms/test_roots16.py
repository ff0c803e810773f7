"""Roots of powers at their special point (ad/roots.py): a root of a power of one value is that power, so its
derivative at 0 is the power's (``np.cbrt(x * x * x)`` is x: 1; ``np.sqrt(2 * x ** 4)`` is sqrt(2) x ** 2: 0),
never the 0 of a zero factor that moves nor the NaN of an infinite slope times a zero partial; a root of a sum of
even powers above the root's order is 0 where the sum is.  Where the truth does not exist (a cusp, a kink at
second order) the answer is NaN, never another number.

References: the closed form of the rewritten power at the point, written out; float64 central differences
(tests/numeric.py) away from it.  Never srcdiff."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

CBRT2 = 2.0 ** (1.0 / 3.0)
SQRT2 = math.sqrt(2.0)


def fifth_root_of_fifth(x):
    return np.sum((x ** 5) ** 0.2)


def sqrt_of_sixth(x):
    return np.sqrt(x ** 6)


def root_inside_a_sum(x):
    return np.sin(x) + np.cbrt(2.0 * x ** 3) + x * x


def sqrt_of_scaled_fourth(x):
    return np.sqrt(2.0 * x ** 4)


def cbrt_of_scaled_cube_product(x):
    return np.cbrt(0.5 * x * (4.0 * x) * x)


def sixth_under_a_third(x):
    return (x ** 6) ** (1 / 3)


def sqrt_of_square(x):
    return np.sqrt(x ** 2)


def cbrt_of_square_product(x):
    return np.cbrt(x * x)


def sqrt_of_sum_of_even_powers(x, y):
    return np.sqrt(x ** 4 + 3.0 * y ** 6) + 2.0 * x


def cbrt_of_sum_of_fourth_powers(v):
    return np.cbrt(np.sum(v ** 4)) + np.sum(v)


def mean_of_cbrt_of_cubes(v):
    return np.mean(np.cbrt(v ** 3) * 2.0)


def cbrt_of_negative_sixth(v):
    return np.sum(np.cbrt(-2.0 * v ** 6))


def root_of_power_squared_sum(v):
    return np.sum(np.sqrt(v ** 4)) + np.sum(v)


# (f, args at the special point, first derivative there (closed form; NaN: the derivative does not exist),
#  second derivative there (closed form; None: not checked), a nonzero point for central differences)
ROWS = [
    (fifth_root_of_fifth, (np.array([0.0, 0.5]),), np.array([1.0, 1.0]), None, (np.array([0.3, 0.5]),)),
    (sqrt_of_sixth, (0.0,), 0.0, 0.0, (0.7,)),
    (root_inside_a_sum, (0.0,), 1.0 + CBRT2, 0.0 + 2.0, (-0.6,)),
    (sqrt_of_scaled_fourth, (0.0,), 0.0, 2.0 * SQRT2, (0.7,)),
    (cbrt_of_scaled_cube_product, (0.0,), CBRT2, 0.0, (-1.3,)),
    (sixth_under_a_third, (0.0,), 0.0, 2.0, (0.9,)),
    (sqrt_of_square, (0.0,), 0.0, math.nan, (-0.4,)),  # |x|: abs'(0) = 0, its second derivative NaN
    (cbrt_of_square_product, (0.0,), math.nan, math.nan, (0.8,)),  # a cusp: no derivative
    (sqrt_of_sum_of_even_powers, (0.0, 0.0), 2.0, None, (0.5, -0.4)),
    (cbrt_of_sum_of_fourth_powers, (np.zeros(3),), np.ones(3), None, (np.array([0.3, -0.2, 0.5]),)),
    (mean_of_cbrt_of_cubes, (np.array([0.0, 1.0, -2.0]),), np.full(3, 2.0 / 3.0), None, (np.array([0.4, 1.0, -2.0]),)),
    (cbrt_of_negative_sixth, (np.array([0.0, 1.0]),), np.array([0.0, -2.0 * CBRT2]), None, (np.array([0.3, 1.0]),)),
    (root_of_power_squared_sum, (np.array([0.0, -1.5, 0.0]),), np.array([1.0, -2.0, 1.0]), None,
     (np.array([0.2, -1.5, 0.6]),)),
]
IDS = [row[0].__name__ for row in ROWS]


def _first_order(f, args) -> dict:
    """Each first-order transformation's derivative in the first argument (jvp along ones: summed)."""
    tangents = (np.ones_like(args[0]),) + tuple(None for _ in args[1:])
    return {"grad": srcdiff.grad(f)(*args), "value_and_grad": srcdiff.value_and_grad(f)(*args)[1],
            "vjp": srcdiff.vjp(f, *args)[1](1.0), "jvp": srcdiff.jvp(f, args, tangents)[1],
            "numba": srcdiff.grad(f, jit="numba")(*args)}


def _agrees(got, want) -> bool:
    """Equal to the closed form, NaN exactly where it is NaN."""
    return bool(np.allclose(np.asarray(got, dtype=float), want, rtol=1e-7, atol=1e-9, equal_nan=True))


@pytest.mark.parametrize("f, args, first, second, elsewhere", ROWS, ids=IDS)
def test_first_order_at_the_special_point(f, args, first, second, elsewhere):
    bad = {}
    for name, got in _first_order(f, args).items():
        want = np.sum(first) if name == "jvp" else first
        if not _agrees(got, want):
            bad[name] = got
    assert not bad, f"want {first}, got {bad}"


@pytest.mark.parametrize("f, args, first, second, elsewhere", ROWS, ids=IDS)
def test_first_order_away_from_it(f, args, first, second, elsewhere):
    want = central_difference(f, elsewhere, 0)
    bad = {name: got for name, got in _first_order(f, elsewhere).items()
           if not np.allclose(got, np.sum(want) if name == "jvp" else want, rtol=1e-6, atol=1e-8)}
    assert not bad, f"want {want}, got {bad}"


SECOND = [row for row in ROWS if row[3] is not None]


@pytest.mark.parametrize("row", SECOND, ids=[r[0].__name__ for r in SECOND])
def test_second_order_exact_or_nan(row):
    """The Hessian at the point is the rewritten power's, or NaN or inf where srcdiff cannot prove it (never
    another number); away from it, second central differences."""
    f, args, _, second, elsewhere = row
    got = {"hessian": srcdiff.hessian(f)(*args), "hvp": srcdiff.hvp(f, args[0], 1.0),
           "grad_of_grad": srcdiff.grad(srcdiff.grad(f))(*args)}
    bad = {k: g for k, g in got.items() if np.isfinite(g) and not np.isclose(g, second, rtol=1e-7, atol=1e-9)}
    assert not bad, f"want {second} or NaN (inf), got {bad}"
    if not math.isnan(second) and f is not sqrt_of_sixth:  # (|x| ** 3: the select keeps the honest NaN)
        assert all(np.isclose(g, second) for g in got.values()), got
    away = srcdiff.hessian(f)(*elsewhere)
    assert np.isclose(away, hessian_difference(f, elsewhere), rtol=1e-4, atol=1e-5)


def test_float32_stays_float32_and_exact():
    x = np.array([0.0, 0.5, -1.0], dtype=np.float32)

    def f(v):
        return np.sum(np.sqrt(2.0 * v ** 4)) + np.sum(np.cbrt(v * v * v))
    got = srcdiff.grad(f)(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 2.0 * SQRT2 * np.array([0.0, 0.5, -1.0]) + 1.0, rtol=1e-6)
    numba = srcdiff.grad(f, jit="numba")(x)
    assert numba.dtype == np.float32
    np.testing.assert_allclose(numba, got, rtol=1e-6)
    scalar = srcdiff.grad(cbrt_of_scaled_cube_product)(np.float32(0.0))
    assert np.isclose(scalar, CBRT2, rtol=1e-6), scalar


def test_trees():
    def f(p):
        return np.cbrt(p["a"] ** 3) + np.sum(np.sqrt(p["b"] ** 4))
    p = {"a": 0.0, "b": np.array([0.0, 2.0])}
    got = srcdiff.grad(f)(p)
    assert got["a"] == pytest.approx(1.0)
    np.testing.assert_allclose(got["b"], [0.0, 4.0])
    h = srcdiff.hessian(f)(p)
    np.testing.assert_allclose(h["b"]["b"], np.diag([2.0, 2.0]))


def roots_in_a_loop(x, n):
    t = 0.0
    for i in range(n):
        x = x * 0.5 + 0.1 * i
        t = t + np.cbrt(x * x * x) * (i + 1.0) + np.sqrt(x ** 4 + 2.0 * x ** 6)
    return t


def _loop_at_zero() -> float:
    """d/dx of `roots_in_a_loop` at x = 0, n = 3: x_i = x / 2 ** i + (its constant), the cube root's share
    (i + 1) / 2 ** i, the other term's (x_i ** 2 sqrt(1 + 2 x_i ** 2))' / 2 ** i at x_i = 0, 0.1, 0.25."""
    total, xi = 0.0, 0.0
    for i in range(3):
        xi = xi * 0.5 + 0.1 * i
        root = math.sqrt(1 + 2 * xi * xi)
        total += ((i + 1.0) + 2 * xi * root + 2 * xi ** 3 / root) / 2 ** (i + 1)
    return total


@pytest.mark.parametrize("x", [0.0, 0.3])
def test_roots_in_a_loop(x):
    """In a loop body (the first iteration's x is at 0 when x = 0), with checkpoints, and forward mode."""
    want = _loop_at_zero() if x == 0.0 else central_difference(roots_in_a_loop, (x, 3), 0)
    got = {"grad": srcdiff.grad(roots_in_a_loop)(x, 3), "checkpoint": srcdiff.grad(roots_in_a_loop, checkpoint=1)(x, 3),
           "jvp": srcdiff.jvp(roots_in_a_loop, (x, 3), (1.0, None))[1]}
    assert all(np.isclose(g, want, rtol=1e-7) for g in got.values()), (got, want)


def cbrt_of_a_product_with_a_sine(x):
    return np.cbrt(x * x * np.sin(x))


def test_a_product_that_is_no_power_is_nan_not_zero_in_reverse_mode():
    """``np.cbrt(x * x * sin(x))`` ~ x at 0 (truth 1): no power of one value, so no rewrite; the zero factor no
    longer selects 0 where both factors are 0 and move, so reverse mode gives the honest NaN."""
    assert np.isclose(central_difference(cbrt_of_a_product_with_a_sine, (0.0,), 0), 1.0)
    for name in ("grad", "value_and_grad", "vjp", "numba"):
        got = _first_order(cbrt_of_a_product_with_a_sine, (0.0,))[name]
        assert np.isnan(got) or np.isclose(got, 1.0), (name, got)


def test_a_product_that_is_no_power_in_forward_mode():
    """Forward mode held the root still where its operand's tangent is 0, which a product of moving zeros makes 0
    too (jvp gave 0, truth 1): it holds it only where a factor is not 0, as reverse mode selects."""
    got = srcdiff.jvp(cbrt_of_a_product_with_a_sine, (0.0,), (1.0,))[1]
    assert np.isnan(got) or np.isclose(got, 1.0), got

    def vector(v):
        return np.sum(np.cbrt(2.0 * (v * v) * np.sin(v)))
    v = np.array([0.0, 0.7])
    got = srcdiff.jvp(vector, (v,), (np.ones(2),))[1]
    want = np.sum(central_difference(vector, (np.array([1e-3, 0.7]),), 0))  # (the 0 side: ~ cbrt(2) x, smooth)
    assert np.isnan(got) or np.isclose(got, want, rtol=1e-4), (got, want)

    def masked(x, s):
        return np.sqrt(x * np.maximum(s, 0.0)) + x
    for x in (0.5, 0.0):  # a factor a select holds at 0: exact, even where the other factor is 0 too
        assert srcdiff.jvp(masked, (x, -1.0), (1.0, 1.0))[1] == pytest.approx(1.0)


def cbrt_of_a_sum_of_moving_terms(x):
    return np.cbrt(x ** 3 + x * x * np.sin(x))


def distance(x, y):
    return np.sqrt(x ** 2 + y ** 2)


def test_a_sum_of_stationary_terms_in_forward_mode():
    """``np.cbrt(x ** 3 + x * x * sin(x))`` is cbrt(2) x near 0 (truth cbrt(2)): a sum of terms whose factors are
    all 0 there is stationary, not held; NaN (as reverse mode), never 0.  A distance keeps the kink's 0."""
    assert np.isclose(central_difference(cbrt_of_a_sum_of_moving_terms, (0.0,), 0), CBRT2)
    for got in (srcdiff.jvp(cbrt_of_a_sum_of_moving_terms, (0.0,), (1.0,))[1],
                srcdiff.grad(cbrt_of_a_sum_of_moving_terms)(0.0)):
        assert np.isnan(got) or np.isclose(got, CBRT2), got
    assert srcdiff.jvp(distance, (0.0, 0.0), (1.0, 1.0))[1] == 0.0


def test_a_mask_still_selects_its_zero():
    """The zero factor that is not differentiated (a mask) keeps its exact 0, and so does a mask times a moving
    value that is not 0."""
    def masked(x, m):
        return np.sum(np.sqrt(x * m)) + np.sum(x * x)
    x, m = np.array([0.5, 2.0]), np.array([0.0, 4.0])
    np.testing.assert_allclose(srcdiff.grad(masked)(x, m), [1.0, 4.0 + math.sqrt(4.0) / (2.0 * math.sqrt(2.0))])

    def relu_masked(x, s):
        return np.sqrt(x * np.maximum(s, 0.0)) + x
    assert srcdiff.grad(relu_masked)(0.5, -1.0) == pytest.approx(1.0)


def test_a_fractional_power_raised_again_is_not_held_at_zero():
    """``(x ** 0.25) ** 2`` is sqrt(x), whose slope at 0 is infinite: no 0 held from its zero adjoint."""
    def f(v):
        return np.sum((v ** 0.25) ** 2)
    got = srcdiff.grad(f)(np.array([0.0, 4.0]))
    assert not np.isfinite(got[0]) and np.isclose(got[1], 0.25), got


def cbrt_of_one_minus_cos(x):
    return np.cbrt(1.0 - np.cos(x))


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="forward mode holds a root still where its operand is stationary at 0 through a function "
                          "other than a product or power (1 - cos x): jvp gives 0 at a cusp, reverse mode NaN")
def test_a_root_of_another_stationary_function_in_forward_mode():
    """``np.cbrt(1 - cos x)`` ~ (x ** 2 / 2) ** (1/3) at 0: a cusp, no derivative (one-sided differences grow)."""
    assert np.isnan(srcdiff.grad(cbrt_of_one_minus_cos)(0.0))
    got = srcdiff.jvp(cbrt_of_one_minus_cos, (0.0,), (1.0,))[1]
    assert not np.isfinite(got), got


def hand_norm(x):
    return np.sqrt(np.sum(x * x))


def library_norm(x):
    return np.linalg.norm(x)


def test_a_hand_written_norm_keeps_the_norms_convention_at_zero():
    """``np.sqrt(np.sum(x * x))`` at 0 is a kink: its gradient there is 0, as np.linalg.norm's (a regulariser
    at a zero start), never NaN; the square's two factors are one value, held where it is 0."""
    np.testing.assert_array_equal(srcdiff.grad(hand_norm)(np.zeros(3)), np.zeros(3))
    np.testing.assert_array_equal(srcdiff.grad(hand_norm)(np.zeros(3)), srcdiff.grad(library_norm)(np.zeros(3)))
    x = np.array([3.0, 4.0, 0.0])
    np.testing.assert_allclose(srcdiff.grad(hand_norm)(x), x / 5.0, rtol=1e-15)
