"""The list helpers of a derivable gradient made in place in forward-over-reverse code
(backend/optimize/lists.py): rewritten where nothing can see the old list, left alone where
something can.  Each program runs before and after the rewrite: same results."""

import ast
import copy
import textwrap

import numpy as np
import pytest

from srcdiff.backend.optimize.lists import lists_in_place
from srcdiff.rules.list_helpers import list_add, list_drop, zeros_list


def run(source: str, *args):
    tree = ast.parse(textwrap.dedent(source))
    func = tree.body[0]
    before = copy.deepcopy(tree)
    changed = lists_in_place(func)
    results = []
    for t in (before, tree):
        namespace = {"list_add": list_add, "list_drop": list_drop, "zeros_list": zeros_list, "np": np}
        exec(compile(ast.fix_missing_locations(t), "<test>", "exec"), namespace)
        results.append(namespace[func.name](*copy.deepcopy(args)))
    return changed, results[0], results[1], ast.unparse(tree)


REWRITTEN = {
    "add and drop": ("""
        def f(n, v):
            xs = zeros_list(range(n))
            for i in range(n):
                xs_1 = list_add(xs, i, v * i)
                xs = xs_1
            total = 0.0
            for i in range(n):
                total = total + xs[-1]
                xs_2 = list_drop(xs)
                xs = xs_2
            return total, xs
        """, (5, 1.5)),
    "reads before the update": ("""
        def f(n, v):
            xs = [0.0] * n
            for i in range(n):
                a = xs[i] + len(xs)
                xs_1 = list_add(xs, i, a * v)
                xs = xs_1
            return xs
        """, (4, 0.5)),
    "array items": ("""
        def f(n, v):
            xs = [np.zeros(3), np.zeros(3)]
            for i in range(n):
                xs_1 = list_add(xs, 0, v)
                xs = xs_1
            return [x.tolist() for x in xs]
        """, (2, np.arange(3.0))),
}

KEPT = {
    "aliased by another name": ("""
        def f(n, v):
            xs = zeros_list(range(n))
            ys = xs
            for i in range(n):
                xs_1 = list_add(xs, i, v)
                xs = xs_1
            return xs, ys
        """, (3, 2.0)),
    "pushed into another list": ("""
        def f(n, v):
            xs = zeros_list(range(n))
            keep = []
            for i in range(n):
                keep.append(xs)
                xs_1 = list_add(xs, i, v)
                xs = xs_1
            return keep
        """, (3, 2.0)),
    "old list read after the update": ("""
        def f(n, v):
            xs = zeros_list(range(n))
            for i in range(n):
                xs_1 = list_add(xs, i, v)
                b = xs[i]
                xs = xs_1
            return xs, b
        """, (3, 2.0)),
    "no carry": ("""
        def f(n, v):
            xs = zeros_list(range(n))
            out = []
            for i in range(n):
                xs_1 = list_add(xs, i, v)
                out.append(xs_1[i])
            return out
        """, (3, 2.0)),
    "a parameter's list": ("""
        def f(xs, v):
            for i in range(len(xs)):
                xs_1 = list_add(xs, i, v)
                xs = xs_1
            return xs
        """, ([1.0, 2.0], 2.0)),
    "break between update and carry": ("""
        def f(n, v):
            xs = zeros_list(range(n))
            for i in range(n):
                xs_1 = list_drop(xs)
                if i == 1:
                    break
                xs = xs_1
            return xs
        """, (4, 2.0)),
    "returned while a copy is kept": ("""
        def f(n, v):
            xs = zeros_list(range(n))
            first = list_add(xs, 0, v)
            for i in range(n):
                xs_1 = list_add(xs, i, v)
                xs = xs_1
            return xs, first, xs_1
        """, (3, 2.0)),
}


@pytest.mark.parametrize("name", sorted(REWRITTEN))
def test_rewritten_and_same_results(name):
    source, args = REWRITTEN[name]
    changed, before, after, code = run(source, *args)
    assert changed, code
    assert "list_add" not in code and "list_drop" not in code
    np.testing.assert_equal(after, before)


@pytest.mark.parametrize("name", sorted(KEPT))
def test_kept_where_the_old_list_is_seen(name):
    source, args = KEPT[name]
    changed, before, after, code = run(source, *args)
    assert not changed, code
    np.testing.assert_equal(after, before)
