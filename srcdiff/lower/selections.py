"""Lowering of ``np.select(conditions, choices, default)``: the first choice whose condition
holds, element by element, which is ``np.where`` nested from the last condition outwards:
``np.where(c0, a0, np.where(c1, a1, default))``.  ``np.where`` has its rules (adjoint,
tangent, batching, numba), and its adjoint sends nothing to a choice not taken."""

from __future__ import annotations

import ast

import numpy as np

from ..ir.nodes import Operand
from .expressions import ExpressionLowerer
from .static_values import static_value


def lower_select(lower: ExpressionLowerer, node: ast.Call, target) -> Operand:
    """``np.select([c0, c1], [a0, a1], default=d)`` as nested ``np.where``."""
    state = lower.state
    bound = _bound(node)
    if bound is None:
        raise state.error(node, "np.select(...) takes conditions, choices and default=",
                          "call np.select(conditions, choices, default)")
    conditions, choices = (_items(lower, arg) for arg in bound[:2])
    default = bound[2]
    if conditions is None and choices is not None:  # a sequence of masks (no gradient), one per choice
        conditions = [_item(bound[0], j) for j in range(len(choices))]
    if conditions is None or choices is None or len(conditions) != len(choices) or not conditions:
        raise state.error(node, "np.select needs its conditions and choices as lists of one length written "
                          "in the call", "write np.select([c0, c1], [a0, a1], default), or nest np.where")
    numpy = _numpy(lower, node)
    if numpy is None:
        raise state.error(node, "np.select imported by itself is not supported", "import numpy as np")
    where = ast.Attribute(numpy, "where", ast.Load())
    value = default
    for condition, choice in reversed(list(zip(conditions, choices))):
        value = ast.copy_location(ast.Call(where, [condition, choice, value], []), node)
    return lower.expr(ast.fix_missing_locations(value), target)


def _items(lower: ExpressionLowerer, arg: ast.expr) -> list[ast.expr] | None:
    """The items of a list written in the call, or of a tuple whose items are fixed (a tuple
    parameter, ``cs = (a > 0, b > 0)``) read by index; None for any other sequence."""
    if isinstance(arg, (ast.List, ast.Tuple)):
        return list(arg.elts)
    value = lower.expr(arg)
    items = lower.state.tuple_items.get(getattr(value, "name", None))
    if items is None:
        return None
    return [_item(arg, j) for j in range(len(items))]


def _item(arg: ast.expr, j: int) -> ast.expr:
    return ast.copy_location(ast.Subscript(arg, ast.Constant(j), ast.Load()), arg)


def _bound(node: ast.Call):
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    names = ["condlist", "choicelist", "default"]
    given = dict(zip(names, node.args))
    for k in node.keywords:
        if k.arg not in names or k.arg in given:
            return None
        given[k.arg] = k.value
    if len(node.args) > 3 or "condlist" not in given or "choicelist" not in given:
        return None
    return given["condlist"], given["choicelist"], given.get("default", ast.Constant(0))


def _numpy(lower: ExpressionLowerer, node: ast.Call) -> ast.expr | None:
    """An expression naming NumPy in the function: the module of ``np.select``, or ``np``."""
    if isinstance(node.func, ast.Attribute):
        return node.func.value
    if static_value(lower.state, ast.Name("np", ast.Load()), False) is np:
        return ast.Name("np", ast.Load())
    return None
