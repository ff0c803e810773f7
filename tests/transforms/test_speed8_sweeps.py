"""The Hessian sweep's stacks kept as one list of tuples and its loops' closing copies
coalesced (backend/optimize/parallel_stacks.py, loop_copies.py): the same numbers as
before, against central differences of the gradient, and the rewrites themselves checked
on code written for them (including code they must leave alone)."""

import ast
import math
import re

import numpy as np
import pytest
from numeric import central_difference

import srcdiff
import srcdiff.driver.forward as forward_module
from srcdiff.backend.optimize.loop_copies import coalesce_loop_copies
from srcdiff.backend.optimize.parallel_stacks import merge_parallel_stacks

OBSERVED = np.cos(0.3 * np.arange(1.0, 16.0))


def rk4_other_rhs(a, b, observed, steps):
    def rhs(y, v):
        return v, -a * y * y * y - b * v
    y, v = 0.8, 0.1
    misfit = 0.0
    for i in range(steps):
        k1y, k1v = rhs(y, v)
        k2y, k2v = rhs(y + 0.05 * k1y, v + 0.05 * k1v)
        k3y, k3v = rhs(y + 0.05 * k2y, v + 0.05 * k2v)
        k4y, k4v = rhs(y + 0.1 * k3y, v + 0.1 * k3v)
        y, v = y + 0.1 / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y), v + 0.1 / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
        misfit = misfit + (y - observed[i]) ** 2
    return misfit


def leapfrog_three(c, k, m, observed, steps):
    x, v = 0.5, 0.0
    states = []
    for _ in range(steps):
        v = v - 0.05 * (k * math.sin(x) + c * v) / m
        x = x + 0.1 * v
        states.append(x)
    total = 0.0
    for i in range(len(states)):
        total = total + (states[i] - observed[i]) ** 2
    return total


def with_a_break(c, k, observed, steps):
    x, total = 1.0, 0.0
    for i in range(steps):
        x = x + 0.1 * (-c * x + k * math.cos(x))
        if x > 50.0:
            break
        total = total + (x - observed[i]) ** 2
    return total


CASES = [(rk4_other_rhs, (0.7, 0.3, OBSERVED, 15), (0, 1)),
         (leapfrog_three, (0.2, 3.0, 1.5, OBSERVED, 15), (0, 1, 2)),
         (with_a_break, (0.4, 0.9, OBSERVED, 15), (0, 1))]


#: a Hessian compiled twice and checked by differences costs 5-20 s a case: the default run keeps one
SWEEP_CASES = [CASES[0]] + [pytest.param(*c, marks=pytest.mark.slow) for c in CASES[1:]]


@pytest.mark.parametrize("f, args, wrt", SWEEP_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_the_same_hessian_as_before_and_central_differences(monkeypatch, f, args, wrt):
    srcdiff.clear_cache()
    with monkeypatch.context() as m:
        m.setattr(forward_module, "merge_parallel_stacks", lambda func: False)
        m.setattr(forward_module, "coalesce_loop_copies", lambda func: False)
        before = np.array(srcdiff.hessian(f, wrt=wrt)(*args), dtype=float)
    srcdiff.clear_cache()
    H = srcdiff.hessian(f, wrt=wrt)
    got = np.array(H(*args), dtype=float)
    assert np.array_equal(got, before)
    g = srcdiff.grad(f, wrt=wrt)
    for j, w in enumerate(wrt):
        column = central_difference(lambda *a: np.array(g(*a), dtype=float), args, w)
        np.testing.assert_allclose(got[:, j], column, rtol=1e-5, atol=1e-6)


STACKS = '''
def f(n, a):
    s = []
    s_d = []
    other = []
    x = a
    for _ in range(n):
        x_1 = x * 0.5 + 1.0
        s.append(x_1)
        s_d.append(x)
        other.append(x)
        x = x_1
    k = len(s_d)
    t = 0.0
    k_1 = k
    for __ in range(n):
        k_2 = k_1 - 1
        u = s[k_2]
        t = t + u * s_d[k_2]
        k_1 = k_2
    return t, other
'''


def run(source, n, a):
    scope = {}
    exec(compile(source, "<test>", "exec"), scope)
    return scope["f"](n, a)


def rewritten(source, *passes):
    tree = ast.parse(source)
    changed = [p(tree.body[0]) for p in passes]
    return ast.unparse(ast.fix_missing_locations(tree)), changed


def test_parallel_stacks_become_one_stack_of_tuples():
    text, changed = rewritten(STACKS, merge_parallel_stacks)
    assert changed == [True]
    assert "s.append((x_1, x))" in text and not re.search(r"\bs_d\b", text)  # `other` is returned whole: kept
    assert "other.append(x)" in text and "u, s_d_item = s[k_2]" in text and "len(s)" in text
    for n, a in ((0, 1.0), (1, 2.0), (7, -0.3)):
        assert run(text, n, a) == run(STACKS, n, a)


def test_loop_copies_are_coalesced():
    text, changed = rewritten(STACKS, merge_parallel_stacks, coalesce_loop_copies)
    assert changed == [True, True]
    assert "k_2" not in text and "k_1 = k_1 - 1" in text
    assert "x = x_1" in text  # (x is pushed after x_1 is computed: its copy stays)
    for n, a in ((0, 1.0), (1, 2.0), (7, -0.3)):
        assert run(text, n, a) == run(STACKS, n, a)


@pytest.mark.parametrize("body", [
    # the carried name read after the new value is computed: the copy must stay
    "        x_1 = x * 0.5\n        y = y + x\n        x = x_1\n",
    # a continue skips the copy in some iterations
    "        x_1 = x * 0.5\n        if x_1 > 0.3:\n            continue\n        x = x_1\n",
    # the computed name read after the loop
    "        x_1 = x * 0.5\n        x = x_1\n    y = x_1\n",
])
def test_copies_that_must_stay(body):
    source = f"def f(n, a):\n    x, y, x_1 = a, 0.0, 0.0\n    for _ in range(n):\n{body}    return x, y\n"
    text, changed = rewritten(source, coalesce_loop_copies)
    assert changed == [False] and "x = x_1" in text
    for n, a in ((0, 1.0), (3, 2.0)):
        assert run(text, n, a) == run(source, n, a)


def test_stacks_pushed_conditionally_stay_apart():
    source = STACKS.replace("        s_d.append(x)\n", "        if x > 0.0:\n            s_d.append(x)\n")
    text, changed = rewritten(source, merge_parallel_stacks)
    assert changed == [False]
