"""``np.cov(a, y)`` and ``np.corrcoef(a, y)``: the variables of `a` and of `y` as the rows of one
array, ``np.cov(np.vstack([a, y]))`` (call_forms.py runs this with its other rewrites).

That is NumPy's own definition with ``rowvar=True`` (the default): ``m`` and ``y`` made 2-D
(``np.atleast_2d``, a vector one variable) and joined along the rows, which is ``np.vstack``.
With ``rowvar=False`` NumPy transposes each operand except one of a single row, which depends
on a length the code does not show, so that form is left as written (refused at its line,
with the join to write instead).
"""

from __future__ import annotations

import ast
import copy

import numpy as np

PAIRED = (np.cov, np.corrcoef)


def stacked_variables(node: ast.Call) -> ast.expr:
    """``np.cov(a, y, ...)`` as ``np.cov(np.vstack([a, y]), ...)``; `node` itself when it is
    not that form (no `y`, ``rowvar`` other than True, a starred argument)."""
    keywords = {k.arg: k.value for k in node.keywords}
    if None in keywords or any(isinstance(a, ast.Starred) for a in node.args) or len(node.args) > 2 \
            or not isinstance(node.func, ast.Attribute):
        return node
    y = node.args[1] if len(node.args) == 2 else keywords.get("y")
    if y is None or (isinstance(y, ast.Constant) and y.value is None) or (len(node.args) == 2 and "y" in keywords):
        return node  # (y=None written out: one array of variables)
    rowvar = keywords.get("rowvar")
    if rowvar is not None and not (isinstance(rowvar, ast.Constant) and rowvar.value is True):
        return node
    stack = ast.Call(ast.Attribute(copy.deepcopy(node.func.value), "vstack", ast.Load()),
                     [ast.List([node.args[0], y], ast.Load())], [])
    rest = [k for k in node.keywords if k.arg not in ("y", "rowvar")]
    return ast.copy_location(ast.Call(node.func, [stack], rest), node)


__all__ = ["PAIRED", "stacked_variables"]
