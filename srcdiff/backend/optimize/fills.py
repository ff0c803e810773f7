"""Filled arrays added to arrays of their shape, and the bases of views read more than once,
for `contract`.

* ``a + np.full(t.shape, b)`` (or ``-``) is ``a + b`` where `a` has `t`'s dims: broadcasting
  `b` to `a`'s shape gives the same elements (bitwise, of the same dtype: ``np.full`` keeps
  `b`'s) without making the filled array.  The reverse pass writes such sums where a sum's
  adjoint (``np.full(x.shape, g)``) meets another contribution to the same adjoint.
* ``t = np.full(u.shape, np.expand_dims(e, -1))`` read twice: `e` is given a name of its own
  first (``c1 = e``), so each contraction that reads `t` reads `c1`, not a copy of `e`.
"""

from __future__ import annotations

import ast

from ...ir import shapes
from .contract_shapes import np_call, view_of


def unfilled(node: ast.BinOp, dims_of) -> ast.expr | None:
    """`node` (``a + np.full(t.shape, b)``, ``np.full(...) + a``, ``a - np.full(...)``) with
    the fill dropped where `a` has `t`'s dims, known on every axis; else None."""
    if not isinstance(node.op, (ast.Add, ast.Sub)):
        return None
    for fill, other, right in ((node.right, node.left, True), (node.left, node.right, False)):
        if not right and isinstance(node.op, ast.Sub):
            continue
        if np_call(fill) != "full" or len(fill.args) != 2 or fill.keywords \
                or not (isinstance(fill.args[0], ast.Attribute) and fill.args[0].attr == "shape"):
            continue
        frame, mine, filler = dims_of(fill.args[0].value), dims_of(other), dims_of(fill.args[1])
        if frame is None or mine != frame or filler is None or len(filler) > len(frame) \
                or shapes.UNKNOWN_DIM in frame:
            continue
        if any(d == shapes.MANY and f != shapes.MANY for d, f in zip(filler[::-1], frame[::-1])):
            continue
        parts = (other, fill.args[1]) if right else (fill.args[1], other)
        return ast.BinOp(parts[0], node.op, parts[1])
    return None


def drop_fills(func: ast.FunctionDef, dims_of) -> bool:
    """`unfilled` wherever it applies in `func`, loop bodies too (the dims of names hold for
    every value a name takes)."""
    changed = False

    class Drop(ast.NodeTransformer):
        def visit_BinOp(self, node: ast.BinOp):
            nonlocal changed
            self.generic_visit(node)
            new = unfilled(node, dims_of)
            if new is None:
                return node
            changed = True
            return new

    Drop().visit(func)
    return changed


def name_view_bases(body: list, reads, taken: set, dims_of) -> list:
    """`body` with the non-name base of each view (``np.full``, ``np.expand_dims``, ``[:, None]``)
    bound to a name read more than once (`reads`) computed into a name of its own first."""
    out = []
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and reads[stmt.targets[0].id] > 1:
            holder, expr = None, stmt.value
            view = view_of(expr, dims_of)
            while view is not None:   # down to the array the views broadcast
                holder, expr = expr, view[0]
                view = view_of(expr, dims_of)
            if holder is not None and not isinstance(expr, (ast.Name, ast.Constant)) and dims_of(expr):
                k = 1
                while f"c{k}" in taken:
                    k += 1
                taken.add(f"c{k}")
                out.append(ast.Assign([ast.Name(f"c{k}", ast.Store())], expr))
                _replace_base(holder, expr, ast.Name(f"c{k}", ast.Load()))
        out.append(stmt)
    return out


def _replace_base(holder: ast.expr, old: ast.expr, new: ast.expr) -> None:
    """In the view `holder`, its base `old` replaced by `new`."""
    if isinstance(holder, ast.Subscript):
        holder.value = new
    else:
        holder.args[holder.args.index(old)] = new
