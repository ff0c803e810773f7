"""The spellings of an equality guard other than ``u == c``, read as that test.

A program singles out one point in many ways besides ``u == c``, and the point's own branch
gives the derivative of its constant just the same (0 where ``expm1(x) / x`` has 1/2), so each
is lowered as the guard it spells (point_guards.py):

* ``not u`` (``u == 0``), ``not (u == c)``, ``np.logical_not(u)``, ``u in (c,)``;
* ``np.equal(u, c)`` / ``np.not_equal(u, c)``;
* ``math.isclose(u, 0.0)`` and ``np.isclose(u, 0.0, atol=0.0)``: with no absolute tolerance
  a relative one admits only 0 itself (``np.isclose``'s default ``atol=1e-8`` is a threshold,
  a whole interval where the branch is the function, and stays as written);
* ``abs(u) == 0`` (any measure of one value of `elementwise` kind: ``u == 0`` exactly) and
  ``float(u) == c``;
* `c` a name holding a number: a module constant (``x == ZERO``), a class's number; or a
  parameter (``def f(x, at=0.0): if x == at:``), a point whatever its value.

``np.all(v == 0)``, ``not np.any(v)``, ``np.count_nonzero(v) == 0`` (and their negations) hold
only at the point ``v = 0`` of a whole vector: `all_zero` reads them, for the measure guard of
several values (measure_guards.py).
"""

from __future__ import annotations

import ast
import inspect
import math

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Const
from .state import LoweringState
from .static_values import static_value

#: Zero exactly where their one operand is 0: ``abs(u) == 0`` is ``u == 0``.
_MEASURES = (abs, np.abs, np.fabs, math.fabs)
#: The same value as their operand, as a number.
_SAME = (float, np.float64, np.float32, np.asarray, np.array)


def number(state: LoweringState | None, expr: ast.expr) -> float | None:
    """The number `expr` writes (``0``, ``-1.0``), or that a name it is holds (a module constant,
    a parameter left at its default); None otherwise."""
    sign = 1
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        sign, expr = (-1 if isinstance(expr.op, ast.USub) else 1), expr.operand
    if isinstance(expr, ast.Constant) and type(expr.value) in (int, float):
        return sign * expr.value
    if state is None or not isinstance(expr, (ast.Name, ast.Attribute)):
        return None
    if isinstance(expr, ast.Name) and expr.id in state.env:
        bound = state.env[expr.id]
        value = bound.value if isinstance(bound, Const) else MISSING
    else:
        value = static_value(state, expr, record=False)
        if type(value) in (int, float):
            static_value(state, expr)  # the transform depends on the name keeping its number
    return sign * value if type(value) in (int, float) else None


def _called(state: LoweringState, expr: ast.expr, functions) -> bool:
    return isinstance(expr, ast.Call) and any(
        static_value(state, expr.func, record=False) is f for f in functions)


def _keyword(call: ast.Call, name: str, default):
    found = [k.value for k in call.keywords if k.arg == name]
    return default if not found else (number(None, found[0]) if len(found) == 1 else None)


def spelled(state: LoweringState, test: ast.expr) -> tuple[ast.expr, float | ast.expr, bool] | None:
    """``(u, c, equal)`` when `test` is ``u == c`` (`equal`) or ``u != c`` spelled another way
    (the module's list), `u` still to be checked by the caller, `c` a number or the name of a
    parameter; None otherwise."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = spelled(state, test.operand)
        return (inner[0], inner[1], not inner[2]) if inner is not None else (test.operand, 0.0, True)
    if isinstance(test, ast.Call) and not any(isinstance(a, ast.Starred) for a in test.args):
        args = test.args
        if _called(state, test, (np.logical_not,)) and len(args) == 1 and not test.keywords:
            return args[0], 0.0, True
        for function, equal in ((np.equal, True), (np.not_equal, False)):
            if _called(state, test, (function,)) and len(args) == 2 and not test.keywords:
                return _sides(state, args[0], args[1], equal)
        if _called(state, test, (math.isclose,)) and len(args) == 2 and _keyword(test, "abs_tol", 0.0) == 0 \
                and all(k.arg in ("rel_tol", "abs_tol") for k in test.keywords):
            return _sides(state, args[0], args[1], True, zero_only=True)
        if _called(state, test, (np.isclose,)) and len(args) == 2 and _keyword(test, "atol", None) == 0 \
                and all(k.arg in ("rtol", "atol") for k in test.keywords) and _keyword(test, "rtol", 1e-5) is not None \
                and 0 <= _keyword(test, "rtol", 1e-5) < 1:
            return _sides(state, args[0], args[1], True, zero_only=True)
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List)) and len(right.elts) == 1:
        return _sides(state, test.left, right.elts[0], isinstance(op, ast.In))
    if isinstance(op, (ast.Eq, ast.NotEq)):
        return _sides(state, test.left, right, isinstance(op, ast.Eq))
    return None


def _sides(state, left: ast.expr, right: ast.expr, equal: bool, zero_only: bool = False):
    for u, c in ((left, right), (right, left)):
        value = number(state, c)
        if value is None and not zero_only and _parameter(state, c) and not _parameter(state, u):
            value = c  # ``x == at``, `at` a parameter (left at its default 0.0): a point all the same
        if value is None or number(state, u) is not None or zero_only and value != 0:
            continue
        while isinstance(u, ast.Call) and len(u.args) == 1 and not u.keywords and (
                _called(state, u, _SAME) or value == 0 and _called(state, u, _MEASURES)):
            u = u.args[0]
        return u, value, equal
    return None


def _parameter(state: LoweringState, expr: ast.expr) -> bool:
    """`expr` names a parameter of the function whose default is a number, as it was passed
    (not assigned since)."""
    if not (isinstance(expr, ast.Name) and any(state.env.get(expr.id) == p for p in state.params)):
        return False
    try:
        default = inspect.signature(state.parsed.func).parameters[expr.id].default
    except (KeyError, TypeError, ValueError):
        return False
    return type(default) in (int, float)


def all_zero(state: LoweringState, test: ast.expr) -> tuple[ast.expr, bool] | None:
    """``(v, holds_at_the_point)`` when `test` holds exactly where every element of `v` is 0
    (``np.all(v == 0)``, ``not np.any(v)``, ``np.count_nonzero(v) == 0``, ``np.array_equal(v, 0)``),
    or exactly where one is not (their negations, ``np.any(v != 0)``); None otherwise."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = all_zero(state, test.operand)
        if inner is not None:
            return inner[0], not inner[1]
        return (test.operand.args[0], True) if _called(state, test.operand, (np.any,)) \
            and len(test.operand.args) == 1 and not test.operand.keywords else None
    if isinstance(test, ast.Call) and len(test.args) == 1 and not test.keywords \
            and _called(state, test, (np.all, np.any)):
        inner = spelled(state, test.args[0])
        every = _called(state, test, (np.all,))
        if inner is not None and inner[1] == 0 and inner[2] == every and not isinstance(test.args[0], ast.UnaryOp):
            return inner[0], every  # np.all(v == 0), np.any(v != 0)
        return (test.args[0], False) if not every and inner is None else None  # np.any(v)
    if isinstance(test, ast.Call) and len(test.args) == 2 and not test.keywords \
            and _called(state, test, (np.array_equal,)):
        found = _sides(state, test.args[0], test.args[1], True, zero_only=True)
        return None if found is None else (found[0], True)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)) \
            and _called(state, test.left, (np.count_nonzero,)) and len(test.left.args) == 1 \
            and not test.left.keywords and number(state, test.comparators[0]) == 0:
        return test.left.args[0], isinstance(test.ops[0], ast.Eq)
    return None
