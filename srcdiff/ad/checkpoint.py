"""Checkpointed loops (``srcdiff.grad(f, checkpoint=k)``): O(n/k + k) saved values, not O(n).

A loop's backward sweep normally reads a stack the forward loop pushes every iteration.
With a checkpoint interval k, the forward loop pushes only its carried state (the values
one iteration hands the next), every k iterations.  The backward sweep then walks the
segments last to first: it restores a segment's starting state, runs the segment's k
iterations forward again (pushing what the adjoints read, as the plain forward loop
would), and runs their adjoints in reverse, popping it::

    for segment in reversed(range(len(checkpoints))):
        s = checkpoints.pop()                  # the state at the segment's first iteration
        stack = []
        for j in range(length):                # the segment, recomputed
            ...; stack.append(...); s = s_1
        for j in reversed(range(length)):      # its adjoints, as without checkpoints
            ... = stack.pop(); ...

The result is the same computation, in the same order, as without checkpoints: equal to
the last bit.  It costs one more forward pass.  Applied to the function's own loops that
are not nested in another loop; a loop it cannot apply to is refused at its line, saying why.
"""

from __future__ import annotations

import ast
import copy

from ..errors import SrcDiffError
from ..ir.nodes import Branch, ForwardStatement, Loop, Node, UserCall, operand_ast
from ..ir.program import Assign, Effect, For, If, Run, own_expressions, walk
from ..rules.structural import APPEND
from .sweep import LoopPlan, Sweep


def _refuse(loop: Loop, sweep: Sweep, why: str, hint: str) -> SrcDiffError:
    return SrcDiffError(f"checkpoint={sweep.checkpoint} cannot apply to this loop: {why}",
                        sweep.location(loop.line), hint)


def _check(loop: Loop, sweep: Sweep) -> None:
    if sweep.derivable:
        raise _refuse(loop, sweep, "a gradient srcdiff differentiates again keeps every iteration's values",
                      "leave checkpoint= out of a gradient you differentiate again")
    for item in _items(loop.body):
        if isinstance(item, Loop):
            raise _refuse(loop, sweep, f"it holds another loop (line {sweep.location(item.line).line}), whose "
                          "own saved values would be recomputed with it", "move the inner loop into array "
                          "operations, or leave checkpoint= out")
        if isinstance(item, UserCall) and item.id in sweep.pullbacks:
            raise _refuse(loop, sweep, "it calls a function differentiated by its own adjoint, whose "
                          "pullback holds that call's values", "leave checkpoint= out")
        if isinstance(item, Node) and item.rule is APPEND:
            raise _refuse(loop, sweep, "it appends to a list, state the carried values do not hold",
                          "carry an array instead of a list, or leave checkpoint= out")


def _items(block):
    for item in block.nodes:
        yield item
        if isinstance(item, Branch):
            yield from _items(item.body)
            yield from _items(item.orelse)
        elif isinstance(item, Loop):
            yield from _items(item.body)


def _name(n: str) -> ast.Name:
    return ast.Name(n, ast.Load())


def _call(func: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.parse(func, mode="eval").body, list(args), [])


def _target(loop: Loop, first: str, j: str) -> list:
    """``i = start + (first + j) * step``: a range loop's target in iteration ``first + j``."""
    if loop.kind != "range":
        return []
    bounds = [operand_ast(b) for b in loop.bounds]
    start = bounds[0] if len(bounds) > 1 else ast.Constant(0)
    position = ast.BinOp(_name(first), ast.Add(), _name(j))
    if len(bounds) == 3:
        position = ast.BinOp(position, ast.Mult(), bounds[2])
    return [Assign([loop.target.name], ast.BinOp(start, ast.Add(), position), loop.line)]


def checkpointed(loop: Loop, sweep: Sweep, plan: LoopPlan, body: list) -> For:
    """The backward sweep of `loop` by segments (see the module docstring); `body` is one
    iteration's adjoints, popping the stack.  The recomputation is filled in by the forward
    sweep (`recompute`), built after this."""
    _check(loop, sweep)
    namer = sweep.namer
    plan.checkpoint = sweep.checkpoint
    plan.checkpoints = namer.fresh("checkpoints")
    plan.count = plan.count or namer.fresh("count")
    plan.state = [c.var.name for c in loop.carried]
    if not plan.state:
        raise _refuse(loop, sweep, "it carries no value from one iteration to the next", "leave checkpoint= out")
    segment, first, length = namer.fresh("segment"), namer.fresh("first"), namer.fresh("length")
    forward_j, backward_j = namer.fresh("j"), namer.fresh("j")
    restore = Assign(list(plan.state), _call(f"{plan.checkpoints}.pop"), loop.line)
    k = ast.Constant(sweep.checkpoint)
    plan.recompute = For(forward_j, _call("range", _name(length)), [], loop.line)
    plan.recompute_target = _target(loop, first, forward_j)
    reads_target = loop.target is not None and any(isinstance(n, ast.Name) and n.id == loop.target.name
                                                   for stmt in body for e in _expressions(stmt) for n in ast.walk(e))
    backward = For(backward_j, _call("reversed", _call("range", _name(length))),
                   (_target(loop, first, backward_j) if reads_target else []) + body, loop.line)
    segment_body = [
        restore,
        Assign([plan.stack], ast.List([], ast.Load()), loop.line),
        Assign([first], ast.BinOp(_name(segment), ast.Mult(), k), loop.line),
        Assign([length], _call("min", k, ast.BinOp(_name(plan.count), ast.Sub(), _name(first))), loop.line),
        plan.recompute,
        backward,
    ]
    return For(segment, _call("reversed", _call("range", _call("len", _name(plan.checkpoints)))), segment_body,
               loop.line)


def _expressions(stmt):
    for inner in walk([stmt]):
        yield from own_expressions(inner)


def push_state(plan: LoopPlan, line: int) -> list:
    """First in each forward iteration: every k-th one pushes the carried state."""
    names = [_name(n) for n in plan.state]
    value = names[0] if len(names) == 1 else ast.Tuple(names, ast.Load())
    push = Effect(ast.Call(ast.Attribute(_name(plan.checkpoints), "append", ast.Load()), [value], []), line)
    test = ast.Compare(ast.BinOp(_name(plan.count), ast.Mod(), ast.Constant(plan.checkpoint)), [ast.Eq()],
                       [ast.Constant(0)])
    return [If(test, [push], [], line)]


def recompute(plan: LoopPlan, body: list, pushes: list, copies: list, prune) -> None:
    """Fill the backward sweep's recomputation of one segment: the forward body (as
    assignments, without the user's effects), its pushes, and the carried copies, pruned to
    what they need."""
    kept = [_plain(s) for s in body if not isinstance(s, (ForwardStatement, Run))]
    stmts = plan.recompute_target + kept + pushes + copies
    needed = set(plan.state) | {n for s in pushes for n in _reads(s.expr)}
    plan.recompute.body = prune(stmts, needed, {plan.stack})


def _reads(e: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}


def _plain(stmt):
    """A forward statement as the recomputation's own copy (nodes become assignments)."""
    if isinstance(stmt, Node):
        return Assign([stmt.out.name], copy.deepcopy(stmt.expr), stmt.line)
    stmt = copy.copy(stmt)
    for attr in ("body", "orelse"):
        inner = getattr(stmt, attr, None)
        if isinstance(inner, list):
            setattr(stmt, attr, [_plain(s) for s in inner if not isinstance(s, Run)])
    return stmt


__all__ = ["checkpointed", "push_state", "recompute"]
