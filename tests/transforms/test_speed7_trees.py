"""A call whose parameter trees have the structures of the last call reuses its plan without
building the structures again (api/flatcall.py `_matches`); any other call, or one the quick
comparison is unsure of, takes the full path.  Every call's gradient is checked against
central differences, leaf by leaf, in the structure of its own arguments."""

from collections import namedtuple

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

Pair = namedtuple("Pair", "w b")
Other = namedtuple("Other", "w b")


def layers(params, x):
    h = x
    for w, b in params:
        h = np.tanh(h * w + b)
    return np.sum(h * h)


def by_name(p, x):
    return np.sum(np.sin(p["a"] * x) + p["b"] * x * x)


def scale(v):
    return 2.0 * v


def with_helper(p, x):
    return np.sum(scale(p["a"]) * x)


def _leaves(tree):
    if isinstance(tree, dict):
        return [leaf for k in tree for leaf in _leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [tree]


def _replace(tree, k, new, counter):
    if isinstance(tree, dict):
        return {key: _replace(v, k, new, counter) for key, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        items = [_replace(v, k, new, counter) for v in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    counter[0] += 1
    return new if counter[0] - 1 == k else tree


def check(f, tree, x):
    got = srcdiff.grad(f)(tree, x)
    assert type(got) is type(tree)
    if isinstance(tree, dict):
        assert list(got) == list(tree)
    flat_got, flat_tree = _leaves(got), _leaves(tree)
    assert len(flat_got) == len(flat_tree)
    for k, leaf in enumerate(flat_tree):
        def g(v, k=k):
            return f(_replace(tree, k, v, [0]), x)
        np.testing.assert_allclose(flat_got[k], central_difference(g, (leaf,), 0), rtol=1e-6, atol=1e-8)
    return got


V = np.linspace(0.2, 0.9, 3)


def test_the_same_structures_again_and_then_others():
    f = srcdiff.grad(layers)
    calls = [
        [(0.5, 0.1), (0.7, -0.2)],
        [(0.3, 0.2), (1.1, 0.4)],                     # same structure: the quick path
        [(0.3, 0.2), (1.1, 0.4), (0.9, 0.0)],         # a longer list
        [(0.3, 0.2)],                                 # a shorter one
        [[0.3, 0.2], [1.1, 0.4]],                     # lists, not tuples
        [Pair(0.3, 0.2), Pair(1.1, 0.4)],             # namedtuples
        [Other(0.3, 0.2), Other(1.1, 0.4)],           # another namedtuple type
        [(V, 0.1), (0.7, V[::-1])],                   # arrays among the floats
        [(0.5, 0.1), (0.7, -0.2)],                    # back to the first
    ]
    for params in calls:
        got = f(params, V)
        assert type(got) is list and len(got) == len(params)
        assert all(type(g) is type(p) for g, p in zip(got, params))
        check(layers, params, V)


def test_dict_keys_and_leaf_kinds():
    f = srcdiff.grad(by_name)
    first = f({"a": 0.5, "b": 1.5}, V)
    swapped = f({"b": 1.5, "a": 0.5}, V)             # the same keys in another order
    assert list(swapped) == ["b", "a"] and list(first) == ["a", "b"]
    assert swapped["a"] == pytest.approx(first["a"]) and swapped["b"] == pytest.approx(first["b"])
    arrays = f({"a": V.copy(), "b": 1.5}, V)          # a float became an array
    assert np.shape(arrays["a"]) == V.shape
    ints = f({"a": 0.5, "b": 1.5, "n": 3}, V)         # an int leaf: data, not differentiated
    assert ints["n"] is None or ints["n"] == 0
    for tree in ({"a": 0.5, "b": 1.5}, {"b": 1.5, "a": 0.5}, {"a": V.copy(), "b": 1.5}):
        check(by_name, tree, V)


def test_float32_and_int_leaves_take_the_full_path():
    f = srcdiff.grad(by_name)
    f({"a": 0.5, "b": 1.5}, V)
    got = f({"a": np.float32(0.5), "b": np.array([1.5], dtype=np.float32)}, V.astype(np.float32))
    assert np.asarray(got["b"]).dtype == np.float32
    with pytest.raises(srcdiff.SrcDiffError):
        f({"a": 1, "b": 2}, V)                        # nothing to differentiate: refused as before


def test_a_rebound_helper_is_seen():
    global scale
    f = srcdiff.grad(with_helper)
    before = f({"a": 0.5}, V)
    old = scale
    try:
        def scale(v):  # noqa: F811 - rebound on purpose
            return 3.0 * v
        after = f({"a": 0.5}, V)
    finally:
        scale = old
    assert before["a"] == pytest.approx(2.0 * V.sum())
    assert after["a"] == pytest.approx(3.0 * V.sum())
