"""Forward mode: the IR becomes one sweep computing each value and then its tangent.

For every node in program order the program runs the user's statement, then the tangent of
its value (``z = x * y`` then ``z_dot = x_dot * y + x * y_dot``), from the node's rule
(tangent_node.py).  Only *active* values get a tangent: those that depend on an input with
a tangent and that the output depends on; any other tangent is a zero that is never
written out.  Branches and loops stay structured, their tangents carried like values: a
branch side that leaves an active value's tangent unwritten writes zeros, a loop-carried
tangent starts as its initial value's and ends each iteration as its final value's.
Nothing is saved and nothing runs backward, so a tangent costs one sweep whatever the
control flow.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..frontend.naming import Namer
from ..ir.nodes import Branch, Const, ForwardStatement, Function, Loop, Node, UserCall, operand_ast
from ..ir.program import Assign, Break, CallSpec, Effect, For, If, Run, While
from ..ir.shapes import Shape
from ..rules.structural import APPEND
from .activity import active_values, refuse_complex, refuse_value_dependent
from .forward import prune
from .moving_flags import flag_push, flag_read, flags_after, flags_before
from .moving_values import moving_values
from .roots import find_roots, root_tangent
from .shape_checks import ShapeChecks
from .still_adjoints import blown_values
from .sweep import operand_shape
from .tangent_node import Tangents, tangent_expr


@dataclass
class TangentProgram:
    """The statements of a jvp, and what it returns.

    `body` holds program statements (ir/program.py): ``Assign`` for values and tangents
    alike, each with the user's line it comes from.  `params` are the tangent parameters,
    one per differentiated parameter, in the user's order.
    """

    function: Function
    body: list
    params: list[str]
    value: ast.expr
    tangent: ast.expr
    tangents: dict[str, str]  # primal name -> its tangent's name
    #: the tangent function of each user function it calls (``helper_jvp``) -> the `CallSpec` that builds it
    calls: dict = field(default_factory=dict)


def tangent(function: Function, namer: Namer, wrt: tuple[str, ...], shape_of: dict[str, Shape], *,
            location) -> TangentProgram:
    """The forward-mode program of `function`, whose parameters `wrt` come with tangents."""
    refuse_value_dependent(function, set(wrt), location)
    refuse_complex(function, set(wrt), location)
    active = active_values(function, set(wrt))
    state = Tangents(namer, shape_of, active, location, roots=find_roots(function, shape_of),
                     blown=blown_values(function, active), moving=moving_values(function, active, wrt, shape_of))
    params = [state.name(p) for p in wrt]  # named first: a parameter's tangent keeps its plain name
    body = _block(function.body, state)
    output = function.output
    value = operand_ast(output)
    out_tangent = state.of(output)
    if out_tangent is None:
        out_tangent = state.zeros(output) if not isinstance(output, Const) else ast.Constant(0.0)
    needed = {n.id for e in (value, out_tangent) for n in ast.walk(e) if isinstance(n, ast.Name)}
    # a statement left out keeps the shape check NumPy would make computing it: f raises there
    checks = ShapeChecks(shape_of, location, state.statements)
    return TangentProgram(function, prune(body, needed, set(), checks), params, value, out_tangent, state.names,
                          state.calls)


def _block(block, state: Tangents) -> list:
    out = []
    for item in block.nodes:
        if isinstance(item, Branch):
            out.append(If(operand_ast(item.test), _block(item.body, state), _block(item.orelse, state), item.line))
        elif isinstance(item, Loop):
            out += _loop(item, state)
        elif isinstance(item, ForwardStatement):
            out.append(Run(item.stmt, item.line))
        else:
            out += _node(item, state)
    return out


def _node(node: Node, state: Tangents) -> list:
    """The node's statement, then its tangent's when its value is active."""
    active = node.out.name in state.active
    if node.rule is APPEND:
        stmts = [Effect(node.expr, node.line)]
        if active:
            lst, value = node.inputs
            push = ast.Call(ast.Attribute(ast.Name(state.name(lst.name), ast.Load()), "append", ast.Load()),
                            [state.of_or_zeros(value)], [])
            stmts.append(Effect(push, node.line))
            stmts += flag_push(node, state)
        return stmts
    stmts = [Assign([node.out.name], node.expr, node.line)]
    state.statements[id(stmts[0])] = node
    if not active:
        return stmts
    if isinstance(node, UserCall):
        return [_call(node, state)]
    if node.rule.name == "list" and not node.inputs:  # xs = []: its tangents are appended as it grows
        expr = ast.List([], ast.Load())
    else:
        expr = root_tangent(node, state, lambda: tangent_expr(node, state)) or tangent_expr(node, state)
        if expr is None:  # active on another path (a branch's other side): zero on this one
            expr = state.zeros(node.out)
    stmts.append(Assign([state.name(node.out.name)], expr, node.line))
    return stmts + flag_read(node, state)


def _call(node: UserCall, state: Tangents) -> Assign:
    """A call of a user function that stays a call (recursive, a closure, too large to copy):
    its own tangent function, compiled like a callee's adjoint, gives the value and the
    tangent: ``t, t_dot = helper_jvp(x_dot, x, n)`` (the tangents of the arguments that
    have one first, then the call's own arguments as the user wrote them)."""
    active = [(name, v) for name, v in zip(node.arg_names, node.inputs) if state.of(v) is not None]
    spec = CallSpec(node.callee, tuple(name for name, _ in active),
                    tuple((name, operand_shape(v, state.shapes)) for name, v in zip(node.arg_names, node.inputs)),
                    mode="forward", spent=node.spent)
    jvp = next((name for name, s in state.calls.items() if s == spec), None)
    if jvp is None:
        name = getattr(getattr(node.callee, "func", node.callee), "__name__", "helper")
        jvp = state.namer.fresh(f"{name if name.isidentifier() else 'helper'}_jvp")  # not <lambda>_jvp
        state.calls[jvp] = spec
    args = [state.of(v) for _, v in active] + list(node.expr.args)
    call = ast.Call(ast.Name(jvp, ast.Load()), args, node.expr.keywords)
    return Assign([node.out.name, state.name(node.out.name)], call, node.line)


def _loop(loop: Loop, state: Tangents) -> list:
    """The loop with its carried values' tangents carried beside them."""
    carried = [c for c in loop.carried if c.var.name in state.active]
    before = []
    for c in loop.carried:
        if c.var != c.init:
            before.append(Assign([c.var.name], operand_ast(c.init), loop.line))
    for c in carried:
        if c.var != c.init:
            before.append(Assign([state.name(c.var.name)], state.of_or_zeros(c.init), loop.line))
    before += flags_before(loop, state)
    body = _block(loop.body, state) + flags_after(loop, state)
    copies = [c for c in loop.carried if c.final != c.var]
    phis = {c.var for c in loop.carried}
    swap = len(copies) > 1 and any(c.final in phis for c in copies)
    body += _copies([c.var.name for c in copies], [operand_ast(c.final) for c in copies], swap, loop.line)
    moved = [c for c in copies if c in carried]
    body += _copies([state.name(c.var.name) for c in moved],
                    [state.of_or_zeros(c.final) for c in moved], swap, loop.line)
    if loop.stop is not None:
        body.append(If(operand_ast(loop.stop), [Break()], [], loop.line))
    if loop.kind == "range":
        iterator = ast.Call(ast.Name("range", ast.Load()), [operand_ast(b) for b in loop.bounds], [])
        return before + [For(loop.target.name, iterator, body, loop.line)]
    return before + [While(loop.test, body, loop.line)]


def _copies(targets: list[str], values: list[ast.expr], together: bool, line: int) -> list:
    """``a = b`` for each pair; all at once (``a, b = b, a``) when the values are swapped."""
    if not targets:
        return []
    if together and len(targets) > 1:  # (one tangent moved of a swap: a plain assignment, not a 1-tuple)
        return [Assign(targets, ast.Tuple(values, ast.Load()), line)]
    return [Assign([t], v, line) for t, v in zip(targets, values)]


__all__ = ["TangentProgram", "tangent"]
