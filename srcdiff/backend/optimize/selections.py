"""``np.where(c, g, 0.0)`` as ``keep_where(c, g)`` and ``np.where(c, 0.0, g)`` as
``zero_where(c, g)`` (rules/selections.py): the same bits, by a mask of `g`'s bits rather than
NumPy's branch per element, which a condition that follows no pattern (the sign of a residual)
mispredicts half the time: five to ten times a product's cost, in every gradient through
``np.maximum``, ``np.abs``, ``np.clip`` or ``np.where``.

The helpers fall back to ``np.where`` itself wherever the mask does not apply (shapes that
broadcast, a number, another dtype, a small array), so the rewrite needs no facts about the
operands.  Only in code NumPy runs as it is: not for numba, nor code srcdiff reads back, nor
another library's arrays (the optimizer says which).  The zero must be a float literal ``0.0``
(``+0.0``: the mask gives +0.0), the other side not a literal (a selection of two numbers has no
array's bits to keep)."""

from __future__ import annotations

import ast
import math

from .simplify import is_number

HELPERS = ("keep_where", "zero_where")


def bit_selections(func: ast.FunctionDef) -> bool:
    """Rewrite, in place, every ``np.where`` of `func` against a literal 0.0; whether any was."""
    rewriter = _Rewrite()
    rewriter.visit(func)
    return rewriter.changed


def _zero(node: ast.expr) -> bool:
    return is_number(node, 0.0) and type(node.value) is float and math.copysign(1.0, node.value) > 0


class _Rewrite(ast.NodeTransformer):
    changed = False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "where" and isinstance(func.value, ast.Name)
                and func.value.id == "np" and len(node.args) == 3 and not node.keywords):
            return node
        condition, kept, other = node.args
        if _zero(other) and not isinstance(kept, ast.Constant):
            helper, value = "keep_where", kept
        elif _zero(kept) and not isinstance(other, ast.Constant):
            helper, value = "zero_where", other
        else:
            return node
        self.changed = True
        return ast.copy_location(ast.Call(ast.Name(helper, ast.Load()), [condition, value], []), node)
