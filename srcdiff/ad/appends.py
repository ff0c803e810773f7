"""The adjoint of ``xs.append(v)``: v's adjoint is the last of the list's adjoints.

A gradient srcdiff generated keeps lists in its stacks when it is differentiated again (the
parts `np.split` returned, kept for their shapes): an outer list of lists, whose items are
read back by position.  Such an item's adjoint is refused where it is needed (the read's
adjoint, ad/regions.py `reverse_getitem`), so when the append's adjoint runs, nothing has
reached the item: it gets no contribution from the outer list (the list's 0.0 placeholder
is not a list's adjoint).
"""

from __future__ import annotations

import ast

from ..ir import shapes
from ..ir.nodes import Node, Var
from ..ir.program import AdjointStmt, Effect
from .sweep import Sweep


def reverse_append(node: Node, sweep: Sweep) -> None:
    """``xs.append(v)``: v's adjoint is the last of the list's adjoints (popped either way)."""
    lst, value = node.inputs
    active = isinstance(value, Var) and value.name in sweep.active and not node.static.get("nested")
    if sweep.derivable:  # read the last item, then a new list without it: code srcdiff reads back
        name = sweep.name(lst.name)
        if active:
            sweep.contribute(value.name, ast.parse(f"{name}[-1]", mode="eval").body, node.line)
        sweep.emit(AdjointStmt(name, _call("list_drop", ast.Name(name, ast.Load())), False, node.line))
        return
    pop = ast.parse(f"{sweep.name(lst.name)}.pop()", mode="eval").body
    if active:
        sweep.popped.add(value.name)  # may be the list's 0.0: not an array to write into
        shape = sweep.shapes.get(value.name, shapes.UNKNOWN)
        if shape.known and not shape.scalar and sweep.loops:
            # an array's adjoint has its shape: an item no contribution reached is the list's
            # 0.0, which a matrix product or a reshape of the adjoint would not take
            pop = ast.BinOp(_call("zeros_like", ast.Name(value.name, ast.Load())), ast.Add(), pop)
        sweep.contribute(value.name, pop, node.line)
    else:
        sweep.emit(Effect(pop, node.line))


def _call(name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.parse(name, mode="eval").body, list(args), [])


__all__ = ["reverse_append"]
