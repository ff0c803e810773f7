"""The optimizer: each pass on small generated functions (golden text), its safety around
loops, loop stacks and aliasing, and optimised gradients against central differences."""

import ast
import math
import textwrap

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff
from srcdiff.backend import render
from srcdiff.backend.optimize import liveness
from srcdiff.backend.optimize.optimizer import OptimizeInfo, optimize_function
from srcdiff.ir import shapes

S, V, M = shapes.SCALAR, shapes.Shape((shapes.MANY,)), shapes.Shape((shapes.MANY, shapes.MANY))


def optimized(source: str, shapes_=None, adjoints=(), wrt=(), statements=True) -> str:
    """`source` (one def) optimised, as text; adjoints are given as names, primal = name[:-4]."""
    func = ast.parse(textwrap.dedent(source)).body[0]
    params = frozenset(a.arg for a in func.args.args)
    info = OptimizeInfo(dict(shapes_ or {}), {a: a[:-4] for a in adjoints}, params, frozenset(wrt), statements)
    return ast.unparse(optimize_function(func, info)) + "\n"


def run(source: str, *args, **optimize_kwargs):
    """The results of `source`'s function before and after optimisation."""
    results = []
    for text in (textwrap.dedent(source), optimized(source, **optimize_kwargs)):
        namespace = {"np": np, "math": math}
        exec(compile(text, "<test>", "exec"), namespace)
        results.append(next(v for k, v in namespace.items() if k.endswith("_grad"))(*args))
    return results


def golden(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# ---- the seed and identity adjoints: propagation, one-folding ----

SEED = """
def f_grad(x, y):
    f_bar = 1.0
    z_bar = f_bar
    x_bar = z_bar * y
    y_bar = z_bar * x
    return (x_bar, y_bar)
"""


def test_seed_folds_into_its_uses_for_floats():
    out = optimized(SEED, {"x": S, "y": S, "z": S, "f": S}, ["f_bar", "z_bar", "x_bar", "y_bar"], ["x", "y"])
    assert out == golden("""
        def f_grad(x, y):
            x_bar = y
            y_bar = x
            return (x_bar, y_bar)
        """)


def test_one_times_an_array_parameter_is_kept_so_no_gradient_is_the_users_array():
    out = optimized(SEED, {"x": V, "y": V, "z": V, "f": S}, ["f_bar", "z_bar", "x_bar", "y_bar"], ["x", "y"])
    assert "x_bar = 1.0 * y" in out and "y_bar = 1.0 * x" in out
    x, y = np.ones(3), np.ones(3)
    before, after = run(SEED, x, y, shapes_={"x": V, "y": V, "z": V, "f": S},
                        adjoints=["f_bar", "z_bar", "x_bar", "y_bar"], wrt=["x", "y"])
    assert not np.shares_memory(after[0], y) and not np.shares_memory(after[1], x)


def test_one_times_an_int_is_kept_a_float():
    source = """
    def f_grad(x, n):
        f_bar = 1.0
        x_bar = f_bar * n
        return x_bar
    """
    out = optimized(source, {"x": S, "n": S}, ["f_bar", "x_bar"], ["x"])
    assert "x_bar = 1.0 * n" in out
    assert isinstance(run(source, 2.0, 3, shapes_={"x": S, "n": S}, adjoints=["f_bar", "x_bar"])[1], float)


@pytest.mark.parametrize("expr, expected", [
    ("x ** 2", "x * x"),
    ("x ** 1", "x"),
    ("2.0 * 3", "6.0"),
    ("-(-x)", "x"),
    ("a + -b * x", "a - b * x"),
    ("-a + x", "x - a"),
    ("-(2.0 * x)", "-2.0 * x"),
    ("-x * 2.0", "x * -2.0"),
    ("a + -1.0 / x * b", "a - 1.0 / x * b"),
    ("x ** 3", "x ** 3"),
], ids=lambda v: v)
def test_expression_folding(expr, expected):
    out = optimized(f"def f_grad(x, a, b):\n    r = {expr}\n    return r\n", {"x": S, "a": S, "b": S})
    assert out == f"def f_grad(x, a, b):\n    r = {expected}\n    return r\n"


# ---- dead code, merging, loops ----

def test_dead_adjoints_and_forward_values_go_calls_with_effects_stay():
    out = optimized("""
    def f_grad(x, stack):
        t1 = x * 2.0
        t2 = x * 3.0
        stack.append(t2)
        t1_bar = 1.0
        t3_bar = t1_bar * t2
        x_bar = t1_bar * 2.0
        return x_bar
    """, {"x": S, "t1": S, "t2": S}, ["t1_bar", "t3_bar", "x_bar"], ["x"])
    assert out == golden("""
        def f_grad(x, stack):
            t2 = x * 3.0
            stack.append(t2)
            x_bar = 2.0
            return x_bar
        """)


def test_scalar_accumulation_merges_into_one_expression():
    out = optimized("""
    def f_grad(x, y):
        t1 = math.exp(x * y)
        x_bar = y * t1
        x_bar = x_bar + math.cos(x)
        x_bar = x_bar + y * x
        return x_bar
    """, {"x": S, "y": S, "t1": S}, ["x_bar"], ["x", "y"])
    assert out == golden("""
        def f_grad(x, y):
            x_bar = y * math.exp(x * y) + math.cos(x) + y * x
            return x_bar
        """)


LOOP = """
def f_grad(x, n):
    stack = []
    s = x
    for i in range(n):
        t = s * 2.0
        stack.append(s)
        s = t
    s_bar = 1.0
    x_bar = 0.0
    for i in reversed(range(n)):
        s = stack.pop()
        u = s_bar
        s_bar = u * 2.0
        s_bar = s_bar + 0.0 * s
    x_bar = x_bar + s_bar
    return x_bar
"""


def test_loops_and_stacks_keep_their_meaning():
    info = {"shapes_": {"x": S, "n": S, "s": S, "t": S}, "adjoints": ["s_bar", "x_bar"], "wrt": ["x"]}
    before, after = run(LOOP, 0.7, 5, **info)
    assert before == after == 2.0 ** 5
    out = optimized(LOOP, **info)
    assert "for s in reversed(stack):" in out and "stack.append(s)" in out  # read, not popped
    assert "u = " not in out  # the copy inside the loop body is propagated


def test_a_copy_is_not_propagated_into_a_loop_that_reassigns_its_source():
    source = """
    def f_grad(x, n):
        a = x
        b = a
        for i in range(n):
            a = a * 2.0
        c = b + a
        return c
    """
    before, after = run(source, 1.5, 3, shapes_={"x": S, "n": S})
    assert before == after == 1.5 + 12.0


def test_values_are_not_moved_past_a_pop():
    source = """
    def f_grad(x):
        stack = [x, 2.0 * x]
        t = stack[-1]
        v = stack.pop()
        r = t + v
        return r
    """
    before, after = run(source, 3.0, shapes_={"x": S, "t": S, "v": S, "r": S})
    assert before == after == 12.0


def test_new_lists_are_never_shared():
    source = """
    def f_grad(x):
        a = []
        b = []
        a.append(x)
        r = len(b)
        return r
    """
    assert run(source, 1.0) == [0, 0]


# ---- arrays: in place, release, shapes ----

def test_accumulation_is_in_place_only_on_an_array_nobody_else_holds():
    out = optimized("""
    def f_grad(x, y):
        x_bar = x * y
        x_bar = x_bar + y
        y_bar = np.reshape(x, (-1,))
        y_bar = y_bar + x
        return (x_bar, y_bar)
    """, {"x": V, "y": V}, ["x_bar", "y_bar"], ["x", "y"])
    assert "x_bar += y" in out
    assert "y_bar = y_bar + x" in out  # y_bar is a view of the parameter x


def test_escaped_array_is_not_updated_in_place(rng):
    source = """
    def f_grad(x, y):
        x_bar = x * y
        keep = x_bar
        x_bar = x_bar + y
        r = keep - x_bar
        return r
    """
    assert "+=" not in optimized(source, {"x": V, "y": V, "keep": V, "r": V}, ["x_bar"], ["x", "y"])
    x, y = rng.normal(size=(2, 3))
    before, after = run(source, x, y, shapes_={"x": V, "y": V, "keep": V, "r": V}, adjoints=["x_bar"])
    assert_close(after, before)


def test_what_a_call_makes_is_read_off_the_rule_table():
    # np.tile, np.concatenate and x.cumsum() are fresh rules; np.reshape and x.ravel() are views
    out = optimized("""
    def f_grad(x, y):
        a_bar = np.tile(x, 2)
        a_bar = a_bar + y
        b_bar = np.concatenate([x, y])
        b_bar = b_bar + y
        c_bar = x.cumsum()
        c_bar = c_bar + y
        d_bar = np.reshape(x, (-1,))
        d_bar = d_bar + y
        e_bar = x.ravel()
        e_bar = e_bar + y
        return (a_bar, b_bar, c_bar, d_bar, e_bar)
    """, {"x": V, "y": V, "a": V, "b": V, "c": V, "d": V, "e": V}, ["a_bar", "b_bar", "c_bar", "d_bar", "e_bar"])
    assert "a_bar += y" in out and "b_bar += y" in out and "c_bar += y" in out
    assert "d_bar = d_bar + y" in out and "e_bar = e_bar + y" in out


def test_copy_false_may_return_the_operand_so_it_is_not_fresh():
    out = optimized("""
    def f_grad(x, y):
        a_bar = x.astype(float)
        a_bar = a_bar + y
        b_bar = x.astype(float, copy=False)
        b_bar = b_bar + y
        return (a_bar, b_bar)
    """, {"x": V, "y": V, "a": V, "b": V}, ["a_bar", "b_bar"])
    assert "a_bar += y" in out and "b_bar = b_bar + y" in out


def test_unused_calls_of_pure_rules_go_and_effects_stay():
    out = optimized("""
    def f_grad(x, xs):
        t1 = x.var(axis=0)
        t2 = x.clip(0.0, 1.0)
        xs.append(x)
        t3 = ensure_scalar(x, 'f')
        x_bar = np.ones(np.shape(x))
        return x_bar
    """, {"x": V, "t1": V, "t2": V}, ["x_bar"], ["x"])
    assert "t1 =" not in out and "t2 =" not in out
    assert "xs.append(x)" in out and "ensure_scalar(x, 'f')" in out


def test_math_rules_give_floats_so_one_times_them_folds():
    out = optimized("""
    def f_grad(x):
        a = 1.0 * math.sin(x)
        b = 1.0 * math.floor(x)
        return (a, b)
    """, {"x": S})
    assert "a = math.sin(x)" in out and "b = 1.0 * math.floor(x)" in out


def test_arrays_are_released_after_their_last_use():
    out = optimized("""
    def f_grad(x):
        t1 = x * x
        t2 = t1 * 3.0
        t3 = np.sum(t2)
        t4 = x + 1.0
        n = 2.0 * 3.0
        return (t3, t4, n)
    """, {"n": S}, [], ["x"])  # shapes unknown: nothing is inlined
    assert out == golden("""
        def f_grad(x):
            t1 = x * x
            t2 = t1 * 3.0
            del t1
            t3 = np.sum(t2)
            del t2
            t4 = x + 1.0
            n = 6.0
            return (t3, t4, n)
        """)


def test_names_a_closure_reads_are_not_released():
    source = """
    def f_grad(x):
        t1 = x * 2.0
        def pullback(g):
            return g * t1
        return pullback
    """
    assert "del" not in optimized(source, {"x": V, "t1": V})
    assert_close(run(source, np.ones(2), shapes_={"x": V, "t1": V})[1](1.0), 2.0 * np.ones(2))


def test_unbroadcast_is_dropped_where_shapes_are_provably_equal():
    out = optimized("""
    def f_grad(x):
        t1 = x[1:]
        t2 = x[:-1]
        t3 = t1 * t2
        t3_bar = np.full(np.shape(t3), 1.0)
        t1_bar = unbroadcast(t3_bar * t2, t1)
        t2_bar = unbroadcast(t3_bar * t1, t2)
        x_bar = np.zeros(np.shape(x))
        x_bar[1:] += t1_bar
        x_bar[:-1] += t2_bar
        return x_bar
    """, {"x": V, "t1": shapes.Shape((shapes.UNKNOWN_DIM,)), "t2": shapes.Shape((shapes.UNKNOWN_DIM,)),
          "t3": shapes.Shape((shapes.UNKNOWN_DIM,))}, ["t3_bar", "t1_bar", "t2_bar", "x_bar"], ["x"])
    assert "unbroadcast" not in out and "np.full" not in out
    assert "x_bar = np.zeros(x.shape)" in out


def test_unbroadcast_stays_where_a_length_one_axis_may_broadcast():
    out = optimized("""
    def f_grad(a, b):
        t1 = a * b
        t1_bar = np.full(np.shape(t1), 1.0)
        a_bar = unbroadcast(t1_bar * b, a)
        return a_bar
    """, {"a": shapes.Shape((shapes.UNKNOWN_DIM,)), "b": V, "t1": V}, ["t1_bar", "a_bar"], ["a"])
    # (the fill may be the number: ``t1_bar * b`` already has t1's shape, b's, whatever a's is)
    assert "unbroadcast(" in out
    from srcdiff.rules.runtime import unbroadcast
    namespace = {"np": np, "unbroadcast": unbroadcast}
    exec(out, namespace)
    assert np.array_equal(namespace["f_grad"](np.ones(1), np.arange(3.0)), np.array([3.0]))  # a of length one


def test_debug_mode_only_folds_expressions():
    out = optimized(SEED, {"x": S, "y": S}, ["f_bar", "z_bar", "x_bar", "y_bar"], ["x", "y"], statements=False)
    assert "f_bar = 1.0" in out and "z_bar = f_bar" in out


def test_comment_marker_is_codegens():
    assert liveness.COMMENT == render.MARK


# ---- whole gradients, optimised, against central differences ----

def poly(x, y):
    return x * x * y + 3.0 * math.sin(x) * y - math.exp(x * y) + 2.0 * y ** 3


def scalar_loop(x, a, n):
    s = x
    total = 0.0
    for _ in range(n):
        s = 0.9 * s + a * math.sin(s)
        total = total + s * s
    return total


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def mse(w, b, X, y):
    return ((X @ w + b - y) ** 2).mean()


def logistic(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * logp) / X.shape[0]


def rnn(Wx, Wh, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.mean(h ** 2)


def shared(a, b):
    c = a * b
    d = c + a
    return np.sum(c * d) + np.sum(a)


def column_broadcast(a, b):
    return np.sum((a + b) ** 2 * b)


CASES = [
    (poly, lambda rng: (0.3, -0.6), (0, 1)),
    (scalar_loop, lambda rng: (0.4, 0.7, 6), (0, 1)),
    (rosenbrock, lambda rng: (rng.uniform(-1, 1, size=6),), (0,)),
    (rosenbrock, lambda rng: (rng.uniform(-1, 1, size=2),), (0,)),
    (mse, lambda rng: (rng.normal(size=3), 0.2, rng.normal(size=(5, 3)), rng.normal(size=5)), (0, 1)),
    (logistic, lambda rng: (rng.normal(size=3), 0.1, rng.normal(size=(6, 3)), rng.uniform(size=6).round()), (0, 1)),
    (mlp, lambda rng: (rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=(3, 2)), rng.normal(size=2),
                   rng.normal(size=(5, 4)), np.eye(2)[[0, 1, 1, 0, 1]]), (0, 1, 2, 3)),
    (rnn, lambda rng: (rng.normal(size=(2, 3)), rng.normal(size=(3, 3)), rng.normal(size=3),
                   rng.normal(size=(4, 5, 2)), rng.normal(size=(5, 3))), (0, 1, 2)),
    (shared, lambda rng: (rng.normal(size=4), rng.normal(size=4)), (0, 1)),
    (column_broadcast, lambda rng: (rng.normal(size=(3, 1)), rng.normal(size=4)), (0, 1)),
]


@pytest.mark.parametrize("func, make_args, wrt", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)])
def test_optimised_gradient_matches_central_differences(func, make_args, wrt, rng, check_gradient):
    check_gradient(func, make_args(rng), wrt, rtol=1e-5, atol=1e-7)


def test_optimised_scalar_code_has_no_helper_calls():
    source = srcdiff.grad(poly, wrt=(0, 1)).source_for(0.3, -0.6)
    assert "np." not in source and "unbroadcast" not in source and "_bar = 1.0" not in source


def test_a_new_signature_leaves_the_fast_path_for_the_right_variant(rng):
    df = srcdiff.grad(rosenbrock)
    x = rng.uniform(-1, 1, size=5)
    df(x)
    for y in (rng.uniform(-1, 1, size=2), rng.uniform(-1, 1, size=(1,)), x.astype(np.float32), x):
        assert_close(df(y), central_difference(rosenbrock, (y.astype(float),), 0), rtol=1e-4, atol=1e-5)


def scaled_sum(x, y):
    return np.sum(x * y * y)


def test_the_fast_path_guard_tells_length_one_axes_and_dtypes_apart(rng):
    df = srcdiff.grad(scaled_sum, wrt=(0, 1))
    x = rng.uniform(-1, 1, size=(3, 4))
    shapes_ = [(3, 1), (3, 4), (1, 4), (1, 1), (3, 1)]
    for shape in shapes_ + shapes_:  # the second round runs behind the guard of the last call
        for dtype in (np.float64, np.float32):
            y = rng.uniform(-1, 1, size=shape).astype(dtype)
            got = df(x, y)
            want = [central_difference(scaled_sum, (x, y.astype(float)), i) for i in (0, 1)]
            assert got[1].shape == shape
            assert_close(got[0], want[0], rtol=1e-4, atol=1e-5)
            assert_close(got[1], want[1], rtol=1e-4, atol=1e-5)


def test_clear_cache_transforms_again():
    df = srcdiff.grad(poly)
    df(0.3, 0.2)
    before = srcdiff.cache_info()
    srcdiff.clear_cache()
    assert math.isclose(df(0.3, 0.2), central_difference(poly, (0.3, 0.2), 0), rel_tol=1e-6)
    assert srcdiff.cache_info().transforms == before.transforms + 1
