"""@srcdiff.custom_vjp / @srcdiff.custom_jvp: rules written in Python, read from their source.

References: central differences of the original function where the rule is exact, the
hand-written formula where it deliberately differs (a clipped gradient), closed forms."""

import importlib.util
import inspect
import math

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

HAS_NUMBA = importlib.util.find_spec("numba") is not None


def line_of(func, text: str) -> int:
    """The file line of `func` that contains `text`."""
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


# ---- a numerically stable log(1 + exp(x)), with its rule ----

@srcdiff.custom_vjp
def log1pexp(x):
    return np.log(1.0 + np.exp(x))


def log1pexp_fwd(x):
    e = np.exp(-np.abs(x))
    return np.maximum(x, 0.0) + np.log1p(e), (x, e)


def log1pexp_bwd(res, g):
    x, e = res
    s = np.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
    return (g * s,)


log1pexp.defvjp(log1pexp_fwd, log1pexp_bwd)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def loss(w, y):
    return np.sum(log1pexp(w * y)) + 0.5 * np.sum(w * w)


def loss_plain(w, y):
    return np.sum(np.log(1.0 + np.exp(w * y))) + 0.5 * np.sum(w * w)


def scalar_use(x, y):
    return log1pexp(x * y) * y + np.sin(x)


def scalar_plain(x, y):
    return np.log(1.0 + np.exp(x * y)) * y + np.sin(x)


def in_loop(x, n):
    s = 0.0
    for i in range(n):
        s = 0.5 * log1pexp(s * x - 0.1 * i) + x
    return s


def in_loop_plain(x, n):
    s = 0.0
    for i in range(n):
        s = 0.5 * math.log(1.0 + math.exp(s * x - 0.1 * i)) + x
    return s


W = np.array([0.3, -1.2, 2.0])
Y = np.array([1.0, 0.5, -2.0])


def test_calling_the_decorated_function_runs_the_original():
    assert log1pexp(0.5) == np.log(1.0 + np.exp(0.5))
    with np.errstate(over="ignore"):
        assert np.isinf(log1pexp(800.0))  # the original overflows; only gradients use the rule


def test_grad_matches_central_differences_of_the_original():
    assert_close(srcdiff.grad(loss)(W, Y), central_difference(loss_plain, (W, Y), 0))
    gx, gy = srcdiff.grad(scalar_use, wrt=(0, 1))(0.7, 1.3)
    assert_close(gx, central_difference(scalar_plain, (0.7, 1.3), 0))
    assert_close(gy, central_difference(scalar_plain, (0.7, 1.3), 1))


def test_the_rule_is_what_runs_where_the_original_overflows():
    w = np.array([800.0, -800.0, 1.0])
    got = srcdiff.grad(loss)(w, np.ones(3))
    assert np.all(np.isfinite(got))
    with np.errstate(over="ignore"):
        assert_close(got, sigmoid(w) + w)  # closed form: sigmoid(w * y) * y + w


def test_grad_of_the_decorated_function_itself():
    for x in (-3.0, 0.0, 2.5, 700.0):
        assert_close(srcdiff.grad(log1pexp)(x), sigmoid(x))


def test_value_and_grad_vjp_and_jacobian():
    value, (gx, gy) = srcdiff.value_and_grad(scalar_use, wrt=(0, 1))(0.7, 1.3)
    assert_close(value, scalar_plain(0.7, 1.3))
    assert_close(gx, central_difference(scalar_plain, (0.7, 1.3), 0))
    value, pullback = srcdiff.vjp(scalar_use, 0.7, 1.3)
    assert_close(pullback(2.0), 2.0 * central_difference(scalar_plain, (0.7, 1.3), 0))
    x = np.array([0.5, -2.0, 3.0])
    assert_close(srcdiff.jacobian(log1pexp)(x), np.diag(sigmoid(x)))


def test_second_order_differentiates_the_rule_code():
    def plain_grad(x, y):  # by hand: d/dx of scalar_plain
        return sigmoid(x * y) * y * y + np.cos(x)
    expected = central_difference(plain_grad, (0.7, 1.3), 0)
    assert_close(srcdiff.hessian(scalar_use)(0.7, 1.3), expected, rtol=1e-5)
    assert_close(srcdiff.grad(srcdiff.grad(scalar_use))(0.7, 1.3), expected, rtol=1e-5)
    assert_close(srcdiff.hvp(scalar_use, 0.7, 2.0, 1.3), 2.0 * expected, rtol=1e-5)


def test_the_rule_is_written_into_the_generated_source():
    source = srcdiff.grad(loss).source
    assert "np.log1p" not in source  # the value is not needed by the gradient: dropped
    assert "np.where(" in source and "np.abs" in source  # bwd's and fwd's code, inlined
    assert "log1pexp" not in source.replace("log1pexp(w * y)", "")  # no call of the function or its rule


def test_in_a_loop_and_checkpointed():
    expected = central_difference(in_loop_plain, (0.4, 6), 0)
    assert_close(srcdiff.grad(in_loop)(0.4, 6), expected)
    assert srcdiff.grad(in_loop, checkpoint=2)(0.4, 6) == srcdiff.grad(in_loop)(0.4, 6)


@pytest.mark.skipif(not HAS_NUMBA, reason="numba not installed")
def test_jit_numba():
    assert_close(srcdiff.grad(scalar_use, jit="numba")(0.7, 1.3), central_difference(scalar_plain, (0.7, 1.3), 0))


def test_export_runs_without_srcdiff(tmp_path):
    path = tmp_path / "loss_grad.py"
    srcdiff.export(loss, W, Y, path=str(path))
    spec = importlib.util.spec_from_file_location("loss_grad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    code = [line for line in path.read_text().split('"""')[-1].splitlines() if not line.strip().startswith("#")]
    assert not any("log1pexp" in line for line in code)  # the rule's code, not a call of it
    assert_close(module.loss_grad(W, Y), central_difference(loss_plain, (W, Y), 0))


# ---- a deliberately different rule: the cotangent clipped ----

@srcdiff.custom_vjp
def clip_gradient(x, lo, hi):
    return x


def clip_fwd(x, lo, hi):
    return x, (lo, hi)


def clip_bwd(res, g):
    lo, hi = res
    return (np.clip(g, lo, hi), None, None)


clip_gradient.defvjp(clip_fwd, clip_bwd)


def clipped_loss(x, scale):
    return np.sum(clip_gradient(x * x, -1.0, 1.0) * scale)


@pytest.mark.parametrize("scale", [0.5, 3.0, -2.0])
def test_clipped_gradient_follows_the_hand_written_rule(scale):
    x = np.array([0.3, 2.0, -3.0])
    # by hand: the cotangent of x*x is scale, clipped to [-1, 1], times d(x*x)/dx = 2x
    assert_close(srcdiff.grad(clipped_loss)(x, scale), np.clip(scale, -1.0, 1.0) * 2.0 * x)


def test_none_cotangent_of_a_differentiated_argument_is_refused():
    def bounds_loss(x, lo):
        return clip_gradient(x, lo, 1.0)
    with pytest.raises(srcdiff.SrcDiffError, match="not differentiable with respect to its argument 'lo'"):
        srcdiff.grad(bounds_loss, wrt=(0, 1))(0.3, -1.0)


# ---- a two-argument rule and its errors ----

@srcdiff.custom_vjp
def product(x, y):
    return x * y


def product_fwd(x, y):
    return product(x, y), (x, y)


def product_bwd(res, g):
    x, y = res
    return g * y, g * x


def product_bwd_short(res, g):
    x, y = res
    return (g * y,)


def product_bwd_summed(res, g):
    x, y = res
    return np.sum(g * y), g * x


def product_loss(x, y):
    return np.sum(product(x, y) ** 2)


def test_fwd_may_call_the_function_itself():
    product.defvjp(product_fwd, product_bwd)
    x, y = np.array([1.0, 2.0]), np.array([0.5, -1.5])
    gx, gy = srcdiff.grad(product_loss, wrt=(0, 1))(x, y)
    assert_close(gx, 2 * x * y * y)
    assert_close(gy, 2 * x * x * y)


def test_bwd_with_the_wrong_number_of_cotangents_names_its_line():
    product.defvjp(product_fwd, product_bwd_short)
    try:
        with pytest.raises(srcdiff.SrcDiffError, match="returns 1 cotangent") as info:
            srcdiff.grad(product_loss)(1.0, 2.0)
        assert info.value.location.line == line_of(product_bwd_short, "return")
    finally:
        product.defvjp(product_fwd, product_bwd)


def test_bwd_with_a_wrongly_shaped_cotangent_names_its_line():
    product.defvjp(product_fwd, product_bwd_summed)
    try:
        with pytest.raises(srcdiff.SrcDiffError, match="cotangent of a scalar for x") as info:
            srcdiff.grad(product_loss)(np.ones(3), np.ones(3))
        assert info.value.location.line == line_of(product_bwd_summed, "return")
        assert srcdiff.grad(product_loss)(2.0, 3.0) == 2 * 2.0 * 9.0  # scalars: the shapes agree
    finally:
        product.defvjp(product_fwd, product_bwd)


def test_forward_mode_refuses_a_custom_vjp_at_the_users_line():
    with pytest.raises(srcdiff.SrcDiffError, match="custom_vjp rule, which forward mode") as info:
        srcdiff.jvp(scalar_use, (0.7, 1.3), (1.0, 0.0))
    assert info.value.location.line == line_of(scalar_use, "return")


def test_without_a_rule_is_refused():
    @srcdiff.custom_vjp
    def bare(x):
        return x * 2.0
    with pytest.raises(srcdiff.SrcDiffError, match="without its rule"):
        srcdiff.grad(bare)(1.0)


# ---- custom_jvp ----

@srcdiff.custom_jvp
def softplus(x):
    return np.log1p(np.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    s = 1.0 / (1.0 + np.exp(-x))
    t = s * x_dot
    return softplus(x), t


@srcdiff.custom_jvp
def weighted(x, y):
    return np.sin(x) * y


@weighted.defjvp
def weighted_jvp(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    c = np.cos(x)
    return np.sin(x) * y, c * y * x_dot + np.sin(x) * y_dot


@srcdiff.custom_jvp
def squared_norm(x):
    return np.sum(x * x)


@squared_norm.defjvp
def squared_norm_jvp(primals, tangents):
    (x,) = primals
    (x_dot,) = tangents
    return squared_norm(x), 2.0 * np.sum(x * x_dot)


@srcdiff.custom_jvp
def not_linear(x):
    return x * x


@not_linear.defjvp
def not_linear_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return x * x, x_dot * x_dot


def softplus_loss(x, y):
    return np.sum(softplus(x * y) * y)


def softplus_plain(x, y):
    return np.sum(np.log1p(np.exp(x * y)) * y)


def weighted_loss(x, y):
    return np.sum(weighted(x, y) ** 2)


def weighted_plain(x, y):
    return np.sum((np.sin(x) * y) ** 2)


X2 = np.array([0.5, -1.0, 2.0])
Y2 = np.array([2.0, 3.0, -0.5])


def test_jvp_uses_the_rule_and_matches_central_differences():
    for tx, ty in [(np.ones(3), np.zeros(3)), (np.array([0.2, -1.0, 0.5]), np.array([1.0, 0.3, -0.7]))]:
        value, tangent = srcdiff.jvp(weighted_loss, (X2, Y2), (tx, ty))
        expected = np.sum(central_difference(weighted_plain, (X2, Y2), 0) * tx) \
            + np.sum(central_difference(weighted_plain, (X2, Y2), 1) * ty)
        assert_close(value, weighted_plain(X2, Y2))
        assert_close(tangent, expected)
    value, tangent = srcdiff.jvp(softplus, (X2,), (np.ones(3),))
    assert_close(tangent, sigmoid(X2))


def test_grad_transposes_an_elementwise_rule():
    gx, gy = srcdiff.grad(softplus_loss, wrt=(0, 1))(X2, Y2)
    assert_close(gx, central_difference(softplus_plain, (X2, Y2), 0))
    assert_close(gy, central_difference(softplus_plain, (X2, Y2), 1))
    gx, gy = srcdiff.grad(weighted_loss, wrt=(0, 1))(X2, Y2)
    assert_close(gx, central_difference(weighted_plain, (X2, Y2), 0))
    assert_close(gy, central_difference(weighted_plain, (X2, Y2), 1))
    assert_close(srcdiff.grad(softplus)(1.5), sigmoid(1.5))


def test_hessian_through_a_custom_jvp():
    def g(x):
        return softplus(x) * x

    def g_grad(x):  # by hand
        return sigmoid(x) * x + np.log1p(np.exp(x))
    assert_close(srcdiff.hessian(g)(0.8), central_difference(g_grad, (0.8,), 0), rtol=1e-5)


def test_grad_of_a_rule_that_is_not_elementwise_is_refused():
    value, tangent = srcdiff.jvp(squared_norm, (X2,), (np.ones(3),))
    assert_close(tangent, 2.0 * np.sum(X2))
    with pytest.raises(srcdiff.SrcDiffError, match="not elementwise"):
        srcdiff.grad(squared_norm)(X2)


def test_a_tangent_that_is_not_linear_is_refused_at_the_rules_line():
    with pytest.raises(srcdiff.SrcDiffError, match="not linear in the tangents") as info:
        srcdiff.jvp(not_linear, (1.0,), (1.0,))
    assert info.value.location.line == line_of(not_linear_jvp, "return")
