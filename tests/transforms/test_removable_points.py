"""Rules with a special point (#24): np.sinc's derivative is a 0 / 0 at 0 whose limit exists at
every order (its rule switches to the series near 0: exact there, in every transformation);
the scaled Bessel functions i0e / i1e have a kink at 0 (e^-|x|): NaN at second order there,
never the sign's silent 0; one-element std is identically 0 at every order.

References: sympy's derivatives at the point (limits, 40 digits), never srcdiff's output."""

import math

import numpy as np
import pytest
import scipy.special as sc
import sympy as sp

import srcdiff

T = sp.Symbol("t", real=True)
SINC = sp.sin(sp.pi * T) / (sp.pi * T)


def sinc_derivative(order: int, x: float) -> float:
    d = sp.diff(SINC, T, order)
    if x == 0.0:
        return float(sp.limit(d, T, 0))
    return float(d.subs(T, sp.Rational(x)).evalf(40))


POINTS = [0.0, 1e-12, -3e-7, 1e-3, 0.0999, 0.1001, -0.35, 1.0, 2.5]


def sinc_scalar(x):
    return np.sinc(x)


def sinc_sum(x):
    return np.sum(np.sinc(x) * np.array([1.0, 2.0, -1.0, 0.5, 3.0, -2.0, 1.5, 1.0, 0.25]))


WEIGHTS = np.array([1.0, 2.0, -1.0, 0.5, 3.0, -2.0, 1.5, 1.0, 0.25])


@pytest.mark.parametrize("order", [1, 2, 3])
def test_sinc_is_exact_at_zero_and_near_it_to_the_third_order(order):
    derivative = sinc_scalar
    for _ in range(order):
        derivative = srcdiff.grad(derivative)
    for x in POINTS:
        assert derivative(x) == pytest.approx(sinc_derivative(order, x), rel=1e-12, abs=1e-12), x


def test_sinc_through_every_transformation():
    x = np.array(POINTS)
    first = np.array([sinc_derivative(1, v) for v in POINTS])
    second = np.array([sinc_derivative(2, v) for v in POINTS])
    np.testing.assert_allclose(srcdiff.grad(sinc_sum)(x), WEIGHTS * first, rtol=1e-13, atol=1e-15)
    value, g = srcdiff.value_and_grad(sinc_sum)(x)
    np.testing.assert_allclose(g, WEIGHTS * first, rtol=1e-13, atol=1e-15)
    _, pullback = srcdiff.vjp(sinc_sum, x)
    np.testing.assert_allclose(pullback(1.0), WEIGHTS * first, rtol=1e-13, atol=1e-15)
    v = np.linspace(-1.0, 1.0, x.size)
    _, tangent = srcdiff.jvp(sinc_sum, (x,), (v,))
    assert tangent == pytest.approx(float(np.sum(WEIGHTS * first * v)), rel=1e-13)
    np.testing.assert_allclose(srcdiff.grad(sinc_sum, jit="numba")(x), WEIGHTS * first, rtol=1e-13, atol=1e-15)
    expected = np.diag(WEIGHTS * second)
    np.testing.assert_allclose(srcdiff.hessian(sinc_sum)(x), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(srcdiff.jacobian(srcdiff.grad(sinc_sum))(x), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(srcdiff.hvp(sinc_sum, x, v), expected @ v, rtol=1e-12, atol=1e-14)
    _, jg = srcdiff.jvp(srcdiff.grad(sinc_sum), (x,), (v,))
    np.testing.assert_allclose(jg, expected @ v, rtol=1e-12, atol=1e-14)


def test_sinc_in_float32_stays_float32_and_finite():
    x = np.array([0.0, 1e-4, 0.05, 0.5], dtype=np.float32)
    g = srcdiff.grad(lambda v: np.sum(np.sinc(v)))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [sinc_derivative(1, float(v)) for v in x], rtol=1e-5, atol=1e-6)
    H = srcdiff.hessian(lambda v: np.sum(np.sinc(v)))(x)
    assert H.dtype == np.float32 and np.all(np.isfinite(H))
    np.testing.assert_allclose(np.diag(H), [sinc_derivative(2, float(v)) for v in x], rtol=1e-5)


# ---- e^-|x| in the scaled Bessel functions: a kink at 0 -------------------------------------

def i0e_sum(x):
    return np.sum(sc.i0e(x))


def i1e_sum(x):
    return np.sum(sc.i1e(x))


def ive_sum(x):
    return np.sum(sc.ive(1.0, x) + sc.ive(0.0, x))


@pytest.mark.parametrize("f, first_at_zero", [(i0e_sum, 0.0), (i1e_sum, 0.5), (ive_sum, 0.5)])
def test_scaled_bessel_second_order_at_zero_is_nan_and_exact_elsewhere(f, first_at_zero):
    x = np.array([0.0, 0.7, -1.3])
    assert srcdiff.grad(f)(x)[0] == first_at_zero  # i1e' (0) = 1/2 exists; i0e' (0) is the convention 0
    h = 1e-5
    for H in (srcdiff.hessian(f)(x), srcdiff.jacobian(srcdiff.grad(f))(x)):
        assert np.isnan(H[0, 0])  # the second derivative jumps there (no value is right)
        for i in (1, 2):
            e = np.eye(3)[i] * h
            numeric = (srcdiff.grad(f)(x + e) - srcdiff.grad(f)(x - e))[i] / (2 * h)
            assert H[i, i] == pytest.approx(numeric, rel=1e-6)


# ---- one-element std and norms at 0, at second order ----------------------------------------

def std_of_one(x):
    return np.std(x[:1]) + np.std(x[1:2], keepdims=True)[0] + x[1] ** 2


def test_std_of_one_element_is_exact_at_second_order():
    x = np.array([0.3, -1.2])
    np.testing.assert_array_equal(srcdiff.hessian(std_of_one)(x), np.diag([0.0, 2.0]))
    np.testing.assert_array_equal(srcdiff.grad(srcdiff.grad(lambda v: np.std(np.array([v])) + v * v))(0.7), 2.0)


def test_a_norm_at_zero_is_nan_at_second_order_in_every_direction():
    def f(w):
        return np.linalg.norm(w * w) + np.linalg.norm(w)  # stationary inside, curved: no Hessian at 0
    H = srcdiff.hessian(f)(np.zeros(2))
    assert np.isnan(H).all()
    # |v * v| = v * v has the second derivative 2 at 0, but the norm's subgradient cannot know it: NaN
    assert math.isnan(srcdiff.grad(srcdiff.grad(lambda v: np.linalg.norm(np.array([v * v]))))(0.0))
