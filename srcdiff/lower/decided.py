"""Values the specialisation decides before the function runs (lower/facts.py says which).

``tuple(range(a.ndim))``, ``(1,) * x.ndim``, ``True if b is None else None``: built from
literals, names bound to constants, ``x.ndim`` of a value whose shape the signature decides,
and tests the specialisation decides.  Such a value is a constant of the transform (an
``axis=``, a ``copy=``), not something computed when the gradient runs.
"""

from __future__ import annotations

import ast
import builtins
import operator

from ..frontend.depends import MISSING, static_ok
from ..ir.nodes import Const
from .expressions import ExpressionLowerer
from .opaque import folded
from .static_values import static_value

#: Builtins computed at specialisation time when their arguments are constants there.
_FOLDABLE = (builtins.tuple, builtins.range, builtins.len, builtins.int, builtins.min, builtins.max,
             builtins.abs, builtins.bool)
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv}


def folded_call(lower: ExpressionLowerer, node: ast.Call, func):
    """The value of a builtin call whose arguments the specialisation decides (a number, a
    tuple of them), else MISSING."""
    if func not in _FOLDABLE or node.keywords:
        return MISSING
    values = [known_value(lower, a) for a in node.args]
    if any(v is MISSING for v in values):
        return MISSING
    try:
        value = func(*values)
    except Exception:  # the call raises: the forward pass will say so itself
        return MISSING
    return value if static_ok(value) or isinstance(value, range) else MISSING


def known_value(lower: ExpressionLowerer, expr: ast.expr):
    """A value the specialisation decides: a literal, a name bound to a constant, ``x.ndim``,
    arithmetic and builtins of those; else MISSING (nothing is lowered)."""
    state = lower.state
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Name):
        operand = state.env.get(expr.id)
        return operand.value if isinstance(operand, Const) and static_ok(operand.value) else MISSING
    if isinstance(expr, ast.Attribute) and expr.attr == "ndim" and isinstance(expr.value, ast.Name) \
            and expr.value.id in state.env:
        return state.facts.ndim(state.env[expr.value.id])
    if isinstance(expr, ast.Tuple):
        items = [known_value(lower, e) for e in expr.elts]
        return MISSING if any(v is MISSING for v in items) else tuple(items)
    if isinstance(expr, ast.BinOp) and type(expr.op) in _ARITHMETIC:
        a, b = known_value(lower, expr.left), known_value(lower, expr.right)
        if a is MISSING or b is MISSING:
            return MISSING
        try:
            return _ARITHMETIC[type(expr.op)](a, b)
        except Exception:
            return MISSING
    if isinstance(expr, ast.Call):
        return folded_call(lower, expr, static_value(state, expr.func, record=False))
    if isinstance(expr, ast.IfExp):
        test = folded(lower, expr.test)
        return MISSING if test is MISSING else known_value(lower, expr.body if test else expr.orelse)
    return MISSING
