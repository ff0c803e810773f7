"""What grad refused on the matrix's red-team programs, written the way users write them
(issue #23/#25 follow-up): ``cfg = cfg or {}`` and ``eps or 1e-3``, a dict of numbers read
whole (``cfg.get("l2", 0.1)``), a top-level ``**opts``, a user object's method or
``__call__`` (a module-level object, one built from constants, a staticmethod through its
class), ``for k in sorted(params)``, ``np.insert`` / ``np.delete``, and ``+=`` on an alias
that nobody reads again.  Each variant goes through grad, value_and_grad, jvp, vjp, hessian,
numba and a dict tree, against float64 central differences (second differences for the
Hessian); what stays refused is refused at the user's line, with the reason.
"""

from __future__ import annotations

import copy
import inspect

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

from . import corpus, trees_wrapped
from .reach4_programs import (
    LAYERS,
    PROGRAMS,
    SPRING,
    Gravity,
    global_list_of_layers,
    global_method,
    static_through_class,
    summed,
    weighted,
)

TRANSFORMS = ("grad", "value_and_grad", "jvp", "vjp", "hessian", "numba", "tree")

#: numba refuses these, at the user's line: (function name) -> words of the message
NUMBA_REFUSED = {  # (the adjoints' index_add compiles since backend/numba/index_adds.py; numba's own
    "insert_columns": "insert",  # np.insert and np.delete lack these forms)
    "delete_items": "delete",
    "delete_column": "delete",
}


def _cases():
    out, seen = [], {}
    for func, make in PROGRAMS:
        k = seen[func.__name__] = seen.get(func.__name__, -1) + 1
        for t in TRANSFORMS:
            out.append(pytest.param(t, func, make, id=f"{t}-{func.__name__}-{k}"))
    return out


def _args(func, make):
    return make(corpus._seed(f"reach4:{func.__name__}:{inspect.signature(make)}"))


def _line_of(func, text: str) -> int:
    lines, start = inspect.getsourcelines(func)
    return next(start + i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("transform, func, make", _cases())
def test_program_against_central_differences(transform, func, make):
    args = _args(func, make)
    want = central_difference(func, copy.deepcopy(args), 0)
    value = func(*copy.deepcopy(args))
    if transform == "grad":
        got = srcdiff.grad(func)(*copy.deepcopy(args))
    elif transform == "value_and_grad":
        found, got = srcdiff.value_and_grad(func)(*copy.deepcopy(args))
        np.testing.assert_allclose(found, value, rtol=1e-12)
    elif transform == "jvp":
        v = np.random.default_rng(3).normal(size=np.shape(args[0]))
        found, got = srcdiff.jvp(func, copy.deepcopy(args), (v,) + (None,) * (len(args) - 1))
        np.testing.assert_allclose(found, value, rtol=1e-12)
        want = np.sum(want * v)
    elif transform == "vjp":
        found, pullback = srcdiff.vjp(func, *copy.deepcopy(args))
        np.testing.assert_allclose(found, value, rtol=1e-12)
        got = pullback(-0.5) / -0.5
        np.testing.assert_allclose(pullback(1.0), want, rtol=1e-5, atol=1e-6)  # called again: same answer
    elif transform == "hessian":
        got = srcdiff.hessian(func)(*copy.deepcopy(args))
        want = hessian_difference(func, copy.deepcopy(args))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        return
    elif transform == "numba":
        gradient = srcdiff.grad(func, jit="numba")
        if func.__name__ in NUMBA_REFUSED:
            with pytest.raises(srcdiff.SrcDiffError) as info:
                gradient(*copy.deepcopy(args))
            first = str(info.value).splitlines()[0]
            assert "reach4_programs.py:" in first and NUMBA_REFUSED[func.__name__] in first, first
            return
        got = gradient(*copy.deepcopy(args))
    else:  # a dict tree holding the differentiated argument
        program = corpus.Program(f"reach4:{func.__name__}", func, tuple(args), 0, "reach4")
        try:
            wrapper, key = trees_wrapped.wrapper(program)
        except trees_wrapped.NotWrapped:
            pytest.skip("the tree wrapper takes positional parameters only")
        given = list(copy.deepcopy(args))
        given[0] = {key: given[0]}
        found = srcdiff.grad(wrapper)(*given)
        assert list(found) == [key]
        got = found[key]
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ---- calls with keywords, trees differentiated, rebinding, refusals ----


def test_keywords_of_a_top_level_opts_are_bound_per_call():
    x = np.array([0.3, -0.7, 1.1])
    g = srcdiff.grad(weighted)
    np.testing.assert_allclose(g(x), 2 * x)
    np.testing.assert_allclose(g(x, weight=3.0), 6 * x)
    np.testing.assert_allclose(g(x, weight=3.0, shift=1.0), 6 * x)
    np.testing.assert_allclose(srcdiff.grad(weighted, wrt="weight")(x, weight=3.0), np.sum(x ** 2))
    assert "def weighted_grad(x, shift, weight):" in g.source
    np.testing.assert_allclose(srcdiff.hvp(weighted, x, np.ones(3), weight=2.0), 4 * np.ones(3))
    value, got = srcdiff.value_and_grad(summed, wrt=1)(x, x ** 2, scale=2.0)
    np.testing.assert_allclose(value, summed(x, x ** 2, scale=2.0))
    np.testing.assert_allclose(got, x ** 2)
    with pytest.raises(srcdiff.SrcDiffError, match="source_for|call it first"):
        _ = srcdiff.grad(weighted).source


def cubed(x, **opts):
    return np.sum(x ** 3) * opts.get("weight", 1.0)


def test_a_gradient_of_a_top_level_opts_function_is_differentiated_again_per_call():
    x = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(srcdiff.jacobian(srcdiff.grad(cubed))(x, weight=2.0), np.diag(12.0 * x), atol=1e-12)
    np.testing.assert_allclose(srcdiff.hessian(cubed)(x, weight=0.5), np.diag(3.0 * x), atol=1e-12)
    value, tangent = srcdiff.jvp(srcdiff.grad(cubed), (x,), (np.ones(3),))
    np.testing.assert_allclose(value, 3 * x ** 2)
    np.testing.assert_allclose(tangent, 6 * x)
    with pytest.raises(srcdiff.SrcDiffError, match="one number as its value"):
        srcdiff.grad(srcdiff.grad(cubed))(x)
    np.testing.assert_allclose(srcdiff.grad(srcdiff.grad(cubed))(0.7, weight=2.0), 12 * 0.7)


def _leaves_difference(f, tree, rest, eps=1e-6):
    out = {}
    for k, v in tree.items():
        def at(leaf, k=k):
            return f({**tree, k: leaf}, *rest)
        out[k] = central_difference(at, (v.copy(),), 0, eps)
    return out


def sorted_keys(params, x):
    out = 0.0
    for key in sorted(params):
        out = out * 0.5 + np.sum(params[key] * x[: params[key].shape[0]])
    return out ** 2


def sorted_items(params, x):
    out = 0.0
    for i, (_, v) in enumerate(sorted(params.items(), reverse=True)):
        out = out * 0.5 + (i + 1.0) * np.sum(v ** 2) * x[0]
    return out


def reversed_layers(layers, x):
    h = x
    for w in reversed(layers):
        h = np.tanh(w @ h)
    return np.sum(h)


@pytest.mark.parametrize("func", [sorted_keys, sorted_items])
def test_a_loop_over_a_sorted_tree_is_unrolled_in_that_order(func, rng):
    params, x = {"b": rng.normal(size=3), "a": rng.normal(size=2), "c": rng.normal(size=4)}, rng.normal(size=4)
    got = srcdiff.grad(func)(params, x)
    want = _leaves_difference(func, params, (x,))
    assert list(got) == list(params)
    for k in params:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(srcdiff.grad(func, wrt=1)(params, x), central_difference(func, (params, x), 1),
                               rtol=1e-5, atol=1e-6)
    v, pullback = srcdiff.vjp(func, params, x)
    np.testing.assert_allclose(v, func(params, x))
    for k in params:
        np.testing.assert_allclose(pullback(1.0)[k], want[k], rtol=1e-5, atol=1e-6)


def test_reversed_list_of_arrays(rng):
    layers, x = [rng.normal(size=(2, 3)), rng.normal(size=(3, 4))], rng.normal(size=4)
    got = srcdiff.grad(reversed_layers, wrt=1)(layers, x)
    np.testing.assert_allclose(got, central_difference(reversed_layers, (layers, x), 1), rtol=1e-5, atol=1e-6)


def test_a_global_object_changed_after_the_first_call_is_read_again():
    x = np.array([0.3, -0.7, 1.1])
    g = srcdiff.grad(global_method)
    before = g(x)
    np.testing.assert_allclose(before, central_difference(global_method, (x,), 0), rtol=1e-5, atol=1e-6)
    old_k, old_g = SPRING.k, Gravity.G
    try:
        SPRING.k = 4.0  # a number: rebinding it builds the gradient again
        np.testing.assert_allclose(g(x), central_difference(global_method, (x,), 0), rtol=1e-5, atol=1e-6)
        Gravity.G = 1.5
        h = np.array([0.3, 0.5])
        np.testing.assert_allclose(srcdiff.grad(static_through_class)(h),
                                   central_difference(static_through_class, (h,), 0), rtol=1e-5, atol=1e-6)
    finally:
        SPRING.k, Gravity.G = old_k, old_g
    LAYERS[0].w[0] = 2.0  # an array changed in place: read when the gradient runs
    try:
        got = srcdiff.grad(global_list_of_layers)(x)
        np.testing.assert_allclose(got, central_difference(global_list_of_layers, (x,), 0), rtol=1e-5, atol=1e-6)
    finally:
        LAYERS[0].w[0] = 0.5


class Noisy:
    def __init__(self, k):
        self.k = k * np.random.default_rng().uniform()

    def energy(self, x):
        return self.k * np.sum(x ** 2)


def built_randomly(x):
    return Noisy(1.0).energy(x)


def array_or(x, y):
    return np.sum((x or y) ** 2)


def computed_or(x, y):
    return np.sum((x * 2.0 or y) ** 2)


def alias_read_after(x):
    y = x * 2.0
    z = y
    z += np.sin(x)
    return np.sum(z ** 2) + np.sum(y)


def alias_read_next_iteration(x):
    acc = np.zeros(3)
    for i in range(3):
        acc = acc * 0.5
        alias = acc
        alias += x[i]
    return np.sum(alias ** 2)


def argument_row_updated(X):
    s = X[0]
    s *= 2.0
    return np.sum(s) + np.sum(X)  # (X not read again is accepted: test_reach28.py)


@pytest.mark.parametrize("func, args, text, words", [
    (built_randomly, (np.ones(3),), "Noisy(1.0)", "builds a different Noisy each time"),
    (array_or, (np.ones(3), np.ones(3)), "(x or y)", "truth value of an array"),
    (computed_or, (np.ones(3), np.ones(3)), "(x * 2.0 or y)", "`and`/`or` are supported as values"),
    (alias_read_after, (np.ones(3),), "z +=", "y shares its memory with z"),
    (alias_read_next_iteration, (np.ones((3, 3)),), "alias +=", "acc shares its memory with alias"),
    (argument_row_updated, (np.ones((2, 3)),), "s *=", "X shares its memory with s"),
])
def test_what_stays_refused_is_refused_at_the_users_line(func, args, text, words):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(func)(*args)
    first = str(info.value).splitlines()[0]
    assert f"test_reach4.py:{_line_of(func, text)}:" in first, first
    assert words in first, first
