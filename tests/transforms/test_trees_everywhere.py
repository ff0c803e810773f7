"""Trees (dict, nested dict, list, tuple, namedtuple, dataclass, object), methods and partials
in every transformation, against float64 central differences of the plain function and a
gradient written by hand; JAX's structure conventions for the results."""

import collections
import dataclasses
import functools

import numpy as np
import pytest
from numeric import assert_close

import srcdiff

X = np.array([0.3, -0.7, 1.1])


def plain_loss(a, b, x):
    return np.sum(np.sin(a) * x) * np.sum(b ** 2) + np.sum(a ** 3) / 3.0


def plain_grad(a, b, x):  # by hand
    return np.cos(a) * x * np.sum(b ** 2) + a ** 2, 2.0 * b * np.sum(np.sin(a) * x)


def plain_vec(a, b, x):
    return np.tanh(a) * x + np.sum(b * b) * a


# ---- the tree kinds: build from (a, b), the loss and the vector function reading them ----

Pair = collections.namedtuple("Pair", ["a", "b"])


@dataclasses.dataclass
class Params:
    a: np.ndarray
    b: np.ndarray


class Obj:
    def __init__(self, a, b):
        self.a, self.b = a, b


class Model:
    def __init__(self, shift):
        self.shift = shift

    def loss(self, p, x):
        return np.sum(np.sin(p["a"]) * x) * np.sum(p["b"] ** 2) + np.sum(p["a"] ** 3) / 3.0 + self.shift

    def vec(self, p, x):
        return np.tanh(p["a"]) * x + np.sum(p["b"] * p["b"]) * p["a"] + self.shift


def loss_dict(p, x):
    return np.sum(np.sin(p["a"]) * x) * np.sum(p["b"] ** 2) + np.sum(p["a"] ** 3) / 3.0


def vec_dict(p, x):
    return np.tanh(p["a"]) * x + np.sum(p["b"] * p["b"]) * p["a"]


def loss_nested(p, x):
    a = p["layer"]["a"]
    return np.sum(np.sin(a) * x) * np.sum(p["out"]["b"] ** 2) + np.sum(a ** 3) / 3.0


def vec_nested(p, x):
    return np.tanh(p["layer"]["a"]) * x + np.sum(p["out"]["b"] * p["out"]["b"]) * p["layer"]["a"]


def loss_seq(p, x):
    a, b = p
    return np.sum(np.sin(a) * x) * np.sum(b ** 2) + np.sum(a ** 3) / 3.0


def vec_seq(p, x):
    return np.tanh(p[0]) * x + np.sum(p[1] * p[1]) * p[0]


def loss_attr(p, x):
    return np.sum(np.sin(p.a) * x) * np.sum(p.b ** 2) + np.sum(p.a ** 3) / 3.0


def vec_attr(p, x):
    return np.tanh(p.a) * x + np.sum(p.b * p.b) * p.a


def loss_scaled(p, x, scale):
    return scale * (np.sum(np.sin(p["a"]) * x) * np.sum(p["b"] ** 2) + np.sum(p["a"] ** 3) / 3.0)


def vec_scaled(p, x, scale):
    return scale * (np.tanh(p["a"]) * x + np.sum(p["b"] * p["b"]) * p["a"])


MODEL = Model(0.25)

# kind -> (make tree, loss, vec, (a, b) of a tree-shaped result, scale of the function)
KINDS = {
    "dict": (lambda a, b: {"a": a, "b": b}, loss_dict, vec_dict, lambda t: (t["a"], t["b"]), 1.0),
    "nested dict": (lambda a, b: {"layer": {"a": a}, "out": {"b": b}}, loss_nested, vec_nested,
                    lambda t: (t["layer"]["a"], t["out"]["b"]), 1.0),
    "list": (lambda a, b: [a, b], loss_seq, vec_seq, lambda t: (t[0], t[1]), 1.0),
    "tuple": (lambda a, b: (a, b), loss_seq, vec_seq, lambda t: (t[0], t[1]), 1.0),
    "namedtuple": (Pair, loss_attr, vec_attr, lambda t: (t.a, t.b), 1.0),
    "dataclass": (Params, loss_attr, vec_attr, lambda t: (t.a, t.b), 1.0),
    "object": (Obj, loss_attr, vec_attr, lambda t: (t["a"], t["b"]), 1.0),
    "method": (lambda a, b: {"a": a, "b": b}, MODEL.loss, MODEL.vec, lambda t: (t["a"], t["b"]), 1.0),
    "partial": (lambda a, b: {"a": a, "b": b}, functools.partial(loss_scaled, scale=2.5),
                functools.partial(vec_scaled, scale=2.5), lambda t: (t["a"], t["b"]), 2.5),
}
RESULT_TYPE = {"dict": dict, "nested dict": dict, "list": list, "tuple": tuple, "namedtuple": Pair,
               "dataclass": Params, "object": dict, "method": dict, "partial": dict}


def arrays(seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.0, 1.0, 3), rng.uniform(-1.0, 1.0, 2)


def numeric_jacobian(f, a, b, which, eps=1e-6):
    """d f(a, b) / d (a or b): shape f.shape + arg.shape, by central differences."""
    args = [a, b]
    x = args[which]
    out = np.zeros(np.shape(f(a, b)) + x.shape)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        hi = f(*(plus if k == which else v for k, v in enumerate(args)))
        lo = f(*(minus if k == which else v for k, v in enumerate(args)))
        out[(...,) + i] = (np.asarray(hi) - np.asarray(lo)) / (2 * eps)
    return out


KIND_NAMES = list(KINDS)


@pytest.mark.parametrize("kind", KIND_NAMES)
@pytest.mark.parametrize("how", ["grad", "value_and_grad", "vjp", "jit"])
def test_first_order_of_a_tree(kind, how):
    make, loss, _, parts, scale = KINDS[kind]
    a, b = arrays(1)
    p = make(a, b)
    if how == "jit":
        pytest.importorskip("numba")
        found = srcdiff.grad(loss, jit="numba")(p, X)
    elif how == "grad":
        found = srcdiff.grad(loss)(p, X)
    elif how == "value_and_grad":
        value, found = srcdiff.value_and_grad(loss)(p, X)
        assert_close(value, loss(p, X))
    else:
        value, pullback = srcdiff.vjp(loss, p, X)
        assert_close(value, loss(p, X))
        found = pullback(1.0)
    assert isinstance(found, RESULT_TYPE[kind])
    ga, gb = plain_grad(a, b, X)
    assert_close(parts(found)[0], scale * ga)
    assert_close(parts(found)[1], scale * gb)
    assert_close(parts(found)[0], numeric_jacobian(lambda a_, b_: loss(make(a_, b_), X), a, b, 0), rtol=1e-5)


def test_jit_of_a_tree_runs_numba_not_plain_numpy():
    pytest.importorskip("numba")
    gradient = srcdiff.grad(loss_dict, jit="numba")
    a, b = arrays(2)
    gradient({"a": a, "b": b}, X)
    inner = gradient._trees.last
    assert inner.options.jit == "numba" and inner._last.jitted is not None


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_jacobian_of_a_tree_is_a_tree_of_out_shape_plus_leaf_shape(kind):
    make, _, vec, parts, scale = KINDS[kind]
    a, b = arrays(3)
    found = srcdiff.jacobian(vec)(make(a, b), X)
    ja, jb = parts(found)
    assert ja.shape == (3, 3) and jb.shape == (3, 2)
    assert_close(ja, numeric_jacobian(lambda a_, b_: vec(make(a_, b_), X), a, b, 0), rtol=1e-5)
    assert_close(jb, numeric_jacobian(lambda a_, b_: vec(make(a_, b_), X), a, b, 1), rtol=1e-5)


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_vjp_cotangent_is_shaped_like_the_output(kind):
    make, _, vec, parts, scale = KINDS[kind]
    a, b = arrays(4)
    value, pullback = srcdiff.vjp(vec, make(a, b), X)
    assert_close(value, vec(make(a, b), X))
    u = np.array([0.5, -1.0, 2.0])
    ga, gb = parts(pullback(u))
    assert_close(ga, u @ numeric_jacobian(lambda a_, b_: vec(make(a_, b_), X), a, b, 0), rtol=1e-5)
    assert_close(gb, u @ numeric_jacobian(lambda a_, b_: vec(make(a_, b_), X), a, b, 1), rtol=1e-5)
    with pytest.raises(srcdiff.SrcDiffError, match="shape"):
        pullback(1.0)


def hand_grad_of(kind):
    _, _, _, _, scale = KINDS[kind]
    return lambda a, b: tuple(scale * g for g in plain_grad(a, b, X))


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_hessian_of_a_tree_is_a_tree_of_trees(kind):
    make, loss, _, parts, _ = KINDS[kind]
    a, b = arrays(5)
    found = srcdiff.hessian(loss)(make(a, b), X)
    assert isinstance(found, RESULT_TYPE[kind])
    rows = parts(found)
    hand = hand_grad_of(kind)
    for i, row in enumerate(rows):
        assert isinstance(row, RESULT_TYPE[kind])
        for j, block in enumerate(parts(row)):
            expected = numeric_jacobian(lambda a_, b_, i=i: hand(a_, b_)[i], a, b, j)
            assert block.shape == expected.shape
            assert_close(block, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_hvp_with_a_tree_and_a_direction_like_it(kind):
    make, loss, _, parts, _ = KINDS[kind]
    a, b = arrays(6)
    da, db = arrays(7)
    found = srcdiff.hvp(loss, make(a, b), make(da, db), X)
    hand = hand_grad_of(kind)
    eps = 1e-6
    hi, lo = hand(a + eps * da, b + eps * db), hand(a - eps * da, b - eps * db)
    for got, h, low in zip(parts(found), hi, lo):
        assert_close(got, (h - low) / (2 * eps), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_jvp_with_primal_and_tangent_trees(kind):
    make, loss, vec, _, _ = KINDS[kind]
    a, b = arrays(8)
    da, db = arrays(9)
    dx = np.array([1.0, 0.5, -0.5])
    for f in (loss, vec):
        value, tangent = srcdiff.jvp(f, (make(a, b), X), (make(da, db), dx))
        eps = 1e-6
        hi = f(make(a + eps * da, b + eps * db), X + eps * dx)
        lo = f(make(a - eps * da, b - eps * db), X - eps * dx)
        assert_close(value, f(make(a, b), X))
        assert_close(tangent, (np.asarray(hi) - np.asarray(lo)) / (2 * eps), rtol=1e-5, atol=1e-6)
    _, held = srcdiff.jvp(loss, (make(a, b), X), (None, dx))  # None: the tree held constant
    assert_close(held, np.sum(np.sin(a) * dx) * np.sum(b ** 2) * KINDS[kind][4])


def test_jvp_tangent_tree_must_match_the_primal():
    a, b = arrays(10)
    with pytest.raises(srcdiff.SrcDiffError, match="has 1 entries"):
        srcdiff.jvp(loss_dict, ({"a": a, "b": b}, X), ({"a": a}, X))
    with pytest.raises(srcdiff.SrcDiffError, match="truncated"):
        srcdiff.jvp(lambda p: p["w"] * p["n"], ({"w": 2.0, "n": 3},), ({"w": 1.0, "n": 1.0},))


def test_jvp_of_a_gradient_is_forward_over_reverse_with_trees():
    a, b = arrays(11)
    da, db = arrays(12)
    value, tangent = srcdiff.jvp(srcdiff.grad(loss_dict), ({"a": a, "b": b}, X), ({"a": da, "b": db}, None))
    eps = 1e-6
    hi, lo = plain_grad(a + eps * da, b + eps * db, X), plain_grad(a - eps * da, b - eps * db, X)
    assert_close(value["a"], plain_grad(a, b, X)[0])
    assert_close(tangent["a"], (hi[0] - lo[0]) / (2 * eps), rtol=1e-5, atol=1e-6)
    assert_close(tangent["b"], (hi[1] - lo[1]) / (2 * eps), rtol=1e-5, atol=1e-6)


def plain_two(x, y):
    return np.sum(x ** 2 * y) + np.sum(np.sin(x) * y ** 3)


def test_hessian_with_respect_to_two_arguments_is_a_tuple_of_tuples():
    x, y = arrays(13)[0], arrays(14)[0]
    found = srcdiff.hessian(plain_two, wrt=(0, 1))(x, y)

    def hand(x_, y_):
        return 2 * x_ * y_ + np.cos(x_) * y_ ** 3, x_ ** 2 + 3 * np.sin(x_) * y_ ** 2
    assert isinstance(found, tuple) and all(isinstance(r, tuple) and len(r) == 2 for r in found)
    for i in range(2):
        for j in range(2):
            assert_close(found[i][j], numeric_jacobian(lambda a_, b_, i=i: hand(a_, b_)[i], x, y, j), rtol=1e-5)


def vector_two(x):
    return np.sin(x) * np.sum(x) + x ** 3


def test_jacobian_of_a_jacobian():
    x = np.array([0.4, -0.3, 0.9])
    found = srcdiff.jacobian(srcdiff.jacobian(vector_two))(x)

    def jac(x_):  # by hand
        return np.diag(np.cos(x_) * np.sum(x_) + 3 * x_ ** 2) + np.outer(np.sin(x_), np.ones(3))
    assert found.shape == (3, 3, 3)
    assert_close(found, numeric_jacobian(lambda a_, b_: jac(a_), x, x, 0), rtol=1e-5, atol=1e-6)


def concatenated(xs):
    return np.sum(np.concatenate(xs) ** 2 * np.arange(1.0, 6.0))


@pytest.mark.parametrize("box", [list, tuple])
def test_vjp_of_a_list_or_tuple_argument(box):
    xs = box([np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])])
    value, pullback = srcdiff.vjp(concatenated, xs)
    found = pullback(1.0)
    assert isinstance(found, box)
    assert_close(found[0], 2 * xs[0] * np.array([1.0, 2.0]))
    assert_close(found[1], 2 * xs[1] * np.array([3.0, 4.0, 5.0]))
