"""Kinks that cancel are exact (#24): at a tie, maximum / minimum / fmax / fmin / builtin
max and min / clip at a bound give each operand half the adjoint (as JAX and PyTorch do),
and abs keeps sign(0) = 0, so every linear combination of them is exact wherever it is smooth
(stable BCE and softplus at a zero logit, max(x, 0) + min(x, 0) = x, huber written with clip).
Second derivatives at a tie are NaN (the share jumps there), never a silent number; even
powers of abs are lowered as powers of x, exact at every order.

References are derivatives written by hand (closed forms) or float64 central differences."""

import math

import numpy as np
import pytest
from numeric import central_difference

import srcdiff


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


# ---- programs written with kinks that cancel, and their derivatives by hand ----------------

def bce(z, y):
    return np.sum(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z))))


def softplus(x):
    return np.sum(np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x))))


def identity_by_halves(x):
    return np.sum(np.maximum(x, 0) + np.minimum(x, 0))


def hinge_squared(x, y):
    return np.sum(np.maximum(1.0 - y * x, 0.0) ** 2)


def huber_clip(r):
    c = np.clip(r, -1.0, 1.0)
    return np.sum(0.5 * c ** 2 + (np.abs(r) - np.abs(c)))


def huber_minimum(r):
    a = np.abs(r)
    q = np.minimum(a, 1.0)
    return np.sum(0.5 * q * q + (a - q))


def clip_and_rest(x):  # = x: clip plus what it cut off
    return np.sum(np.clip(x, -1.0, 1.0) + np.minimum(x + 1.0, 0.0) + np.maximum(x - 1.0, 0.0))


def fmax_fmin(x, y):  # = x + y
    return np.sum(np.fmax(x, y) + np.fmin(x, y))


def abs_by_halves(x):  # = |x| + x: the sign's 0 and the ties' halves agree
    return np.sum(np.abs(x) + np.maximum(x, 0.0) + np.minimum(x, 0.0))


CASES = [  # (function, argument, other arguments, its gradient by hand)
    (bce, np.array([0.0, 0.0, 1.5, -2.0]), (np.array([0.0, 0.3, 1.0, 0.7]),),
     lambda z, y: sigmoid(z) - y),
    (softplus, np.array([0.0, -0.0, 2.0, -1.0]), (), lambda x: sigmoid(x)),
    (identity_by_halves, np.array([0.0, 1.0, -1.0]), (), lambda x: np.ones_like(x)),
    (hinge_squared, np.array([1.0, 0.5, 2.0, -1.0]), (np.array([1.0, 1.0, 1.0, -1.0]),),
     lambda x, y: -2.0 * np.maximum(1.0 - y * x, 0.0) * y),
    (huber_clip, np.array([1.0, -1.0, 0.0, 0.5, 3.0, -2.0]), (), lambda r: np.clip(r, -1.0, 1.0)),
    (huber_minimum, np.array([1.0, -1.0, 0.0, 0.5, 3.0, -2.0]), (), lambda r: np.clip(r, -1.0, 1.0)),
    (clip_and_rest, np.array([1.0, -1.0, 0.0, 2.0, -3.0]), (), lambda x: np.ones_like(x)),
    (fmax_fmin, np.array([0.5, 1.0, -2.0]), (np.array([0.5, 0.0, -2.0]),), lambda x, y: np.ones_like(x)),
    (abs_by_halves, np.array([0.0, 2.0, -2.0]), (), lambda x: np.sign(x) + 1.0),
]
IDS = [c[0].__name__ for c in CASES]


@pytest.mark.parametrize("f, x, rest, exact", CASES, ids=IDS)
def test_grad_and_value_and_grad_are_exact_at_the_ties(f, x, rest, exact):
    expected = exact(x, *rest)
    np.testing.assert_allclose(srcdiff.grad(f)(x, *rest), expected, rtol=1e-14, atol=1e-15)
    value, gradient = srcdiff.value_and_grad(f)(x, *rest)
    assert value == pytest.approx(f(x, *rest), rel=1e-14)
    np.testing.assert_allclose(gradient, expected, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("f, x, rest, exact", CASES, ids=IDS)
def test_jvp_and_vjp_are_exact_at_the_ties(f, x, rest, exact):
    expected = exact(x, *rest)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = 1.0
        _, tangent = srcdiff.jvp(f, (x, *rest), (e, *[np.zeros_like(r) for r in rest]))
        assert tangent == pytest.approx(expected[i], abs=1e-14), i
    _, pullback = srcdiff.vjp(f, x, *rest)
    np.testing.assert_allclose(pullback(1.0), expected, atol=1e-14)


@pytest.mark.parametrize("f, x, rest, exact", CASES, ids=IDS)
def test_numba_tree_and_float32_are_exact_at_the_ties(f, x, rest, exact):
    expected = exact(x, *rest)
    np.testing.assert_allclose(srcdiff.grad(f, jit="numba")(x, *rest), expected, rtol=1e-14, atol=1e-15)

    def tree(p):
        return f(p["x"])

    def tree2(p):
        return f(p["x"], p["y"])
    params = {"x": x, "y": rest[0]} if rest else {"x": x}
    np.testing.assert_allclose(srcdiff.grad(tree2 if rest else tree)(params)["x"], expected, rtol=1e-14, atol=1e-15)
    single = srcdiff.grad(f)(x.astype(np.float32), *[r.astype(np.float32) for r in rest])
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f, x, rest, exact", CASES, ids=IDS)
def test_away_from_the_ties_against_central_differences(f, x, rest, exact):
    point = x + np.linspace(0.11, 0.37, x.size)
    numeric = central_difference(f, (point, *rest), 0)
    np.testing.assert_allclose(srcdiff.grad(f)(point, *rest), numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(exact(point, *rest), numeric, rtol=1e-6, atol=1e-8)  # the reference itself


def test_relu_at_zero_is_one_half_in_every_spelling():
    x = np.array([0.0, 1.0, -1.0])
    half = np.array([0.5, 1.0, 0.0])
    np.testing.assert_array_equal(srcdiff.grad(lambda v: np.sum(np.maximum(v, 0.0)))(x), half)
    np.testing.assert_array_equal(srcdiff.grad(lambda v: np.sum(np.maximum(0.0, v)))(x), half)
    np.testing.assert_array_equal(srcdiff.grad(lambda v: np.sum(np.fmax(v, 0.0)))(x), half)
    np.testing.assert_array_equal(srcdiff.grad(lambda v: np.sum(np.clip(v, 0.0, None)))(x), half)
    np.testing.assert_array_equal(srcdiff.grad(lambda v: np.sum(-np.minimum(-v, 0.0)))(x), half)
    assert srcdiff.grad(lambda v: max(v, 0.0))(0.0) == 0.5
    assert srcdiff.grad(lambda v: max(v, 0.0), jit="numba")(0.0) == 0.5


# ---- builtin max / min on numbers ----------------------------------------------------------

def builtin_halves(x, y):  # = x + y
    return max(x, y) + min(x, y)


def builtin_relu_pair(x):  # = x
    return max(x, 0.0) + min(0.0, x)


def builtin_softplus(x):
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def test_builtin_max_and_min_share_a_tie():
    for x, y in [(0.7, 0.7), (0.0, 0.0), (1.0, -2.0), (-3.0, 1.0)]:
        assert srcdiff.grad(builtin_halves, wrt=(0, 1))(x, y) == (1.0, 1.0)
        _, tangent = srcdiff.jvp(builtin_halves, (x, y), (1.0, 0.0))
        assert tangent == 1.0
        assert srcdiff.grad(builtin_halves, wrt=(0, 1), jit="numba")(x, y) == (1.0, 1.0)
    assert srcdiff.grad(builtin_relu_pair)(0.0) == 1.0
    assert srcdiff.grad(builtin_softplus)(0.0) == 0.5
    assert isinstance(srcdiff.grad(builtin_softplus)(0.0), float)
    assert srcdiff.grad(builtin_softplus)(1.3) == pytest.approx(sigmoid(1.3), rel=1e-14)
    assert srcdiff.grad(lambda x, y: max(x, y), wrt=(0, 1))(2.0, 2.0) == (0.5, 0.5)


def test_the_side_not_taken_stays_exactly_zero_when_the_gradient_is_inf():
    # the adjoint reaching maximum is inf at x = 0; the operand that does not hold the value gets 0, not NaN
    def f(x):
        return np.sum(np.sqrt(np.maximum(x, 0.0)))
    with np.errstate(all="ignore"):
        g = srcdiff.grad(f)(np.array([-1.0, 4.0]))
    np.testing.assert_array_equal(g, [0.0, 0.25])


# ---- broadcasting ties and bounds as operands ----------------------------------------------

def broadcast_halves(X, b):  # = X + b, b broadcast over the rows
    return np.sum(np.maximum(X, b[None, :]) + np.minimum(X, b))


def clip_bounds(x, lo, hi):  # = x + lo + hi where lo < hi
    return np.sum(np.clip(x, lo, hi) + np.minimum(x, lo) + np.maximum(x, hi))


def test_broadcast_ties_share_and_sum_back():
    X = np.array([[0.0, 1.0, 2.0], [3.0, 1.0, -1.0]])
    b = np.array([0.0, 1.0, 5.0])  # ties in X's first row, and at (1, 1)
    gX, gb = srcdiff.grad(broadcast_halves, wrt=(0, 1))(X, b)
    np.testing.assert_array_equal(gX, np.ones_like(X))
    np.testing.assert_array_equal(gb, [2.0, 2.0, 2.0])
    gX, gb = srcdiff.grad(broadcast_halves, wrt=(0, 1), jit="numba")(X, b)
    np.testing.assert_array_equal(gb, [2.0, 2.0, 2.0])
    _, tangent = srcdiff.jvp(broadcast_halves, (X, b), (np.zeros_like(X), np.ones_like(b)))
    assert tangent == 6.0


def test_clip_at_array_bounds_shares_with_the_bound():
    x = np.array([0.0, 1.0, 0.5, -2.0, 3.0])
    lo, hi = np.zeros(5), np.ones(5)
    for gradient in srcdiff.grad(clip_bounds, wrt=(0, 1, 2))(x, lo, hi):
        np.testing.assert_array_equal(gradient, np.ones(5))
    g = srcdiff.grad(lambda v, a, b: np.sum(np.clip(v, a, b)), wrt=(0, 1, 2))(x, lo, hi)
    np.testing.assert_array_equal(g[0], [0.5, 0.5, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(g[1], [0.5, 0.0, 0.0, 1.0, 0.0])
    np.testing.assert_array_equal(g[2], [0.0, 0.5, 0.0, 0.0, 1.0])


# ---- second order at a tie: exact where rewritten, else NaN, never a silent number ---------

def abs_squared(x):
    return np.sum(np.abs(x) ** 2)


def abs_powers(x):
    return np.sum(np.abs(x) ** 4) + abs(x[0]) ** 2.0 + np.square(np.fabs(x[1]))


def test_even_powers_of_abs_are_exact_at_every_order():
    x = np.array([0.0, 0.0, 1.5])
    np.testing.assert_array_equal(srcdiff.hessian(abs_squared)(x), 2.0 * np.eye(3))
    np.testing.assert_array_equal(srcdiff.hvp(abs_squared, x, np.ones(3)), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(srcdiff.hessian(abs_powers)(x), np.diag([2.0, 2.0, 12.0 * 1.5 ** 2]), rtol=1e-14)
    assert srcdiff.grad(srcdiff.grad(lambda v: abs(v) ** 2))(0.0) == 2.0
    assert srcdiff.grad(srcdiff.grad(lambda v: math.fabs(v) ** 2))(0.0) == 2.0


def second_orders(f, x):
    """The Hessian three ways: forward over reverse, reverse over reverse, and hvp per column."""
    n = x.size
    yield srcdiff.hessian(f)(x)
    yield srcdiff.jacobian(srcdiff.grad(f))(x)
    yield np.stack([srcdiff.hvp(f, x, np.eye(n)[i]) for i in range(n)], axis=1)


def abs_cubed(x):
    return np.sum(np.abs(x) ** 3)


def abs_sum(x):
    return np.sum(np.abs(x))


SECOND = [  # (function, point with ties at `tied`, the Hessian's diagonal by hand off the ties)
    (softplus, np.array([0.0, 2.0, -1.0]), [0], lambda x: sigmoid(x) * (1.0 - sigmoid(x))),
    (identity_by_halves, np.array([0.0, 1.0, -1.0]), [0], lambda x: np.zeros_like(x)),
    (huber_clip, np.array([1.0, 0.5, 3.0]), [0], lambda r: (np.abs(r) < 1.0) * 1.0),
    (abs_cubed, np.array([0.0, 2.0, -1.0]), [0], lambda x: 6.0 * np.abs(x)),  # the truth (0) exists at 0
    (abs_sum, np.array([0.0, 2.0]), [0], lambda x: np.zeros_like(x)),
]


@pytest.mark.parametrize("f, x, tied, diagonal", SECOND, ids=range(len(SECOND)))
def test_second_order_at_a_tie_is_nan_and_exact_elsewhere(f, x, tied, diagonal):
    free = [i for i in range(x.size) if i not in tied]
    expected = np.diag(diagonal(x))
    for H in second_orders(f, x):
        assert np.isnan(H[tied, tied]).all()
        np.testing.assert_allclose(H[np.ix_(free, free)], expected[np.ix_(free, free)], rtol=1e-12, atol=1e-15)
        # the tied component of the gradient does not exist: its row (forward over reverse) or
        # column (reverse over reverse) is NaN, or exact (0); never another number
        mixed = np.concatenate([H[np.ix_(tied, free)].ravel(), H[np.ix_(free, tied)].ravel()])
        assert np.all(np.isnan(mixed) | (mixed == 0.0))


def test_a_tie_between_constants_does_not_poison_second_order():
    def f(x, c):
        return np.sum(x * x * np.maximum(c, 0.0))
    c = np.array([0.0, 1.0])
    np.testing.assert_array_equal(srcdiff.hessian(f)(np.ones(2), c), np.diag([0.0, 2.0]))


def test_builtin_max_second_order_at_a_tie_is_nan():
    assert math.isnan(srcdiff.grad(srcdiff.grad(builtin_relu_pair))(0.0))
    assert srcdiff.grad(srcdiff.grad(builtin_relu_pair))(0.5) == 0.0
    assert srcdiff.grad(srcdiff.grad(lambda x: max(x, 0.0) * x))(-0.5) == 0.0
    assert srcdiff.grad(srcdiff.grad(lambda x: max(x, 0.0) * x))(0.5) == 2.0
