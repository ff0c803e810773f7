"""What the held-out benchmark variants (benchmarks/variants.py) showed the generated code
doing needlessly, each pinned on the generated source and checked against central differences:

* a ``np.where`` on a condition an enclosing ``np.where`` already decided (a Huber loss, a
  ReLU: backend/optimize/wheres.py);
* a while loop's iteration count kept after the backward loop iterates its stack;
* a loop counter's ``i_1 = i + 1`` kept apart from ``i = i_1`` by the stack's append;
* ``1.0 * t`` kept on a number read back from a loop stack (not known to be a float).
"""

import ast
import math

import numpy as np
import pytest

import srcdiff
from srcdiff.backend.optimize.wheres import fold_decided_wheres, inline_decided


def central(f, args, i, h=1e-6):
    """d f / d args[i] by central differences (args[i] a float or a float array)."""
    x = np.array(args[i], dtype=float)
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        vals = []
        for step in (h, -h):
            y = x.copy()
            y[j] += step
            a = list(args)
            a[i] = y if x.ndim else float(y)
            vals.append(f(*a))
        g[j] = (vals[0] - vals[1]) / (2 * h)
    return g


def huber(w, X, y, delta):
    r = X @ w - y
    a = np.abs(r)
    return np.mean(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def relu_layer(W, b, X):
    h = np.maximum(X @ W + b, 0.0)
    return np.sum(h * h)


def scalar_while(x, a, n):
    s = x
    total = 0.0
    i = 0
    while i < n:
        s = math.tanh(a * s) + 0.5 * math.cos(s)
        total += math.exp(-s * s)
        i += 1
    return total


def _wheres(source):
    return [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and ast.unparse(n.func) == "np.where"]


def _nested_on_same_condition(source):
    """np.where calls inside another np.where on the same condition."""
    found = 0
    for outer in _wheres(source):
        key = ast.dump(outer.args[0])
        for branch in outer.args[1:]:
            found += sum(ast.dump(n.args[0]) == key for n in _wheres(ast.unparse(branch)))
    return found


def _data(n=9, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return rng.standard_normal(d), X, X @ rng.standard_normal(d)


def test_huber_selects_each_branch_once():
    w, X, y = _data()
    g = srcdiff.grad(huber)
    assert np.allclose(g(w, X, y, 0.8), central(huber, (w, X, y, 0.8), 0), rtol=1e-6, atol=1e-9)
    source = g.source_for(w, X, y, 0.8)
    assert _nested_on_same_condition(source) == 0
    assert len(_wheres(source)) == 1, source   # the branches' selections merged (wheres.merge_complements)


def test_relu_tie_selection_not_repeated():
    _, X, _ = _data(d=4)
    rng = np.random.default_rng(1)
    W, b = rng.standard_normal((4, 5)), rng.standard_normal(5)
    g = srcdiff.grad(relu_layer, wrt=(0, 1))
    got = g(W, b, X)
    for i in (0, 1):
        assert np.allclose(got[i], central(relu_layer, (W, b, X), i), rtol=1e-6, atol=1e-9)
    assert _nested_on_same_condition(g.source_for(W, b, X)) == 0


def test_relu_at_its_kink_keeps_the_tie_convention():
    W = np.array([[1.0, -1.0], [0.0, 2.0]])
    X = np.array([[0.0, 1.0], [1.0, 0.0]])   # X @ W has a 0 (the kink, half the slope) and negatives
    b = np.zeros(2)
    h = np.maximum(X @ W, 0.0)
    assert np.array_equal(srcdiff.grad(relu_layer)(W, b, X), 2.0 * X.T @ h)


@pytest.mark.parametrize("source, folded", [
    ("np.where(c, np.where(c, a, 0.0) * k, 0.0)", "np.where(c, a * k, 0.0)"),
    ("np.where(c, 0.0, -np.where(c, 0.0, b))", "np.where(c, 0.0, -b)"),
    ("np.where(c, 2.0 * np.where(c, a, 0.0) - a * a, b)", "np.where(c, 2.0 * a - a * a, b)"),
])
def test_decided_selection_folds(source, folded):
    tree = ast.parse(f"def f():\n    return {source}")
    assert fold_decided_wheres(tree.body[0], {"a", "b"}.__contains__)
    assert ast.unparse(tree.body[0].body[0].value) == folded


@pytest.mark.parametrize("source", [
    "np.where(c, np.where(c, i, 0.0), 0.0)",        # i may be an int: the inner where made it a float
    "np.where(c, np.where(c, a, z), 0.0)",          # z an array: it may add to the shape
    "np.where(c, np.where(d, a, 0.0), 0.0)",        # another condition
    "np.where(c, np.sum(np.where(c, a, 0.0)), 0.0)",  # not element-wise: every element counts
    "np.where(c, x @ np.where(c, a, 0.0), 0.0)",
    "np.where(f(c), np.where(f(c), a, 0.0), 0.0)",  # a call may give another value each time
    "np.where(c, b / np.where(c, 1.0, a), 0.0)",    # a guard of a division (sinc's): a's zeros would divide
    "np.where(c, np.log(np.where(c, a, 1.0)), 0.0)",  # a guard of a function's domain
])
def test_undecided_selection_stays(source):
    tree = ast.parse(f"def f():\n    return {source}")
    assert not fold_decided_wheres(tree.body[0], {"a", "b"}.__contains__)
    assert ast.unparse(tree.body[0].body[0].value) == source


def test_while_loop_counts_and_seeds_dropped():
    g = srcdiff.grad(scalar_while, wrt=(0, 1))
    args = (0.4, 0.7, 6)
    got = g(*args)
    assert np.allclose(got, [central(scalar_while, args, 0), central(scalar_while, args, 1)], rtol=1e-7)
    source = g.source_for(*args)
    assert "count" not in source           # the while loop's trip count: unread once the stack is iterated
    assert "i = i + 1" in source and "i_1" not in source
    assert "1.0 *" not in source           # t7 read back from the stack is known a float


def test_while_loop_that_does_not_run():
    g = srcdiff.grad(scalar_while, wrt=(0, 1))
    assert g(0.4, 0.7, 0) == (0.0, 0.0)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gated(W, xs):
    h = np.zeros(2)
    for t in range(xs.shape[0]):
        z = xs[t] @ W
        h = h * sigmoid(z[:2]) + sigmoid(z[2:])
    return np.sum(h * h)


def test_helper_adjoint_chain_is_one_expression():
    """The sigmoid's adjoint ``t = -(g * s / d); u = t * e; v = -u; z_bar[...] += v`` was four
    statements over the gate's array: the temporaries (adjoints of the inlined helper's
    intermediates, of arrays of known shape) go into their one use and the signs cancel."""
    rng = np.random.default_rng(3)
    W, xs = rng.standard_normal((3, 4)), rng.standard_normal((5, 3))
    g = srcdiff.grad(gated)
    assert np.allclose(g(W, xs), central(gated, (W, xs), 0), rtol=1e-6, atol=1e-9)
    source = g.source_for(W, xs)
    negations = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Assign)
                 and isinstance(n.value, ast.UnaryOp) and isinstance(n.value.op, ast.USub)
                 and isinstance(n.value.operand, ast.Name)]
    assert not negations, source


INLINED = """\
def f(c, a, r):
    t = np.where(c, a, 0.0)
    u = np.where(c, 0.0, a * 2.0)
    s = np.where(c, t * r, 0.0)
    del a
    s += np.where(c, 0.0, u * r)
    return s
"""


def test_decided_temporaries_go_into_their_use():
    tree = ast.parse(INLINED)
    assert inline_decided(tree.body[0], {"a"}.__contains__)
    assert ast.unparse(tree.body[0]).splitlines()[1:] == [
        "    u = np.where(c, 0.0, a * 2.0)",   # stays: `del a` stands between it and its use
        "    s = np.where(c, a * r, 0.0)",
        "    del a",
        "    s += np.where(c, 0.0, u * r)",
        "    return s",
    ]


@pytest.mark.parametrize("between", [
    "a = a + 1.0",          # rebinds what the temporary reads
    "r[0] = 1.0",           # an array changed in place
    "a += 1.0",
    "g(a)",                 # a call that may change anything
])
def test_decided_temporary_stays_when_its_inputs_may_change(between):
    source = f"def f(c, a, r):\n    t = np.where(c, a, 0.0)\n    {between}\n    return np.where(c, t * r, 0.0)"
    tree = ast.parse(source)
    assert not inline_decided(tree.body[0], {"a"}.__contains__)
    assert ast.unparse(tree) == ast.unparse(ast.parse(source))


def test_decided_temporary_stays_outside_its_branch():
    source = "def f(c, a, r):\n    t = np.where(c, a, 0.0)\n    return np.where(c, 0.0, t * r)"
    tree = ast.parse(source)
    assert not inline_decided(tree.body[0], {"a"}.__contains__)
