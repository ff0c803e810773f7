"""What the red team's fourth wave found silently wrong, as strict xfails (issue 24): each
names its class, and turns into a failure once the class is fixed (then drop the marker).
References are written by hand: each function is locally constant, linear or quadratic in
the coordinates concerned, so its derivative is known exactly."""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff


def angle_of_a_rotation(x):
    return np.sum(np.angle(np.exp(1j * x) + 2.0))


def imaginary_part(x):
    return np.sum(np.imag(np.exp(1j * x)))


def angle_of_a_point(x):
    return np.sum(np.angle(1.0 + 1j * x))


COMPLEX_THROUGH_NOGRAD = [
    # np.imag / np.angle are rules without a gradient (constants on real values), so the complex
    # value before them is not "active" and refuse_complex (ad/activity.py) never sees it
    (angle_of_a_rotation, lambda x: (2 * np.cos(x) + 1) / (5 + 4 * np.cos(x))),
    (imaginary_part, np.cos),
    (angle_of_a_point, lambda x: 1.0 / (1.0 + x ** 2)),
]


@pytest.mark.parametrize("f, derivative", COMPLEX_THROUGH_NOGRAD, ids=lambda f: getattr(f, "__name__", ""))
def test_complex_through_imag_or_angle_is_not_a_zero_gradient(f, derivative):
    x = np.array([0.3, -1.2, 0.7])
    try:
        got = srcdiff.grad(f)(x)
    except srcdiff.SrcDiffError:
        return  # a refusal is honest
    np.testing.assert_allclose(got, derivative(x), rtol=1e-8)


def sqrt_of_masked(x, mask):
    return np.sum(np.sqrt(x * mask))


def root_of_zero_scale(x, s):
    return np.sum((s * x) ** 0.5)


def arcsin_of_zero_scale(x, s):
    return np.sum(np.arcsin(s * x + 1.0))


ZERO_FACTOR = [  # the masked / zero-scaled coordinates do not change f: their derivative is 0
    (sqrt_of_masked, (np.array([1.0, 4.0, 2.0]), np.array([0.0, 1.0, 0.0])), np.array([0.0, 0.25, 0.0])),
    (root_of_zero_scale, (np.array([1.0, 4.0, 2.0]), 0.0), np.zeros(3)),
    (arcsin_of_zero_scale, (np.array([1.0, 4.0, 2.0]), 0.0), np.zeros(3)),
]


@pytest.mark.parametrize("f, args, want", ZERO_FACTOR, ids=lambda v: getattr(v, "__name__", ""))
def test_a_zero_factor_before_a_singular_point_gives_no_nan(f, args, want):
    np.testing.assert_allclose(srcdiff.grad(f)(*args), want, atol=1e-12)


def sqrt_of_relu(x):
    return np.sum(np.sqrt(np.maximum(x, 0.0)))


def arcsin_of_clip(x):
    return np.sum(np.arcsin(np.clip(x, -1.0, 1.0)))


def root_of_where(x):
    return np.sum(np.where(x > 0, x, 0.0) ** 0.5)


def cbrt_of_relu(x):
    return np.sum(np.cbrt(np.maximum(x, 0.0)))


CLAMPED = [  # grad selects (right); the tangent multiplies a zero tangent by an infinite slope
    (sqrt_of_relu, np.array([-1.0, 4.0, -0.5]), np.array([0.0, 0.25, 0.0])),
    (arcsin_of_clip, np.array([1.5, 0.0, -2.0]), np.array([0.0, 1.0, 0.0])),
    (root_of_where, np.array([-1.0, 4.0, -0.5]), np.array([0.0, 0.25, 0.0])),
    (cbrt_of_relu, np.array([-1.0, 8.0, -2.0]), np.array([0.0, 1.0 / 12.0, 0.0])),
]


@pytest.mark.parametrize("f, x, want", CLAMPED, ids=lambda v: getattr(v, "__name__", ""))
def test_gradient_of_a_clamped_singular_point(f, x, want):
    np.testing.assert_allclose(srcdiff.grad(f)(x), want, atol=1e-12)


@pytest.mark.parametrize("f, x, want", CLAMPED, ids=lambda v: getattr(v, "__name__", ""))
def test_tangent_of_a_clamped_singular_point(f, x, want):
    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(srcdiff.jvp(f, (x,), (v,))[1], want @ v, atol=1e-12)


def cumulative_product(x):
    return np.sum(np.cumprod(x))


def test_hessian_of_cumprod_through_a_zero():
    # f = x0 + x0 x1 + x0 x1 x2 at (2, 0, 3)
    want = np.array([[0.0, 4.0, 0.0], [4.0, 0.0, 2.0], [0.0, 2.0, 0.0]])
    np.testing.assert_allclose(srcdiff.hessian(cumulative_product)(np.array([2.0, 0.0, 3.0])), want, atol=1e-12)
