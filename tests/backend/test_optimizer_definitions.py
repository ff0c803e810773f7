"""Optimizer passes on names that are not defined by a plain ``name = ...``: tuple targets,
loop targets, ``with`` targets, names assigned inside a branch or a loop.

Each generated-code snippet is run before and after optimisation (the unoptimised run is the
reference: it is plain Python the optimizer only rewrites), and the end-to-end cases are
checked against float64 central differences.
"""

import ast
import math
import textwrap

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff
from srcdiff.backend.optimize import shape_classes
from srcdiff.backend.optimize.optimizer import OptimizeInfo, optimize_function
from srcdiff.ir import shapes

V = shapes.Shape((shapes.MANY,))


def optimized(source: str, shapes_, adjoints=(), wrt=()) -> str:
    func = ast.parse(textwrap.dedent(source)).body[0]
    params = frozenset(a.arg for a in func.args.args)
    info = OptimizeInfo(dict(shapes_), {a: a[:-4] for a in adjoints}, params, frozenset(wrt))
    return ast.unparse(optimize_function(func, info)) + "\n"


def run_both(source: str, shapes_, adjoints, wrt, *args):
    results = []
    for text in (textwrap.dedent(source), optimized(source, shapes_, adjoints, wrt)):
        namespace = {"np": np, "math": math, "pair": lambda a, b: (a * b, b), "unbroadcast": lambda g, x: g}
        exec(compile(text, "<test>", "exec"), namespace)
        results.append(namespace["f_grad"](*args))
    return results


def classes_of(source: str, shapes_) -> shape_classes.ShapeClasses:
    func = ast.parse(textwrap.dedent(source)).body[0]
    params = frozenset(a.arg for a in func.args.args)
    return shape_classes.ShapeClasses(func, lambda n: False, params, lambda n: shapes_.get(n, shapes.UNKNOWN))


# ---- ShapeClasses: only names with a known place of definition stand in for others ----

DEFINED_ELSEWHERE = {
    "tuple target": """
    def f_grad(x, w):
        t1, t1_pullback = pair(x, w)
        t1_bar = np.full(np.shape(t1), 1.0)
        return t1_bar
    """,
    "loop target": """
    def f_grad(x, w):
        for t1 in [x * w]:
            pass
        t1_bar = np.full(np.shape(t1), 1.0)
        return t1_bar
    """,
    "branch": """
    def f_grad(x, w):
        if True:
            t1 = x * w
        t1_bar = np.full(np.shape(t1), 1.0)
        return t1_bar
    """,
    "with target": """
    def f_grad(x, w):
        with open(__file__) as t1:
            pass
        t1_bar = np.full(np.shape(t1), 1.0)
        return t1_bar
    """,
}


@pytest.mark.parametrize("source", DEFINED_ELSEWHERE.values(), ids=DEFINED_ELSEWHERE.keys())
def test_the_earliest_name_of_a_value_not_plainly_assigned_is_itself(source):
    classes = classes_of(source, {"x": V, "w": V})
    assert "t1" not in classes.order  # no place in the order: it stands in for no other name
    assert classes.earliest("t1") == "t1"


def test_a_plain_assignment_still_reads_the_earliest_shape():
    classes = classes_of("""
    def f_grad(x, w):
        t1 = x * w
        t2 = t1 * 2.0
        return t2
    """, {"x": V, "w": V, "t1": V, "t2": V})
    assert classes.earliest("t2") in {"x", "w"}  # both parameters, defined first


def test_the_earliest_name_is_never_defined_after_the_name_it_replaces():
    source = """
    def f_grad(x, w):
        t1, t1_pullback = pair(x, w)
        t1_bar = np.full(np.shape(t1), 1.0)
        x_bar = t1_bar * w
        return x_bar
    """
    out = optimized(source, {"x": V, "w": V}, ["t1_bar", "x_bar"], ["x"])
    assert "np.shape(t1_bar)" not in out and "t1_bar.shape" not in out
    before, after = run_both(source, {"x": V, "w": V}, ["t1_bar", "x_bar"], ["x"],
                             np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    assert_close(after, before)


def test_a_name_assigned_in_a_loop_keeps_its_own_shape_in_the_loop():
    # u shrinks every iteration; after the loop v has u's final shape, which must not be
    # read for u inside the loop
    source = """
    def f_grad(x):
        u = x
        for _ in range(2):
            w = u[1:]
            g = np.full(np.shape(w), 1.0)
            u = w * g
        v = w * 2.0
        return np.sum(v)
    """
    before, after = run_both(source, {"x": V, "u": V, "w": V, "v": V, "g": V}, ["g"], [],
                             np.array([1.0, 2.0, 3.0, 4.0]))
    assert_close(after, before)


# ---- end to end ----

def _times(a, b):
    return a * b


def _product_and_sum(x, y):
    return x * y, x + y


def _sine_pair(x, y):
    return np.sin(x) * y, x + y


def _rows(x):
    return np.stack([x, x * x])


def sums_helper_result(x, w):
    return np.sum(_times(x, w))


def unpacks_helper_tuple(x):
    a, b = _product_and_sum(x, 2.0)
    return a * b


def uses_first_of_pair(x):
    a, b = _sine_pair(x, 2.0)
    return np.sum(a)


def uses_second_of_pair(x):
    a, b = _sine_pair(x, 2.0)
    return np.sum(b * b)


def indexes_pair(x, w):
    t = _sine_pair(x, w)
    return np.sum(t[0] * t[1]) + np.sum(t[0])


def unpacks_helper_array(x):
    a, b = _rows(x)
    return np.sum(a * b)


X3 = np.array([0.3, -1.2, 2.5])
Y3 = np.array([1.1, 0.4, -0.7])

HELPER_RESULTS = [
    (sums_helper_result, (X3, Y3), (0, 1)),
    (sums_helper_result, (1.3, 0.7), (0, 1)),
    (unpacks_helper_tuple, (1.3,), 0),
    (uses_first_of_pair, (X3,), 0),
    (uses_first_of_pair, (0.7,), 0),
    (uses_second_of_pair, (X3,), 0),
    (indexes_pair, (X3, Y3), (0, 1)),
    (unpacks_helper_array, (X3,), 0),
]


@pytest.mark.parametrize("f, args, wrt", HELPER_RESULTS, ids=lambda v: getattr(v, "__name__", None))
def test_helper_results_assigned_by_tuple_targets(f, args, wrt):
    gradient = srcdiff.grad(f, wrt=wrt)
    for _ in range(2):  # the second call takes the fast path
        results = gradient(*args)
        results = results if isinstance(wrt, tuple) else (results,)
        for index, result in zip(wrt if isinstance(wrt, tuple) else (wrt,), results):
            assert_close(result, central_difference(f, args, index), rtol=1e-5, atol=1e-6)


def power_loop(x, n):
    s = x * 2.0
    for _ in range(n):
        s = s * x
    return s


def array_power_loop(x, n):
    s = x * 2.0
    for _ in range(n):
        s = s * x
    return np.sum(s)


@pytest.mark.parametrize("f, x", [(power_loop, 1.7), (array_power_loop, np.array([1.7, -0.4]))],
                         ids=["scalar", "array"])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_value_and_grad_returns_the_value_of_a_loop_carried_output(f, x, n):
    value, grad = srcdiff.value_and_grad(f)(x, n)
    assert value == pytest.approx(f(x, n))
    assert_close(grad, central_difference(f, (x, n), 0), rtol=1e-5, atol=1e-6)
