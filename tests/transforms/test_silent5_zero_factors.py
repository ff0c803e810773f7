"""A zero factor before a point of infinite slope (issue 24.1): ``np.sqrt(x * mask)`` where the
mask is 0 does not depend on x there, so its derivative is exactly 0, not the 0 * inf = NaN of
sqrt's adjoint at 0 multiplied by the mask.  Checked in every transformation, at every order,
for several singular primitives and ways of writing the zero factor.

References are written by hand: each function is f(x) = s(x * m) + sum(x ** 2) (or a variant),
whose part through a zero factor is constant, so its derivative there is the smooth part's:
2 x at first order, 2 at second; where m is not 0 the singular part is evaluated away from its
singular point and its derivative is written out."""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

X = np.array([1.0, 4.0, 2.0, 0.5])
M = np.array([0.0, 1.0, 0.0, 0.5])
V = np.array([1.0, -2.0, 0.5, 3.0])


def sqrt_mask(x, m):
    return np.sum(np.sqrt(x * m)) + np.sum(x * x)


def power_mask(x, m):
    return np.sum((m * x) ** 0.5) + np.sum(x * x)


def multiply_mask(x, m):
    return np.sum(np.sqrt(np.multiply(x, m))) + np.sum(x * x)


def arcsin_mask(x, m):
    return np.sum(np.arcsin(0.25 * (x * m) - 1.0)) + np.sum(x * x)


def log_exp_mask(x, m):
    # exp(log(0)) = 0: constant where m is 0
    return np.sum(np.exp(np.log(x * m))) + np.sum(x * x)


def scaled_mask(x, m):
    # the zero factor two products before the singular point
    return np.sum(np.sqrt(2.0 * (x * m) * 3.0)) + np.sum(x * x)


def quotient_mask(x, m):
    return np.sum(np.sqrt(x * m / 4.0)) + np.sum(x * x)


def chained_mask(x, m):
    # sqrt(sqrt(x) * m): the zero factor between two singular points
    return np.sum(np.sqrt(np.sqrt(x) * m)) + np.sum(x * x)


def abs_mask(x, m):
    return np.sum(np.abs(x * m)) + np.sum(x * x)


def relu_mask(x, m):
    return np.sum(np.maximum(x * m, 0.0)) + np.sum(x * x)


def norm_mask(x, m):
    return np.linalg.norm(x * m) + np.sum(x * x)


def _sqrt_part(x, m, c=1.0):
    """d/dx sqrt(c x m) = sqrt(c m) / (2 sqrt(x)) where m > 0, 0 where m = 0."""
    return np.where(m == 0, 0.0, np.sqrt(c * m) / (2 * np.sqrt(x)))


def _sqrt_part2(x, m, c=1.0):
    return np.where(m == 0, 0.0, -np.sqrt(c * m) / (4 * x ** 1.5))


#: (function, first derivative, second derivative's diagonal) at (X, M); all Hessians are diagonal
CASES = [
    (sqrt_mask, lambda x, m: _sqrt_part(x, m) + 2 * x, lambda x, m: _sqrt_part2(x, m) + 2),
    (power_mask, lambda x, m: _sqrt_part(x, m) + 2 * x, lambda x, m: _sqrt_part2(x, m) + 2),
    (multiply_mask, lambda x, m: _sqrt_part(x, m) + 2 * x, lambda x, m: _sqrt_part2(x, m) + 2),
    (scaled_mask, lambda x, m: _sqrt_part(x, m, 6.0) + 2 * x, lambda x, m: _sqrt_part2(x, m, 6.0) + 2),
    (quotient_mask, lambda x, m: _sqrt_part(x, m, 0.25) + 2 * x, lambda x, m: _sqrt_part2(x, m, 0.25) + 2),
    (arcsin_mask,
     lambda x, m: np.where(m == 0, 0.0, 0.25 * m / np.sqrt(1 - (0.25 * x * m - 1) ** 2)) + 2 * x,
     lambda x, m: np.where(m == 0, 0.0, (0.25 * m) ** 2 * (0.25 * x * m - 1) / (1 - (0.25 * x * m - 1) ** 2) ** 1.5)
     + 2),
    (log_exp_mask, lambda x, m: m + 2 * x, lambda x, m: 0 * x + 2),
    (chained_mask,  # sqrt(m) x^(1/4): sqrt(m) / (4 x^(3/4)), second -3 sqrt(m) / (16 x^(7/4))
     lambda x, m: np.sqrt(m) / (4 * x ** 0.75) + 2 * x, lambda x, m: -3 * np.sqrt(m) / (16 * x ** 1.75) + 2),
    (abs_mask, lambda x, m: m + 2 * x, lambda x, m: 0 * x + 2),
    (relu_mask, lambda x, m: m + 2 * x, lambda x, m: 0 * x + 2),
]
IDS = [f.__name__ for f, *_ in CASES]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("f, first, second", CASES, ids=IDS)
@pytest.mark.parametrize("how", ["grad", "value_and_grad", "vjp", "jvp", "jacobian", "numba"])
def test_first_order_through_a_zero_factor(f, first, second, how):
    want = first(X, M)
    if how == "grad":
        got = srcdiff.grad(f)(X, M)
    elif how == "value_and_grad":
        value, got = srcdiff.value_and_grad(f)(X, M)
        np.testing.assert_allclose(value, f(X, M), rtol=1e-12)
    elif how == "vjp":
        got = srcdiff.vjp(f, X, M)[1](1.0)
    elif how == "jvp":
        got, want = srcdiff.jvp(f, (X, M), (V, None))[1], want @ V
    elif how == "jacobian":
        got = srcdiff.jacobian(f)(X, M)
    else:
        got = srcdiff.grad(f, jit="numba")(X, M)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("f, first, second", CASES, ids=IDS)
@pytest.mark.parametrize("how", ["hessian", "hvp", "jacobian_of_grad", "jvp_of_grad"])
def test_second_order_through_a_zero_factor(f, first, second, how):
    want = np.diag(second(X, M))
    if how == "hessian":
        got = srcdiff.hessian(f)(X, M)
    elif how == "hvp":
        got, want = srcdiff.hvp(f, X, V, M), want @ V
    elif how == "jacobian_of_grad":
        got = srcdiff.jacobian(srcdiff.grad(f))(X, M)
    else:
        got, want = srcdiff.jvp(srcdiff.grad(f), (X, M), (V, None))[1], want @ V
    assert np.all(np.isfinite(got)), got
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_a_norm_of_a_zero_product_has_the_smooth_parts_hessian():
    # norm(x * 0) is 0 for every x: gradient 2x, Hessian 2I (not the kink's NaN)
    m = np.zeros(4)
    np.testing.assert_allclose(srcdiff.grad(norm_mask)(X, m), 2 * X, atol=1e-12)
    np.testing.assert_allclose(srcdiff.hessian(norm_mask)(X, m), 2 * np.eye(4), atol=1e-12)
    np.testing.assert_allclose(srcdiff.hvp(norm_mask, X, V, m), 2 * V, atol=1e-12)


def scalar_sqrt(x, m):
    return (x * m) ** 0.5 + x * x


@pytest.mark.parametrize("m, want", [(0.0, 6.0), (4.0, 6.0 + 2.0 / (2 * np.sqrt(3.0)))])
def test_python_numbers_stay_numbers(m, want):
    got = srcdiff.grad(scalar_sqrt)(3.0, m)
    assert isinstance(got, float)
    assert got == pytest.approx(want, rel=1e-12)
    assert srcdiff.grad(srcdiff.grad(scalar_sqrt))(3.0, 0.0) == pytest.approx(2.0, rel=1e-12)


def zero_literal(x):
    return np.sum((x * 0.0) ** 0.5) + np.sum(np.sqrt(0.0 * x)) + np.sum(x)


def zero_array_literal(x):
    return np.sum(np.sqrt(x * np.array([0.0, 1.0, 0.0, 2.0]))) + np.sum(x)


def test_a_literal_zero_factor():
    np.testing.assert_array_equal(srcdiff.grad(zero_literal)(X), np.ones(4))
    np.testing.assert_array_equal(srcdiff.hessian(zero_literal)(X), np.zeros((4, 4)))
    want = 1.0 + np.array([0.0, 1.0, 0.0, np.sqrt(2.0)]) / (2 * np.sqrt(X * np.array([1.0, 1.0, 1.0, 1.0])))
    np.testing.assert_allclose(srcdiff.grad(zero_array_literal)(X), want, rtol=1e-12)


def masked_tree(params, m):
    return np.sum(np.sqrt(params["w"] * m)) + np.sum(params["b"] ** 2)


def test_trees():
    params = {"w": X, "b": np.array([1.0, -3.0])}
    got = srcdiff.grad(masked_tree)(params, M)
    np.testing.assert_allclose(got["w"], _sqrt_part(X, M), atol=1e-12)
    np.testing.assert_allclose(got["b"], [2.0, -6.0])
    H = srcdiff.hessian(masked_tree)(params, M)
    np.testing.assert_allclose(H["w"]["w"], np.diag(_sqrt_part2(X, M)), atol=1e-12)


@pytest.mark.parametrize("how", ["grad", "hessian", "numba"])
def test_float32_stays_float32_and_exact(how):
    x, m = X.astype(np.float32), M.astype(np.float32)
    if how == "grad":
        got, want = srcdiff.grad(sqrt_mask)(x, m), _sqrt_part(X, M) + 2 * X
    elif how == "numba":
        got, want = srcdiff.grad(sqrt_mask, jit="numba")(x, m), _sqrt_part(X, M) + 2 * X
    else:
        got, want = srcdiff.hessian(sqrt_mask)(x, m), np.diag(_sqrt_part2(X, M) + 2)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def broadcast_scale(x, s):
    # a scalar zero factor broadcast over an array: every element constant
    return np.sum(np.sqrt(s * x)) + np.sum(x * x)


def test_a_broadcast_scalar_factor():
    np.testing.assert_allclose(srcdiff.grad(broadcast_scale)(X, 0.0), 2 * X, atol=1e-12)
    np.testing.assert_allclose(srcdiff.hessian(broadcast_scale)(X, 0.0), 2 * np.eye(4), atol=1e-12)
    np.testing.assert_allclose(srcdiff.grad(broadcast_scale)(X, 4.0), 1.0 / np.sqrt(X) + 2 * X, rtol=1e-12)


def sqrt_in_a_loop(x, m):
    total = 0.0
    for i in range(3):
        total = total + np.sum(np.sqrt(x * m * (i + 1.0)))
    return total + np.sum(x * x)


def sqrt_in_a_branch(x, m, flag):
    if flag:
        y = np.sqrt(x * m)
    else:
        y = x
    return np.sum(y) + np.sum(x * x)


def test_loops_and_branches():
    c = sum(np.sqrt(k) for k in (1.0, 2.0, 3.0))
    np.testing.assert_allclose(srcdiff.grad(sqrt_in_a_loop)(X, M), c * _sqrt_part(X, M) + 2 * X, rtol=1e-12)
    np.testing.assert_allclose(srcdiff.grad(sqrt_in_a_branch)(X, M, True), _sqrt_part(X, M) + 2 * X, rtol=1e-12)
    np.testing.assert_allclose(srcdiff.hessian(sqrt_in_a_branch)(X, M, True), np.diag(_sqrt_part2(X, M) + 2),
                               rtol=1e-12, atol=1e-12)


def clean(x, w):
    return np.sum(np.tanh(x * w) * w) + np.sum(np.exp(x) * x)


def test_clean_code_is_generated_as_before():
    # no singular primitive: no select is emitted, the products are plain products
    source = srcdiff.grad(clean).source
    assert "np.where" not in source and "== 0" not in source
