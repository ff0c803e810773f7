"""Selections on a condition already decided: ``np.where(c, np.where(c, a, 0.0) * k, 0.0)``
is ``np.where(c, a * k, 0.0)``.

The adjoint of ``np.where(c, x, y)`` masks what flows into each branch with `c`, and the
zero-factor guards mask it again, so one value of a ``where``-built loss (Huber's, a ReLU's
tie) is selected by the same condition two or three times over, each a full pass over the
array.  Inside the branch an outer ``np.where(c, ...)`` keeps, an inner ``np.where(c, x, y)``
reached through element-wise arithmetic only ever shows its `x` (its `y` in the other branch):
the outer selection reads each element where the inner one reads the same element of `c`,
as broadcasting aligns both on the right.  The inner selection is dropped when what it drops
is a number (so no shape is lost: the outer ``where`` broadcasts against `c` again) and what
it keeps is a float (so the dtype is what it was).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .liveness import nodes
from .simplify import is_float, is_number, numeric_ufunc

#: element-wise binary operators (not ``@``): the element at a position reads only that position
ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def fold_decided_wheres(func: ast.FunctionDef, float_names: Callable[[str], bool]) -> bool:
    """Drop every inner ``np.where`` whose condition an enclosing one already decided."""
    folder = _Folder(float_names)
    folder.visit(func)
    return folder.changed


def _where(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and len(node.args) == 3 and not node.keywords
            and isinstance(node.func, ast.Attribute) and node.func.attr == "where"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np")


def _plain(condition: ast.expr) -> bool:
    """A condition evaluating alike wherever it is written in one expression: names, numbers,
    comparisons, ``not`` and element-wise operators on them, no call."""
    return all(isinstance(n, (ast.Name, ast.Constant, ast.Compare, ast.UnaryOp, ast.BinOp, ast.BoolOp,
                              ast.expr_context, ast.cmpop, ast.unaryop, ast.operator, ast.boolop))
               for n in nodes(condition))


class _Folder(ast.NodeTransformer):
    def __init__(self, float_names: Callable[[str], bool]):
        self.float_names, self.changed = float_names, False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)  # inner selections first: what they keep is then folded
        if _where(node) and _plain(node.args[0]):
            key = ast.dump(node.args[0])
            node.args[1] = self._decided(node.args[1], key, 1)
            node.args[2] = self._decided(node.args[2], key, 2)
        return node

    def _is_float(self, expr: ast.expr) -> bool:
        """Certainly a float: `is_float`, or a selection one of whose branches is one (a float
        and anything NumPy selects between are promoted to a float)."""
        if _where(expr):
            return self._is_float(expr.args[1]) or self._is_float(expr.args[2])
        return is_float(expr, self.float_names)

    def _decided(self, expr: ast.expr, key: str, branch: int) -> ast.expr:
        """`expr` with each ``np.where(c, x, y)`` it reaches element-wise replaced by the
        argument `branch` (1: `x`, 2: `y`) when the other one is a number and this one a float."""
        if _where(expr) and ast.dump(expr.args[0]) == key:
            kept, dropped = expr.args[branch], expr.args[3 - branch]
            if is_number(dropped) and self._is_float(kept):
                self.changed = True
                return self._decided(kept, key, branch)
            return expr
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ELEMENTWISE):
            expr.left = self._decided(expr.left, key, branch)
            expr.right = self._decided(expr.right, key, branch)
        elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            expr.operand = self._decided(expr.operand, key, branch)
        elif numeric_ufunc(expr):
            expr.args = [self._decided(a, key, branch) for a in expr.args]
        return expr
