"""`srcdiff.vmap` on user-style programs (vmap_programs.py): loops with carries and lists,
helpers, solves, sorts, scans, reductions over axes, matmul chains, trees and float32.

Every answer is compared with a Python loop over the examples: of ``srcdiff.grad(f)`` for
``vmap(grad(f))`` (each example's gradient itself checked against float64 central differences
here) and of `f` for ``vmap(f)``.  `ONE_AT_A_TIME` pins which programs run one example at a
time (their printed source says so and why); the others run as one batched call.
"""

from __future__ import annotations

import collections
import dataclasses
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import vmap_programs as vp

CASES = {case.name: case for case in vp.cases()}

#: the programs whose vmap(grad(f)) runs one example at a time (the others: one batched call); none since wave
#: 28 batched a loop's list of lists and a test holding a reduction (np.linalg.slogdet / cholesky, an index of
#: positions computed from a batched value, in_axes trees and a shape read of a computed value since wave 27)
ONE_AT_A_TIME: set = set()

#: the default run's rows (each class once: a loop's tape, a list, a solve, a sort, a tree, one example at a
#: time, float32); the slow set runs every program
DEFAULT = {"scalar_carry", "rnn", "list_append_stack", "sum_mixed_ranks", "solve", "sort_values", "tuple_params",
           "argsort_values", "float32_loss", "mlp", "tape_of_matrices", "mixed_list", "mixed_list_summed"}
ROWS = [pytest.param(name, marks=() if name in DEFAULT else pytest.mark.slow) for name in sorted(CASES)]


def leaves(tree) -> list:
    if dataclasses.is_dataclass(tree):
        tree = vars(tree)
    if isinstance(tree, dict):
        return [leaf for key in tree for leaf in leaves(tree[key])]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [tree]


def stacked(rows: list):
    """The per-example results stacked leaf by leaf, in the type of each example's tree."""
    first = rows[0]
    if dataclasses.is_dataclass(first):
        return type(first)(**{k: stacked([getattr(r, k) for r in rows]) for k in vars(first)})
    if isinstance(first, dict):
        return {k: stacked([r[k] for r in rows]) for k in first}
    if isinstance(first, tuple):
        parts = [stacked([r[k] for r in rows]) for k in range(len(first))]
        return type(first)(*parts) if hasattr(first, "_fields") else tuple(parts)
    return np.stack([np.asarray(r) for r in rows])


def assert_same_tree(got, want, rtol=1e-9, atol=1e-12):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, dict):
        assert list(got) == list(want)
    got_leaves, want_leaves = leaves(got), leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype, (np.shape(g), np.shape(w))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def widened(value):
    if isinstance(value, dict):
        return {k: widened(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(widened(v) for v in value)
    return np.asarray(value, dtype=float) if isinstance(value, np.ndarray) else value


@pytest.mark.parametrize("name", ROWS)
def test_vmap_of_grad_is_the_loop_over_examples(name):
    case = CASES[name]
    gradient = srcdiff.grad(case.func, wrt=case.wrt)
    per = [gradient(*vp.example(case, i)) for i in range(vp.B)]
    if not isinstance(per[0], (dict, tuple)) and not name.startswith("float32"):  # the loop's truth, checked
        for i in range(vp.B):
            args = widened(vp.example(case, i))
            np.testing.assert_allclose(per[i], central_difference(case.func, args, case.wrt), rtol=1e-5, atol=1e-5)
    batched = srcdiff.vmap(gradient, in_axes=case.in_axes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_same_tree(batched(*case.args), stacked(per))
    assert (batched.per_example is not None) == (name in ONE_AT_A_TIME), batched.per_example
    warned = [w for w in caught if issubclass(w.category, srcdiff.PerExampleWarning)]
    assert len(warned) == (name in ONE_AT_A_TIME), [str(w.message) for w in warned]
    if batched.per_example is not None:
        assert "one example at a time" in batched.source and "one_example(" in batched.source
    assert_same_tree(batched(*case.args), stacked(per))  # the second call (its plan or its loop) agrees


@pytest.mark.parametrize("name", ROWS)
def test_vmap_of_f_is_the_loop_over_examples(name):
    case = CASES[name]
    want = stacked([np.asarray(case.func(*vp.example(case, i))) for i in range(vp.B)])
    mapped = srcdiff.vmap(case.func, in_axes=case.in_axes, per_example="allow")
    assert_same_tree(mapped(*case.args), want, rtol=1e-12, atol=1e-14)


# ---- tree arguments: each leaf along its own axis (JAX's in_axes), never np.asarray of the tree ----

def two_layer(params, x):
    W, b = params
    return np.sum(np.tanh(W @ x + b) ** 2)


Params = collections.namedtuple("Params", "W b")


@dataclasses.dataclass
class Model:
    W: np.ndarray
    b: np.ndarray


def named(p, x):
    return np.sum(np.tanh(p.W @ x + p.b) ** 2)


R = np.random.default_rng(26)
W, b, X = R.normal(size=(3, 3)), R.normal(size=3), R.normal(size=(4, 3))
WS, BS = R.normal(size=(4, 3, 3)), R.normal(size=(4, 3))


def loop(f, args_of):
    return stacked([f(*args_of(i)) for i in range(4)])


@pytest.mark.parametrize("transform", [lambda f: f, srcdiff.grad], ids=["f", "grad"])
def test_a_tuple_of_two_matrices_of_one_shape_maps_each_leaf(transform):
    # the silent wrong answer that made tuples refused: (W, b) of one shape was np.asarray-ed into one
    # array of two rows and mapped over W and b; each leaf is now mapped along its own axis
    Vs = R.normal(size=(4, 3, 3))
    f = transform(lambda p, x: np.sum(np.tanh(p[0] @ x + p[1] @ x) ** 2))
    got = srcdiff.vmap(f, in_axes=(0, 0), per_example="allow")((WS, Vs), X)
    assert_same_tree(got, loop(f, lambda i: ((WS[i], Vs[i]), X[i])))
    shared = srcdiff.vmap(f, in_axes=((None, 0), None), per_example="allow")((W, Vs), X[0])
    assert_same_tree(shared, loop(f, lambda i: ((W, Vs[i]), X[0])))


@pytest.mark.parametrize("params, axes, example", [
    ((W, b), (None, 0), lambda i: ((W, b), X[i])),
    ((WS, BS), (0, 0), lambda i: ((WS[i], BS[i]), X[i])),
    ((WS, b), ((0, None), 0), lambda i: ((WS[i], b), X[i])),
    ({"W": W, "b": BS}, ({"W": None, "b": 0}, 0), lambda i: ({"W": W, "b": BS[i]}, X[i])),
    (Params(WS, b), (Params(0, None), 0), lambda i: (Params(WS[i], b), X[i])),
    (Model(W, BS), ({"W": None, "b": 0}, 0), None),
    (Model(W, b), (None, 0), lambda i: (Model(W, b), X[i])),
], ids=["tuple-shared", "tuple-both", "tuple-tree-axes", "dict-tree-axes", "namedtuple", "dataclass-dict-axes",
        "dataclass-shared"])
def test_tree_arguments_map_each_leaf(params, axes, example):
    f = named if isinstance(params, (Params, Model)) else two_layer
    if isinstance(params, dict):
        f = dict_layer
    if example is None:  # a tree of axes for a dataclass: refused, one int or None only
        with pytest.raises(srcdiff.SrcDiffError, match="in_axes"):
            srcdiff.vmap(f, in_axes=axes)(params, X)
        return
    for transform in (lambda g: g, srcdiff.grad):
        g = transform(f)
        batched = srcdiff.vmap(g, in_axes=axes, per_example="allow")
        assert_same_tree(batched(params, X), loop(g, example))
        # batched over the tree's leaves (f, or its gradient), each leaf along its own axis (in_axes trees
        # too since wave 27)
        assert batched.per_example is None, batched.per_example


def dict_layer(params, x):
    return np.sum(np.tanh(params["W"] @ x + params["b"]) ** 2)


@pytest.mark.parametrize("args, axes, match", [
    (((W, b), X), ((0, 0, 0), 0), "has 3 entries, the argument 2"),
    (({"W": W, "b": b}, X), ({"W": 0}, 0), "names the keys"),
    (((WS, BS[:3]), X), (0, 0), "different sizes"),
    (((W, b), X), ((None, (0,)), 0), "which is not a tree"),
    (((W, b), X), ((None, 1), 0), "in_axes 1 of argument 0\\[1\\], of shape \\(3,\\)"),
])
def test_tree_in_axes_that_do_not_fit_are_refused(args, axes, match):
    f = dict_layer if isinstance(args[0], dict) else two_layer
    with pytest.raises(srcdiff.SrcDiffError, match=match):
        srcdiff.vmap(f, in_axes=axes)(*args)


@pytest.mark.parametrize("transform", [lambda f: f, srcdiff.grad], ids=["f", "grad"])
def test_a_tree_of_in_axes_with_numba_agrees_or_refuses_at_the_def_line(transform):
    # batched over the leaves since wave 27 (it was refused: one example at a time); what is not batched is refused
    f = transform(two_layer)
    want = loop(f, lambda i: ((W, BS[i]), X[i]))
    try:
        got = srcdiff.vmap(f, in_axes=((None, 0), 0), jit="numba")((W, BS), X)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename == __file__, str(exc)
        return
    assert_same_tree(got, want, rtol=1e-10, atol=1e-12)


def test_a_tree_returned_refuses_numba_at_the_def_line():
    def pair(params, x):
        return params[0] @ x, np.sum(params[1] * x)

    with pytest.raises(srcdiff.SrcDiffError, match="not batched, which jit='numba' needs") as info:
        srcdiff.vmap(pair, in_axes=((None, 0), 0), jit="numba")((W, BS), X)
    assert info.value.location.line == pair.__code__.co_firstlineno


def branch_per_example(w, x):
    if x[0] > x[1]:  # a branch that differs between examples: both sides run, joined row by row (branch_rows)
        return np.sum(w * x)
    return np.sum(w * x ** 2)


def test_a_branch_that_differs_between_examples_is_one_batched_call():
    # (this test printed the loop over examples of branch_per_example until wave 31 batched a branch whose test
    # differs between examples: both sides for every row, each value joined row by row, commit c924d40)
    assert len({bool(x[0] > x[1]) for x in X}) == 2  # both sides taken
    batched = srcdiff.vmap(srcdiff.grad(branch_per_example), in_axes=(None, 0), per_example="refuse")
    got = batched(W[0], X)
    want = np.stack([central_difference(branch_per_example, (W[0], x), 0) for x in X])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    assert batched.per_example is None and "one example at a time" not in batched.source
    # numba has no row-by-row join of the sides: refused at the if's line
    with pytest.raises(srcdiff.SrcDiffError, match="differs between examples cannot be batched with jit='numba'") \
            as info:
        srcdiff.vmap(srcdiff.grad(branch_per_example), in_axes=(None, 0), jit="numba")(W[0], X)
    assert info.value.location.line == branch_per_example.__code__.co_firstlineno + 1


def halved_per_example(w, x):
    while np.sum(x * x) > 1.0:  # a loop whose count differs between examples: one example at a time
        x = 0.5 * x
    return np.sum(w * x ** 2)


def test_the_loop_over_examples_is_printed_with_its_reason():
    batched = srcdiff.vmap(srcdiff.grad(halved_per_example), in_axes=(None, 0), per_example="allow")
    got = batched(W[0], X)
    np.testing.assert_allclose(got, np.stack([central_difference(halved_per_example, (W[0], x), 0) for x in X]),
                               rtol=1e-6, atol=1e-8)
    assert "one example at a time" in batched.source
    assert batched.per_example.splitlines()[0] in batched.source
    assert "test_vmap_programs.py" in batched.per_example  # the user's file and line of what was not batched


def casts(x):
    return np.float64(x) * 2.0 + np.float32(x) ** 2


def test_vmap_numba_of_float32_casts():
    # np.float32(x) of a batched array: numba has no np.float32 of an array (it refused at the line); the
    # batched code writes x.astype(np.float32), the same array
    xs = np.linspace(0.1, 1.0, 5)
    for f in (casts, srcdiff.grad(casts)):
        got = srcdiff.vmap(f, jit="numba")(xs)
        want = np.stack([np.asarray(f(x)) for x in xs])
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_allclose(srcdiff.vmap(f)(xs), want, rtol=1e-12)
