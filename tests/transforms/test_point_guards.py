"""A point an equality with a number singles out: ``np.where(x == 0.0, c, f(x))``.

There the program defines its value by itself, and the derivative is the continuation's
through the other branch, which srcdiff cannot see (the sinc's first derivative is 0, the
guarded ``expm1(x) / x``'s is 1/2, the constant's derivative would say 0 for both).  Every
transformation gives NaN there, for directions that move the guarded value, and the exact
derivative everywhere else (docs/guarantees.md, "An equality guard").
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff


def sinc_double_where(x):
    safe = np.where(x == 0.0, 1.0, x)
    return np.sum(np.where(x == 0.0, 1.0, np.sin(safe) / safe))


def exprel_guarded(x):
    s = np.where(x == 0, 1.0, x)
    return np.sum(np.where(x == 0, 1.0, np.expm1(s) / s) * np.arange(1.0, 1.0 + x.size))


def guard_written_not_equal(x):
    s = np.where(0.0 != x, x, 1.0)
    return np.sum(np.where(x != 0.0, (1.0 - np.cos(s)) / s ** 2, 0.5) ** 2)


def guard_at_minus_one(x):
    d = np.where(x == -1.0, 1.0, x + 1.0)
    return np.sum(np.where(x == -1.0, 1.0, np.log1p(d) / d))


GUARDED = [sinc_double_where, exprel_guarded, guard_written_not_equal]
POINTS = {guard_at_minus_one: -1.0}


def point(f):
    return POINTS.get(f, 0.0)


def test_every_first_order_transformation_is_nan_at_the_guarded_point_only():
    for f in GUARDED + [guard_at_minus_one]:
        x = np.array([point(f), 0.7, -1.3])
        away = x.copy()
        away[0] += 0.31
        expected = central_difference(f, (x,), 0)[1:]
        for got in (srcdiff.grad(f)(x), srcdiff.value_and_grad(f)(x)[1], srcdiff.vjp(f, x)[1](1.0),
                    srcdiff.grad(f, jit="numba")(x)):
            assert np.isnan(got[0]), f.__name__
            np.testing.assert_allclose(got[1:], expected, rtol=1e-6, atol=1e-8)
        _, tangent = srcdiff.jvp(f, (x,), (np.array([1.0, 0.0, 0.0]),))
        assert np.isnan(tangent), f.__name__
        _, tangent = srcdiff.jvp(f, (x,), (np.array([0.0, 1.0, -2.0]),))  # does not move x[0]
        np.testing.assert_allclose(tangent, expected @ np.array([1.0, -2.0]), rtol=1e-6)
        np.testing.assert_allclose(srcdiff.grad(f)(away), central_difference(f, (away,), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", GUARDED, ids=lambda f: f.__name__)
def test_second_order_is_nan_where_it_moves_the_guarded_value_and_exact_elsewhere(f):
    x = np.array([0.0, 0.7, -1.3])
    expected = hessian_difference(f, (x,))
    for H in (srcdiff.hessian(f)(x), np.stack([srcdiff.hvp(f, x, e) for e in np.eye(3)])):
        assert np.isnan(H[0, 0])
        np.testing.assert_allclose(H[1:, 1:], expected[1:, 1:], rtol=1e-4, atol=1e-6)
    away = np.array([0.2, 0.7, -1.3])
    np.testing.assert_allclose(srcdiff.hessian(f)(away), hessian_difference(f, (away,)), rtol=1e-4, atol=1e-6)


def guard_on_data(x, y):
    return np.sum(np.where(y == 0.0, 0.0, x * np.log(np.where(y == 0.0, 1.0, y))))


def guard_not_reaching_the_output(x):
    s = np.where(x == 0.0, 1.0, x)
    return np.where(x == 0.0, 1.0, np.sin(s) / s)[1]


def guard_whose_adjoint_is_zero(x):
    w = np.where(x != 0.0, x * np.sin(x), 0.0)
    return np.sum(w ** 2)  # d/dw = 2w = 0 at the guarded point


@pytest.mark.parametrize("f, args, wrt", [
    (guard_on_data, (np.array([0.5, 1.5, -2.0]), np.array([0.0, 2.0, 3.0])), 0),
    (guard_not_reaching_the_output, (np.array([0.0, 0.7, -1.3]),), 0),
    (guard_whose_adjoint_is_zero, (np.array([0.0, 0.7, -1.3]),), 0),
], ids=["data", "not_reaching", "zero_adjoint"])
def test_no_nan_where_nothing_moves_through_the_guard(f, args, wrt):
    expected = central_difference(f, args, wrt)
    for got in (srcdiff.grad(f, wrt=wrt)(*args), srcdiff.grad(f, wrt=wrt, jit="numba")(*args)):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def test_float32_keeps_its_dtype_and_the_nan():
    x = np.array([0.0, 0.7, -1.3], np.float32)
    got = srcdiff.grad(guard_written_not_equal)(x)
    assert got.dtype == np.float32 and np.isnan(got[0]) and np.all(np.isfinite(got[1:]))


def test_the_gradient_reads_the_guard_where_it_differentiates_it_and_nowhere_else():
    source = srcdiff.grad(sinc_double_where).source
    assert "guard_nan(x == 0.0" in source and "point_guard(" not in source  # the value needs no guard
    assert "point_guard(" not in srcdiff.grad(branch_on_a_static_count).source


def sinc_written_with_if(x):
    if x == 0.0:
        return 1.0
    return math.sin(x) / x


def exprel_written_with_if_not(x):
    if x != 0.0:
        y = math.expm1(x) / x
    else:
        y = 1.0
    return 2.0 * y


def branch_on_a_static_count(x, k):
    if k == 0:
        return x * 2.0
    return x * 3.0


@pytest.mark.parametrize("f", [sinc_written_with_if, exprel_written_with_if_not], ids=lambda f: f.__name__)
def test_an_if_on_an_equality_is_nan_at_its_point_and_exact_elsewhere(f):
    assert np.isnan(srcdiff.grad(f)(0.0)) and np.isnan(srcdiff.jvp(f, (0.0,), (1.0,))[1])
    assert np.isnan(srcdiff.hessian(f)(0.0))
    for x in (0.5, -1.25):
        np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6)
        np.testing.assert_allclose(srcdiff.hessian(f)(x), hessian_difference(lambda t: f(float(t[0])),
                                                                            (np.array([x]),))[0, 0], rtol=1e-4)


def test_an_equality_on_a_value_without_gradient_changes_nothing():
    assert srcdiff.grad(branch_on_a_static_count)(1.0, 0) == 2.0
    assert srcdiff.grad(branch_on_a_static_count)(1.0, 2) == 3.0
