"""``np.squeeze(x)`` without an axis, given the axes its argument's shape says go.

Which axes ``np.squeeze(x)`` removes depends on the lengths of `x`, and so does the number of
axes of its result: code that must know every value's number of axes before it runs (numba types
each name once) cannot compile it.  A variant is compiled for one argument signature, which says
which axes of each array argument have length one, and shape inference (ir/shape_inference.py)
carries that to every value: where it knows every axis of `x` (length one or not), the call
becomes ``np.squeeze(x, axis=(...))`` naming those of length one.  A call run with an argument
whose axes differ from what the signature said raises (an axis named that is not of length
one), it never returns another shape.  Where an axis is not known the call is left as written.
"""

from __future__ import annotations

import ast
import dataclasses

from ..ir import shapes
from ..ir.nodes import Block, Branch, Function, Loop, Node, Var, all_nodes, link_users

SQUEEZE = "numpy.squeeze"


def squeeze_axes(function: Function, shape_of: dict) -> Function:
    """`function` with each ``np.squeeze`` of no axis whose argument's axes are all known given
    those axes (nodes copied: the IR lowered once is shared by every signature's variant)."""
    if not any(_axes(node, shape_of) is not None for node in all_nodes(function)):
        return function
    body = _block(function.body, shape_of)
    link_users(all_nodes(body))
    return dataclasses.replace(function, body=body)


def _axes(node, shape_of: dict) -> tuple | None:
    """The axes of length one of the argument of `node`, an ``np.squeeze`` of no axis (else None)."""
    if not isinstance(node, Node) or getattr(node.rule, "name", None) != SQUEEZE or node.static.get("axis") is not None:
        return None
    x = node.inputs[0] if node.inputs else None
    shape = shape_of.get(x.name) if isinstance(x, Var) else None
    if shape is None or not shape.known or shape.scalar or shapes.UNKNOWN_DIM in shape.dims \
            or not isinstance(node.expr, ast.Call) or any(k.arg == "axis" for k in node.expr.keywords):
        return None
    return tuple(i for i, d in enumerate(shape.dims) if d == shapes.ONE)


def _block(block: Block, shape_of: dict) -> Block:
    out = []
    for item in block.nodes:
        if isinstance(item, Branch):
            out.append(dataclasses.replace(item, body=_block(item.body, shape_of),
                                           orelse=_block(item.orelse, shape_of)))
        elif isinstance(item, Loop):
            out.append(dataclasses.replace(item, body=_block(item.body, shape_of)))
        else:
            out.append(_node(item, shape_of))
    return dataclasses.replace(block, nodes=out)


def _node(node: Node, shape_of: dict) -> Node:
    axes = _axes(node, shape_of)
    if axes is None:
        return dataclasses.replace(node, users=[])
    call = node.expr
    expr = ast.Call(call.func, call.args, [*call.keywords, ast.keyword("axis", ast.Constant(axes))])
    return dataclasses.replace(node, static={**node.static, "axis": axes}, expr=ast.copy_location(expr, call), users=[])
