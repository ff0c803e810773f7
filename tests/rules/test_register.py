"""srcdiff.register_adjoint: users' own primitives, validated like the built-in rules."""

import ast

import numpy as np
import pytest
from numeric import assert_close

import srcdiff


def softplus(z):
    return np.log1p(np.exp(z))


def scaled_sigmoid(v, scale=2.0):
    return scale / (1.0 + np.exp(-v))


def mystery(x):
    return x


def uses_softplus(x):
    return np.sum(softplus(x) * x)


def uses_sigmoid(x, y):
    return np.sum(scaled_sigmoid(x + y, 3.0))


def uses_mystery(x):
    return np.sum(mystery(np.sin(x)))


def test_register_a_function_and_differentiate_through_it(table, rng, check_gradient):
    srcdiff.register_adjoint(softplus, z="g / (1.0 + np.exp(-z))")
    x = rng.normal(size=5)
    df = srcdiff.grad(uses_softplus)
    check_gradient(uses_softplus, (x,), gradient=df, rtol=1e-6, atol=1e-7)
    assert "softplus(x)" in df.source and "np.exp(-x)" in df.source


def test_decorator_form_returns_the_function(table):
    def local_cube(x):
        return x ** 3

    returned = srcdiff.register_adjoint(x="3.0 * g * x * x")(local_cube)
    assert returned is local_cube
    assert table.lookup(local_cube).name.endswith("local_cube")


def test_elementwise_rule_is_summed_back_after_broadcasting(table, rng, check_gradient):
    srcdiff.register_adjoint(scaled_sigmoid, v="g * ans * (1.0 - ans / scale)", elementwise=True)
    x, y = rng.normal(size=(3, 4)), rng.normal(size=4)
    check_gradient(uses_sigmoid, (x, y), (0, 1), rtol=1e-6, atol=1e-7)


def test_a_new_rule_invalidates_cached_gradients(table, rng):
    x = rng.normal(size=3)
    srcdiff.register_adjoint(mystery, x="g")
    df = srcdiff.grad(uses_mystery)
    assert_close(df(x), np.cos(x))
    srcdiff.register_adjoint(mystery, x="2.0 * g", replace=True)  # deliberately "wrong"
    assert_close(df(x), 2.0 * np.cos(x))


@pytest.mark.parametrize("templates, message", [
    ({"x": "g * np.cos(q)"}, "unknown name 'q'"),
    ({"x": "g *"}, "is not a Python expression"),
    ({"y": "g"}, "are not parameters"),
    ({"x": 3.0}, "not strings"),
    ({}, "at least one template"),
    ({"x": "(lambda t: t)(g)"}, "plain expression"),
])
def test_bad_templates_are_refused(table, templates, message):
    def prim(x):
        return x

    with pytest.raises(srcdiff.SrcDiffError, match=message):
        srcdiff.register_adjoint(prim, templates)
    assert table.lookup(prim) is None


def test_registering_twice_needs_replace(table):
    srcdiff.register_adjoint(mystery, x="g")
    with pytest.raises(srcdiff.SrcDiffError, match="already has an adjoint rule"):
        srcdiff.register_adjoint(mystery, x="g")


def test_builtins_cannot_be_overridden_by_accident(table):
    with pytest.raises(srcdiff.SrcDiffError, match="already has an adjoint rule"):
        srcdiff.register_adjoint(np.sin, x="g")
    assert ast.unparse(table.lookup(np.sin).adjoints({}, {"x": None})["x"]) == "g * np.cos(x)"


def test_star_args_are_refused(table):
    def variadic(*xs):
        return xs[0]

    with pytest.raises(srcdiff.SrcDiffError, match=r"\*xs"):
        srcdiff.register_adjoint(variadic, xs="g")
