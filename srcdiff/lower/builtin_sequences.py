"""``max(x)``, ``min(x)`` and ``sorted(x)`` of one sequence: a 1-D array or a list of numbers.

Python iterates a 1-D array element by element, so ``max(x)`` is ``np.max(x)`` and
``sorted(x)`` the list of the items of ``np.sort(x)``; both have NumPy's rules (ties split
half and half, as ``np.max`` does; at a tie any split is a valid subgradient).  Over a 2-D
array Python compares rows, which has no single value: refused.
"""

from __future__ import annotations

import ast
import builtins

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Operand, operand_ast
from .emit import emit
from .expressions import ExpressionLowerer
from .joins import rows_of
from .lists import as_array

_NUMPY = {builtins.max: ("max", np.max), builtins.min: ("min", np.min), builtins.sorted: ("sort", np.sort)}


def one_sequence(lower: ExpressionLowerer, node: ast.Call, func, target) -> Operand | None:
    """``max(x)`` / ``min(x)`` / ``sorted(x)`` of a 1-D array or a list; None for other calls."""
    if func not in _NUMPY or node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
        return None
    state = lower.state
    x = lower.expr(node.args[0])
    if state.is_list(x):
        x = as_array(state, x)
    else:
        ndim = state.facts.ndim(x)
        if ndim is MISSING or ndim != 1:
            what = "an array whose number of axes srcdiff cannot tell" if ndim is MISSING else \
                f"a {ndim}-D value"
            raise state.error(node, f"{func.__name__}() of {what}: srcdiff reads {func.__name__}(x) of a 1-D "
                              "array or a list of numbers",
                              f"use np.{_NUMPY[func][0]}(x) (with axis=...) for an array")
    name, numpy_func = _NUMPY[func]
    rule = state.table.lookup(numpy_func)
    expr = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), [operand_ast(x)], [])
    out = emit(state, numpy_func, (x,) + tuple(), dict(rule.static), expr, None if func is builtins.sorted else target)
    return rows_of(lower, out) if func is builtins.sorted else out


__all__ = ["one_sequence"]
