"""Lowering of ``np.where(u == c, a, b)`` and ``if u == c:`` (or ``u != c``) for a name `u`
and a number `c` written in the code: the ``np.where`` or the branch as any other, its
results passed through `point_guard`, whose rule (rules/point_guards.py) makes the derivative
at the guarded point NaN instead of the guard's constant's.

``u > 0`` (or ``u <= 0``) of a `u` that is never negative and is 0 only where what it measures
is 0 (``np.abs(d)``, ``d ** 2``, ``np.hypot(dx, dy)``, ``np.linalg.norm(d)``, sums of them, with
`d` computed smoothly from the arguments) is the same guard written another way: it fails only
where ``u == 0``, so it is lowered as one (zero_guards.py says which `u` qualify)."""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from ..ir.nodes import Const, Operand, Var, operand_ast
from ..rules.guard_helpers import point_guard
from .emit import emit
from .expressions import ExpressionLowerer
from .guard_spellings import all_zero, spelled
from .measure_guards import at_zero, guard_values, guard_where, if_test, measured
from .rule_calls import lower_rule_call
from .state import BREAK, DONE
from .subscripts import generated_code
from .zero_guards import (
    DEPTH,
    BoundNames,
    compares_with_zero,
    guard_target,
    guarded_zero,
    producer,
    pure_expression,
    smoothly_made,
)


def _not_users(state) -> bool:
    """Code srcdiff wrote (a gradient read again) or its own helpers: only guards written on a
    name, as before, are read there; the spellings below are the user's."""
    func = state.parsed.func
    module, code = getattr(func, "__module__", "") or "", getattr(func, "__code__", None)
    return generated_code(state) or module.split(".")[0] == "srcdiff" \
        or code is not None and code.co_filename.startswith("<srcdiff:")  # a callee's seeded gradient


def guarded_point(condition: ast.expr, names_only: bool = False, state=None) -> tuple[ast.expr, float, bool] | None:
    """``(u, c, equal)`` for a condition ``u == c`` (`equal`), ``c == u``, ``u != c`` with `u` a
    name (or arithmetic of names, `_arithmetic`) and `c` a number written in the code (``0``,
    ``0.0``, ``-1.0``); given the `state`, also the other spellings guard_spellings.py reads
    (``not x``, ``math.isclose(x, 0.0)``, ``x == ZERO``); None for any other condition."""
    if state is not None and not names_only:
        found = spelled(state, condition)
        return found if found is not None and _arithmetic(found[0]) else None
    if not (isinstance(condition, ast.Compare) and len(condition.ops) == 1
            and isinstance(condition.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = condition.left, condition.comparators[0]
    for name, number in ((left, right), (right, left)):
        value = _number(number)
        if value is not None and (isinstance(name, ast.Name) if names_only else _arithmetic(name)):
            return name, value, isinstance(condition.ops[0], ast.Eq)
    return None


def _arithmetic(expr: ast.expr) -> bool:
    """A name, or arithmetic and subscripts of names and numbers (``x - 1.0``, ``v[0]``,
    ``X[i, j]``): lowered again, it makes the same value, and it singles out a point as a
    name does (``np.where(x - 1.0 == 0, 1.0, np.log(x) / (x - 1.0))``)."""
    if isinstance(expr, ast.Name):
        return True
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return (_arithmetic(expr.left) or _number(expr.left) is not None) and \
            (_arithmetic(expr.right) or _number(expr.right) is not None) and \
            not (_number(expr.left) is not None and _number(expr.right) is not None)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _arithmetic(expr.operand)
    if isinstance(expr, ast.Subscript):
        index = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        return _arithmetic(expr.value) and all(
            isinstance(i, ast.Name) or _number(i) is not None and float(_number(i)).is_integer() for i in index)
    return False


def _number(expr: ast.expr) -> float | None:
    sign = 1
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        sign, expr = (-1 if isinstance(expr.op, ast.USub) else 1), expr.operand
    if isinstance(expr, ast.Constant) and type(expr.value) in (int, float):
        return sign * expr.value
    return None


def lower_guarded_where(lower: ExpressionLowerer, node: ast.Call, target) -> Operand | None:
    """``np.where(u == c, a, b)`` followed by ``point_guard(where, u, c)``; None when the call is
    not such a guard."""
    if len(node.args) != 3 or node.keywords:
        return None
    generated = _not_users(lower.state)
    found = guarded_point(node.args[0], names_only=generated, state=lower.state)
    if found is None:
        if generated:  # a gradient's own masks (``np.where(t3, 0.0, g)``) are not the user's guards
            return None
        if (zero := all_zero(lower.state, node.args[0])) is not None:
            return _where_all_zero(lower, node, target, *zero)
        held = isinstance(node.args[0], ast.Name)  # ``at0 = x == 0.0`` before: the test in a name
        if not (compares_with_zero(node.args[0]) or held):
            return None
        where = lower_rule_call(lower, node, np.where, lower.state.table.lookup(np.where), node.func, target)
        if not isinstance(where, Var):
            return where
        if held and (equal := _held_equality(lower.state, where)) is not None:
            u, number = equal
            return _guard(lower.state, where, guard_target(lower.state, u) if number == 0 else u, number)
        zero = guarded_zero(lower.state, where, condition_of=True, lower_expr=lower.expr)
        return guard_where(lower, node, where) if zero is None else _guard(lower.state, where, zero[0], 0.0)
    name, number, _ = found
    where = lower_rule_call(lower, node, np.where, lower.state.table.lookup(np.where), node.func, target)
    u, number = lower.expr(name), lower.expr(number) if isinstance(number, ast.expr) else number
    if not isinstance(u, Var) or not isinstance(where, Var):
        return where
    return _guard(lower.state, where, guard_target(lower.state, u) if number == 0 and not generated else u, number)


def _where_all_zero(lower: ExpressionLowerer, node: ast.Call, target, v: ast.expr, holds: bool) -> Operand:
    """``np.where(np.all(v == 0), a, b)``: the measure guard of the whole of `v` (measure_guards.py),
    NaN at ``v = 0`` for every direction, whichever side is taken there."""
    state = lower.state
    where = lower_rule_call(lower, node, np.where, state.table.lookup(np.where), node.func, target)
    made = producer(state, where)
    several = _all_zero(lower, v, made.inputs[0], holds) if made is not None and made.inputs else None
    return where if several is None else guard_values(state, where, several[1], several[0], True)


def _held_equality(state, where: Var) -> tuple[Var, float | Var] | None:
    """``(u, c)`` when the condition of the ``np.where`` that made `where` is a name holding a test
    ``u == c`` (or ``u != c``) computed before (``at0 = x == 0.0``)."""
    made = producer(state, where)
    test = producer(state, made.inputs[0]) if made is not None and made.inputs else None
    if test is None or test.rule.name not in ("compare", "nograd"):
        return None
    found = guarded_point(test.expr, state=state)
    if found is None or not isinstance(found[0], ast.Name):
        return None
    u = next((v for v in test.input_vars if v.name == found[0].id), None)
    c = found[1] if not isinstance(found[1], ast.Name) else \
        next((v for v in test.input_vars if v.name == found[1].id), None)  # a parameter (``x == at``)
    return None if u is None or c is None or isinstance(c, ast.expr) else (u, c)


def guarded_sides(lower: ExpressionLowerer, test: ast.expr, body: Callable[[], None],
                  orelse: Callable[[], None], lowered_test: Operand | None = None
                  ) -> tuple[Callable[[], None], Callable[[], None]]:
    """The two sides of ``if u == c:`` (or ``u != c``), the side the equality selects made to
    pass what it assigns and returns through `point_guard`: ``if x == 0.0: return 1.0``
    defines the value at one point, like the ``np.where`` form.  `lowered_test` is the test's
    value, for the guards written ``if u > 0:`` (zero_guards.py)."""
    state = lower.state
    generated = _not_users(state)
    found = guarded_point(test, names_only=generated, state=state)
    if found is None and not generated and (points := _points(lower, test)) is not None:
        guards, equal = points  # ``x == 0.0 or x == 2.0``: each point guarded

        def wrap(value):
            for u, number in guards:
                value = _guard(state, value, u, number)
            return value
        return _guarding(state, body, orelse, equal, wrap)
    if found is not None:
        name, number, equal = found
        u, number = lower.expr(name), lower.expr(number) if isinstance(number, ast.expr) else number
        several = measured(state, u) if isinstance(u, Var) and number == 0 and not generated else None
        if several is not None:  # ``if theta == 0:`` of a norm: the measure guard (measure_guards.py)
            ds, every = several
            bad = at_zero(lower, u)
            return _guarding(state, body, orelse, equal, lambda value: guard_values(state, value, bad, ds, every))
        u = guard_target(state, u) if isinstance(u, Var) and number == 0 and not generated else u
    elif not generated and (inline := _inline_measure(lower, test)) is not None:
        (ds, every), bad, equal = inline  # ``if np.linalg.norm(w) == 0:``, the measure written in the test
        return _guarding(state, body, orelse, equal, lambda value: guard_values(state, value, bad, ds, every))
    elif not generated and (zero := all_zero(state, test)) is not None \
            and (several := _all_zero(lower, zero[0], lowered_test, zero[1])) is not None:
        ds, bad = several
        return _guarding(state, body, orelse, zero[1], lambda value: guard_values(state, value, bad, ds, True))
    elif not generated and compares_with_zero(test) and \
            (zero := guarded_zero(state, lowered_test, lower_expr=lower.expr)) is not None:
        (u, equal), number = zero, 0.0
    elif not generated and compares_with_zero(test) and (several := if_test(lower, lowered_test)) is not None:
        ds, every, equal, bad = several
        return _guarding(state, body, orelse, equal, lambda value: guard_values(state, value, bad, ds, every))
    else:
        return body, orelse
    if not isinstance(u, Var) or state.is_list(u):
        return body, orelse
    return _guarding(state, body, orelse, equal, lambda value: _guard(state, value, u, number))


def _points(lower: ExpressionLowerer, test: ast.expr):
    """``([(u, c), ...], equal)`` for ``u == c or v == d`` (`equal`) or ``u != c and v != d``,
    each a point guard; None otherwise."""
    if not isinstance(test, ast.BoolOp):
        return None
    found = [guarded_point(v, state=lower.state) for v in test.values]
    equal = isinstance(test.op, ast.Or)
    if any(f is None or f[2] != equal for f in found):
        return None
    guards = []
    for name, number, _ in found:
        u, number = lower.expr(name), lower.expr(number) if isinstance(number, ast.expr) else number
        if not isinstance(u, Var) or lower.state.is_list(u):
            return None
        guards.append((guard_target(lower.state, u) if number == 0 else u, number))
    return guards, equal


def _inline_measure(lower: ExpressionLowerer, test: ast.expr):
    """``((ds, every), bad, equal)`` for a test ``n == 0`` (or a spelling of it, guard_spellings.py)
    of a measure of several values written in the test itself; None otherwise."""
    found = spelled(lower.state, test)
    if found is None or found[1] != 0 or isinstance(found[0], ast.Name) or not pure_expression(found[0]):
        return None
    n = lower.expr(found[0])
    several = measured(lower.state, n) if isinstance(n, Var) else None
    return None if several is None else (several, at_zero(lower, n), found[2])


def _all_zero(lower: ExpressionLowerer, v: ast.expr, lowered_test, holds: bool):
    """``([d], bad)`` for a test that holds exactly where every element of `v` is 0 (`holds`) or
    where one is not, `d` the lowered `v` when it is made smoothly from the arguments, `bad` where
    the test picks the point's side; None otherwise."""
    state = lower.state
    d = lower.expr(v) if pure_expression(v) else None
    if not isinstance(d, Var) or state.is_list(d) or not smoothly_made(state, d, DEPTH) \
            or not isinstance(lowered_test, Var):
        return None
    if holds:
        return [d], lowered_test
    with BoundNames(state, (lowered_test,)):
        return [d], lower.expr(ast.UnaryOp(ast.Not(), ast.Name(lowered_test.name, ast.Load())))


def _guarding(state, body, orelse, equal: bool, wrap):
    """`body` and `orelse`, the side the guarded point takes (`body` when `equal`) made to pass
    what it assigns and returns through `wrap`."""
    side = body if equal else orelse

    def guarded():
        before = dict(state.env)
        side()
        for key, value in list(state.env.items()):
            number_like = isinstance(value, Const) and type(value.value) in (int, float)
            if key in (BREAK, DONE) or before.get(key) == value \
                    or not (isinstance(value, Var) and value.name not in state.lists or number_like):
                continue
            state.env[key] = wrap(value)

    return (guarded, orelse) if equal else (body, guarded)


def _guard(state, value, u: Var, number) -> Var:
    """``point_guard(value, u, number)``, a temporary (the optimiser drops the call where the
    code is not differentiated again, so `value` keeps its name); `number` a number or a
    parameter's operand."""
    c = number if isinstance(number, (Var, Const)) else Const(number)
    call = ast.Call(ast.Name("point_guard", ast.Load()), [operand_ast(value), operand_ast(u), operand_ast(c)], [])
    return emit(state, point_guard, (value, u, c), {}, call, None)
