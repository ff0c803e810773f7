"""``list(xs)`` / ``tuple(xs)`` of a name: a new sequence of the same items.

Written as the comprehension ``[item for item in xs]`` it stands for, so a list the function
keeps, a tuple, or an array's rows are copied item by item (the copy may grow apart from the
original, as in Python).  Trees (a dict's keys, a tuple parameter) never get here: the tree
rewrite reads those first.
"""

from __future__ import annotations

import ast
import builtins

from ..ir.nodes import Operand
from .expressions import ExpressionLowerer


def copied_sequence(lower: ExpressionLowerer, node: ast.Call, func, target) -> Operand | None:
    """``list(xs)`` (or ``tuple(xs)``) of a name bound in the function or of a slice (``list(x[:2])``),
    or of a generator expression (``tuple(yi + dt * fi for yi, fi in zip(y, f))``), as a new list;
    else None."""
    if func not in (builtins.list, builtins.tuple) or len(node.args) != 1 or node.keywords:
        return None
    arg = node.args[0]
    if isinstance(arg, ast.GeneratorExp):  # the list comprehension it iterates
        return lower.expr(ast.copy_location(ast.ListComp(arg.elt, arg.generators), arg), target)
    if isinstance(arg, ast.Subscript):  # list(x[:2]): a list of the slice's rows, as of a name's
        pass
    elif not isinstance(arg, ast.Name) or arg.id not in lower.state.env:
        return None
    item = lower.state.namer.fresh("item")
    comp = ast.comprehension(ast.Name(item, ast.Store()), arg, [], 0)
    made = ast.copy_location(ast.ListComp(ast.Name(item, ast.Load()), [comp]), node)
    return lower.expr(ast.fix_missing_locations(made), target)


__all__ = ["copied_sequence"]
