"""``x[range(n), y]`` and ``x[list(range(n)), y]``: a range used as an index array.

NumPy reads a range (or a list of one) in an index as the integer array ``np.arange(...)``
of the same bounds; so does the generated code, spelled ``np.arange`` (numba compiles that,
not a range object as an index).  The index carries no gradient.
"""

from __future__ import annotations

import ast
import builtins

from ..ir.nodes import Operand
from ..rules.structural import NOGRAD
from .emit import emit_rule
from .expressions import ExpressionLowerer
from .opaque import substitute
from .static_values import static_value


def range_call(lower: ExpressionLowerer, comp: ast.expr) -> ast.Call | None:
    """The ``range(...)`` call `comp` is, or wraps in ``list(...)`` / ``tuple(...)``; else None."""
    state = lower.state
    while isinstance(comp, ast.Call) and len(comp.args) == 1 and not comp.keywords \
            and static_value(state, comp.func, record=False) in (builtins.list, builtins.tuple):
        comp = comp.args[0]
    if not (isinstance(comp, ast.Call) and not comp.keywords and 1 <= len(comp.args) <= 3
            and not any(isinstance(a, ast.Starred) for a in comp.args)):
        return None
    if static_value(state, comp.func, record=False) is not builtins.range:
        return None
    static_value(state, comp.func)  # the transform relies on `range` being the builtin
    return comp


def lower_range_index(lower: ExpressionLowerer, comp: ast.expr) -> Operand | None:
    """The index array a range component of a subscript reads, or None if `comp` is none."""
    call = range_call(lower, comp)
    if call is None:
        return None
    reads = {}
    bounds = []
    for arg in call.args:
        expr, used = substitute(lower, arg)
        bounds.append(expr)
        reads.update({v.name: v for v in used})
    numpy = ast.Attribute(ast.Name("np", ast.Load()), "arange", ast.Load())
    expr = ast.copy_location(ast.Call(numpy, bounds, []), comp)
    return emit_rule(lower.state, NOGRAD, tuple(reads.values()), {}, ast.fix_missing_locations(expr), None)


__all__ = ["lower_range_index", "range_call"]
