"""Which expressions of the generated code certainly give a number, not an array: the optimizer's
"holds a number" (optimizer.scalar_names grows it over the names' assignments, known_names.grow)."""

from __future__ import annotations

import ast

from .known_names import ITEM, Bindings, item_of
from .liveness import is_size
from .simplify import is_float_call


def shape_items(bound: Bindings) -> set[str]:
    """The item keys (``t8[]``) of names bound only to an array's shape (``t8 = X.shape``): each
    ``t8[i]`` is an int, a number like ``X.shape[0]`` (a mean's ``1.0 / t8[0]``)."""
    return {name + ITEM for name, values in bound.plain.items()
            if name not in bound.other and name not in bound.params and all(
                isinstance(v, ast.Attribute) and v.attr == "shape" and isinstance(v.value, ast.Name) for v in values)}


def is_scalar_expr(node: ast.expr, known: set[str]) -> bool:
    """Whether `node` gives a number where the names `known` hold numbers (and the lists `xs[]` numbers)."""
    if is_size(node) or _is_shape_item(node):
        return True
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, ast.Name):
        return node.id in known
    if isinstance(node, ast.Subscript):  # an item of a list of numbers (known_names.py)
        return item_of(node) in known
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
        return is_scalar_expr(node.left, known) and is_scalar_expr(node.right, known)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return is_scalar_expr(node.operand, known)
    return is_float_call(node) and all(is_scalar_expr(a, known) for a in node.args)


def _is_shape_item(node: ast.expr) -> bool:
    """``x.shape[0]``: an int."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
        and node.value.attr == "shape" and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int
