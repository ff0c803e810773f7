"""Guards ``n > 0`` (or ``n <= 0``) of a measure `n` of several values at once:
``np.linalg.norm(d)``, ``np.hypot(dx, dy)``, ``np.sqrt(np.sum(d ** 2))``, ``d @ d``, ``dx ** 2 + dy ** 2``.

The test fails only where every measured value is 0, and there the program's other branch
decides the value.  Its derivative there is the continuation's, which the program never
evaluates: Rodrigues' rotation ``if theta > 0: ... sin(theta) * K ...`` has a derivative at
``w = 0`` that its identity branch does not have (srcdiff gave 0, the truth is the skew matrix).
Two things make such a guard honest:

* ``np.where(n > 0, a, b)`` is lowered as ``np.where((n > 0) | (a == b), a, b)``: the same value,
  but where `a` already equals `b` at the point (``n ** 3`` against ``0.0``, ``x`` against ``0.0``)
  the derivative is `a`'s, which is the function's there (f is `a` around the point).
* where the guard holds and that is not so (`a` is NaN there, or differs: ``np.sin(n) / n``, a
  rotation), the result passes through ``measure_guard(value, bad, d, every)``, whose rule
  (rules/point_guards.py) makes the derivative NaN for directions that move `d`; an ``if``'s
  point side always does, since its other side is not evaluated there.

The measured values must be made smoothly from the arguments (zero_guards.py's test), so that
``n == 0`` is a set without interior: a pairwise distance's diagonal (``X[i] - X[i]``) stays as
written.
"""

from __future__ import annotations

import ast

from ..frontend.parse import parse_function
from ..ir.nodes import Const, Var, operand_ast
from ..rules.guard_helpers import measure_guard
from .emit import emit, emit_rule
from .state import LoweringState
from .zero_guards import (
    BoundNames,
    compare_test,
    elementwise_measure,
    is_zero,
    producer,
    pure_expression,
    smoothly_made,
)

DEPTH = 8


def measured(state: LoweringState, u: Var, depth: int = DEPTH) -> tuple[list[Var], bool] | None:
    """``(ds, every)`` when `u` measures the values `ds` together, 0 exactly where all are 0:
    `every` when `u` is one number over all of them (a norm), else element by element (hypot)."""
    node = producer(state, u)
    if node is None or depth <= 0:
        return None
    name, inputs = node.rule.name, node.inputs
    if not all(isinstance(v, (Var, Const)) for v in inputs):
        return None
    if name in ("numpy.sqrt", "math.sqrt") and len(inputs) == 1 and isinstance(inputs[0], Var):
        return measured(state, inputs[0], depth - 1)
    if name in ("numpy.hypot", "math.hypot") and len(inputs) == 2:
        return _smoothly(state, inputs, every=False, depth=depth)
    # (any ndim, unknown too in a helper's own transform: a norm of all elements is 0 only where they all are)
    if name == "numpy.linalg.norm" and node.static.get("axis") is None and node.static.get("ord") in (None, 2) \
            and not node.static.get("keepdims"):
        return _smoothly(state, inputs[:1], every=True, depth=depth)
    if name in ("numpy.sum", "math.fsum", "sum") and node.static.get("axis") is None and len(node.input_vars) == 1:
        d = elementwise_measure(state, inputs[0], depth - 1) if isinstance(inputs[0], Var) else None
        return None if d is None or d == inputs[0] else ([d], True)
    if name in ("operator.matmul", "numpy.dot", "numpy.inner", "numpy.vdot") and len(inputs) == 2 \
            and inputs[0] == inputs[1] and state.facts.ndim(inputs[0]) == 1:
        return _smoothly(state, inputs[:1], every=True, depth=depth)
    if name in ("operator.add", "numpy.add") and len(inputs) == 2:
        parts = [_summand(state, v, depth - 1) if isinstance(v, Var) else None for v in inputs]
        if None not in parts:  # ``w[0] ** 2 + w[1] ** 2 + w[2] ** 2``: a sum of sums, each element's own
            return [d for part in parts for d in part], False
    return None


def _summand(state: LoweringState, v: Var, depth: int) -> list[Var] | None:
    """The values `v` measures element by element, as a term of a sum of squares: ``d ** 2``
    (`elementwise_measure`) or a sum of such terms itself."""
    d = elementwise_measure(state, v, depth)
    if d is not None and d != v:
        return [d]
    inner = measured(state, v, depth) if producer(state, v) is not None and \
        producer(state, v).rule.name in ("operator.add", "numpy.add") else None
    return inner[0] if inner is not None and not inner[1] else None


def _smoothly(state: LoweringState, inputs, every: bool, depth: int) -> tuple[list[Var], bool] | None:
    ds = [v for v in inputs if isinstance(v, Var)]
    if not ds or not all(smoothly_made(state, d, depth - 1) for d in ds):
        return None
    return ds, every


def _test(state: LoweringState, condition, lower_expr=None) -> tuple[Var, bool] | None:
    """``(n, holds_at_the_point)`` for a lowered test ``n > 0`` / ``n <= 0`` (``0 < n``...); a
    test of an expression (``np.linalg.norm(v) > 0``) has it lowered again by `lower_expr`."""
    node = producer(state, condition)
    if node is None or node.rule.name not in ("compare", "nograd"):
        return None
    found = compare_test(node.expr)
    if found is None:
        return None
    if isinstance(found[0], ast.Name):
        n = next((v for v in node.input_vars if v.name == found[0].id), None)
    else:
        n = None
        if lower_expr is not None and pure_expression(found[0]):
            with BoundNames(state, node.input_vars):  # (the test as lowered reads the values' own names)
                n = lower_expr(found[0])
    return (n, found[1] is ast.LtE) if isinstance(n, Var) else None


def guard_where(lower, node: ast.Call, where: Var) -> Var:
    """The ``np.where`` that made `where` routed and guarded as the module says, when its
    condition is such a test; `where` itself otherwise."""
    state = lower.state
    made = producer(state, where)
    if made is None or not any(n is made for n in state.nodes) or len(made.inputs) != 3:
        return where
    test = _test(state, made.inputs[0], lower.expr)
    found = measured(state, test[0]) if test is not None else None
    if found is None:
        return where
    (ds, every), (n, at_point) = found, test
    cond, a, b = made.inputs
    numpy = node.func.value if isinstance(node.func, ast.Attribute) else None
    if numpy is None or not _smooth_at_the_point(state, b if at_point else a, n, FLAT_DEPTH):
        return guard_values(state, where, at_zero(lower, n), ds, every)
    state.nodes.remove(made)  # made again below, its condition routed (what came after does not read it)
    call = lambda name, *args: ast.Call(ast.Attribute(numpy, name, ast.Load()), list(args), [])  # noqa: E731
    same = ast.Compare(operand_ast(a), [ast.NotEq() if at_point else ast.Eq()], [operand_ast(b)])
    routed = call("logical_and" if at_point else "logical_or", operand_ast(cond), same)
    with BoundNames(state, (cond, a, b)):
        routed = lower.expr(ast.fix_missing_locations(ast.copy_location(routed, node)))
    with BoundNames(state, (routed,)):
        bad = routed if at_point else lower.expr(ast.fix_missing_locations(ast.copy_location(
            call("logical_not", operand_ast(routed)), node)))
    expr = ast.Call(made.expr.func, [operand_ast(routed), *made.expr.args[1:]], made.expr.keywords) \
        if isinstance(made.expr, ast.Call) and len(made.expr.args) == 3 else None
    value = emit_rule(state, made.rule, (routed, a, b), made.static, expr, None, out=made.out,
                      expr_of=made.expr if expr is None else None)
    return guard_values(state, value, bad, ds, every)


FLAT_DEPTH = 16  # nodes searched back from the other branch's value


def _smooth_at_the_point(state: LoweringState, v, n: Var, depth: int) -> bool:
    """Whether the branch value `v` is made without `n` (or through ``n ** k``, ``k >= 2``, flat at
    ``n = 0``, where the measure's own kink does not reach the derivative): then, equal to the
    point's own value there, it is the function around the point, derivative included."""
    if not isinstance(v, Var) or v in state.params:
        return True
    if v == n or depth <= 0:
        return False
    node = producer(state, v)
    if node is None:  # made in a region (a loop, a branch): not looked into
        return False
    inputs = node.inputs
    if node.rule.name in ("operator.pow", "numpy.power") and len(inputs) == 2 and inputs[0] == n \
            and isinstance(inputs[1], Const) and type(inputs[1].value) in (int, float) and inputs[1].value >= 2:
        return True
    if node.rule.name in ("operator.mul", "numpy.multiply") and len(inputs) == 2 and inputs[0] == inputs[1] == n:
        return True
    return all(_smooth_at_the_point(state, w, n, depth - 1) for w in node.input_vars)


def at_zero(lower, n: Var) -> Var:
    """The lowered test ``n == 0``: where the guard holds."""
    with BoundNames(lower.state, (n,)):
        return lower.expr(ast.Compare(ast.Name(n.name, ast.Load()), [ast.Eq()], [ast.Constant(0.0)]))


def guard_values(state: LoweringState, value: Var, bad, ds: list[Var], every: bool) -> Var:
    """``measure_guard(value, bad, d, every)`` for each measured `d`."""
    for d in ds:
        call = ast.Call(ast.Name("measure_guard", ast.Load()),
                        [operand_ast(value), operand_ast(bad), operand_ast(d), ast.Constant(every)], [])
        value = emit(state, measure_guard, (value, bad, d, Const(every)), {}, call, None)
    return value


def if_test(lower, lowered_test) -> tuple[list[Var], bool, bool, Var] | None:
    """``(ds, every, holds_at_the_point, bad)`` for an ``if n > 0:`` of such a measure, `bad`
    the lowered ``n == 0``: where the side the point takes is guarded (it is the function only
    there, so no routing is possible)."""
    state = lower.state
    test = _test(state, lowered_test, lower.expr)
    found = measured(state, test[0]) if test is not None else None
    if found is None:
        return None
    return (*found, test[1], at_zero(lower, test[0]))


def guard_call(lower, func, names: tuple, operands: list, out):
    """The result `out` of a call of the user's `func` passed a measure of several values for a
    parameter it tests against 0 (``_rotate(w, np.linalg.norm(w), p)`` with ``if theta > 0:``
    inside): the callee's transform sees a number, not what it measures, so its point side's
    derivative is its own (0 for an identity); guarded here as an ``if`` in the caller would be."""
    state = lower.state
    if not isinstance(out, Var):
        return out
    measures = [(name, operand, found) for name, operand in zip(names, operands)
                if isinstance(operand, Var) and (found := measured(state, operand)) is not None]
    tested, pair = _tested_at_zero(func) if measures else ((), False)  # (the source read again only then)
    for name, operand, found in measures:
        if name not in tested:
            continue
        bad = at_zero(lower, operand)
        if pair:  # ``R, theta = helper(w, norm)``: each item guarded where it is read (subscripts.py)
            before = state.guarded_items.get(out.name, lambda item: item)
            state.guarded_items[out.name] = lambda item, b=bad, f=found, g=before: guard_values(state, g(item), b, *f)
        else:
            out = guard_values(state, out, bad, *found)
    return out


def _tested_at_zero(func) -> tuple[frozenset, bool]:
    """The parameters of `func` it tests against 0 as written (``p > 0``, ``p == 0``, ``not p``,
    in an ``if``, a conditional expression or a ``np.where``) and never assigns, and whether it
    returns a tuple (each item is then read on its own)."""
    tree = parse_function(func).tree
    params = {a.arg for a in tree.args.args + tree.args.posonlyargs + tree.args.kwonlyargs}
    assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    returns = [n.value for n in ast.walk(tree) if isinstance(n, ast.Return)]
    if any(isinstance(v, (ast.List, ast.Dict)) for v in returns) or \
            any(isinstance(v, ast.Tuple) for v in returns) and not all(isinstance(v, ast.Tuple) for v in returns):
        return frozenset(), False
    tests = [n.test for n in ast.walk(tree) if isinstance(n, (ast.If, ast.IfExp))] + \
        [n.args[0] for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args
         and isinstance(n.func, ast.Attribute) and n.func.attr == "where"]
    names = set()
    for test in tests:
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        u = _zero_tested(test)
        if isinstance(u, ast.Name):
            names.add(u.id)
    return frozenset(names & params - assigned), bool(returns) and all(isinstance(v, ast.Tuple) for v in returns)


def _zero_tested(test: ast.expr) -> ast.expr:
    """`u` of a test ``u > 0``, ``u <= 0``, ``u == 0``, ``u != 0`` (either order), or `test` itself."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        found = compare_test(test)
        if found is not None:
            return found[0]
        if isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
            for u, c in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
                if is_zero(c):
                    return u
    return test
