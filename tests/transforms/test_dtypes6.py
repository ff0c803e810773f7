"""A gradient has its argument's floating dtype, in every transformation (issue 24, item 9).

Programs computing in float32 throughout, programs taking float32 (or float16) arguments into
float64 computations (``x.astype(np.float64)``, ``np.float64`` constants, float64 globals and
fills), float16 arguments, and integer arguments (refused or promoted, as before).  Every
derivative with respect to a float32 / float16 argument has that dtype; the values are those
of the function as it computes, against float64 central differences at the same point, at
the narrow dtype's tolerance.  jvp's tangent is the derivative of f's *value*, so it has the
value's dtype (float64 where f converts up).  numba has no float16: refused at the user's line.
"""

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

W64 = np.array([0.5, -1.5, 2.0])  # a float64 global the function mixes in


def single_throughout(x):
    return np.sum(np.sin(x) * x) + np.mean(x ** 2)


def converted_up(x):
    return np.sum(np.tanh(x.astype(np.float64)) ** 2)


def float64_constant(x):
    return np.sum(np.float64(1.5) * x ** 2 + np.cos(x))


def float64_global(x):
    return np.sum(W64 * np.exp(0.3 * x))


def float64_fill(x):
    h = np.ones(3)
    return np.sum((h + x) ** 3) / np.sqrt(3)


def in_a_loop(x):
    s = np.zeros(3)
    for i in range(3):
        s = s + np.sin(x * (i + 1.0))
    return np.sum(s ** 2 * W64)


def linear_in_the_loop_sum(x):
    s = np.zeros(3)
    for i in range(3):
        s = s + np.sin(x * (i + 1.0))
    return np.sum(s * W64)


PROGRAMS = [single_throughout, converted_up, float64_constant, float64_global, float64_fill, in_a_loop]
X = np.array([0.4, -0.8, 1.1])
V = np.array([1.0, -0.5, 0.25])
TOL = {np.float32: 2e-3, np.float16: 3e-2}


def _reference(f, x):
    """float64 central differences at the narrow point (its values exactly, in float64)."""
    return central_difference(f, (x.astype(np.float64),), 0, eps=1e-5)


def _run(how, f, x, v):
    """(what `how` gives, the float64 reference, the dtype it must have)."""
    wide = x.astype(np.float64)
    if how == "grad":
        return srcdiff.grad(f)(x), _reference(f, x), x.dtype
    if how == "value_and_grad":
        return srcdiff.value_and_grad(f)(x)[1], _reference(f, x), x.dtype
    if how == "vjp":
        return srcdiff.vjp(f, x)[1](1.0), _reference(f, x), x.dtype
    if how == "jacobian":
        return srcdiff.jacobian(f)(x), _reference(f, x), x.dtype
    if how == "numba":
        return srcdiff.grad(f, jit="numba")(x), _reference(f, x), x.dtype
    if how == "hessian":
        return srcdiff.hessian(f)(x), hessian_difference(f, (wide,)), x.dtype
    if how == "hvp":
        return srcdiff.hvp(f, x, v), hessian_difference(f, (wide,)) @ v.astype(np.float64), x.dtype
    if how == "jvp":
        value, tangent = srcdiff.jvp(f, (x,), (v,))
        return tangent, _reference(f, x) @ v.astype(np.float64), np.result_type(f(x))
    if how == "trees":
        tree = {"x": x, "unused": x[:2]}
        found = srcdiff.grad(lambda p: f(p["x"]))(tree)
        assert found["unused"].dtype == x.dtype and not np.any(found["unused"])
        return found["x"], _reference(f, x), x.dtype
    raise AssertionError(how)


TRANSFORMS = ["grad", "value_and_grad", "vjp", "jacobian", "hessian", "hvp", "jvp", "numba", "trees"]


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
@pytest.mark.parametrize("how", TRANSFORMS)
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_a_derivative_has_its_arguments_dtype(f, how, dtype):
    if how == "numba":
        pytest.importorskip("numba")
        if dtype is np.float16:
            pytest.skip("numba has no float16 (test_numba_refuses_float16_at_the_line)")
    x, v = X.astype(dtype), V.astype(dtype)
    # (in_a_loop under numba: its float64 values' adjoints are float64 since wave 20, no longer refused)
    found, expected, want = _run(how, f, x, v)
    assert np.asarray(found).dtype == want, (how, np.asarray(found).dtype, want)
    tol = TOL[dtype] if want != np.float64 else TOL[dtype] / 10
    np.testing.assert_allclose(np.asarray(found, dtype=np.float64), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("f", [single_throughout, converted_up], ids=lambda f: f.__name__)
def test_numba_and_numpy_agree_on_float32(f):
    pytest.importorskip("numba")
    x = X.astype(np.float32)
    plain, jitted = srcdiff.grad(f)(x), srcdiff.grad(f, jit="numba")(x)
    assert plain.dtype == jitted.dtype == np.float32
    np.testing.assert_allclose(plain, jitted, rtol=1e-5, atol=1e-6)


def test_two_arguments_of_two_dtypes_each_keep_their_own():
    def f(a, b):
        return np.sum(np.sin(a) * b) + np.sum(b ** 2)

    a, b = X.astype(np.float32), X[::-1].copy()
    ga, gb = srcdiff.grad(f, wrt=(0, 1))(a, b)
    assert ga.dtype == np.float32 and gb.dtype == np.float64
    np.testing.assert_allclose(ga, central_difference(f, (a.astype(float), b), 0), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(gb, central_difference(f, (a.astype(float), b), 1), rtol=1e-5, atol=1e-6)


def test_a_float32_number_gets_a_float32_number():
    def f(s, x):
        return np.sum(np.float64(2.0) * s * x ** 2)

    s, x = np.float32(0.7), X.copy()
    found = srcdiff.grad(f)(s, x)
    assert isinstance(found, np.float32)
    np.testing.assert_allclose(found, central_difference(f, (0.7, x), 0), rtol=1e-4)


def test_float64_arguments_keep_float64_code():
    """The narrow variants are variants of their own: float64 calls around them are untouched."""
    df = srcdiff.grad(converted_up)
    before = df(X)
    narrow = df(X.astype(np.float32))
    after = df(X)
    assert before.dtype == after.dtype == np.float64 and narrow.dtype == np.float32
    np.testing.assert_array_equal(before, after)
    assert "dtype=np.float32" not in df.variant_for(X).source
    assert "dtype=np.float32" in df.variant_for(X.astype(np.float32)).source
    assert "dtype=np.float16" in df.variant_for(X.astype(np.float16)).source


def test_numba_refuses_float16_at_the_line():
    pytest.importorskip("numba")
    with pytest.raises(srcdiff.SrcDiffError, match=r"test_dtypes6\.py:\d+: .*float16") as err:
        srcdiff.grad(single_throughout, jit="numba")(X.astype(np.float16))
    assert "float32" in (err.value.hint or "")


@pytest.mark.parametrize("how", ["grad", "value_and_grad", "vjp", "jacobian", "hessian", "hvp", "jvp"])
def test_integer_arguments_are_refused_or_promoted_as_before(how):
    """An int array carries no gradient: refused with a hint where a gradient is asked for it;
    the forward transformations that promote (jvp's float tangent) give float64."""
    x, v = np.array([1, 2, 3]), np.array([1.0, 0.0, 0.0])
    try:
        found, _, _ = _run(how, single_throughout, x, v)
    except srcdiff.SrcDiffError as exc:
        assert "float" in str(exc) + (exc.hint or "")
        return
    assert np.asarray(found).dtype == np.float64


def test_a_shape_check_of_a_dropped_loop_sum():
    """(Found here, not a dtype matter: the shape check kept for a loop's statement read the
    loop's sum `s`, which the gradient does not need and drops: NameError.)"""
    found = srcdiff.grad(linear_in_the_loop_sum)(X)
    np.testing.assert_allclose(found, central_difference(linear_in_the_loop_sum, (X,), 0), rtol=1e-6, atol=1e-8)
