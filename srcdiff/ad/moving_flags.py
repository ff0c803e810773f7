"""The flags that say where a loop's carried value moves along the tangent's line (ad/moving_values.py
`Moves`), written beside the tangents: before the loop, the initial value's test; at the end of each
iteration (before the carried values take their final values), the final value's; and a loop's stack of
such values keeps their flags in a list of its own, read back with each item."""

from __future__ import annotations

import ast

from ..ir.nodes import Const, Loop, Node, Var, operand_ast
from ..ir.program import Assign, Effect
from ..rules.structural import GETITEM
from .moving_values import Moves, moves_test
from .tangent_node import Tangents


def _test(operand, state: Tangents) -> ast.expr:
    """Where `operand` may move: its `moving_values` test; nowhere for a constant or a value with no
    tangent; everywhere for a value srcdiff cannot tell."""
    if isinstance(operand, Const) or (isinstance(operand, Var) and operand.name not in state.active):
        return ast.Constant(False)
    names = state.moving.get(operand.name) if isinstance(operand, Var) else None
    return moves_test(names, state.name, state.flag) if names else ast.Constant(True)


def _flagged(loop: Loop, state: Tangents) -> list:
    return [c for c in loop.carried if state.moving.get(c.var.name) == (Moves(c.var.name),)]


def flags_before(loop: Loop, state: Tangents) -> list:
    """Each flagged carried value's flag, from its initial value."""
    return [Assign([state.flag(c.var.name)], _test(c.init, state), loop.line) for c in _flagged(loop, state)]


def flags_after(loop: Loop, state: Tangents) -> list:
    """Each flagged carried value's flag for the next iteration, from its final value (all at once: a
    final value may be another carried value)."""
    flagged = [c for c in _flagged(loop, state) if c.final != c.var]
    if not flagged:
        return []
    targets = [state.flag(c.var.name) for c in flagged]
    tests = [_test(c.final, state) for c in flagged]
    value = tests[0] if len(tests) == 1 else ast.Tuple(tests, ast.Load())
    return [Assign(targets, value, loop.line)]


def flag_push(node: Node, state: Tangents) -> list:
    """``stack_moves.append(flag)`` beside the tangent's push, for a stack whose items are flagged."""
    lst, value = node.inputs
    if state.moving.get(lst.name) != (Moves(lst.name),):
        return []
    push = ast.Call(ast.Attribute(ast.Name(state.flag(lst.name), ast.Load()), "append", ast.Load()),
                    [_test(value, state)], [])
    return [Effect(push, node.line)]


def flag_read(node: Node, state: Tangents) -> list:
    """A flagged stack's new list of flags (``xs = []``), or the flag of an item read back from it."""
    name = node.out.name
    if state.moving.get(name) != (Moves(name),):
        return []
    if node.rule.name == "list" and not node.inputs:
        return [Assign([state.flag(name)], ast.List([], ast.Load()), node.line)]
    if node.rule is GETITEM and len(node.inputs) == 2:
        stack = ast.Name(state.flag(node.inputs[0].name), ast.Load())
        return [Assign([state.flag(name)], ast.Subscript(stack, operand_ast(node.inputs[1]), ast.Load()), node.line)]
    return []


__all__ = ["flag_push", "flag_read", "flags_after", "flags_before"]
