"""`srcdiff.vmap` with in_axes trees shaped like a tree argument (``((None, 0), 0)``, ``({"W": None,
"b": 1}, 0)``, a namedtuple of axes): one batched call of the function of the leaves, each leaf along
its own axis (api/vmap_leaves.py), where it ran one example at a time before.  Checked against the
loop of ``grad(f)``, itself checked leaf by leaf against float64 central differences, in float32, and
with jit="numba"."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

Pair = collections.namedtuple("Pair", "W b")
R = np.random.default_rng(27)
B, N = 3, 4
W, Ws = R.normal(size=(N, N)) / 2, R.normal(size=(N, B, N)) / 2  # Ws: the batch on axis 1
b, bs = R.normal(size=N), R.normal(size=(B, N))
X = R.normal(size=(B, N))


def layer_tuple(p, x):
    return np.sum(np.tanh(p[0] @ x + p[1]) ** 2)


def layer_dict(p, x):
    return np.sum(np.tanh(p["W"] @ x + p["b"]) ** 2) + np.sum(p["b"] * x)


def layer_named(p, x):
    return np.sum(np.sin(p.W @ x) * p.b)


#: (function, the tree batched, its in_axes, example i's tree)
CASES = [
    (layer_tuple, (W, bs), ((None, 0), 0), lambda i: (W, bs[i])),
    (layer_tuple, (Ws, b), ((1, None), 0), lambda i: (Ws[:, i], b)),
    (layer_dict, {"W": Ws, "b": bs}, ({"W": 1, "b": 0}, 0), lambda i: {"W": Ws[:, i], "b": bs[i]}),
    (layer_named, Pair(W, bs), (Pair(None, 0), 0), lambda i: Pair(W, bs[i])),
]


def _leaves(tree):
    return list(tree.values()) if isinstance(tree, dict) else list(tree)


def _with_leaf(tree, k, value):
    if isinstance(tree, dict):
        return {key: value if n == k else v for n, (key, v) in enumerate(tree.items())}
    parts = [value if n == k else v for n, v in enumerate(tree)]
    return type(tree)(*parts) if hasattr(tree, "_fields") else type(tree)(parts)


@pytest.mark.parametrize("f, tree, axes, one", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_an_in_axes_tree_is_batched_and_the_loop_over_examples(f, tree, axes, one):
    gradient = srcdiff.grad(f)
    mapped = srcdiff.vmap(gradient, in_axes=axes, per_example="refuse")
    got = mapped(tree, X)
    assert mapped.per_example is None
    for i in range(B):
        want = gradient(one(i), X[i])
        for k, leaf in enumerate(_leaves(one(i))):  # the loop's truth, leaf by leaf
            cd = central_difference(lambda v, x, i=i, k=k: f(_with_leaf(one(i), k, v), x), [np.array(leaf), X[i]], 0)
            np.testing.assert_allclose(_leaves(want)[k], cd, rtol=1e-6, atol=1e-7)
        for g, w in zip(_leaves(got), _leaves(want)):
            np.testing.assert_allclose(g[i], w, rtol=1e-12, atol=1e-13)
    values = srcdiff.vmap(f, in_axes=axes, per_example="refuse")(tree, X)
    np.testing.assert_allclose(values, [f(one(i), X[i]) for i in range(B)], rtol=1e-12)


def test_float32_leaves_stay_float32():
    tree = (W.astype(np.float32), bs.astype(np.float32))
    got = srcdiff.vmap(srcdiff.grad(layer_tuple), in_axes=((None, 0), 0), per_example="refuse")(
        tree, X.astype(np.float32))
    assert all(leaf.dtype == np.float32 for leaf in got)
    want = srcdiff.vmap(srcdiff.grad(layer_tuple), in_axes=((None, 0), 0))((W, bs), X)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_numba_agrees():
    f, tree, axes, _ = CASES[2]
    want = srcdiff.vmap(srcdiff.grad(f), in_axes=axes)(tree, X)
    got = srcdiff.vmap(srcdiff.grad(f), in_axes=axes, jit="numba")(tree, X)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-10, atol=1e-12)
