"""Parameter trees: dicts, lists, tuples, namedtuples and dataclasses as arguments and `wrt`
targets; the gradient has the same structure.  Each gradient is checked against central
differences of the function itself, leaf by leaf."""

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

rng = np.random.default_rng(20261201)


def tree_difference(f, args, index, path):
    """Central difference of f with respect to the leaf at `path` inside args[index]."""
    def replaced(tree, path, value):
        if not path:
            return value
        key, rest = path[0], path[1:]
        if isinstance(tree, dict):
            return {**tree, key: replaced(tree[key], rest, value)}
        if isinstance(tree, list):
            return [replaced(v, rest, value) if i == key else v for i, v in enumerate(tree)]
        if isinstance(tree, tuple) and hasattr(tree, "_fields"):
            return tree._replace(**{key: replaced(getattr(tree, key), rest, value)})
        if isinstance(tree, tuple):
            return tuple(replaced(v, rest, value) if i == key else v for i, v in enumerate(tree))
        fields = dict(vars(tree))
        fields[key] = replaced(fields[key], rest, value)
        return type(tree)(**fields)

    def leaf(tree, path):
        for key in path:
            tree = tree[key] if isinstance(tree, (dict, list)) or (isinstance(tree, tuple) and isinstance(key, int)) \
                else getattr(tree, key)
        return tree

    def g(v):
        new = list(args)
        new[index] = replaced(args[index], path, v)
        return f(*new)
    return central_difference(g, (leaf(args[index], path),), 0)


def mlp(params, X, y):
    hidden = np.tanh(X @ params["W1"] + params["b1"])
    out = hidden @ params["W2"] + params["b2"]
    return np.mean((out - y) ** 2)


def mlp_data():
    params = {"W1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4), "W2": rng.normal(size=4), "b2": 0.5}
    return params, rng.normal(size=(5, 3)), rng.normal(size=5)


def test_dict_of_arrays_gradient_has_the_same_keys_in_order():
    params, X, y = mlp_data()
    g = srcdiff.grad(mlp)(params, X, y)
    assert type(g) is dict and list(g) == ["W1", "b1", "W2", "b2"]
    for key in params:
        assert_close(g[key], tree_difference(mlp, (params, X, y), 0, (key,)))
    assert isinstance(g["b2"], float)


def test_dict_gradient_source_reads_leaf_names():
    params, X, y = mlp_data()
    source = srcdiff.grad(mlp).source_for(params, X, y)
    assert "params_W1" in source and "params_b2" in source


def test_new_values_same_structure_reuse_the_transform():
    params, X, y = mlp_data()
    gradient = srcdiff.grad(mlp)
    gradient(params, X, y)
    before = srcdiff.cache_info()
    other = {k: v * 2.0 for k, v in params.items()}
    g = gradient(other, X, y)
    assert srcdiff.cache_info().transforms == before.transforms
    assert_close(g["W2"], tree_difference(mlp, (other, X, y), 0, ("W2",)))


Params = namedtuple("Params", "w b")


@dataclass
class Linear:
    w: np.ndarray
    b: float


def affine(p, x):
    return np.sum((x * p.w + p.b) ** 2)


@pytest.mark.parametrize("make", [lambda w, b: Params(w, b), lambda w, b: Linear(w, b)])
def test_namedtuple_and_dataclass_attribute_reads(make):
    x, w = rng.normal(size=3), rng.normal(size=3)
    p = make(w, 0.3)
    g = srcdiff.grad(affine)(p, x)
    assert type(g) is type(p)
    assert_close(g.w, tree_difference(affine, (p, x), 0, ("w",)))
    assert_close(g.b, tree_difference(affine, (p, x), 0, ("b",)))


def unpacks(p, x):
    w, b = p
    return np.sum(np.sin(x * w) + b * b)


def layers(stack, x):
    for W, b in stack:
        x = np.tanh(x @ W + b)
    return np.sum(x)


def test_tuple_unpacking_and_loop_over_a_list_of_layers():
    x, w = rng.normal(size=3), rng.normal(size=3)
    g = srcdiff.grad(unpacks)((w, 0.7), x)
    assert type(g) is tuple
    assert_close(g[0], tree_difference(unpacks, ((w, 0.7), x), 0, (0,)))
    stack = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)), rng.normal(size=2))]
    g = srcdiff.grad(layers)(stack, x)
    assert type(g) is list and type(g[1]) is tuple
    for path in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        assert_close(g[path[0]][path[1]], tree_difference(layers, (stack, x), 0, path))


def constant_keys(p, x):
    s = 0.0
    for k in ("a", "b"):
        s = s + np.sum(p[k] * x)
    for k, v in p.items():
        s = s + np.sum(v * v) * len(k)
    return s + sum([np.sum(p[k] ** 3) for k in ("a", "b")])


def indexed(p, x):
    s = 0.0
    for i in range(len(p)):
        s = s + np.sum(p[i] * x) * (i + 1)
    return s + np.sum(p[-1] ** 2)


def test_loops_over_keys_items_and_indices_are_unrolled():
    x, a, b = rng.normal(size=(3, 3))
    p = {"a": a, "b": b}
    g = srcdiff.grad(constant_keys)(p, x)
    assert_close(g["b"], tree_difference(constant_keys, (p, x), 0, ("b",)))
    g = srcdiff.grad(indexed)([a, b], x)
    assert_close(g[1], tree_difference(indexed, ([a, b], x), 0, (1,)))


def local_dicts(p, x):
    d = {"u": p["a"] * 2.0, "v": x}
    e = dict(w=p["b"], z=d["u"])
    d["t"] = e["w"] + 1.0
    d["t"] += 1.0
    return np.sum(d["u"] * d["v"] + d["t"] * e["z"])


def test_dicts_built_and_written_locally():
    x, a, b = rng.normal(size=(3, 3))
    p = {"a": a, "b": b}
    gp, gx = srcdiff.grad(local_dicts, wrt=(0, 1))(p, x)
    assert_close(gp["a"], tree_difference(local_dicts, (p, x), 0, ("a",)))
    assert_close(gp["b"], tree_difference(local_dicts, (p, x), 0, ("b",)))
    assert_close(gx, central_difference(local_dicts, (p, x), 1))


def dense(layer, x):
    return np.tanh(x @ layer["W"] + layer["b"])


def two_layers(p, x):
    return np.sum(dense(p["l2"], dense(p["l1"], x)) ** 2)


def test_subtrees_passed_to_a_helper():
    x = rng.normal(size=(4, 3))
    p = {"l1": {"W": rng.normal(size=(3, 5)), "b": rng.normal(size=5)},
         "l2": {"W": rng.normal(size=(5, 2)), "b": rng.normal(size=2)}}
    g = srcdiff.grad(two_layers)(p, x)
    for path in [("l1", "W"), ("l1", "b"), ("l2", "W"), ("l2", "b")]:
        assert_close(g[path[0]][path[1]], tree_difference(two_layers, (p, x), 0, path))


def test_wrt_a_path_inside_a_tree():
    x = rng.normal(size=(4, 3))
    p = {"l1": {"W": rng.normal(size=(3, 5)), "b": rng.normal(size=5)},
         "l2": {"W": rng.normal(size=(5, 2)), "b": rng.normal(size=2)}}
    g = srcdiff.grad(two_layers, wrt="p['l2']")(p, x)
    assert list(g) == ["W", "b"]
    assert_close(g["W"], tree_difference(two_layers, (p, x), 0, ("l2", "W")))
    g = srcdiff.grad(two_layers, wrt=("p['l1']['b']", "x"))(p, x)
    assert_close(g[0], tree_difference(two_layers, (p, x), 0, ("l1", "b")))
    assert_close(g[1], central_difference(two_layers, (p, x), 1))


def with_aux(p, x):
    loss = np.sum((p["a"] * x) ** 2)
    return loss, {"norm": np.sum(p["a"] ** 2)}


def test_value_and_grad_with_aux():
    x, a = rng.normal(size=(2, 3))
    (loss, aux), g = srcdiff.value_and_grad(with_aux, has_aux=True)({"a": a}, x)
    assert_close(loss, with_aux({"a": a}, x)[0])
    assert_close(aux["norm"], np.sum(a ** 2))
    assert_close(g["a"], tree_difference(lambda p, x: with_aux(p, x)[0], ({"a": a}, x), 0, ("a",)))


def integer_config(cfg, x):
    return np.sum(x ** cfg["power"]) * cfg["scale"]


def test_integer_leaves_are_data_not_differentiated():
    x = rng.normal(size=3)
    g = srcdiff.grad(integer_config)({"power": 3, "scale": 2.0}, x)
    assert g["power"] is None
    assert_close(g["scale"], np.sum(x ** 3))


def passes_whole(p, x):
    return np.sum(np.stack(p) * x)


def mutates(p, x):
    p["a"] = p["a"] * 2.0
    return np.sum(p["a"] * x)


def dynamic_key(p, x, k):
    return np.sum(p[k] * x)


def missing_key(p, x):
    return np.sum(p["c"] * x)


@pytest.mark.parametrize("func, args, says", [
    (passes_whole, ({"a": np.ones(2), "b": np.ones(2)}, np.ones(2)), "passed whole to np.stack"),
    (mutates, ({"a": np.ones(2)}, np.ones(2)), "changes an argument"),
    (dynamic_key, ({"a": np.ones(2)}, np.ones(2), "a"), "constant keys only"),
    (missing_key, ({"a": np.ones(2)}, np.ones(2)), "without the key 'c'"),
])
def test_other_uses_of_a_tree_are_refused_at_their_line(func, args, says):
    with pytest.raises(srcdiff.SrcDiffError, match=says) as info:
        srcdiff.grad(func)(*args)
    assert "test_trees.py:" in str(info.value) and "hint:" in str(info.value)
