"""What docs/higher-order.md says works, and is refused, when a gradient is differentiated again.

References: central differences of srcdiff's first gradient (itself checked against central
differences of f throughout the suite)."""

import numpy as np
import pytest

import srcdiff

A = np.array([[2.0, 0.3, 0.1], [0.2, 1.5, -0.4], [0.0, 0.5, 3.0]])
B = np.array([1.0, -2.0, 0.5])


def inv(t):
    return np.sum(np.linalg.inv(A * t + np.eye(3)))


def maximum2(t):
    return np.sum(np.maximum(B * t, np.sin(B * t)) ** 2)


def max_keepdims(x):
    m = np.max(x ** 2, keepdims=True)
    return m[0] * np.sum(x)


def det(t):
    return np.linalg.det(A * t + np.eye(3))


def solve(t):
    return np.sum(np.linalg.solve(A * t + np.eye(3), B * t))


def nested(x):
    s = 0.0
    for i in range(3):
        for j in range(2):
            s = s + np.sin(x * i + j)
    return s


@pytest.mark.parametrize("f", [inv, maximum2, det, solve])
@pytest.mark.parametrize("t", [0.7, -0.4])
def test_what_works_at_second_order(f, t):
    g = srcdiff.grad(f)
    expected = (g(t + 1e-5) - g(t - 1e-5)) / 2e-5
    np.testing.assert_allclose(srcdiff.grad(srcdiff.grad(f))(t), expected, rtol=1e-5)
    np.testing.assert_allclose(srcdiff.hessian(f)(t), expected, rtol=1e-5)


def test_max_keepdims_read_by_index_works_at_second_order():
    x = np.array([0.3, -0.7, 1.1])
    g = srcdiff.grad(max_keepdims)
    expected = np.array([(g(x + 1e-5 * e) - g(x - 1e-5 * e)) / 2e-5 for e in np.eye(3)])
    np.testing.assert_allclose(srcdiff.hessian(max_keepdims)(x), expected, rtol=1e-5, atol=1e-6)


def test_a_nested_loop_has_a_second_derivative():  # once refused
    t, h = 0.7, 1e-4
    expected = (nested(t + h) - 2 * nested(t) + nested(t - h)) / (h * h)
    assert srcdiff.grad(srcdiff.grad(nested))(t) == pytest.approx(expected, rel=1e-5, abs=1e-6)
