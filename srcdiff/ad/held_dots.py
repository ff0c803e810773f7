"""Forward mode's hold of a vector's infinite tangent inside a dot product (``np.dot(W, np.sqrt(x))`` at
``x[0] == 0`` with ``W[:, 0] == 0``): the column of W that meets it is all 0, so the product does not
move with that element, and its tangent there is 0, not ``0 * inf`` = NaN."""

from __future__ import annotations

import ast

from ..ir import shapes
from ..ir.nodes import Const, Node, Var, operand_ast

#: products that contract a vector's only axis with the other operand's last one (``W @ y``, ``np.dot(W, y)``)
_DOTS = {"numpy.dot", "numpy.matmul", "operator.matmul"}


def held_in_a_dot(dot: ast.expr, node: Node, param: str, state) -> ast.expr:
    """The tangent `dot` of a vector `y` in ``np.dot(W, y)`` (or `x` in ``np.dot(x, W)``) that may be
    infinite (a root's at 0, `Tangents.blown`, ad/tangent_node.py), held at 0 where the column of W it
    meets is all 0 (W computed from no such value: a module list's weights), as a product's term is: not
    ``0 * inf``."""
    operand = node.inputs[node.rule.params.index(param)] if param in node.rule.params else None
    if node.rule.name not in _DOTS or len(node.inputs) != 2 or param not in ("x", "y") \
            or not (isinstance(operand, Var) and operand.name in state.blown):
        return dot
    other, own = node.inputs[1 if param == "x" else 0], state.shapes.get(operand.name, shapes.UNKNOWN)
    if not isinstance(other, (Var, Const)) or isinstance(other, Var) and other.name in state.blown \
            or not (own.known and own.ndim == 1):
        return dot
    name = ast.unparse(operand_ast(other))
    # y meets W's last axis; x (``x @ W``) meets W's first where W has at most 2 axes (else its second-to-last)
    used = ast.parse(f"np.sum(np.abs(np.reshape({name}, (-1, np.shape({name})[-1]))), axis=0)" if param == "y" else
                     f"np.sum(np.abs(np.reshape({name}, (np.shape({name})[0], -1))), axis=1)", mode="eval").body
    held = ast.Call(ast.Name("held_still", ast.Load()), [dot, used], [])
    if param == "y":
        return held
    return ast.IfExp(ast.parse(f"np.ndim({name}) <= 2", mode="eval").body, held, dot)


__all__ = ["held_in_a_dot"]
