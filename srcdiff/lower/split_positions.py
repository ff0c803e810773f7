"""``np.split(W, [n], axis=1)`` at positions computed when the function runs (``n = W.shape[1] // 2``).

A gradient is compiled per number of axes, not per length, so such positions are not a setting
np.split's rule can take when the gradient is built.  The pieces of a split at a list of
positions are NumPy's slices between them (``W[:, :n]``, ``W[:, n:]``: np.split slices so, out
of range and negative positions alike), and slices bounded by values computed when run have
rules: the call is lowered as the tuple of those slices.  The same holds for ``np.array_split``
at positions and for ``np.vsplit``, ``np.hsplit`` and ``np.dsplit``.  A split into a number of
pieces computed when run (how many values it makes is not known) is left to the rule, which
refuses it at the user's line.
"""

from __future__ import annotations

import ast
import copy
import inspect

import numpy as np

from ..frontend.depends import MISSING
from .expressions import ExpressionLowerer
from .static_values import constant, read_when_run

#: the splits, and the axis each cuts (None: its `axis` argument; "h": np.hsplit's, the
#: second axis, the first of a 1-D array)
AXES = {np.split: None, np.array_split: None, np.vsplit: 0, np.hsplit: "h", np.dsplit: 2}


def split_computed(lower: ExpressionLowerer, node: ast.Call, func, target):
    """The tuple of slices a split at positions computed when run makes, lowered; None for any
    other call (left to the rule)."""
    if func not in AXES or any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg is None for k in node.keywords):
        return None
    try:
        bound = inspect.signature(func).bind(*node.args, **{k.arg: k.value for k in node.keywords})
    except TypeError:
        return None
    array, cuts = bound.arguments["ary"], bound.arguments.get("indices_or_sections")
    if not isinstance(cuts, (ast.List, ast.Tuple)) or not any(read_when_run(lower.state, c) for c in cuts.elts) \
            or not _read_twice_alike(array) or not all(_read_twice_alike(c) for c in cuts.elts):
        return None
    axis = _axis(lower, func, bound, array)
    bounds = [None, *cuts.elts, None]

    def pieces(along: int) -> ast.Tuple:
        return ast.Tuple([_piece(array, along, a, b) for a, b in zip(bounds, bounds[1:])], ast.Load())
    if axis is MISSING:  # np.hsplit of an array whose number of axes is known only when run
        more = ast.Compare(ast.Attribute(copy.deepcopy(array), "ndim", ast.Load()), [ast.Gt()], [ast.Constant(1)])
        split = ast.IfExp(more, pieces(1), pieces(0))
    else:
        split = pieces(axis)
    return lower.expr(ast.fix_missing_locations(ast.copy_location(split, node)), target)


def _axis(lower: ExpressionLowerer, func, bound, array: ast.expr):
    axis = AXES[func]
    if axis is None:
        given = bound.arguments.get("axis")
        return 0 if given is None else constant(lower.state, given)
    if axis == "h":
        ndim = lower.state.facts.ndim(lower.expr(array))
        return ndim if ndim is MISSING else 1 if ndim > 1 else 0
    return axis


def _piece(array: ast.expr, axis: int, start, stop) -> ast.expr:
    """``array[:, start:stop]``: the part between two positions along `axis` (counted from the end
    when negative)."""
    cut = ast.Slice(copy.deepcopy(start), copy.deepcopy(stop), None)
    whole = [ast.Slice(None, None, None) for _ in range(axis if axis >= 0 else -axis - 1)]
    parts = [*whole, cut] if axis >= 0 else [ast.Constant(Ellipsis), cut, *whole]
    index = parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load())
    return ast.copy_location(ast.Subscript(copy.deepcopy(array), index, ast.Load()), array)


def _read_twice_alike(expr: ast.expr) -> bool:
    """Whether `expr` gives the same value each time it is read: names, attributes, subscripts,
    arithmetic and ``len(...)`` of them (no other call)."""
    return all(not isinstance(n, (ast.Call, ast.NamedExpr, ast.Await, ast.Yield))
               or isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
               for n in ast.walk(expr))
