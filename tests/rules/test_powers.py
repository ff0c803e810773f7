"""Powers are exact at their special points: x ** 0 at x = 0, integer powers at 0, 0 ** y in y.

The textbook rule ``y * x ** (y - 1)`` is 0 * inf (NaN, or ZeroDivisionError on floats) for
x ** 0 at x = 0, and ``x ** y * log(x)`` is 0 * -inf for d/dy at x = 0; the true derivatives
are 0.
"""

import warnings

import numpy as np
import pytest
from modules import import_source
from numeric import central_difference

import srcdiff

SOURCE = '''
import numpy as np


def polynomial(x, c):
    total = 0.0
    for k in range(len(c)):
        total = total + c[k] * x ** k
    return total


def polynomial_array(x, c):
    total = np.zeros_like(x)
    for k in range(len(c)):
        total = total + c[k] * x ** k
    return np.sum(total)


def zeroth_power(x):
    return x ** 0 + x


def zeroth_power_sum(x):
    return np.sum(x ** 0 + x)


def float_zeroth_power(x):
    return x ** 0.0 * 3.0 + x


def sum_of_powers(x, p):
    return np.sum(x ** p)


def numpy_power(x, k):
    return np.sum(np.power(x, k))


def odd_power(x):
    return x ** 3


def negative_power(x):
    return np.sum(x ** -2)
'''


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("powers"), SOURCE, "powers_model")


def _grad(f, *args, wrt=0):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no 0 * inf on the way
        return srcdiff.grad(f, wrt=wrt)(*args)


@pytest.mark.parametrize("x", [0.0, 1.5, -0.7])
def test_polynomial_in_a_loop(m, x):
    c = np.array([2.0, -3.0, 0.5, 4.0])
    expected = sum(k * c[k] * x ** (k - 1) for k in range(1, len(c)))
    assert _grad(m.polynomial, x, c) == pytest.approx(expected)


def test_polynomial_at_zero_entries_of_an_array(m):
    x, c = np.array([0.0, 1.0, -2.0]), np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(_grad(m.polynomial_array, x, c), 2.0 + 6.0 * x)


def test_polynomial_coefficients(m):
    x, c = np.array([0.0, 1.0, -2.0]), np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(_grad(m.polynomial_array, x, c, wrt=1),
                               central_difference(m.polynomial_array, (x, c), 1), atol=1e-7)


@pytest.mark.parametrize("f", ["zeroth_power", "float_zeroth_power"])
def test_zeroth_power_of_zero(m, f):
    got = _grad(getattr(m, f), 0.0)
    assert got == 1.0 and type(got) is float


def test_zeroth_power_of_a_zero_array(m):
    np.testing.assert_array_equal(_grad(m.zeroth_power_sum, np.zeros(3)), np.ones(3))


def test_exponent_gradient_where_the_base_is_zero(m):
    x, p = np.array([0.0, 0.5, 2.0]), 1.7
    got = _grad(m.sum_of_powers, x, p, wrt=1)
    assert got == pytest.approx(np.sum(x[1:] ** p * np.log(x[1:])))


def test_base_gradient_with_an_array_of_exponents(m):
    x, k = np.array([0.0, 0.0, 2.0, -1.5]), np.array([0.0, 2.0, 3.0, 2.0])
    np.testing.assert_allclose(_grad(m.numpy_power, x, k), [0.0, 0.0, 12.0, -3.0])


def test_integer_power_of_a_negative_number(m):
    assert _grad(m.odd_power, -2.0) == pytest.approx(12.0)


def test_negative_power_away_from_zero(m):
    x = np.array([0.5, -2.0, 3.0])
    np.testing.assert_allclose(_grad(m.negative_power, x), -2.0 * x ** -3)


def test_constant_exponents_fold_to_plain_code(m):
    source = srcdiff.grad(m.odd_power).source_for(2.0)
    assert "==" not in source and "x * x" in source
