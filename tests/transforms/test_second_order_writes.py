"""Second order through what first-order code writes (#23, #24): a scan's reversed adjoint
(np.cumsum), a number read back whole from a 0-d array (``out[()]``), and pullbacks called
again through helpers whose adjoints pop loop stacks.  Each was a crash; each is checked
against closed forms or central differences of a gradient itself checked against f's."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff


def numeric_hessian(grad, x, eps=1e-5):
    columns = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        plus, minus = (x.ravel() + e).reshape(x.shape), (x.ravel() - e).reshape(x.shape)
        columns.append(np.ravel(grad(plus) - grad(minus)) / (2 * eps))
    return np.stack(columns, axis=1)


def checked_hessian(f, x, *rest):
    """The Hessian of f in x by central differences of srcdiff's gradient, once that gradient
    agrees with central differences of f."""
    grad = srcdiff.grad(f)
    np.testing.assert_allclose(grad(x, *rest), central_difference(f, (x, *rest), 0), rtol=1e-6, atol=1e-8)
    return numeric_hessian(lambda y: grad(y, *rest), x)


# ---- np.cumsum: the generated code read an adjoint it never assigned -----------------------

def cumsum_weighted(x, w):
    return np.sum(np.cumsum(x) * w)


def cumsum_rows_cubed(X):
    return np.sum(np.cumsum(X, axis=1) ** 3)


def cumsum_method_sin(X):
    return np.sum(np.sin(X.cumsum(axis=0)))


def cumsum_of_reversed(x):
    return np.sum(np.cumsum(x[::-1]) ** 2)


@pytest.mark.parametrize("f, x", [
    (cumsum_rows_cubed, np.array([[0.3, -0.2, 0.5], [0.9, 0.4, -1.1]])),
    (cumsum_method_sin, np.array([[0.3, -0.2], [0.9, 0.4], [-0.6, 1.2]])),
    (cumsum_of_reversed, np.array([0.3, -0.2, 0.9, 1.4])),
], ids=lambda v: getattr(v, "__name__", None))
def test_the_hessian_through_cumsum(f, x):
    n = x.size
    expected = checked_hessian(f, x)
    np.testing.assert_allclose(np.reshape(srcdiff.hessian(f)(x), (n, n)), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.reshape(srcdiff.jacobian(srcdiff.grad(f))(x), (n, n)), expected,
                               rtol=1e-5, atol=1e-6)


def test_a_linear_scan_has_a_zero_hessian_and_its_weights_the_cross_terms():
    x, w = np.ones((3, 4)), np.arange(12.0)
    np.testing.assert_array_equal(srcdiff.hessian(cumsum_weighted)(x, w), 0.0)
    # d/dw of the gradient in x: x_bar[i] = sum_{j >= i} w[j] (x raveled), so d x_bar[i] / d w[j] = [j >= i]
    cross = srcdiff.jacobian(srcdiff.grad(cumsum_weighted), wrt=1)(x, w)
    np.testing.assert_array_equal(np.reshape(cross, (12, 12)), np.triu(np.ones((12, 12))))


# ---- a 0-d array written whole, read back as a number ---------------------------------------

def writes_zero_d(x):
    out = np.zeros(())
    out[()] = x[0] * 3.0
    return out * x[1]


def writes_zero_d_ellipsis(x):
    out = np.zeros(())
    out[...] = np.sin(x[0])
    return out * x[1] + x[2] ** 2


def zero_d_accumulated(x):
    acc = np.zeros(())
    acc[()] = np.sum(x * x)
    return acc[()] * x[0]


@pytest.mark.parametrize("f, expected", [
    (writes_zero_d, lambda x: np.array([[0, 3, 0], [3, 0, 0], [0, 0, 0.0]])),
    (writes_zero_d_ellipsis, lambda x: np.array([[-np.sin(x[0]) * x[1], np.cos(x[0]), 0],
                                                 [np.cos(x[0]), 0, 0], [0, 0, 2.0]])),
    (zero_d_accumulated, lambda x: 2 * np.diag(np.full(3, x[0])) + 2 * (np.outer(np.eye(3)[0], x)
                                                                         + np.outer(x, np.eye(3)[0]))),
], ids=lambda v: getattr(v, "__name__", None))
def test_the_hessian_through_a_zero_d_write(f, expected):
    x = np.array([0.3, -0.2, 0.9])
    np.testing.assert_allclose(srcdiff.hessian(f)(x), expected(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(srcdiff.jacobian(srcdiff.grad(f))(x), expected(x), rtol=1e-12, atol=1e-14)


# ---- a pullback called again through a helper whose adjoint pops a loop stack ---------------

def damped(x, n):
    y = x
    for _ in range(n):
        y = np.sin(y) + 0.5 * y
        if np.sum(y) > 100.0:
            break
    return y


def two_calls(x):
    return damped(x, 3) * 2.0 + damped(x * 0.5, 2)


def summed_calls(x):
    return np.sum(damped(x, 4) ** 2)


@pytest.mark.parametrize("f", [two_calls, summed_calls])
def test_a_pullback_called_three_times_gives_the_same_answer(f):
    x = np.array([0.3, -0.2, 0.9])
    value, pullback = srcdiff.vjp(f, x)
    for seed in (1.0, -0.5, 2.0):
        g = np.full(np.shape(value), seed) if np.ndim(value) else seed
        expected = central_difference(lambda y, g=g: np.sum(f(y) * g), (x,), 0)
        np.testing.assert_allclose(pullback(g), expected, rtol=1e-6, atol=1e-8)
