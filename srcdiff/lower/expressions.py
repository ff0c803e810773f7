"""Lowering of expressions: the `ExpressionLowerer`, and the leaves (names and constants).

Every other kind of expression is lowered by a handler of its own (operators.py,
subscripts.py, lists.py, calls.py, ...), found in the table the lowerer is given
(function.py); a kind with no handler is refused with a `SrcDiffError` naming it.
"""

from __future__ import annotations

import ast
from typing import Callable, Mapping

import numpy as np

from ..frontend.depends import MISSING, holds_itself
from ..ir import shapes
from ..ir.nodes import Const, Global, Operand
from .state import LoweringState

#: Lowers one kind of expression: (lowerer, node, the user name its node gets or None).
ExpressionHandler = Callable[["ExpressionLowerer", ast.expr, "str | None"], Operand]


class ExpressionLowerer:
    """Lowers an expression into nodes of `state.block` and returns the operand of its value."""

    def __init__(self, state: LoweringState, handlers: Mapping[type, ExpressionHandler],
                 lower_loop: Callable[[ast.For], None]):
        self.state = state
        self.handlers = handlers  # the handler of each kind of expression node
        # a comprehension is lowered as the `for` loop it stands for, by the statement lowerer
        self.lower_loop = lower_loop

    def expr(self, node: ast.expr, target: str | None = None) -> Operand:
        """Lower `node`; a node it creates is named `target` (a user name) if given."""
        handler = self.handlers.get(type(node))
        if handler is None:
            raise self.state.unsupported(node)
        return handler(self, node, target)


def lower_constant(lower: ExpressionLowerer, node: ast.Constant, target) -> Operand:
    return Const(node.value)


def lower_name(lower: ExpressionLowerer, node: ast.Name, target) -> Operand:
    """A local's current value, or a global read when the gradient runs."""
    state = lower.state
    if node.id in state.env:
        return state.env[node.id]
    if node.id in state.lambdas:
        raise state.error(node, f"the local function {node.id!r} (a lambda or nested def) can only be called",
                          "call it where it is used, or define a function at module level")
    if node.id in state.locals:
        raise state.error(node, f"{node.id!r} is used before it is assigned (or is assigned "
                          "only on some paths, or only by an earlier loop iteration)",
                          f"assign {node.id} before this line on every path")
    value = state.parsed.resolve(node.id)
    if value is MISSING:
        raise state.error(node, f"name {node.id!r} is not defined")
    if callable(value) or isinstance(value, type(ast)):
        raise state.error(node, f"{node.id!r} is a function or module, not a value")
    if holds_itself(value):
        raise state.error(node, f"{node.id!r} holds itself (a list, tuple or dict that contains itself)",
                          f"pass the values {node.id} holds as an argument, or keep them in a flat module constant")
    shape = shapes.of_constant(value)
    complex_value = shapes.holds_complex(value)
    if shape.known and (shape.scalar or isinstance(value, np.ndarray)):
        # its shape is baked into the gradient (no run-time helper needs it), its value is not
        # (its signature, dtype kind included, is: a complex array rebound later is seen again)
        state.parsed.depend_on_signature(node.id, value)
        return Global(node.id, shape, complex_value)
    items = shapes.of_items(value)
    if items is not None:  # a module tuple of floats: its items' kinds are guarded (their values are not)
        state.parsed.depend_on_signature(node.id, value)
        return Global(node.id, items, complex_value)
    return Global(node.id, complex=complex_value)
