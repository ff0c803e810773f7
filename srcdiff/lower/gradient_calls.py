"""``np.gradient`` along several axes, which returns a list of arrays: lowered as the list of
its one-axis calls (``[np.gradient(f, axis=0), np.gradient(f, axis=1)]``), each of which has
a rule, so the list's items are read, unpacked and differentiated like any list's."""

from __future__ import annotations

import ast

from ..frontend.depends import MISSING
from ..ir.nodes import Operand
from .expressions import ExpressionLowerer
from .static_values import constant


def gradient_list(lower: ExpressionLowerer, node: ast.Call, target: str | None) -> Operand | None:
    """The list of one-axis ``np.gradient`` calls `node` stands for, lowered; None when `node`
    makes one array (one axis) or cannot be split here (its rule then decides)."""
    if not node.args or not isinstance(node.args[0], ast.Name) or any(k.arg is None for k in node.keywords):
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    ndim = lower.state.facts.ndim(lower.expr(node.args[0]))
    if ndim is MISSING or not isinstance(ndim, int) or ndim < 1:
        return None
    axis = constant(lower.state, keywords["axis"]) if "axis" in keywords else None
    axes = tuple(range(ndim)) if axis is None else axis if isinstance(axis, tuple) else None
    if axes is None or len(axes) < 2 or not all(isinstance(a, int) for a in axes):
        return None  # one axis: one array
    spacings = node.args[1:]
    if len(spacings) not in (0, 1, len(axes)):
        return None
    rest = [ast.keyword(k, v) for k, v in keywords.items() if k != "axis"]
    calls = []
    for i, a in enumerate(axes):
        spacing = [] if not spacings else [spacings[0] if len(spacings) == 1 else spacings[i]]
        call = ast.Call(node.func, [node.args[0], *spacing], [*rest, ast.keyword("axis", ast.Constant(a))])
        calls.append(ast.fix_missing_locations(ast.copy_location(call, node)))
    return lower.expr(ast.copy_location(ast.List(calls, ast.Load()), node), target)
