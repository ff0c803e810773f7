"""Never a silent wrong answer (#24): NaN only where the true derivative does not exist.

Each class has several variants, checked in every transformation it touches against float64
central differences or a derivative written by hand (never srcdiff's own output)."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff


def _sym_hessian(f, x, eps=1e-4):
    """The Hessian by central differences of central differences (float64)."""
    x = np.asarray(x, dtype=float)
    n = x.size
    out = np.zeros((n, n))
    for i in range(n):
        e = np.zeros(n)
        e[i] = eps
        out[:, i] = (central_difference(f, (x + e,), 0) - central_difference(f, (x - e,), 0)) / (2 * eps)
    return out


# ---- a mask or a selection cuts off a non-finite partial: the gradient is exact ----

def norm_in_box(q):
    return np.sum(np.linalg.norm(np.maximum(q, 0.0), axis=1))


def log_clipped_below(x):
    return np.sum(np.maximum(np.log(x), -5.0))


def sqrt_of_relu(x):
    return np.sum(np.sqrt(np.maximum(x, 0.0)) + x)


def minimum_of_reciprocal(x):
    return np.sum(np.minimum(1.0 / x, 3.0))


def clipped_log(x):
    return np.sum(np.clip(np.log(x), -4.0, 4.0))


def fmax_of_log(x):
    return np.sum(np.fmax(np.log(x), -2.0))


def builtin_max_of_log(x):
    return max(np.log(x), -3.0) * 2.0


def std_of_one(x):
    return np.std(x) + np.sum(x)


def std_of_length_one_axis(x):
    return np.sum(np.std(x, axis=1)) + np.sum(x * x)


def std_keepdims(x):
    return np.sum(np.std(x, axis=1, keepdims=True)) + np.sum(x)


def norm_of_zero_product(x):
    return np.linalg.norm(0.0 * x) + np.sum(x)


def hypot_of_masked(x):
    return np.sum(np.hypot(np.maximum(x, 0.0), np.maximum(x, 0.0)))


def softplus_where(x):
    return np.sum(np.where(x < 30.0, np.log1p(np.exp(x)), x))


CUT = [
    # (function, point, exact gradient written by hand)
    (norm_in_box, -np.ones((2, 3)), np.zeros((2, 3))),
    (log_clipped_below, np.array([0.0, 1.0]), np.array([0.0, 1.0])),
    (sqrt_of_relu, np.array([-1.0, -2.0]), np.ones(2)),
    (minimum_of_reciprocal, np.array([0.0, 1.0]), np.array([0.0, -1.0])),
    (clipped_log, np.array([0.0, 2.0]), np.array([0.0, 0.5])),
    (fmax_of_log, np.array([0.0, 2.0]), np.array([0.0, 0.5])),
    (builtin_max_of_log, 0.0, 0.0),
    (std_of_one, np.array([2.0]), np.array([1.0])),
    (std_of_length_one_axis, np.array([[1.0], [3.0]]), np.array([[2.0], [6.0]])),
    (std_keepdims, np.array([[1.0], [3.0]]), np.ones((2, 1))),
    (norm_of_zero_product, np.array([1.0, 2.0]), np.ones(2)),
    (hypot_of_masked, np.array([-1.0, -0.5]), np.zeros(2)),
    (softplus_where, np.array([800.0, -800.0]), np.array([1.0, 0.0])),
]


@pytest.mark.parametrize("f, x, expected", CUT, ids=[c[0].__name__ for c in CUT])
def test_reverse_is_exact_where_a_partial_is_cut_off(f, x, expected):
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(srcdiff.grad(f)(x), expected, atol=1e-12)
        value, gradient = srcdiff.value_and_grad(f)(x)
    np.testing.assert_allclose(gradient, expected, atol=1e-12)


# forward mode keeps no masks down a chain yet: sqrt(maximum(x, 0)) at x < 0 multiplies the
# exact zero tangent by sqrt's infinite derivative (NaN, as JAX gives; docs/guarantees.md)
FORWARD = [c for c in CUT if isinstance(c[1], np.ndarray) and c[1].ndim == 1 and c[0] is not sqrt_of_relu]


@pytest.mark.parametrize("f, x, expected", FORWARD, ids=[c[0].__name__ for c in FORWARD])
def test_forward_and_vjp_are_exact_where_a_partial_is_cut_off(f, x, expected):
    with np.errstate(all="ignore"):
        for i in range(x.size):
            e = np.zeros_like(x)
            e[i] = 1.0
            _, tangent = srcdiff.jvp(f, (x,), (e,))
            assert tangent == pytest.approx(expected[i], abs=1e-12), (i, tangent)
        _, pullback = srcdiff.vjp(f, x)
        np.testing.assert_allclose(pullback(1.0), expected, atol=1e-12)


def test_second_order_is_exact_past_a_guarded_overflow():
    x = np.array([800.0, 1.0, -2.0])
    with np.errstate(all="ignore"):
        h = srcdiff.hessian(softplus_where)(x)
        hv = srcdiff.hvp(softplus_where, x, np.ones(3))
    s = 1.0 / (1.0 + np.exp(-x[1:]))
    expected = np.diag([0.0, *(s * (1.0 - s))])
    np.testing.assert_allclose(h, expected, atol=1e-12)
    np.testing.assert_allclose(hv, expected @ np.ones(3), atol=1e-12)


@pytest.mark.parametrize("f", [log_clipped_below, sqrt_of_relu, clipped_log])
def test_second_order_is_finite_and_right_away_from_kinks(f):
    x = np.array([0.7, 1.3])
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(srcdiff.hessian(f)(x), _sym_hessian(f, x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, x, expected", [CUT[1], CUT[2], CUT[4]], ids=lambda c: getattr(c, "__name__", ""))
def test_numba_keeps_the_selection(f, x, expected):
    with np.errstate(all="ignore"):
        got = srcdiff.grad(f, jit="numba")(x)
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_nan_stays_where_the_derivative_does_not_exist():
    # |x| ** 0.5 at 0: the derivative is infinite on both sides; no finite number is right
    def f(x):
        return np.sum(np.sqrt(np.abs(x)))
    with np.errstate(all="ignore"):
        g = srcdiff.grad(f)(np.array([0.0, 4.0]))
    assert not np.isfinite(g[0]) and g[1] == pytest.approx(0.25)
