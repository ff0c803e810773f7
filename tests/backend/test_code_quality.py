"""How careful the generated code is, counted over the functions of tests/export_set.py.

Every argument's shape is known there, so the code should need no run-time helper, compute
nothing only for its shape, and compute no subexpression twice.  `LIMITS` holds what the
code reaches today; lower them as the generator improves (the goal is 0 for each).
"""

import ast
from collections import Counter

import numpy as np
import pytest
from export_set import EDGES, SET

import srcdiff
from srcdiff.rules.runtime import HELPERS

#: the counts reached today, over the whole set (the goal, reached, is 0 for each)
LIMITS = {"helper calls": 0, "shape-only computations": 0, "duplicate subexpressions": 0}


def listing(func, args, wrt) -> str:
    gradient = srcdiff.grad(func, wrt=wrt)
    gradient(*args)
    return gradient.source


def helper_calls(tree: ast.AST) -> list[str]:
    """Calls of srcdiff's run-time helpers."""
    return [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id in HELPERS]


def shape_only(tree: ast.AST) -> list[str]:
    """Values computed or read only for their shape: ``np.full(<shape>, c)`` (an array that
    carries nothing but a shape) unless its shape is read off a value the code holds anyway
    (``np.full(h_1.shape, 1.0)``, the gradient of ``np.sum(h)`` when a loop that changes h's
    length may run no iteration: the shape the issue asks to use, not a computation), and
    ``.shape`` or ``np.shape`` of something that is not a parameter."""
    params = {a.arg for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) for a in f.args.args}
    every = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _is_np(n.func, "full")]
    fills = [n for n in every if not (n.args and isinstance(n.args[0], ast.Attribute)
                                      and n.args[0].attr == "shape" and isinstance(n.args[0].value, ast.Name))]
    inside = {id(m) for n in every for m in ast.walk(n)}
    found = [ast.unparse(n) for n in fills]
    for n in ast.walk(tree):
        if id(n) in inside:
            continue
        if isinstance(n, ast.Call) and _is_np(n.func, "shape") and n.args:
            n = n.args[0]
        elif isinstance(n, ast.Attribute) and n.attr == "shape":
            n = n.value
        else:
            continue
        if not (isinstance(n, ast.Name) and n.id in params | {"np"}):
            found.append(ast.unparse(n) + ".shape")
    return found


def _is_np(func: ast.expr, attr: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == attr and isinstance(func.value, ast.Name) \
        and func.value.id == "np"


def _big(expr: ast.expr) -> bool:
    """Worth sharing: an operation on something other than constants."""
    if not isinstance(expr, (ast.BinOp, ast.Call, ast.Compare, ast.UnaryOp)):
        return False
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.operand, (ast.Name, ast.Constant)):
        return False
    return any(isinstance(n, ast.Name) and n.id not in ("np", "math") for n in ast.walk(expr))


def duplicates(tree: ast.AST) -> list[str]:
    """Subexpressions computed twice in one straight-line block while their inputs stay the same."""
    found = []

    def block(stmts: list[ast.stmt]) -> None:
        seen: Counter = Counter()
        for stmt in stmts:
            for child in (stmt.body, getattr(stmt, "orelse", [])) if isinstance(
                    stmt, (ast.If, ast.For, ast.While, ast.FunctionDef)) else ():
                block(child)
            if isinstance(stmt, (ast.If, ast.For, ast.While, ast.FunctionDef)):
                seen.clear()
                continue
            here = [ast.dump(n) for n in ast.walk(stmt) if isinstance(n, ast.expr) and _big(n)]
            for text in sorted(set(here)):
                count = here.count(text) + seen[text]
                if count > 1:
                    found.append(text)
                seen[text] = count
            written = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                written.add(stmt.target.id)
            for text in list(seen):
                if any(f"id='{name}'" in text for name in written):
                    del seen[text]

    for func in (n for n in ast.walk(tree) if isinstance(n, ast.Module)):
        block(func.body)
    return found


def measure() -> dict[str, dict[str, list[str]]]:
    counts = {"helper calls": {}, "shape-only computations": {}, "duplicate subexpressions": {}}
    for name, func, args, wrt in SET:
        tree = ast.parse(listing(func, args, wrt))
        for kind, found in (("helper calls", helper_calls(tree)), ("shape-only computations", shape_only(tree)),
                            ("duplicate subexpressions", duplicates(tree))):
            if found:
                counts[kind][name] = found
    return counts


@pytest.fixture(scope="module")
def counts():
    return measure()


@pytest.mark.parametrize("kind", list(LIMITS))
def test_count_over_the_set(counts, kind):
    total = sum(len(v) for v in counts[kind].values())
    assert total <= LIMITS[kind], f"{kind}: {total} > {LIMITS[kind]}: {counts[kind]}"


def test_the_counters_see_what_they_count():
    tree = ast.parse("def f_grad(x):\n    t = np.full((x * x).shape, 1.0)\n    a = unbroadcast(t * x, x)\n"
                     "    b = np.zeros(t.shape) + x.shape[0] + np.full(t.shape, 2.0)\n"
                     "    return a * np.sin(x) + np.sin(x) + b\n")
    assert helper_calls(tree) == ["unbroadcast"]
    assert shape_only(tree) == ["np.full((x * x).shape, 1.0)", "t.shape"]  # x.shape: a parameter's
    assert len(duplicates(tree)) == 1  # np.sin(x)


if __name__ == "__main__":
    for kind, found in measure().items():
        print(f"{kind}: {sum(len(v) for v in found.values())}")
        for name, items in found.items():
            print(f"    {name}: {items}")


# ---- golden sources: one per emission change ----

def _source(name: str) -> str:
    func, args, wrt = next((f, a, w) for n, f, a, w in SET if n == name)
    return listing(func, args, wrt)


def test_a_value_used_twice_by_one_node_gets_one_doubled_contribution():
    assert "x_bar = 6.0 * x\n" in _source("branch")  # y = x * x, y * 3.0 (no 0.0 + before it)


def test_what_two_adjoints_of_one_node_share_is_computed_once():
    assert _source("solve") == '''def solve_grad(A, b):
    # forward
    t1 = np.linalg.solve(A, b)
    # backward
    # adjoint of export_set.py:118  return np.sum(np.linalg.solve(A, b) ** 2)
    t1_shared = np.linalg.solve(A.T, 2.0 * t1)
    A_bar = -np.outer(t1_shared, t1)
    del t1
    b_bar = t1_shared
    del t1_shared
    return A_bar, b_bar
'''


def test_a_shape_is_read_from_the_parameters_not_from_a_value_kept_for_it():
    source = _source("trace_gram")
    assert "(A.shape[0], A.shape[0])" in source and "(A @ t1).shape" not in source and "ensure_scalar" not in source
    assert "np.full" not in _source("array_branch") and "t2.shape" not in _source("array_branch")


def test_the_adjoint_of_a_sum_stays_a_number_where_broadcasting_gives_the_same_array():
    assert "np.full" not in _source("where") and "total_1_bar = 2.0 * total_1\n" in _source("loop_accumulate")


def test_reductions_follow_from_all_operands_of_a_broadcast():
    source = _source("pairwise")
    assert "t1_bar = np.sum(d_bar, axis=1, keepdims=True)" in source and "unbroadcast" not in source


def test_shapes_are_inferred_through_a_helper_call(tmp_path):
    from modules import import_source

    module = import_source(tmp_path, """
        import numpy as np


        def bent_with(scale):
            def bent(y, k):  # a closure: kept as a helper of its own, not inlined
                if k > 0.0:
                    return scale * y * np.cos(k * y)
                return y
            return bent


        bent = bent_with(1.0)


        def calls_bent(y, k):
            z = bent(y, k)
            return np.sum(bent(z, k))
        """, "bent_model")
    source = srcdiff.grad(module.calls_bent).source_for(np.ones(3), 0.5)
    assert "ensure_scalar" not in source and "unbroadcast" not in source
    assert [line for line in source.splitlines() if line.startswith("def ")] == \
        ["def calls_bent_grad(y, k):", "def bent_vjp(y, k):"]  # one variant serves both calls


def test_a_small_helper_is_inlined():
    source = _source("helper_calls")
    assert [line for line in source.splitlines() if line.startswith("def ")] == ["def helper_calls_grad(y, k):"]


@pytest.mark.parametrize("name, func, args, wrt", SET + EDGES, ids=[entry[0] for entry in SET + EDGES])
def test_every_gradient_of_the_set_matches_central_differences(name, func, args, wrt):
    from numeric import assert_close, central_difference

    indices = wrt if isinstance(wrt, tuple) else (wrt,)
    grads = srcdiff.grad(func, wrt=wrt)(*args)
    grads = grads if isinstance(wrt, tuple) else (grads,)
    for grad, index in zip(grads, indices):
        assert_close(grad, central_difference(func, args, index), rtol=1e-5, atol=1e-6)


def test_no_adjoint_comment_is_repeated_in_one_function():
    for name, func, args, wrt in SET:
        for part in listing(func, args, wrt).split("\ndef "):
            comments = [line.strip() for line in part.splitlines() if line.strip().startswith("# adjoint of")]
            assert len(comments) == len(set(comments)), (name, comments)


def test_a_write_by_index_into_a_new_array_is_made_in_place():
    source = _source("index_write")
    assert "set_item" not in source and "zero_item" not in source
    assert "    y = np.zeros(3)\n    y[0] = x[0] * 2.0\n" in source
    assert "y_1_bar" not in source  # read only around the zeroed element: the unzeroed adjoint is read


WRITES = """
    import numpy as np


    def overwrite(x):
        y = x.copy()
        y[1] = x[0] ** 2
        return np.sum(y * y)


    def read_between(x):
        y = np.zeros(3)
        y[0] = x[0]
        s = np.sum(y * x)  # reads y between two writes: the second keeps its copy
        y[1] = x[1] ** 2
        return s + np.sum(y * y)
    """


def test_an_adjoint_read_whole_after_a_write_is_zeroed_on_a_copy(tmp_path, rng, check_gradient):
    from modules import import_source

    module = import_source(tmp_path, WRITES, "writes_model")
    df = srcdiff.grad(module.overwrite)
    check_gradient(module.overwrite, (rng.normal(size=3),), gradient=df)
    assert "set_item" not in df.source and "zero_item" not in df.source
    assert "    y[1] = t1 * t1\n" in df.source and "    y_bar = y_1_bar.copy()\n    y_bar[1] = 0.0\n" in df.source


def test_a_write_into_an_array_read_before_it_keeps_the_copy(tmp_path, rng, check_gradient):
    from modules import import_source

    module = import_source(tmp_path, WRITES, "writes_model")
    df = srcdiff.grad(module.read_between)
    check_gradient(module.read_between, (rng.normal(size=3),), gradient=df)
    assert df.source.count("set_item(") == 1 and "y[0] = " in df.source


def test_library_code_reducing_with_a_dtype_needs_no_helper_and_no_fill():
    source = _source("rosen")  # np.sum(..., axis=0, dtype=x.dtype) over slices x[1:], x[:-1]
    assert "unbroadcast" not in source and "np.full" not in source and "expand_dims" not in source


def test_a_sum_inside_a_loop_spreads_a_number():
    source = _source("loop_helper")
    assert "np.full" not in source and "unbroadcast" not in source and "ensure_scalar" not in source


def test_a_global_number_is_read_when_run_and_its_shape_is_guarded(tmp_path, rng):
    from modules import import_source

    module = import_source(tmp_path, """
        import numpy as np

        SCALE = 0.5


        def scaled(x):
            return np.sum(SCALE * np.exp(x))
        """, "global_model")
    x = rng.normal(size=3)
    df = srcdiff.grad(module.scaled)
    np.testing.assert_allclose(df(x), 0.5 * np.exp(x), rtol=1e-12)
    assert "unbroadcast" not in df.source and "ensure_scalar" not in df.source
    transforms = srcdiff.driver.CACHE.stats.transforms
    module.SCALE = 0.75  # another number: the same code reads it
    np.testing.assert_allclose(df(x), 0.75 * np.exp(x), rtol=1e-12)
    assert srcdiff.driver.CACHE.stats.transforms == transforms
    module.SCALE = np.array([[1.0], [2.0]])  # an array: the output is summed over its rows
    np.testing.assert_allclose(df(x), 3.0 * np.exp(x), rtol=1e-12)
    assert srcdiff.driver.CACHE.stats.transforms == transforms + 1


def test_a_mean_of_a_value_both_branches_assign_spreads_a_number(tmp_path, rng, check_gradient):
    from modules import import_source

    module = import_source(tmp_path, """
        import numpy as np


        def branchy(x):
            if np.sum(x) > 0:
                y = x * 2.0
            else:
                y = x ** 2
            return np.mean(y)
        """, "branch_model")
    df = srcdiff.grad(module.branchy)
    for x in (np.abs(rng.normal(size=3)), -np.abs(rng.normal(size=3))):
        check_gradient(module.branchy, (x,), gradient=df)
    source = df.source_for(np.ones(3))
    assert "np.full" not in source and "y_bar = 1.0 / y.size\n" in source
