"""The forward sweep of a gradient program: the user's computation, and what loops save.

Built after the backward sweep, because the backward sweep decides what each loop must push
on its stack (`LoopPlan`) and which calls need a pullback.  Then everything the backward
sweep, the returned values and the saved values do not need is left out.
"""

from __future__ import annotations

import ast

from ..ir.nodes import Branch, ForwardStatement, Function, Loop, Node, UserCall, Var, all_nodes, operand_ast
from ..ir.program import Assign, Break, Effect, For, If, Run, While, own_expressions, walk
from ..rules.structural import APPEND
from .checkpoint import push_state, recompute
from .shape_checks import ShapeChecks
from .sweep import LoopPlan, Sweep
from .tied_values import tied_node


def build_forward(function: Function, sweep: Sweep, returns: list[ast.expr], with_output: bool) -> list:
    """The forward statements the gradient needs, in program order."""
    stacks = [p.stack for p in sweep.plans.values() if p.stack]
    stacks += [s for p in sweep.plans.values() for s in p.stacks]
    stacks += [p.checkpoints for p in sweep.plans.values() if p.checkpoints]
    body = [Assign([s], ast.List([], ast.Load())) for s in sorted(stacks, key=_natural)]
    body += _block(function.body, sweep, defs={n.out.name: n for n in all_nodes(function)})
    needed, restored = set(), set()
    for stmt in walk(sweep.stmts):
        needed |= _reads(stmt)
        if isinstance(stmt, Assign):  # popped or recomputed by the backward sweep itself
            restored |= set(stmt.targets)
    needed -= restored
    for expr in returns:
        needed |= {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    if with_output and isinstance(function.output, Var):
        needed.add(function.output.name)
    return prune(body, needed, set(stacks), ShapeChecks(sweep.shapes, sweep.location,
                                                           sources=(sweep.shape_sources or ({},))[0]))


def _natural(name: str):
    head, _, tail = name.rpartition("_")
    return (head, int(tail)) if tail.isdigit() else (name, 0)


def _block(block, sweep: Sweep, in_loop: bool = False, defs=None) -> list:
    out = []
    for item in block.nodes:
        if isinstance(item, Branch):
            out.append(If(operand_ast(item.test), _block(item.body, sweep, in_loop, defs),
                          _block(item.orelse, sweep, in_loop, defs), item.line))
        elif isinstance(item, Loop):
            out += _loop(item, sweep, defs)
        elif isinstance(item, UserCall) and item.id in sweep.pullbacks:
            call = ast.Call(ast.Name(sweep.pullbacks[("vjp", item.id)], ast.Load()), item.expr.args,
                            item.expr.keywords)
            out.append(Assign([item.out.name, sweep.pullbacks[item.id]], call, item.line))
        elif isinstance(item, ForwardStatement):
            out.append(Run(item.stmt, item.line))
        elif item.rule is APPEND:
            out.append(Effect(item.expr, item.line))
        else:  # (a kink's or a tie's value in a derivable gradient: `tied`, ad/tied_values.py)
            out.append(tied_node(item, sweep, in_loop, defs or {}))
    return out


def _loop(loop: Loop, sweep: Sweep, defs=None) -> list:
    plan = sweep.plans.get(id(loop), LoopPlan())
    before = [Assign([c.var.name], operand_ast(c.init), loop.line) for c in loop.carried if c.var != c.init]
    before += [Assign([n], ast.Constant(None), loop.line) for n in plan.preset]
    if plan.count:
        before.append(Assign([plan.count], ast.Constant(0), loop.line))
    body = _block(loop.body, sweep, True, defs)
    pushes = []
    if plan.stack:
        names = [ast.Name(n, ast.Load()) for n in plan.saved]
        value = names[0] if len(names) == 1 else ast.Tuple(names, ast.Load())
        push = ast.Call(ast.Attribute(ast.Name(plan.stack, ast.Load()), "append", ast.Load()), [value], [])
        pushes.append(Effect(push, loop.line))
    for name, stack in zip(plan.saved if plan.stacks else (), plan.stacks):
        push = ast.Call(ast.Attribute(ast.Name(stack, ast.Load()), "append", ast.Load()),
                        [ast.Name(name, ast.Load())], [])
        pushes.append(Effect(push, loop.line))
    copies = [c for c in loop.carried if c.final != c.var]
    phis = {c.var for c in loop.carried}
    if len(copies) > 1 and any(c.final in phis for c in copies):  # a swap: assign all at once
        moves = [Assign([c.var.name for c in copies],
                        ast.Tuple([operand_ast(c.final) for c in copies], ast.Load()), loop.line)]
    else:
        moves = [Assign([c.var.name], operand_ast(c.final), loop.line) for c in copies]
    if plan.checkpoint:  # the state every k iterations; the backward sweep recomputes the rest
        recompute(plan, body, pushes, moves, prune)
        body = push_state(plan, loop.line) + body + moves
    else:
        body = body + pushes + moves
    if plan.count:
        body.append(Assign([plan.count], ast.BinOp(ast.Name(plan.count, ast.Load()), ast.Add(),
                                                   ast.Constant(1)), loop.line))
    if loop.stop is not None:
        body.append(If(operand_ast(loop.stop), [Break()], [], loop.line))
    if loop.kind == "range":
        iterator = ast.Call(ast.Name("range", ast.Load()), [operand_ast(b) for b in loop.bounds], [])
        return before + [For(loop.target.name, iterator, body, loop.line)]
    return before + [While(loop.test, body, loop.line)]


# ---- dead code ----

def _reads(stmt) -> set[str]:
    return {n.id for e in own_expressions(stmt) for n in ast.walk(e) if isinstance(n, ast.Name)}


def _targets(stmt) -> set[str]:
    if isinstance(stmt, Node):
        return {stmt.out.name}
    if isinstance(stmt, Assign):
        return set(stmt.targets)
    return set()


def _is_break_test(stmt) -> bool:
    return isinstance(stmt, If) and stmt.body and isinstance(stmt.body[0], Break)


def prune(stmts: list, needed: set[str], stacks: set[str], checks: ShapeChecks | None = None) -> list:
    """Drop what nothing needs: iterate to a fixed point (loops feed values back).  With
    `checks`, a dropped primitive whose operands' shapes may disagree leaves its shape check,
    and one whose shapes no check can compare (``np.linalg.solve(A, w)``) is not dropped: f
    raises there, and so must its derivative."""
    forced = set() if checks is None else {node.out.name for node in map(checks.node_of, walk(stmts))
                                           if node is not None and checks.must_run(node)}
    forced -= needed  # (values the backward sweep or the result reads stay assignments)
    needed |= forced
    while True:
        before = len(needed)
        _mark(stmts, needed, stacks)
        if len(needed) == before:
            break
    out = _filter(stmts, needed, stacks, checks)
    read = {n for stmt in walk(out) for n in _reads(stmt)}
    return _unassigned(out, forced - read) if forced - read else out


def _unassigned(stmts: list, names: set[str]) -> list:
    """`stmts` with each value in `names` (computed only for f's errors) passed to the effect
    ``computed_for_errors``: nothing else reads it, and the optimiser drops an assignment
    nothing reads (a higher derivative runs the call as written, like ``ensure_scalar``)."""
    out = []
    for stmt in stmts:
        if _targets(stmt) & names:
            out.append(stmt)
            marks = [ast.Name(name, ast.Load()) for name in sorted(_targets(stmt) & names)]
            stmt = Run(ast.Expr(ast.Call(ast.Name("computed_for_errors", ast.Load()), marks[:1], [])), stmt.line)
        elif isinstance(stmt, If):
            stmt = If(stmt.test, _unassigned(stmt.body, names), _unassigned(stmt.orelse, names), stmt.line)
        elif isinstance(stmt, For):
            stmt = For(stmt.target_name, stmt.iter, _unassigned(stmt.body, names), stmt.line)
        elif isinstance(stmt, While):
            stmt = While(stmt.test, _unassigned(stmt.body, names), stmt.line)
        out.append(stmt)
    return out


def _kept(stmt, needed, stacks) -> bool:
    if isinstance(stmt, (Node, Assign)):
        return bool(_targets(stmt) & needed)
    if isinstance(stmt, Effect):
        call = stmt.expr
        obj = call.func.value if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) else None
        return isinstance(obj, ast.Name) and (obj.id in needed or obj.id in stacks)
    if isinstance(stmt, (Break, Run)):  # a user's statement runs where they wrote it
        return True
    if isinstance(stmt, If):
        return any(_kept(s, needed, stacks) for s in stmt.body + stmt.orelse)
    return any(_kept(s, needed, stacks) for s in stmt.body if not _is_break_test(s))


def _mark(stmts, needed, stacks) -> None:
    for stmt in stmts:
        if _kept(stmt, needed, stacks):
            needed |= _reads(stmt)
        for inner in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
            if isinstance(inner, list):
                _mark(inner, needed, stacks)


def _filter(stmts, needed, stacks, checks=None, unset=frozenset()) -> list:
    unset = unset or frozenset(t for s in walk(stmts) for t in _targets(s)) - needed
    out, seen = [], set()
    for stmt in stmts:
        node = checks.node_of(stmt) if checks is not None else None
        if not _kept(stmt, needed, stacks):
            if node is not None:
                for guard in checks.dropped(node):  # one check per test in a block
                    reads = {n.id for n in ast.walk(guard.stmt.test) if isinstance(n, ast.Name)}
                    if ast.dump(guard.stmt.test) not in seen and not reads & unset:  # (of values computed)
                        seen.add(ast.dump(guard.stmt.test))
                        out.append(guard)
            elif checks is not None and isinstance(stmt, (For, If)) and not _reads(stmt) & unset:
                out += _skeleton(stmt, needed, stacks, checks, unset)
            continue
        if node is not None:
            checks.kept(node)
        if isinstance(stmt, If):
            stmt = If(stmt.test, _filter(stmt.body, needed, stacks, checks, unset),
                      _filter(stmt.orelse, needed, stacks, checks, unset), stmt.line)
        elif isinstance(stmt, For):
            stmt = For(stmt.target_name, stmt.iter, _filter(stmt.body, needed, stacks, checks, unset), stmt.line)
        elif isinstance(stmt, While):
            stmt = While(stmt.test, _filter(stmt.body, needed, stacks, checks, unset), stmt.line)
        out.append(stmt)
    return out


def _skeleton(stmt, needed, stacks, checks, unset) -> list:
    """A dropped ``for`` or ``if`` as the shape checks of what it computed, run as often as f
    runs them (a loop of no iterations checks nothing), where its header reads only values
    the gradient has."""
    body = _filter(stmt.body, needed, stacks, checks, unset)
    if isinstance(stmt, For):
        return [For(stmt.target_name, stmt.iter, body, stmt.line)] if body else []
    orelse = _filter(stmt.orelse, needed, stacks, checks, unset)
    return [If(stmt.test, body or [Run(ast.Pass(), stmt.line)], orelse, stmt.line)] if body or orelse else []
