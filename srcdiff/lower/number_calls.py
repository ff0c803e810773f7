"""Calls on Python numbers and lists of them that lowering spells with what has rules:
``math.fsum``, ``math.prod``, ``statistics.fmean`` / ``mean``, ``divmod`` and ``math.log(x, base)``
(``math.log(x) / math.log(base)``, as CPython computes it).

* ``math.fsum(xs)`` of a list (or a 1-D array) is a sum: every item gets the whole gradient,
  and the forward value is ``math.fsum``'s own (the correctly rounded sum);
* ``statistics.fmean(xs)`` is ``math.fsum(xs) / len(xs)`` (CPython's definition), and
  ``statistics.mean(xs)`` of floats the same mean (statistics.mean rounds the exact mean
  once, so its value may differ from this one in the last bit; the gradient is the same);
* ``math.prod`` of a list written in the call is the product of its items, left to right, as
  ``math.prod`` multiplies them (a list built by appending is refused: its length is known
  only when it runs);
* ``divmod(x, y)`` (and ``np.divmod``) is ``(x // y, x % y)``: Python and NumPy compute the
  pair of floats exactly so, so the quotient (piecewise constant) and the remainder keep
  their rules.
"""

from __future__ import annotations

import ast
import builtins
import copy
import math
import statistics

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Operand, operand_ast
from ..rules.structural import SUM_LIST, SUM_ROWS
from .emit import emit_rule
from .expressions import ExpressionLowerer

_MEANS = (statistics.fmean, statistics.mean)


def _prod_of_array(lower: ExpressionLowerer, node: ast.Call, arg: ast.expr, target) -> Operand:
    """``math.prod(x)`` of a 1-D array (``math.prod(x[:3])``): the product of its items, by
    np.prod's rule (exact where an item is 0)."""
    state = lower.state
    x = lower.expr(arg)
    if state.is_list(x) or state.facts.ndim(x) != 1:
        raise state.error(node, "math.prod(...) is supported of a list written in the call "
                          "(math.prod([a, b, c])) or of a 1-D array",
                          "write the product (a * b * c), or use np.prod of an array")
    expr = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "prod", ast.Load()), [operand_ast(x)], [])
    return emit_rule(state, state.table.lookup(np.prod), (x,), {"axis": None, "keepdims": False}, expr, target)


def number_call(lower: ExpressionLowerer, node: ast.Call, func, target) -> Operand | None:
    """The call lowered as the module docstring says; None for any other call."""
    if func is math.log and len(node.args) == 2 and not node.keywords:
        # math.log(x, base) is log(x) / log(base), as CPython computes it
        x, base = node.args
        logs = [ast.Call(copy.deepcopy(node.func), [a], []) for a in (x, base)]
        ratio = ast.fix_missing_locations(ast.copy_location(ast.BinOp(logs[0], ast.Div(), logs[1]), node))
        for sub in ast.walk(ratio):
            ast.copy_location(sub, node)
        return lower.expr(ratio, target)
    if func not in (math.fsum, math.prod, builtins.divmod, np.divmod, *_MEANS):
        return None
    state = lower.state
    name = f"{getattr(func, '__module__', None) or 'builtins'}.{func.__name__}".replace("builtins.", "")
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args) \
            or len(node.args) != (2 if func in (builtins.divmod, np.divmod) else 1):
        raise state.error(node, f"{name}(...) is supported with its positional arguments only",
                          "pass the values positionally, without keywords")
    if func in (builtins.divmod, np.divmod):
        x, y = node.args
        pair = ast.Tuple([ast.BinOp(x, ast.FloorDiv(), y), ast.BinOp(x, ast.Mod(), y)], ast.Load())
        return lower.expr(ast.copy_location(ast.fix_missing_locations(ast.copy_location(pair, node)), node), target)
    arg = node.args[0]
    if func is math.prod:
        if not isinstance(arg, (ast.List, ast.Tuple)) or not arg.elts:
            return _prod_of_array(lower, node, arg, target)
        product = arg.elts[0]
        for item in arg.elts[1:]:
            product = ast.copy_location(ast.BinOp(product, ast.Mult(), item), node)
        return lower.expr(product, target)
    x = lower.expr(arg)
    if not state.is_list(x):
        ndim = state.facts.ndim(x)
        if ndim is MISSING or ndim != 1:
            raise state.error(node, f"{name}(...) is supported of a list of numbers or a 1-D array",
                              "use np.sum(x) or np.mean(x) (with axis=...) for an array")
    expr = ast.Call(ast.Attribute(ast.Name("math", ast.Load()), "fsum", ast.Load()), [operand_ast(x)], [])
    total = emit_rule(state, SUM_LIST if state.is_list(x) else SUM_ROWS, (x,), {}, expr,
                      None if func in _MEANS else target)
    if func not in _MEANS:
        return total
    # the mean: the sum over len(xs), both read through names lowering binds for this expression only
    names = {k: v for k, v in ((total.name, total), (x.name, x)) if state.env.get(k) != v}  # a list keeps its name
    clashes = set(names) & set(state.env)
    if clashes:  # never: lowering's temporaries are not the function's names
        raise state.error(node, f"{name}(...): cannot name its parts ({sorted(clashes)})")
    state.env.update(names)
    try:
        count = ast.Call(ast.Name("len", ast.Load()), [ast.Name(x.name, ast.Load())], [])
        mean = ast.BinOp(ast.Name(total.name, ast.Load()), ast.Div(), count)
        return lower.expr(ast.fix_missing_locations(ast.copy_location(mean, node)), target)
    finally:
        for key in names:
            state.env.pop(key, None)


__all__ = ["number_call"]
