"""`grad(grad(f))` of a function called with trees (a dict, a dataclass), with respect to a path
into a tree, of a method and of a partial; `value_and_grad` of a gradient; and the gradients
srcdiff does not differentiate again (value_and_grad, has_aux) refused at the user's def line
with what to write instead.  References: central differences of the already-checked gradient."""

import functools

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from .second9_programs import Spring, Well, settings_energy, spring_energy, three_params, tree_in_first

HERE = "second9_programs.py"
X = 0.7


def _second(g, f=None, x=X, h=1e-5):
    """Central differences of the gradient `g` (checked against f's own differences first)."""
    if f is not None:
        np.testing.assert_allclose(g(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-9)
    return (g(x + h) - g(x - h)) / (2 * h)


CASES = {
    "dict": (settings_energy, ({"a": 1.3, "b": 0.4},)),
    "dataclass": (spring_energy, (Spring(2.0, 0.3),)),
    "method": (Well(1.5).energy, ()),
    "partial": (functools.partial(three_params, a=1.3, b=0.4), ()),
    "partial_positional": (functools.partial(lambda a, x: three_params(x, a, 0.8), 1.1), ()),
}


@pytest.mark.parametrize("case", list(CASES))
def test_grad_of_grad_of_a_call_with_trees_methods_or_partials(case):
    f, rest = CASES[case]
    want = _second(lambda x: srcdiff.grad(f)(x, *rest), lambda x: f(x, *rest))
    np.testing.assert_allclose(srcdiff.grad(srcdiff.grad(f))(X, *rest), want, rtol=1e-6, atol=1e-8)
    value, got = srcdiff.value_and_grad(srcdiff.grad(f))(X, *rest)
    np.testing.assert_allclose(value, srcdiff.grad(f)(X, *rest), rtol=1e-12)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    third = _second(lambda x: srcdiff.grad(srcdiff.grad(f))(x, *rest))
    np.testing.assert_allclose(srcdiff.grad(srcdiff.grad(srcdiff.grad(f)))(X, *rest), third, rtol=1e-5, atol=1e-7)


def test_mixed_second_derivatives_into_a_tree_are_that_tree():
    cfg = {"a": 1.3, "b": 0.4}
    got = srcdiff.grad(srcdiff.grad(settings_energy), wrt=1)(X, cfg)
    assert isinstance(got, dict) and list(got) == ["a", "b"]
    for key in cfg:
        def inner(v, key=key):
            return srcdiff.grad(settings_energy)(X, {**cfg, key: v})
        np.testing.assert_allclose(got[key], central_difference(inner, (cfg[key],), 0), rtol=1e-6, atol=1e-8)
    one = srcdiff.grad(srcdiff.grad(settings_energy), wrt="cfg['a']")(X, cfg)
    np.testing.assert_allclose(one, got["a"], rtol=1e-12)
    np.testing.assert_allclose(srcdiff.grad(srcdiff.grad(settings_energy), argnums=1)(X, cfg)["b"], got["b"])


def test_a_path_into_the_first_tree():
    p, y = {"x": 0.7, "c": 0.2}, 1.3
    inner = srcdiff.grad(tree_in_first, wrt="p['x']")
    want = central_difference(lambda v: inner({"x": v, "c": 0.2}, y), (0.7,), 0)
    got = srcdiff.grad(inner, wrt="p['x']")(p, y)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    H = srcdiff.jacobian(inner)(p, y)  # with respect to the whole tree: a dict
    np.testing.assert_allclose(H["x"], want, rtol=1e-6, atol=1e-8)


def _located(exc) -> bool:
    return exc.location is not None and str(exc.location.filename).endswith(HERE)


@pytest.mark.parametrize("make", [
    lambda: srcdiff.grad(srcdiff.value_and_grad(three_params))(X, 1.3, 0.4),
    lambda: srcdiff.jacobian(srcdiff.value_and_grad(three_params))(X, 1.3, 0.4),
    lambda: srcdiff.jvp(srcdiff.value_and_grad(three_params), (X, 1.3, 0.4), (1.0, None, None)),
    lambda: srcdiff.grad(srcdiff.value_and_grad(srcdiff.grad(three_params)))(X, 1.3, 0.4),
    lambda: srcdiff.hessian(srcdiff.value_and_grad(srcdiff.grad(three_params)))(X, 1.3, 0.4),
], ids=["grad", "jacobian", "jvp", "grad_of_second", "hessian_of_second"])
def test_value_and_grad_is_refused_at_the_def_line_with_the_fix(make):
    with pytest.raises(srcdiff.SrcDiffError, match="only a plain gradient") as info:
        make()
    assert _located(info.value), str(info.value)
    assert "value_and_grad(srcdiff.grad(f))" in info.value.hint


def test_a_tree_valued_gradient_is_refused_at_the_def_line():
    with pytest.raises(srcdiff.SrcDiffError, match="is a tree") as info:
        srcdiff.grad(srcdiff.grad(tree_in_first))({"x": 0.7, "c": 0.2}, 1.3)
    assert _located(info.value)
