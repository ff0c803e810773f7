"""``np.block`` of rows written out, read as the joins it makes (call_forms.py calls `block_call`)."""

from __future__ import annotations

import ast
import copy


def block_call(node: ast.Call) -> ast.expr:
    """``np.block([[A, B], [C, D]])``: the rows joined along the last axis, then the rows along the one
    before, each item raised to 2-D as np.block does (``[a, b]``: joined along the last axis, 1-D)."""
    rows = node.args[0] if len(node.args) == 1 and not node.keywords else None
    if not isinstance(rows, ast.List) or not rows.elts or not isinstance(node.func, ast.Attribute) \
            or any(isinstance(e, ast.Starred) for e in ast.walk(rows)):
        return node
    module = node.func.value

    def joined(items: list, axis: int, raise_to: str) -> ast.expr:
        lifted = [ast.Call(ast.Attribute(copy.deepcopy(module), raise_to, ast.Load()), [item], []) for item in items]
        return ast.Call(ast.Attribute(copy.deepcopy(module), "concatenate", ast.Load()),
                        [ast.List(lifted, ast.Load())], [ast.keyword("axis", ast.Constant(axis))])

    if all(isinstance(r, ast.List) and r.elts and not any(isinstance(e, ast.List) for e in r.elts) for r in rows.elts):
        out = ast.Call(ast.Attribute(copy.deepcopy(module), "concatenate", ast.Load()),
                       [ast.List([joined(r.elts, -1, "atleast_2d") for r in rows.elts], ast.Load())],
                       [ast.keyword("axis", ast.Constant(-2))])
    elif not any(isinstance(e, ast.List) for e in rows.elts):
        out = joined(rows.elts, -1, "atleast_1d")
    else:
        return node  # deeper or ragged nesting: left to lowering, which refuses it at its line
    return ast.fix_missing_locations(ast.copy_location(out, node))


__all__ = ["block_call"]
