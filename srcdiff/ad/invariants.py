"""Loop-invariant arithmetic moves in front of its loop, before the reverse pass; one
elementwise operation of saved arrays is recomputed by the backward loop, not saved; a loop
of numbers computes a few numbers again rather than saving a tuple per iteration
(`numbers_recomputed`).

``for ...: s = s - 0.1 * a * math.cos(s)`` computes ``0.1 * a`` in every iteration; the
backward loop reads it too, so the forward loop used to push it on the stack once per
iteration (a tuple item to build, pack and unpack).  Computed once before the loop, it is
neither recomputed nor saved: the backward loop reads the one value.

Only what cannot raise or change a result moves: ``+``, ``-``, ``*``, unary ``-``/``+`` of
numbers (operands known to be scalars, or constants) or of one array with numbers (``-k``,
``0.1 * a``: nothing to broadcast against), assigned once in the whole function,
in a loop body (also under a branch of the body: it may then run where the user's code
would not have, which for these operations changes nothing), reading nothing the loop
assigns.  A loop that runs no iteration then computes one product it did not need,
which for numbers can neither raise nor be seen: the result is the same float, computed by
the same operation on the same operands.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import operator
from collections import Counter
from typing import Mapping

from ..ir.nodes import Block, Branch, Const, Function, Loop, Node, UserCall, Var, all_nodes, operand_ast, region_defines
from ..ir.program import Assign, For, If, While, children, own_expressions
from ..ir.shapes import Shape

#: operations on numbers that never raise (float overflow gives inf, as inside the loop)
_SAFE = (operator.add, operator.sub, operator.mul, operator.neg, operator.pos)


def hoist_invariants(function: Function, shape_of: Mapping[str, Shape]) -> Function:
    """`function` with loop-invariant scalar arithmetic before its loops (a new Function;
    the lowered one is left as it is).  Returns `function` itself when nothing moves."""
    count = Counter(n.out.name for n in all_nodes(function))
    once = _Once({name for name, k in count.items() if k == 1} - set(function.lists))
    once.lists = frozenset(function.lists)
    body, moved = _block(function.body, shape_of, once)
    return dataclasses.replace(function, body=body) if moved else function


def _block(block: Block, shape_of, once: set[str]) -> tuple[Block, bool]:
    items, moved = [], False
    for item in block.nodes:
        if isinstance(item, Loop):
            inner, changed = _block(item.body, shape_of, once)
            loop = dataclasses.replace(item, body=inner) if changed else item
            hoisted, loop = _hoist(loop, shape_of, once)
            items += hoisted
            items.append(loop)
            moved |= changed or bool(hoisted)
        elif isinstance(item, Branch):
            body, a = _block(item.body, shape_of, once)
            orelse, b = _block(item.orelse, shape_of, once)
            items.append(dataclasses.replace(item, body=body, orelse=orelse) if a or b else item)
            moved |= a or b
        else:
            items.append(item)
    return (Block(items), True) if moved else (block, False)


def _hoist(loop: Loop, shape_of, once: set[str]) -> tuple[list[Node], Loop]:
    """The nodes of `loop`'s body that can run once before it, and the loop without them."""
    varying = region_defines(loop.body) | {c.var.name for c in loop.carried}
    if loop.target is not None:
        varying.add(loop.target.name)
    pinned = {v.name for c in loop.carried for v in (c.init, c.final) if isinstance(v, Var)}
    pinned |= {v.name for v in loop.test_inputs}
    if isinstance(loop.stop, Var):
        pinned.add(loop.stop.name)
    hoisted: list[Node] = []
    body = _take(loop.body, hoisted, varying, pinned, shape_of, once)
    if not hoisted:
        return [], loop
    return hoisted, dataclasses.replace(loop, body=body)


def _take(block: Block, hoisted: list[Node], varying: set[str], pinned: set[str], shape_of, once) -> Block:
    """`block` without the nodes that move before the loop (appended to `hoisted`), also from
    the sides of its branches: what cannot raise may run when its side is not taken."""
    kept: list = []
    for item in block.nodes:
        if isinstance(item, Node) and _movable(item, varying, pinned, shape_of, once):
            hoisted.append(item)
            varying.discard(item.out.name)
        elif isinstance(item, Branch):
            before = len(hoisted)
            body = _take(item.body, hoisted, varying, pinned, shape_of, once)
            orelse = _take(item.orelse, hoisted, varying, pinned, shape_of, once)
            kept.append(dataclasses.replace(item, body=body, orelse=orelse) if len(hoisted) > before else item)
        else:
            kept.append(item)
    return Block(kept) if len(kept) != len(block.nodes) or any(a is not b for a, b in zip(kept, block.nodes)) \
        else block


def _movable(node: Node, varying: set[str], pinned: set[str], shape_of, once: set[str]) -> bool:
    if isinstance(node, UserCall) or node.rule is None or getattr(node.rule, "func", None) not in _SAFE:
        return False
    if node.static or node.out.name not in once or node.out.name in pinned:
        return False
    arrays = 0
    for operand in node.inputs:
        if isinstance(operand, Var):
            if operand.name in varying:
                return False
            if _array(operand.name, shape_of) and operand.name not in once.lists:
                arrays += 1
            elif not _number(operand.name, shape_of):
                return False
        elif not (isinstance(operand, Const) and isinstance(operand.value, (int, float)) and
                  not isinstance(operand.value, bool)):
            return False
    # an array with numbers (``-k``, ``0.1 * a``): no shapes to mismatch, so it cannot raise either
    return _number(node.out.name, shape_of) if arrays == 0 else arrays == 1 and _array(node.out.name, shape_of)


class _Once(set):
    """The names assigned once, and (`lists`) the function's lists, never hoisted as arrays."""

    lists: frozenset = frozenset()


def _number(name: str, shape_of) -> bool:
    shape = shape_of.get(name)
    return shape is not None and shape.scalar and shape.known and shape.ndim == 0


def cheap_recomputed(loop: Loop, saved: list[str], changing: set[str], shape_of) -> list[Node]:
    """The nodes among `saved` (names the backward loop reads) that are one ``+``, ``-``,
    ``*`` or unary ``-`` of values it has anyway: values saved too (or carried) and values
    the loop does not assign (`changing` holds those it does).  ``err = h - target`` read by
    the loss's adjoint is then computed again from ``h`` in the backward loop instead of
    being pushed for every step: the same operation on the same operands, one value fewer
    kept per step.  Arrays only, in the body's own straight-line part: a number popped from
    the stack costs less than one computed again."""
    places = {}
    for node, branched in _body_nodes(loop.body, False):
        places[node.out.name] = (node, branched)
    kept = set(saved)
    found: list[Node] = []
    # in the body's order, so a value computed from one computed again is saved instead: one
    # operation per value, never a chain of them (``lap = t4 + t5`` after ``t4 = t1 - t3``)
    for name in sorted(saved, key=lambda n: places[n][0].id if n in places else -1):
        node, branched = places.get(name, (None, True))
        if node is None or isinstance(node, UserCall) or node.static \
                or getattr(node.rule, "func", None) not in _SAFE:
            continue
        if branched or not _array(name, shape_of):
            continue  # a number popped costs less than one computed again (measured)
        reads = [v.name for v in node.input_vars]
        if any(not (_number(r, shape_of) or _array(r, shape_of)) for r in reads):
            continue
        if all((r in kept and places.get(r, (None,))[0] not in found) or r not in changing for r in reads):
            found.append(node)
    return found


def _body_nodes(block: Block, branched: bool):
    """(node, under a branch) for the nodes of a loop body, not those of loops nested in it."""
    for item in block.nodes:
        if isinstance(item, Branch):
            yield from _body_nodes(item.body, True)
            yield from _body_nodes(item.orelse, True)
        elif isinstance(item, Node):
            yield item, branched


def _array(name: str, shape_of) -> bool:
    shape = shape_of.get(name)
    return shape is not None and shape.known and not shape.scalar and shape.ndim > 0


#: cheap operations on numbers a backward loop may run again instead of reading a saved value
_NUMBER_OPS = _SAFE + (operator.truediv, operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
                       operator.ne)
#: at most this many numbers computed again to save one number per iteration instead of a tuple
_MOST_RECOMPUTED = 3


def numbers_recomputed(loop: Loop, saved: list[str], changing: set[str], kept_anyway: set[str],
                       shape_of, backward: list) -> tuple[list[Node], set[str], list[str]] | None:
    """When a loop of numbers saves several numbers per iteration and all but one (besides
    `kept_anyway`, carried values the backward loop keeps itself) are a few cheap operations
    on the others, on values the loop does not change (`changing` holds those it does) or on
    one carried value (saved instead), the nodes of the body's straight-line part to compute
    again at the start of each backward iteration, the names no longer saved, and the names
    saved instead.  Those under a branch are put at the start of their side in `backward`
    (the backward loop's statements).  None (and `backward` unchanged) otherwise.

    Packing a tuple per iteration and unpacking it costs more than two or three operations on
    floats (``stack.append((t1, t3, s, t6))`` for ``if s > 0.5: ... math.sin(s)``: 20% of a
    gradient that saves ``s`` alone and tests and computes the sine again).  A node under a
    branch is computed again only on its own side, which must hold every read of it: there
    it ran on the same operands already (``math.sin(s)`` may raise where the user's test kept
    it from running).
    """
    if len(saved) < 2:
        return None
    places: dict[str, tuple[Node, object]] = {}
    twice = set()
    for node, side in _placed(loop.body):
        if node.out.name in places:
            twice.add(node.out.name)
        places[node.out.name] = (node, side)
    if not all(_number(n, shape_of) or n in places and _number_test(places[n][0], shape_of) for n in saved):
        return None
    candidates = [n for n in saved if n in places and n not in twice and n not in kept_anyway
                  and _recomputable(places[n][0], shape_of)]
    kept = [n for n in saved if n not in candidates]
    if len([n for n in kept if n not in kept_anyway]) > 1:
        return None
    carried = {c.var.name for c in loop.carried if _number(c.var.name, shape_of)}
    plan = _plan(candidates, set(kept), places, twice, changing, shape_of, backward)
    added: list[str] = []
    if isinstance(plan, str) and plan in carried and not [n for n in kept if n not in kept_anyway]:
        added = [plan]  # one carried number saved instead of what is computed from it
        plan = _plan(candidates, set(kept) | {plan}, places, twice, changing, shape_of, backward)
    if not isinstance(plan, list):
        return None
    top: list[Node] = []
    for stmts, node in reversed(plan):  # the last first: what it reads may then be read once
        name = node.out.name
        # substituted only where nothing recomputed before the backward statements reads it
        # too (``t3 = 1.0 - t2`` of ``t2 = n / capacity``: t2 must stay a statement)
        read_by_top = any(v.name == name for t in top for v in t.input_vars)
        if not read_by_top and _reads(backward, name) == 1 and _reads(backward, name, flat=True) == 1:
            _substitute(backward, name, node.expr)  # ``if s > 0.5:``, not ``t1 = s > 0.5; if t1:``
        elif stmts is None:
            top.insert(0, node)
        else:
            stmts.insert(0, Assign([name], node.expr, node.line))
    return top, set(candidates), added


def _plan(candidates: list[str], available: set[str], places: dict, twice: set[str], changing: set[str],
          shape_of, backward: list):
    """(side statements or None, node) in the order to compute them: `candidates` and the
    body's nodes they read (at most `_MOST_RECOMPUTED` in all); or the one name it would
    need to be given (a str), or None where it cannot be done."""
    needed: dict[str, Node] = {}
    missing: set[str] = set()

    def need(name: str) -> None:
        if name in needed or name in available or name not in changing:
            return
        if name not in places or name in twice or not _recomputable(places[name][0], shape_of):
            missing.add(name)
            return
        needed[name] = places[name][0]
        for v in places[name][0].input_vars:
            need(v.name)

    for name in candidates:
        need(name)
    if missing:
        return next(iter(missing)) if len(missing) == 1 else None
    if len(needed) > _MOST_RECOMPUTED:
        return None
    order: list[tuple[list | None, Node]] = []
    placed: dict[str, int] = {}
    for node in sorted(needed.values(), key=lambda n: n.id):
        side = places[node.out.name][1]
        stmts = None if side is None else _side_statements(side, backward, node.out.name)
        if side is not None and stmts is None:
            return None
        for v in node.input_vars:
            if not (v.name in available or v.name not in changing or placed.get(v.name, 0) == id(stmts)):
                return None
        order.append((stmts, node))
        if side is None:
            available = available | {node.out.name}
        else:
            placed[node.out.name] = id(stmts)
    return order


def _side_statements(side: tuple, backward: list, name: str) -> list | None:
    """The statements of `side` (a branch and 0 or 1) in the backward loop's `backward`, if
    they hold every read of `name` there."""
    branch, k = side
    test = ast.dump(operand_ast(branch.test))
    found = [s for s in backward if isinstance(s, If) and s.line == branch.line and ast.dump(s.test) == test]
    if len(found) != 1:
        return None
    stmts = found[0].orelse if k else found[0].body
    return stmts if _reads(backward, name) == _reads(stmts, name) else None


def _reads(stmts: list, name: str, flat: bool = False) -> int:
    """How many times `stmts` read `name` (with `flat`, not counting reads in nested loops)."""
    count = 0
    for stmt in stmts:
        count += sum(1 for expr in own_expressions(stmt) for n in ast.walk(expr)
                     if isinstance(n, ast.Name) and n.id == name)
        if not (flat and isinstance(stmt, (For, While))):
            count += sum(_reads(inner, name, flat) for inner in children(stmt))
    return count


def _substitute(stmts: list, name: str, expr: ast.expr) -> None:
    """Each read of `name` in `stmts` (not in nested loops) becomes a copy of `expr`."""
    class Put(ast.NodeTransformer):
        def visit_Name(self, node):
            return copy.deepcopy(expr) if node.id == name and isinstance(node.ctx, ast.Load) else node

    for stmt in stmts:
        for attr in ("test", "expr", "index"):
            value = getattr(stmt, attr, None)
            if isinstance(value, ast.expr) and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
                setattr(stmt, attr, Put().visit(copy.deepcopy(value)))
        if not isinstance(stmt, (For, While)):
            for inner in children(stmt):
                _substitute(inner, name, expr)


def _placed(block: Block):
    """(node, None) for a loop body's straight-line nodes, (node, (branch, 0 or 1)) for those
    of the sides of its branches (not deeper)."""
    for item in block.nodes:
        if isinstance(item, Branch):
            for k, side in enumerate((item.body, item.orelse)):
                for node in side.nodes:
                    if isinstance(node, Node):
                        yield node, (item, k)
        elif isinstance(item, Node):
            yield item, None


def _recomputable(node: Node, shape_of) -> bool:
    if isinstance(node, UserCall) or node.static or node.rule is None:
        return False
    if _number_test(node, shape_of):
        return True
    func = getattr(node.rule, "func", None)
    if func not in _NUMBER_OPS and getattr(func, "__module__", None) != "math":
        return False
    if not _number(node.out.name, shape_of):
        return False
    return all(_number(v.name, shape_of) if isinstance(v, Var) else
               isinstance(v, Const) and isinstance(v.value, (int, float)) for v in node.inputs)


def _number_test(node: Node, shape_of) -> bool:
    """A test of numbers (``s > 0.5``, ``a < b and b < c``): a bool, and it cannot raise."""
    if not getattr(node.rule, "nograd", False) or not getattr(node.rule, "pure", False) or node.static:
        return False
    if not all(isinstance(v, Var) and _number(v.name, shape_of) for v in node.inputs):
        return False
    names = {v.name for v in node.inputs}
    for part in ast.walk(node.expr):
        if isinstance(part, ast.Name):
            if part.id not in names:
                return False
        elif isinstance(part, ast.Constant):
            if isinstance(part.value, bool) or not isinstance(part.value, (int, float)):
                return False
        elif not isinstance(part, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Not, ast.And, ast.Or, ast.Load,
                                   ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.USub)):
            return False
    return isinstance(node.expr, (ast.Compare, ast.BoolOp, ast.UnaryOp))
