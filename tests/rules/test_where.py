"""The branch of ``np.where`` that is not taken gets an exact zero adjoint, never 0 * inf.

JAX, autograd and PyTorch return NaN for ``where(x > 0, sqrt(x), 0)`` at x < 0: the adjoint
of the untaken branch is 0, and 0 times sqrt's infinite (or NaN) derivative is NaN.  srcdiff
sees the whole program, so it keeps the zero exact down the untaken branch's chain.
"""

import math
import warnings

import numpy as np
import pytest
from modules import import_source
from numeric import central_difference

import srcdiff

SOURCE = '''
import numpy as np


def sqrt_where(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def softplus(x):
    return np.sum(np.where(x < 30, np.log1p(np.exp(x)), x))


def pairwise(P):
    d = P[:, None, :] - P[None, :, :]
    r2 = np.sum(d * d, axis=-1)
    return np.sum(np.where(r2 > 0, np.sqrt(r2), 0.0))


def safe_log(x):
    return np.where(x > 0.0, np.log(x), 0.0) * 3.0


def nested(x):
    y = np.where(x > -1.0, np.where(x > 0.0, np.sqrt(x) * x, np.log1p(x)), 0.0)
    return np.sum(y * y)


def both_branches_read_x(x, w):
    a = np.where(x > 0, np.log(x) * w, x * w)
    return np.sum(a * a)


def broadcast_condition(x, c):
    return np.sum(np.where(c > 0, np.sqrt(x), -x))


def small_branch(x, c):
    return np.sum(np.where(c > 0, np.sqrt(x), 1.0))


def in_a_loop(x):
    total = 0.0
    for i in range(3):
        total = total + np.sum(np.where(x > i, np.sqrt(x - i), 0.0))
    return total
'''


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("where"), SOURCE, "where_model")


def _exact(f, *args, wrt=0, expected=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the forward sweep's own sqrt(-1)
        got = srcdiff.grad(f, wrt=wrt)(*args)
        if expected is None:
            expected = central_difference(f, args, wrt)
    assert np.all(np.isfinite(got)), got
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
    return got


def test_sqrt_below_zero_has_zero_gradient(m):
    x = np.array([-1.0, 0.5, 2.0, -3.0])
    got = _exact(m.sqrt_where, x, expected=[0.0, 0.5 / math.sqrt(0.5), 0.5 / math.sqrt(2.0), 0.0])
    assert got[0] == 0.0 and got[3] == 0.0  # exactly, not a tiny number


def test_softplus_overflow_branch_not_taken(m):
    x = np.array([800.0, 1.0, -2.0])
    _exact(m.softplus, x, expected=[1.0, 1 / (1 + math.exp(-1.0)), 1 / (1 + math.exp(2.0))])


def test_pairwise_distance_with_zero_diagonal(m):
    P = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    _exact(m.pairwise, P)


@pytest.mark.parametrize("x", [0.0, -2.0])
def test_safe_log_as_in_the_jax_faq_on_python_floats(m, x):
    got = _exact(m.safe_log, x, expected=0.0)
    assert got == 0.0


def test_safe_log_where_it_is_taken(m):
    _exact(m.safe_log, 2.0, expected=1.5)


def test_nested_selections(m):
    x = np.array([-3.0, -0.5, 0.5, 2.0])
    _exact(m.nested, x)


def test_both_branches_read_the_same_input(m):
    x, w = np.array([-1.0, 0.5, 2.0, -3.0]), np.array([0.3, -1.2, 0.7, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        gx, gw = srcdiff.grad(m.both_branches_read_x, wrt=(0, 1))(x, w)
        expected = [central_difference(m.both_branches_read_x, (x, w), i) for i in (0, 1)]
    np.testing.assert_allclose(gx, expected[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, expected[1], rtol=1e-6, atol=1e-8)


def test_condition_broadcast_against_the_branch(m):
    x = np.array([[1.0, 2.0, 3.0], [0.5, 0.25, 4.0]])
    c = np.array([[1.0], [-1.0]])
    _exact(m.broadcast_condition, x, c)


def test_branch_smaller_than_the_selection(m):
    x = np.array([1.0, 2.0, 3.0])
    c = np.array([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]])
    _exact(m.small_branch, x, c)


def test_inside_a_loop(m):
    x = np.array([-1.0, 0.5, 1.5, 2.5])
    _exact(m.in_a_loop, x)


def test_generated_code_selects_with_known_shapes(m):
    source = srcdiff.grad(m.sqrt_where).source_for(np.ones(3))
    assert "keep_where(x > 0, 1.0 / (2.0 * np.sqrt(x)))" in source and "select(" not in source, source


FINAL_SOURCE = '''
import numpy as np


def single_condition_over_a_sum(x):
    return np.where(x[0] > 0, np.sum(np.sqrt(x)), 0.0)


def reduced_condition(x):
    return np.where(np.sum(x) > 0, np.sum(np.sqrt(x)), np.sum(x ** 2))
'''


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("where_single"), FINAL_SOURCE, "where_single")


def test_a_single_condition_zeroes_through_a_reduction(single):
    _exact(single.single_condition_over_a_sum, np.array([-1.0, 1.0]), expected=[0.0, 0.0])
    _exact(single.single_condition_over_a_sum, np.array([1.0, 4.0]), expected=[0.5, 0.25])


def test_a_reduced_condition_zeroes_the_branch_not_taken(single):
    x = np.array([-1.0, 0.2, -0.3])
    _exact(single.reduced_condition, x, expected=2.0 * x)
