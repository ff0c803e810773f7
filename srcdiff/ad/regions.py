"""The backward sweep of branches, loops, subscripts and calls to user functions.

A branch replays the side the forward sweep took (its test is a saved value).  A loop runs
its body's adjoints in reversed iteration order: ``for i in reversed(range(...))`` when the
iterations can be recounted, else ``for _ in range(count)``.  What the body's adjoints read
of the values the body overwrites is pushed on a stack (a plain list) at the end of each
forward iteration and popped at the start of each backward one; values the adjoints do not
read are not saved, and a subscript of an unchanging array is recomputed instead.

In a loop not nested in another, a carried value's final value is not saved: it is the next
iteration's start, so the backward loop carries it (``s_1 = s`` after each iteration); the
optimizer then reads such a stack with ``for ... in reversed(stack)`` (optimize/stacks.py).
"""

from __future__ import annotations

import ast
import copy

from ..errors import SrcDiffError
from ..ir import shapes
from ..ir.nodes import Branch, Loop, Node, UserCall, Var, operand_ast, region_defines, region_reads
from ..ir.program import AdjointStmt, Assign, CallSpec, For, If, Scatter, own_expressions, walk
from ..rules.structural import APPEND, GETITEM
from .adjoints import call, reverse_node
from .appends import reverse_append
from .checkpoint import checkpointed
from .invariants import cheap_recomputed, numbers_recomputed
from .powers import power_contribution
from .roots import reverse_root
from .static_index import index_value
from .sweep import LoopPlan, Sweep, operand_shape


def reverse_block(block, sweep: Sweep) -> None:
    """The adjoints of a block's items, last item first."""
    definitions = {item.out.name: item for item in block.nodes if not isinstance(item, (Branch, Loop))}
    for item in reversed(block.nodes):
        if isinstance(item, Branch):
            reverse_branch(item, sweep)
        elif isinstance(item, Loop):
            reverse_loop(item, sweep)
        elif item.out.name not in sweep.defined or getattr(item.rule, "nograd", False):
            continue
        elif isinstance(item, UserCall):
            reverse_call(item, sweep)
        elif item.rule is GETITEM:
            reverse_getitem(item, sweep)
        elif item.rule is APPEND:
            reverse_append(item, sweep)
        elif _power_taken(item, sweep) or reverse_root(item, sweep):
            continue
        else:
            sweep.definitions = definitions  # a nested region's sweep may have set its own
            reverse_node(item, sweep, sweep.location)


def _power_taken(node: Node, sweep: Sweep) -> bool:
    """``c * x * ... * x``'s adjoint as one contribution to `x` (ad/powers.py), where its
    adjoint is not masked nor possibly infinite; False leaves it to the rule-by-rule form."""
    power = sweep.powers.get(node.id)
    if power is None or node.out.name in sweep.non_finite or sweep.masks.get(node.out.name) \
            or power.base not in sweep.active:
        return False
    adjoint = ast.Name(sweep.name(node.out.name), ast.Load())
    sweep.contribute(power.base, power_contribution(power, adjoint), node.line)
    return True


def _outer_reads(blocks, inside: set[str], sweep: Sweep, extra=()) -> list[str]:
    reads = [v.name for b in blocks for v in region_reads(b)] + [v.name for v in extra if isinstance(v, Var)]
    return [n for n in dict.fromkeys(reads) if n in sweep.active and n not in inside]


def _scattered(blocks) -> set[str]:
    """Arrays subscripted in these blocks: their adjoints get scatter-adds in place."""
    found = set()
    for block in blocks:
        for node in _nodes(block):
            if node.rule is GETITEM and isinstance(node.inputs[0], Var):
                found.add(node.inputs[0].name)
    return found


def _nodes(block):
    for item in block.nodes:
        if isinstance(item, Node):
            yield item
        elif isinstance(item, Branch):
            yield from _nodes(item.body)
            yield from _nodes(item.orelse)
        else:
            yield from _nodes(item.body)


def reverse_branch(branch: Branch, sweep: Sweep) -> None:
    """``if test:`` again, each side running the adjoints of its own nodes."""
    blocks = (branch.body, branch.orelse)
    inside = region_defines(branch.body) | region_defines(branch.orelse)
    scattered = _scattered(blocks)
    if not any(n.out.name in sweep.defined for b in blocks for n in b.nodes if isinstance(n, Node)) \
            and not any(not isinstance(n, Node) for b in blocks for n in b.nodes):
        return  # nothing computed here reaches the output
    for name in _outer_reads(blocks, inside, sweep):
        sweep.ensure(name, branch.line, own=name in scattered)
    sides = []
    for block in blocks:
        child = sweep.child()
        reverse_block(block, child)
        sides.append(child)
    if not sides[0].stmts and not sides[1].stmts:
        return
    sweep.emit(If(operand_ast(branch.test), sides[0].stmts, sides[1].stmts, branch.line))
    sweep.owned &= sides[0].owned & sides[1].owned


def reverse_loop(loop: Loop, sweep: Sweep) -> None:
    """The body's adjoints in a reversed loop, fed by what the forward loop saved."""
    phis = {c.var.name for c in loop.carried}
    inside = region_defines(loop.body) | ({loop.target.name} if loop.target else set())
    scattered = _scattered([loop.body])
    active_phis = [c for c in loop.carried if c.var.name in sweep.active]
    if not active_phis and not any(n.out.name in sweep.active for n in _nodes(loop.body)):
        return
    for name in _outer_reads([loop.body], inside | phis, sweep, [c.final for c in loop.carried]):
        sweep.ensure(name, loop.line, own=name in scattered)
    for c in active_phis:
        sweep.ensure(c.var.name, loop.line, own=c.var.name in scattered)

    child = sweep.child()
    child.loops = sweep.loops + 1
    seeds = [c for c in active_phis if c.final != c.var]
    sources = {}
    snapshot = any(isinstance(c.final, Var) and c.final.name in phis for c in seeds)
    for c in seeds:
        source = child.name(c.var.name)
        if snapshot:
            copy_name = sweep.namer.fresh(f"{source}_next")
            child.emit(AdjointStmt(copy_name, ast.Name(source, ast.Load()), False, None))
            source = copy_name
        sources[c.var.name] = source
    owned_phis = {c.var.name for c in seeds if c.var.name in child.owned}
    for c in seeds:
        child.defined.discard(c.var.name)
        child.owned.discard(c.var.name)
    grown = {n.inputs[0].name for n in _nodes(loop.body) if getattr(n, "rule", None) is APPEND} & sweep.lists
    for c in seeds:  # after an iteration, the carried value's adjoint is its final value's
        if isinstance(c.final, Var) and c.final.name in sweep.active:
            fresh = c.final.name not in child.defined
            source = ast.Name(sources[c.var.name], ast.Load())
            if c.var.name not in sweep.lists and not sweep.derivable and c.final.name in grown:
                source = call("list_rows", source)  # (an array entering, a list grown after: its adjoint popped)
            child.contribute(c.final.name, source, None)
            # the phi's adjoint is dead until reassigned: the final's may be written in place, except in
            # a derivable gradient, whose lowering sees the two names share one array across iterations
            if fresh and c.var.name in owned_phis and not sweep.derivable:
                child.owned.add(c.final.name)
    reverse_block(loop.body, child)
    for c in seeds:  # ... and before it, the sum of what the body sent to it
        child.ensure(c.var.name)
    sweep.owned = {p for p in sweep.owned if p in child.owned}
    if child.stmts:
        _emit_loop(loop, sweep, child, inside, phis)
    for c in active_phis:  # before the loop, the carried value was its initial value
        if isinstance(c.init, Var) and c.init.name in sweep.active and c.init != c.var:
            sweep.contribute(c.init.name, ast.Name(sweep.name(c.var.name), ast.Load()), loop.line)


def _emit_loop(loop: Loop, sweep: Sweep, child: Sweep, inside: set[str], phis: set[str]) -> None:
    """The reversed loop, and the plan saying what its forward loop pushes."""

    regenerate = loop.kind == "range" and loop.stop is None
    fwd_defs = inside | phis | {sweep.pullbacks[n.id] for n in _nodes(loop.body)
                                if isinstance(n, UserCall) and n.id in sweep.pullbacks}
    fwd_defs |= {p.count for p in sweep.plans.values() if p.count}
    reads = [n.id for stmt in walk(child.stmts) for n in _stmt_names(stmt)] if not sweep.derivable else \
        list(_reads_unbound(child.stmts))
    saved = [n for n in dict.fromkeys(reads) if n in fwd_defs
             and not (regenerate and loop.target and n == loop.target.name)]
    top = {n.out.name: n for n in loop.body.nodes if isinstance(n, Node)}
    unchanging = set(fwd_defs) - ({loop.target.name} if regenerate and loop.target else set())
    recompute = [top[n] for n in saved if n in top and top[n].rule is GETITEM
                 and not any(v.name in unchanging for v in top[n].input_vars)]
    saved = [n for n in saved if n not in {r.out.name for r in recompute}]
    if not sweep.derivable:
        recompute += cheap_recomputed(loop, saved, unchanging, sweep.shapes)
        saved = [n for n in saved if n not in {r.out.name for r in recompute}]
        finals = {c.final.name for c in loop.carried if sweep.loops == 0 and isinstance(c.final, Var)
                  and c.final.name not in phis and c.var.name in saved}
        # what a value computed again reads stays saved: numbers_recomputed writes a number it
        # computes again into the backward statements' reads, not into these (``t2 = x * t1`` of
        # ``t1 = k + 1`` read the last iteration's t1 when t1 was no longer saved)
        read_again = {v.name for r in recompute for v in r.input_vars}
        again = numbers_recomputed(loop, saved, unchanging, finals | read_again, sweep.shapes, child.stmts)
        if again is not None:  # (what a branch's side computes again is in child.stmts now)
            recompute += again[0]
            saved = [n for n in saved if n not in again[1]] + again[2]
    plan = LoopPlan()
    body = []
    carried = []  # a carried value's final value is the next iteration's start: not saved
    if sweep.loops == 0:
        for c in loop.carried:
            if isinstance(c.final, Var) and c.final.name in saved and c.final.name not in phis \
                    and c.var.name in saved:
                saved.remove(c.final.name)
                carried.append(Assign([c.final.name], ast.Name(c.var.name, ast.Load())))
    if saved and sweep.derivable:
        _read_by_position(loop, sweep, plan, saved, body)
        plan.preset = [n for n in saved if n not in set(top) | phis]  # set by a branch: exists before it, as below
    elif saved:
        plan.stack = sweep.namer.fresh("stack")
        plan.saved = saved
        top_level = set(top) | phis
        plan.preset = [n for n in saved if n not in top_level]
        body.append(Assign(list(saved), _call(f"{plan.stack}.pop")))
    body += [Assign([r.out.name], r.expr, r.line) for r in sorted(recompute, key=lambda r: r.id)]
    body += child.stmts + carried
    for stmt in carried:  # the last iteration's final value is the carried value after the loop
        sweep.emit(Assign(list(stmt.targets), stmt.expr))
    if not sweep.loops:  # nested loops' read positions start once, before the outermost loop
        for stmt in sweep.positions:
            sweep.emit(stmt)
        sweep.positions.clear()
    if sweep.checkpoint and not sweep.loops and (plan.stack or plan.stacks):
        sweep.plans[id(loop)] = plan
        sweep.emit(checkpointed(loop, sweep, plan, body))
        return
    if regenerate:
        iterator = _call("reversed", _call("range", *[operand_ast(b) for b in loop.bounds]))
        header = For(loop.target.name, iterator, body, loop.line)
    else:
        plan.count = sweep.namer.fresh("count")
        header = For(sweep.namer.fresh("_"), _call("range", ast.Name(plan.count, ast.Load())), body, loop.line)
    sweep.plans[id(loop)] = plan
    sweep.emit(header)


def _read_by_position(loop: Loop, sweep: Sweep, plan: LoopPlan, saved: list[str], body: list) -> None:
    """The derivable form of a loop's stack: one list per saved value, read backwards by a
    position counted down from the end (lists appended in one loop and read by index in
    another are code srcdiff differentiates).  A nested loop's lists hold every iteration of
    the loops around it, pushed in order: its position starts before the outermost backward
    loop and keeps counting down through all of them."""
    plan.saved = saved
    plan.stacks = [sweep.namer.fresh("stack") for _ in saved]
    position = sweep.namer.fresh("k")
    start = Assign([position], _call("len", ast.Name(plan.stacks[0], ast.Load())))
    if sweep.loops:
        sweep.positions.append(start)
    else:
        sweep.emit(start)
    body.append(Assign([position], ast.BinOp(ast.Name(position, ast.Load()), ast.Sub(), ast.Constant(1))))
    for name, stack in zip(saved, plan.stacks):
        body.append(Assign([name], ast.Subscript(ast.Name(stack, ast.Load()), ast.Name(position, ast.Load()),
                                                 ast.Load())))


def reverse_getitem(node: Node, sweep: Sweep) -> None:
    """``x[index]``: the adjoint is added into the part of x's adjoint it was read from."""
    x = node.inputs[0]
    if not (isinstance(x, Var) and x.name in sweep.active):
        return
    if node.static.get("nested"):  # an item of a generated gradient's list of lists, whose adjoint is needed
        raise SrcDiffError("reading an item of a list of lists (or of tuples) is not supported: the adjoints "
                           "of its items cannot be added up", sweep.location(node.line))
    g = ast.Name(sweep.name(node.out.name), ast.Load())
    index = node.expr.slice
    # where a mask made x's adjoint zero (np.where's cut-off side), the part read here is no more
    sweep.masks.pop(x.name, None)
    if _whole_of_a_number(x, index, sweep):  # ``t[()]`` of a number is the number: its adjoint passes
        sweep.contribute(x.name, g, node.line)
        return
    if x.name in sweep.lists:
        sweep.ensure(x.name, node.line)
        mode = "list"
        if sweep.derivable or isinstance(index, ast.Slice):  # a new list (rules/list_helpers.py): ``+=`` appends
            name, part = sweep.name(x.name), index_value(index).elts[0] if isinstance(index, ast.Slice) else index
            sweep.emit(AdjointStmt(name, _call("list_add", ast.Name(name, ast.Load()), part, g), False, node.line))
            sweep.alias.pop(name, None)
            return
    else:
        sweep.ensure(x.name, node.line, own=True)
        if isinstance(index, ast.Slice) and not sweep.derivable and not sweep.shapes.get(x.name, shapes.UNKNOWN).known:
            name = sweep.name(x.name)  # perhaps a list srcdiff did not tell from an array (rules/list_helpers.py)
            add = _call("slice_add", ast.Name(name, ast.Load()), index_value(index).elts[0], g)
            return sweep.emit(AdjointStmt(name, add, False, node.line))
        operands = iter(node.inputs[1:])
        basic = True
        for kind, count in node.static["index"]:
            parts = [next(operands) for _ in range(count)]
            if kind == "op":
                shape = operand_shape(parts[0], sweep.shapes)
                basic = basic and shape.known and shape.ndim == 0
        mode = "add" if basic else "add.at"
        tuple_valued = isinstance(index, ast.Name) and index.id in sweep.lists  # a tuple, or a list?
        in_place = basic and sweep.loops and not _reads_all(index) and not _adds_axes(index)
        # (in a loop, an index of unknown shape, ``x[k]`` with k read from a list, adds in place by
        # np.add.at: a new array per iteration would part x's adjoint from the loop's other writes into it)
        at_in_loop = sweep.loops and not basic and not _reads_all(index) and not _adds_axes(index)
        if sweep.derivable and not in_place and not tuple_valued and not at_in_loop:
            # the functional form, with a rule of its own (rules/generated_code.py); a loop's
            # element-by-element updates stay in place (a copy per iteration would cost O(n²)),
            # but not an index with None (``a[None, :, i]``, ``a[:, None]``): a write through
            # None is not code srcdiff differentiates again
            name = sweep.name(x.name)
            update = _call("index_add", ast.Name(name, ast.Load()), index_value(index), g)
            sweep.emit(AdjointStmt(name, update, False, node.line))
            sweep.owned.add(x.name)
            sweep.alias.pop(name, None)
            return
    if mode == "add.at" and not sweep.derivable and not sweep.shapes.get(x.name, shapes.UNKNOWN).known:
        # x may be a list of numbers (``mean = [0.0] * k`` read at ``mean[g]``): its adjoint, a list, becomes
        # the array np.add.at writes into (tidied code makes it one at a write anyway: zero_item)
        name = sweep.name(x.name)
        sweep.emit(AdjointStmt(name, _call("scatter_target", ast.Name(name, ast.Load())), False, node.line))
    sweep.emit(Scatter(sweep.name(x.name), index, g, mode, node.line))


def _reads_all(index: ast.expr) -> bool:
    """Whether ``x[index]`` reads every element of x: whole slices, ``...`` and None only."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return all((isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None)
               or (isinstance(p, ast.Constant) and p.value in (None, Ellipsis)) for p in parts)


def _adds_axes(index: ast.expr) -> bool:
    """Whether `index` has a None (``np.newaxis``) among its parts."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any((isinstance(p, ast.Constant) and p.value is None)
               or (isinstance(p, ast.Attribute) and p.attr == "newaxis") for p in parts)


def _whole_of_a_number(x: Var, index: ast.expr, sweep: Sweep) -> bool:
    """Whether ``x[index]`` reads the whole of `x`, a number (``x[()]``, ``x[...]``): its
    adjoint is a number too, which cannot be written into by index."""
    shape = sweep.shapes.get(x.name, shapes.UNKNOWN)
    whole = (isinstance(index, ast.Tuple) and not index.elts) or \
        (isinstance(index, ast.Constant) and index.value is Ellipsis)
    return whole and shape.known and shape.ndim == 0 and shape.scalar and x.name not in sweep.lists


def reverse_call(node: UserCall, sweep: Sweep) -> None:
    """A user function's call: its generated pullback maps our adjoint to its arguments'."""
    active = [(j, v) for j, v in enumerate(node.inputs) if isinstance(v, Var) and v.name in sweep.active]
    if not active:
        return
    wrt = tuple(node.arg_names[j] for j, _ in active)
    # a gradient srcdiff differentiates again holds no pullback closure: the forward sweep
    # calls the function itself, the backward sweep its seeded gradient, a plain function
    # (``x_bar = power_vjp(t_bar, x, n)``) srcdiff reads back like the user's
    spec = CallSpec(node.callee, wrt,
                    tuple((name, operand_shape(v, sweep.shapes)) for name, v in zip(node.arg_names, node.inputs)),
                    mode="seeded" if sweep.derivable else "reverse", spent=node.spent)
    vjp = next((name for name, s in sweep.calls.items() if s == spec), None)
    if vjp is None:
        name = getattr(node.callee, "__name__", "helper")
        vjp = sweep.namer.fresh(f"{name if name.isidentifier() else 'helper'}_vjp")  # not <lambda>_vjp
        sweep.calls[vjp] = spec
    seed = ast.Name(sweep.name(node.out.name), ast.Load())
    if sweep.derivable:
        call = ast.Call(ast.Name(vjp, ast.Load()), [seed, *copy.deepcopy(node.expr.args)],
                        copy.deepcopy(node.expr.keywords))
    else:
        if node.id not in sweep.pullbacks:
            sweep.pullbacks[node.id] = sweep.namer.fresh(f"{node.out.name}_pullback")
        sweep.pullbacks.setdefault(("vjp", node.id), vjp)
        call = _call(sweep.pullbacks[node.id], seed)
    if len(active) == 1:
        sweep.contribute(active[0][1].name, call, node.line)
        return
    parts = [sweep.namer.fresh(f"{v.name}_part") for _, v in active]
    sweep.emit(Assign(parts, call, node.line))
    for part, (_, v) in zip(parts, active):
        sweep.contribute(v.name, ast.Name(part, ast.Load()), node.line)


def _call(name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.parse(name, mode="eval").body, list(args), [])


def _reads_unbound(stmts, bound: frozenset = frozenset()):
    """The names backward statements read before they assign them: not an inner backward
    loop's own counter (``for j in reversed(range(i))`` counts `j` again), nor what an inner
    loop reads from its own stack first (``t1 = stack[k]``) — nothing needs to save those."""
    for stmt in stmts:
        yield from (n.id for n in _stmt_names(stmt) if n.id not in bound)
        inner = bound | {stmt.target_name} if isinstance(stmt, For) else bound
        for block in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
            if isinstance(block, list):
                yield from _reads_unbound(block, inner)
        if isinstance(stmt, Assign):
            bound = bound | set(stmt.targets)


def _stmt_names(stmt):
    """The names a backward statement reads (not those of nested statements)."""
    for expr in own_expressions(stmt):
        for n in ast.walk(expr):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                yield n
