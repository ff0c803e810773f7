"""The red team's fourth wave (issue 24), fixed by class: second order of np.cumprod through
zeros, jacobian(jacobian(f)) with defaults and keyword-only parameters, a complex value
reaching the result through np.imag / np.angle, forward mode after a clamp, hvp through
nested loops that break.  References are central differences (tests/numeric.py) or closed
forms written by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

# ---- second order of np.cumprod where the operand has zeros ----


def cumprod_sum(x):
    return np.sum(np.cumprod(x))


def cumprod_rows_weighted(x):
    return np.sum(np.cumprod(x, axis=1) * np.array([1.0, 2.0, -1.0]))


def sine_of_cumprod(x):
    return np.sum(np.sin(np.cumprod(x)))


def cumprod_of_products(x):
    return np.sum(np.cumprod(x * x[::-1]))


CUMPROD_POINTS = [
    (cumprod_sum, np.array([2.0, 0.0, 3.0])),
    (cumprod_sum, np.array([0.0, 0.0, 3.0, 1.5])),
    (cumprod_sum, np.array([1.2, -0.7, 3.0])),
    (cumprod_rows_weighted, np.array([[2.0, 0.0, 3.0], [0.0, 1.0, 0.0]])),
    (sine_of_cumprod, np.array([0.5, 0.0, 1.5, 0.0])),
    (cumprod_of_products, np.array([0.5, 0.0, 1.5, 0.7, 2.0])),
]


def test_hessian_of_cumprod_through_a_zero_is_the_hand_written_one():
    # f = x0 + x0 x1 + x0 x1 x2 at (2, 0, 3)
    want = np.array([[0.0, 4.0, 0.0], [4.0, 0.0, 2.0], [0.0, 2.0, 0.0]])
    np.testing.assert_allclose(srcdiff.hessian(cumprod_sum)(np.array([2.0, 0.0, 3.0])), want, atol=1e-12)


@pytest.mark.parametrize("f, x", CUMPROD_POINTS, ids=lambda v: getattr(v, "__name__", ""))
def test_cumprod_second_order_at_zeros_in_every_transformation(f, x):
    n = x.size
    want = hessian_difference(f, (x,)).reshape(n, n)
    v = np.linspace(0.5, 1.5, n).reshape(x.shape)
    np.testing.assert_allclose(srcdiff.hessian(f)(x).reshape(n, n), want, atol=1e-6)
    np.testing.assert_allclose(srcdiff.hvp(f, x, v).ravel(), want @ v.ravel(), atol=1e-6)
    np.testing.assert_allclose(srcdiff.jvp(srcdiff.grad(f), (x,), (v,))[1].ravel(), want @ v.ravel(), atol=1e-6)
    np.testing.assert_allclose(srcdiff.jacobian(srcdiff.grad(f))(x).reshape(n, n), want, atol=1e-6)


WEIGHTS = np.array([1.0, 0.0, 2.0, -1.0])


def cumprod_of_a_line(s):
    return np.sum(np.cumprod(s * WEIGHTS + WEIGHTS[::-1]))


@pytest.mark.parametrize("s", [0.0, 0.7, -1.3, 1.0])
def test_cumprod_reverse_over_reverse_through_zeros(s):
    # at s = 0 and s = 1 an element of the line is 0
    h = 1e-4
    want = (cumprod_of_a_line(s + h) - 2 * cumprod_of_a_line(s) + cumprod_of_a_line(s - h)) / h ** 2
    np.testing.assert_allclose(srcdiff.grad(srcdiff.grad(cumprod_of_a_line))(s), want, rtol=1e-6, atol=1e-5)


# ---- jacobian(jacobian(f)) with parameters the call leaves to their defaults ----


def scaled_sine(x, a=2.0):
    return np.sin(x) * a


def cubic_with_keyword(x, a=2.0, *, b=1.0):
    return x ** 3 * a + b


def cosine_or_identity(x, a=2.0, flag=None):
    return np.cos(x) * a if flag is None else x


X2 = np.array([0.3, -1.2])


@pytest.mark.parametrize("f, args, kwargs, second", [
    (scaled_sine, (X2,), {}, lambda x: -2.0 * np.sin(x)),
    (scaled_sine, (X2, 3.0), {}, lambda x: -3.0 * np.sin(x)),
    (scaled_sine, (), {"x": X2, "a": 0.5}, lambda x: -0.5 * np.sin(x)),
    (cubic_with_keyword, (X2,), {}, lambda x: 12.0 * x),
    (cubic_with_keyword, (X2,), {"b": 4.0, "a": 1.0}, lambda x: 6.0 * x),
    (cosine_or_identity, (X2,), {}, lambda x: -2.0 * np.cos(x)),
    (cosine_or_identity, (X2, 1.5), {}, lambda x: -1.5 * np.cos(x)),
], ids=lambda v: getattr(v, "__name__", None))
def test_jacobian_of_jacobian_with_defaults(f, args, kwargs, second):
    got = srcdiff.jacobian(srcdiff.jacobian(f))(*args, **kwargs)
    want = np.zeros((2, 2, 2))
    for i, d in enumerate(second(X2)):
        want[i, i, i] = d  # elementwise: only d^2 f_i / dx_i^2
    np.testing.assert_allclose(got, want, atol=1e-12)


def with_varargs(x, *rest):
    return np.sin(x) * len(rest)


def test_jacobian_of_jacobian_of_varargs():
    # a top-level *rest is bound per call (api/varkw.py): f(x, 1.0) is sin(x) * 1
    got = srcdiff.jacobian(srcdiff.jacobian(with_varargs))(X2, 1.0)
    want = np.zeros((2, 2, 2))
    for i, x in enumerate(X2):
        want[i, i, i] = -np.sin(x)
    np.testing.assert_allclose(got, want, atol=1e-12)


# ---- forward mode through a clamp, a mask or a where into an infinite slope ----


def sqrt_of_relu(x):
    return np.sum(np.sqrt(np.maximum(x, 0.0)))


def arcsin_of_clip(x):
    return np.sum(np.arcsin(np.clip(x, -1.0, 1.0)))


def arccos_of_clip(x):
    return np.sum(np.arccos(np.clip(x, -1.0, 1.0)) * 2.0)


def root_of_where(x):
    return np.sum(np.where(x > 0, x, 0.0) ** 0.5)


def cbrt_of_relu(x):
    return np.sum(np.cbrt(np.maximum(x, 0.0)))


def power_of_relu(x):
    return np.sum(np.power(np.maximum(x, 0.0), 0.75))


def sqrt_of_a_mask(x):
    return np.sum(np.sqrt(x * np.array([0.0, 1.0, 0.0])))


def root_of_a_zero_scale(x):
    return np.sum((0.0 * x) ** 0.5 + x)


def log_of_where(x):
    return np.sum(np.log(np.where(x > 0, x, 0.0)) * 0.0 + np.log(np.maximum(x, 1.0)))


def arccosh_of_clamp(x):
    return np.sum(np.arccosh(np.maximum(x, 1.0)))


# (f, point, exact gradient at the point: written by hand)
CLAMPED = [
    (sqrt_of_relu, [-1.0, 4.0, -0.5], [0.0, 0.25, 0.0]),
    (arcsin_of_clip, [1.5, 0.0, -2.0], [0.0, 1.0, 0.0]),
    (arccos_of_clip, [1.5, 0.6, -2.0], [0.0, -2.0 / 0.8, 0.0]),
    (root_of_where, [-1.0, 4.0, -0.5], [0.0, 0.25, 0.0]),
    (cbrt_of_relu, [-1.0, 8.0, -2.0], [0.0, 1.0 / 12.0, 0.0]),
    (power_of_relu, [-1.0, 16.0, -2.0], [0.0, 0.75 / 2.0, 0.0]),
    (sqrt_of_a_mask, [1.0, 4.0, 2.0], [0.0, 0.25, 0.0]),
    (root_of_a_zero_scale, [1.0, 4.0, 2.0], [1.0, 1.0, 1.0]),
    (arccosh_of_clamp, [0.5, 2.0, -3.0], [0.0, 1.0 / np.sqrt(3.0), 0.0]),
]
V3 = np.array([1.0, 2.0, 3.0])


@pytest.mark.parametrize("f, x, want", CLAMPED, ids=lambda v: getattr(v, "__name__", ""))
def test_tangent_of_a_clamped_singular_point(f, x, want):
    got = srcdiff.jvp(f, (np.array(x),), (V3,))[1]
    np.testing.assert_allclose(got, np.array(want) @ V3, atol=1e-12)


@pytest.mark.parametrize("f, x, want", [c for c in CLAMPED if c[0] is not sqrt_of_a_mask],  # (a float64 mask)
                         ids=lambda v: getattr(v, "__name__", ""))
def test_tangent_of_a_clamped_singular_point_keeps_float32(f, x, want):
    x32, v32 = np.array(x, dtype=np.float32), V3.astype(np.float32)
    value, tangent = srcdiff.jvp(f, (x32,), (v32,))
    assert np.asarray(tangent).dtype == np.float32
    np.testing.assert_allclose(tangent, np.array(want) @ V3, rtol=1e-5)


def sqrt_of_relu_squared_out(x):
    # the clamped elements' second derivative is 0 too; x[1] = 4: (sqrt x)'' = -1/32
    return np.sum(np.sqrt(np.maximum(x, 0.0)) * 2.0)


@pytest.mark.parametrize("f, x, curvature", [
    (sqrt_of_relu, [-1.0, 4.0, -0.5], [0.0, -1.0 / 32.0, 0.0]),
    (root_of_where, [-1.0, 4.0, -0.5], [0.0, -1.0 / 32.0, 0.0]),
    (sqrt_of_relu_squared_out, [-1.0, 4.0, -0.5], [0.0, -1.0 / 16.0, 0.0]),
    (arcsin_of_clip, [1.5, 0.0, -2.0], [0.0, 0.0, 0.0]),
], ids=lambda v: getattr(v, "__name__", None))
def test_second_order_of_a_clamped_singular_point(f, x, curvature):
    x = np.array(x)
    want = np.diag(curvature)
    np.testing.assert_allclose(srcdiff.hessian(f)(x), want, atol=1e-12)
    np.testing.assert_allclose(srcdiff.hvp(f, x, V3), want @ V3, atol=1e-12)
    np.testing.assert_allclose(srcdiff.jvp(srcdiff.grad(f), (x,), (V3,))[1], want @ V3, atol=1e-12)


def scalar_clamps(x, y):
    return math.sqrt(max(x, 0.0)) + math.asin(min(max(y, -1.0), 1.0)) + math.log(max(x, 1.0)) + math.sqrt(max(x, 0.0))


@pytest.mark.parametrize("x, y, want", [(-1.0, 1.5, 0.0), (-1.0, 0.0, 2.0), (4.0, 0.0, 0.25 + 0.25 + 0.25 + 2.0)])
def test_tangent_of_clamped_python_floats(x, y, want):
    # at (4, 0): d sqrt x = 1/4 twice, d log x = 1/4 (x = 4 > 1), d asin y = 1 along y's tangent 2
    np.testing.assert_allclose(srcdiff.jvp(scalar_clamps, (x, y), (1.0, 2.0))[1], want, atol=1e-12)


def clamped_floats(x, y):
    return math.sqrt(max(x, 0.0)) + math.asin(min(max(y, -1.0), 1.0)) + math.acos(min(y, 1.0))


def test_tangent_of_clamped_python_floats_at_the_clamp():
    # x = -1 and y = 1.5 are clamped: nothing moves
    assert srcdiff.jvp(clamped_floats, (-1.0, 1.5), (1.0, 2.0))[1] == 0.0


def sqrt_sum(x):
    return np.sum(np.sqrt(x))


def test_a_moving_tangent_at_an_infinite_slope_stays_infinite():
    # sqrt at 0 moved along 1: the derivative is +inf, not a made-up 0
    tangent = srcdiff.jvp(sqrt_sum, (np.array([0.0, 4.0]),), (np.array([1.0, 0.0]),))[1]
    assert np.isinf(tangent)


# ---- a complex value reaching the result through np.imag / np.angle: refused, never a zero ----


def imaginary_part(x):
    return np.sum(np.imag(np.exp(1j * x)))


def angle_of_a_point(x):
    return np.sum(np.angle(1.0 + 1j * x))


def angle_in_degrees(x):
    return np.sum(np.angle(np.exp(1j * x) + 2.0, deg=True))


def imaginary_attribute(x):
    return np.sum((np.exp(1j * x) * 2.0).imag)


def imaginary_of_a_complex_global(x):
    return np.sum(np.imag(PHASES * x))


def imaginary_of_an_fft(x):
    spectrum = np.fft.fft(x)
    return np.sum(np.imag(spectrum) ** 2)


def imaginary_of_complex_data(x, z):
    return np.sum(np.imag(z * x))


def angle_of_complex_data(x, z):
    return np.sum(np.angle(z + x))


PHASES = np.exp(1j * np.array([0.1, 0.2, 0.3]))
X3 = np.array([0.3, -1.2, 0.7])
Z3 = np.array([1 + 2j, 2 - 1j, 0.5j])
#: complex values the function makes itself are read as real parts (frontend/complex_split.py)
COMPLEX_READ_AS_PARTS = [imaginary_part, angle_of_a_point, imaginary_attribute, imaginary_of_an_fft]
COMPLEX_THROUGH_A_ZERO_DERIVATIVE = [angle_in_degrees, imaginary_of_a_complex_global]
TRANSFORMATIONS = {
    "grad": lambda f, *a: srcdiff.grad(f)(*a),
    "value_and_grad": lambda f, *a: srcdiff.value_and_grad(f)(*a),
    "jvp": lambda f, x, *a: srcdiff.jvp(f, (x, *a), (np.ones_like(x), *[None] * len(a))),
    "vjp": lambda f, *a: srcdiff.vjp(f, *a)[1](1.0),
    "hessian": lambda f, *a: srcdiff.hessian(f)(*a),
    "hvp": lambda f, x, *a: srcdiff.hvp(f, x, np.ones_like(x), *a),
    "numba": lambda f, *a: srcdiff.grad(f, jit="numba")(*a),
}


@pytest.mark.parametrize("f, how", [(f, how) for f in COMPLEX_THROUGH_A_ZERO_DERIVATIVE for how in TRANSFORMATIONS],
                         ids=lambda v: getattr(v, "__name__", v))
def test_a_complex_value_through_imag_or_angle_is_refused(f, how):
    with pytest.raises(srcdiff.SrcDiffError) as found:
        TRANSFORMATIONS[how](f, X3)
    assert "test_redteam4_fixes.py" in str(found.value)  # at the user's line


@pytest.mark.parametrize("how", ["grad", "vjp", "jvp", "hessian"])
@pytest.mark.parametrize("f", COMPLEX_READ_AS_PARTS, ids=lambda f: f.__name__)
def test_a_complex_value_the_function_makes_is_read_as_real_parts(f, how):
    expected = central_difference(f, (X3,), 0)
    got = TRANSFORMATIONS[how](f, X3)
    if how == "jvp":
        expected, got = np.sum(expected), got[1]
    if how == "hessian":
        g = srcdiff.grad(f)
        expected = np.array([central_difference(lambda z, k=k: g(z)[k], (X3,), 0) for k in range(3)])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("how", ["grad", "value_and_grad", "vjp", "hessian", "hvp", "numba"])
@pytest.mark.parametrize("f", [imaginary_of_complex_data, angle_of_complex_data], ids=lambda f: f.__name__)
def test_complex_data_through_imag_or_angle_is_refused_when_run(f, how):
    with pytest.raises(srcdiff.SrcDiffError, match="complex"):
        TRANSFORMATIONS[how](f, X3, Z3)


def imaginary_and_angle_of_reals(x, z):
    return np.sum(np.imag(x) * x + np.angle(x - 0.5) * x ** 2 + (z * x).imag + x * x * z)


@pytest.mark.parametrize("how", ["grad", "numba"])
def test_imag_and_angle_of_real_values_have_derivative_zero(how):
    # np.imag of a real value is 0, np.angle 0 or pi: the derivative is 2 x angle(x - 0.5) + 2 x z
    z = np.array([0.5, -2.0, 1.5])
    want = 2 * X3 * np.angle(X3 - 0.5) + 2 * X3 * z
    np.testing.assert_allclose(TRANSFORMATIONS[how](imaginary_and_angle_of_reals, X3, z), want, atol=1e-12)
    np.testing.assert_allclose(srcdiff.jvp(imaginary_and_angle_of_reals, (X3, z), (V3, None))[1], want @ V3,
                               atol=1e-12)
    np.testing.assert_allclose(srcdiff.hessian(imaginary_and_angle_of_reals)(X3, z),
                               np.diag(2 * np.angle(X3 - 0.5) + 2 * z), atol=1e-12)


def an_imaginary_test(x):
    return np.sum(np.where(np.imag(1j * x) > 0, x, 0.0))


def test_a_comparison_of_an_imaginary_part_selects():
    # the comparison carries no gradient: the where selects x where x > 0
    np.testing.assert_allclose(srcdiff.grad(an_imaginary_test)(X3), [1.0, 0.0, 1.0])


# ---- hvp through nested loops that break: the same numbers as hessian and second differences ----


def first_of_each_row(X):
    total = 0.0
    for row in X:
        for v in row:
            total = total + v * v * row[0]
            break
    return total


def rows_until_large(X):
    total = 0.0
    for row in X:
        for v in row:
            if v > 2.0:
                break
            total = total + np.sin(v) * row[1]
        if total > 5.0:
            break
    return total


def products_until_small(X):
    total = 0.0
    for row in X:
        acc = 1.0
        for v in row:
            acc = acc * v
            if acc < 0.1:
                break
        total = total + acc ** 2
    return total


def indexed_until_large(X):
    out = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if X[i, j] > 2.0:
                break
            out = out + X[i, j] ** 2 * X[i, 0]
    return out


def running_total_until_large(X):
    total = 0.0
    for row in X:
        for v in row:
            total = total + v ** 2
            if total > 4.0:
                break
    return total


BREAKS = np.array([[1.0, 0.5, 3.0, 0.2], [0.3, 2.5, 1.0, 1.0], [1.5, 1.2, 0.7, 0.1]])


@pytest.mark.parametrize("f", [first_of_each_row, rows_until_large, products_until_small, indexed_until_large,
                               running_total_until_large], ids=lambda f: f.__name__)
@pytest.mark.parametrize("X", [BREAKS, np.full((2, 3), 3.0), np.array([[1.0, 1.0, 3.0]])], ids=["mixed", "all", "one"])
def test_hvp_through_nested_loops_that_break(f, X):
    n = X.size
    v = np.linspace(0.2, 1.3, n).reshape(X.shape)
    want = hessian_difference(f, (X,)).reshape(n, n) @ v.ravel()
    np.testing.assert_allclose(srcdiff.hvp(f, X, v).ravel(), want, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(srcdiff.hessian(f)(X).reshape(n, n) @ v.ravel(), want, rtol=1e-6, atol=1e-5)
