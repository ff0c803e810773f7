"""Second order at kinks (#24): the squares of norm / hypot / std are rewritten to their
smooth identities (exact at every order), and everywhere else the first-order subgradient 0 at
a 0 / 0 differentiates to NaN, never to a silent 0.

References are closed forms written by hand, or float64 central differences."""

import math

import numpy as np
import pytest
from numeric import central_difference

import srcdiff


def numeric_hessian(f, x, eps=1e-5):
    """Central differences of the (hand-written) gradient `f`, column by column."""
    x = np.asarray(x, dtype=float)
    columns = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        columns.append((f((x.ravel() + e).reshape(x.shape)) - f((x.ravel() - e).reshape(x.shape))).ravel() / (2 * eps))
    return np.stack(columns, axis=1)


# ---- (a) squares of kinked functions are their smooth identities: exact at every order ------

def l2_penalty(w):
    return 0.1 * np.linalg.norm(w) ** 2


def row_norms_squared(X):
    return np.sum(np.linalg.norm(X, axis=1) ** 2)


def kept_norms_squared(X):
    return np.sum(np.linalg.norm(X, axis=-1, keepdims=True) ** 2 * np.ones((1, 3)))


def frobenius_squared(M):
    return np.linalg.norm(M, "fro") ** 2 + np.linalg.norm(M) ** 2


def two_norm_squared(w):
    n = np.linalg.norm(w, 2)
    return n ** 2.0


def hypot_squared(p):
    return np.hypot(p[0], p[1]) ** 2 + p[2] * p[2]


def math_hypot_squared(p):
    return math.hypot(p[0], p[1]) ** 2


def std_squared(X):
    return np.sum(np.square(np.std(X, axis=0, ddof=1)))


def norm_times_itself(w):
    n, h = np.linalg.norm(w), np.hypot(w[0], w[1])
    return n * n + h * h


def norm_squared_in_a_branch(w):
    n = np.linalg.norm(w)
    if np.sum(w) >= 0.0:
        return n ** 2  # squared in another block than the norm's: not rewritten
    return 2.0 * n ** 2


SQUARES = [  # (function, point, its Hessian there, written by hand)
    (l2_penalty, np.zeros(3), 0.2 * np.eye(3)),
    (row_norms_squared, np.zeros((2, 2)), 2.0 * np.eye(4)),
    (kept_norms_squared, np.zeros((2, 2)), 6.0 * np.eye(4)),
    (frobenius_squared, np.zeros((2, 2)), 4.0 * np.eye(4)),
    (two_norm_squared, np.zeros(3), 2.0 * np.eye(3)),
    (hypot_squared, np.zeros(3), 2.0 * np.eye(3)),
    (math_hypot_squared, np.zeros(2), 2.0 * np.eye(2)),
    # var with ddof=1 of 3 rows, per column: 2/(n-1) (I - 1/n) in each column's block
    (std_squared, np.ones((3, 1)), (np.eye(3) - 1.0 / 3.0)),
    (norm_times_itself, np.zeros(3), np.diag([4.0, 4.0, 2.0])),
]


@pytest.mark.parametrize("f, x, expected", SQUARES, ids=[s[0].__name__ for s in SQUARES])
def test_the_square_of_a_kink_is_exact_at_the_kink(f, x, expected):
    n = x.size
    np.testing.assert_allclose(np.reshape(srcdiff.hessian(f)(x), (n, n)), expected, atol=1e-12)
    np.testing.assert_allclose(np.reshape(srcdiff.jacobian(srcdiff.grad(f))(x), (n, n)), expected, atol=1e-12)
    hvp = srcdiff.hvp(f, x, np.ones_like(x))
    np.testing.assert_allclose(np.ravel(hvp), expected @ np.ones(n), atol=1e-12)
    assert np.all(srcdiff.grad(f)(x) == 0.0)


@pytest.mark.parametrize("f, x, expected", SQUARES, ids=[s[0].__name__ for s in SQUARES])
def test_the_square_of_a_kink_is_right_away_from_it(f, x, expected):
    rng = np.random.default_rng(7)
    point = x + rng.normal(size=x.shape) + 0.5
    np.testing.assert_allclose(srcdiff.grad(f)(point), central_difference(f, (point,), 0), rtol=1e-6, atol=1e-8)
    n = x.size
    numeric = numeric_hessian(srcdiff.grad(f), point)  # the gradient is checked just above
    np.testing.assert_allclose(np.reshape(srcdiff.hessian(f)(point), (n, n)), numeric, rtol=1e-5, atol=1e-6)


def test_the_rewritten_square_reads_as_the_identity():
    assert "np.where" not in srcdiff.grad(l2_penalty).source
    assert "norm" not in srcdiff.grad(l2_penalty).source.split("# backward")[1].replace("np.linalg.norm(w) ** 2", "")


# ---- (b) elsewhere, the derivative of a kink's subgradient is NaN, never a silent 0 --------

def row_norms(X):
    return np.sum(np.linalg.norm(X, axis=1))


def row_norms_cubed(X):
    return np.sum(np.linalg.norm(X, axis=1) ** 3)


def hypot_sum(a):
    return np.sum(np.hypot(a[:2], a[2:]))


def column_std(X):
    return np.sum(np.std(X, axis=0))


def sinc_sum(x):
    return np.sum(np.sinc(x))


def math_hypot(p):
    return math.hypot(p[0], p[1]) + p[2] ** 2


def row_hessian(x):
    """The Hessian of the norm of a nonzero vector x, by hand: (I - x x^T / |x|^2) / |x|."""
    n = np.linalg.norm(x)
    return (np.eye(x.size) - np.outer(x, x) / n ** 2) / n


def second_orders(f, x):
    """The Hessian three ways: forward over reverse, reverse over reverse, and jvp of grad."""
    n = x.size
    yield np.reshape(srcdiff.hessian(f)(x), (n, n))
    yield np.reshape(srcdiff.jacobian(srcdiff.grad(f))(x), (n, n))
    columns = [srcdiff.jvp(srcdiff.grad(f), (x,), (np.eye(n)[i].reshape(x.shape),))[1] for i in range(n)]
    yield np.stack([np.ravel(c) for c in columns], axis=1)


def test_a_zero_row_of_a_norm_is_nan_and_the_other_rows_are_exact():
    X = np.array([[0.0, 0.0], [0.3, -0.4]])
    for H in second_orders(row_norms, X):
        assert np.isnan(H[:2, :2]).all()
        np.testing.assert_allclose(H[2:, 2:], row_hessian(X[1]), rtol=1e-12)
        mixed = np.concatenate([H[:2, 2:].ravel(), H[2:, :2].ravel()])  # NaN (the zero row's) or exact
        assert np.all(np.isnan(mixed) | (mixed == 0.0))
    np.testing.assert_array_equal(srcdiff.grad(row_norms)(X)[0], 0.0)  # the subgradient 0 at first order


def test_the_cube_of_a_norm_at_zero_is_nan_not_zero_and_exact_elsewhere():
    X = np.array([[0.0, 0.0], [0.3, -0.4]])
    H = np.reshape(srcdiff.hessian(row_norms_cubed)(X), (4, 4))
    assert np.isnan(H[:2, :2]).all()  # the truth (0) exists here; NaN is the documented price
    x, n = X[1], 0.5
    np.testing.assert_allclose(H[2:, 2:], 3.0 * (n * np.eye(2) + np.outer(x, x) / n), rtol=1e-12)


def test_hypot_at_a_zero_pair_is_nan_only_there():
    a = np.array([0.0, 1.0, 0.0, 2.0])  # pairs (0, 0) and (1, 2)
    for H in second_orders(hypot_sum, a):
        assert np.isnan(H[np.ix_([0, 2], [0, 2])]).all()
        r = np.hypot(1.0, 2.0)
        np.testing.assert_allclose(H[np.ix_([1, 3], [1, 3])], np.array([[4.0, -2.0], [-2.0, 1.0]]) / r ** 3,
                                   rtol=1e-12)
        mixed = np.concatenate([H[np.ix_([0, 2], [1, 3])].ravel(), H[np.ix_([1, 3], [0, 2])].ravel()])
        assert np.all(np.isnan(mixed) | (mixed == 0.0))


def test_math_hypot_at_rest_is_nan():
    H = np.reshape(srcdiff.hessian(math_hypot)(np.zeros(3)), (3, 3))
    assert np.isnan(H[:2, :2]).all()
    assert H[2, 2] == 2.0


def test_a_constant_column_of_std_is_nan_a_single_row_is_zero():
    X = np.array([[1.5, 0.2], [1.5, -0.7], [1.5, 1.1]])
    H = np.reshape(srcdiff.hessian(column_std)(X), (6, 6))
    constant, varying = [0, 2, 4], [1, 3, 5]
    assert np.isnan(H[np.ix_(constant, constant)]).all()
    numeric = numeric_hessian(lambda Y: srcdiff.grad(column_std)(Y), X)
    np.testing.assert_allclose(H[np.ix_(varying, varying)], numeric[np.ix_(varying, varying)], rtol=1e-5)
    one_row = np.array([[0.3, -1.2, 2.0]])  # std of one element is identically 0: all its derivatives too
    np.testing.assert_array_equal(srcdiff.hessian(column_std)(one_row), 0.0)


def test_sinc_at_zero_is_exact_at_second_order_too():
    x = np.array([0.0, 0.5])
    for H in second_orders(sinc_sum, x):
        assert H[0, 0] == pytest.approx(-np.pi ** 2 / 3, rel=1e-15)  # sinc''(0), a series near 0
        assert H[0, 1] == 0.0 and H[1, 0] == 0.0
        t = np.pi * 0.5
        second = np.pi ** 2 * (-np.sin(t) / t - 2 * np.cos(t) / t ** 2 + 2 * np.sin(t) / t ** 3)
        np.testing.assert_allclose(H[1, 1], second, rtol=1e-10)


def test_a_square_in_another_block_is_nan_at_zero_never_zero():
    H = np.reshape(srcdiff.hessian(norm_squared_in_a_branch)(np.zeros(3)), (3, 3))
    assert np.isnan(np.diag(H)).all()
    rng = np.random.default_rng(3)
    w = np.abs(rng.normal(size=3))  # the first branch
    np.testing.assert_allclose(np.reshape(srcdiff.hessian(norm_squared_in_a_branch)(w), (3, 3)),
                               2.0 * np.eye(3), rtol=1e-10, atol=1e-14)
