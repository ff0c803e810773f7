"""A slice of the list (or tuple) a helper of the user's returns, as the display of its items::

    m = moments(x)          # return [np.sum(x), np.sum(x ** 2), np.sum(x ** 3), np.sum(np.sin(x))]
    m[1:3]          ->      [m[1], m[2]]

The helper's own lowering tells its length (callee_facts.py: the display it returns on every path),
so the items the slice picks are known when the gradient is built.  Read as a slice, the value is a
list sliced at run time, whose adjoint is added back into the list's with a slice (``list_add``):
code srcdiff does not differentiate again, so a Hessian was refused.  Read as its items, each
item's adjoint goes back into its own place, at every order.  Only ends and a step written as
integers are read so; any other slice stays a slice.
"""

from __future__ import annotations

import ast

from ..ir.nodes import Operand, Var
from .expressions import ExpressionLowerer


def _integer(node):
    """The int `node` writes out, None where left out, ... (Ellipsis) for anything else."""
    if node is None or isinstance(node, ast.Constant) and node.value is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return -node.operand.value
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else ...


def sliced_display(lower: ExpressionLowerer, x: Var, shown: tuple, index: ast.expr, target) -> Operand | None:
    """``x[a:b:c]`` of a helper's returned display `x` (`shown`: its kind and length): the display of
    the items it picks; None when an end or the step is not an integer written out."""
    if not isinstance(index, ast.Slice):
        return None
    bounds = tuple(_integer(b) for b in (index.lower, index.upper, index.step))
    if ... in bounds or bounds[2] == 0:
        return None
    kind, length = shown
    key = f"<display sliced at line {getattr(index, 'lineno', 0)}:{getattr(index, 'col_offset', 0)}>"
    items = [ast.Subscript(ast.Name(key, ast.Load()), ast.Constant(i), ast.Load())
             for i in range(*slice(*bounds).indices(length))]
    made = (ast.List if kind == "list" else ast.Tuple)(items, ast.Load())
    lower.state.env[key] = x
    try:
        return lower.expr(ast.fix_missing_locations(ast.copy_location(made, index)), target)
    finally:
        lower.state.env.pop(key, None)


__all__ = ["sliced_display"]
