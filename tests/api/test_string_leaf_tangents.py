"""jvp and hvp of a function taking a tree with a string leaf (``{"w": w, "name": "layer1"}``): the string
is a static, as in grad, so a tangent may copy it, leave its key out or give None there; a number leaf's
tangent that is not zero is still refused (it would be truncated)."""

import collections

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

Layer = collections.namedtuple("Layer", "w act")


def named(p, x):
    return np.sum(np.tanh(p["w"] * x) ** 2) if p["name"] == "layer1" else 0.0


def nested(p, x):
    return np.sum(np.sin(p["layer"]["w"] * x)) * (2.0 if p["layer"]["act"] == "sin" else 1.0)


def listed(p, x):
    return np.sum(p[0] * x**2) if p[1] == "sq" else 0.0


def fielded(p, x):
    return np.sum(np.exp(p.w * x)) if p.act == "exp" else 0.0


def powered(p, x):
    return np.sum(p["w"] ** p["n"] * x)


W, X, V = np.array([0.3, -0.6, 0.9]), np.array([0.5, 1.2, -0.4]), np.array([0.7, 0.2, -1.1])

CASES = [  # (function, argument, its tangent, the argument moved by t along the tangent)
    (named, {"w": W, "name": "layer1"}, {"w": V, "name": "layer1"}, lambda t: {"w": W + t * V, "name": "layer1"}),
    (named, {"w": W, "name": "layer1"}, {"w": V}, lambda t: {"w": W + t * V, "name": "layer1"}),
    (named, {"w": W, "name": "layer1"}, {"w": V, "name": None}, lambda t: {"w": W + t * V, "name": "layer1"}),
    (
        nested,
        {"layer": {"w": W, "act": "sin"}},
        {"layer": {"w": V, "act": "sin"}},
        lambda t: {"layer": {"w": W + t * V, "act": "sin"}},
    ),
    (
        nested,
        {"layer": {"w": W, "act": "sin"}},
        {"layer": {"w": V}},
        lambda t: {"layer": {"w": W + t * V, "act": "sin"}},
    ),
    (listed, [W, "sq"], [V, "sq"], lambda t: [W + t * V, "sq"]),
    (fielded, Layer(W, "exp"), Layer(V, "exp"), lambda t: Layer(W + t * V, "exp")),
    (powered, {"w": W, "n": 2}, {"w": V, "n": 0}, lambda t: {"w": W + t * V, "n": 2}),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_jvp_takes_a_tangent_that_copies_or_leaves_out_a_string_leaf(case):
    f, p, tangent, moved = CASES[case]
    value, got = srcdiff.jvp(f, (p, X), (tangent, None))
    assert_close(value, f(p, X))
    assert_close(got, central_difference(lambda t: f(moved(t), X), (0.0,), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("v", [{"w": V, "name": "layer1"}, {"w": V}])
def test_hvp_takes_a_direction_that_copies_or_leaves_out_a_string_leaf(v):
    p = {"w": W, "name": "layer1"}
    gradient = srcdiff.grad(named)
    want = central_difference(lambda t: gradient({"w": W + t * V, "name": "layer1"}, X)["w"], (0.0,), 0)
    assert_close(srcdiff.hvp(named, p, v, X)["w"], want, rtol=1e-5, atol=1e-7)


def test_a_number_leaf_s_tangent_that_is_not_zero_is_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="holds no float"):
        srcdiff.jvp(powered, ({"w": W, "n": 2}, X), ({"w": V, "n": 2}, None))
