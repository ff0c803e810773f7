"""Loop-invariant scalar arithmetic moves in front of its loop, before the reverse pass;
one elementwise operation of saved arrays is recomputed by the backward loop, not saved.

``for ...: s = s - 0.1 * a * math.cos(s)`` computes ``0.1 * a`` in every iteration; the
backward loop reads it too, so the forward loop used to push it on the stack once per
iteration (a tuple item to build, pack and unpack).  Computed once before the loop, it is
neither recomputed nor saved: the backward loop reads the one value.

Only what cannot raise or change a result moves: ``+``, ``-``, ``*``, unary ``-``/``+`` of
numbers (operands known to be scalars, or constants), assigned once in the whole function,
in a loop body (also under a branch of the body: it may then run where the user's code
would not have, which for these operations changes nothing), reading nothing the loop
assigns.  A loop that runs no iteration then computes one product it did not need,
which for numbers can neither raise nor be seen: the result is the same float, computed by
the same operation on the same operands.
"""

from __future__ import annotations

import dataclasses
import operator
from collections import Counter
from typing import Mapping

from ..ir.nodes import Block, Branch, Const, Function, Loop, Node, UserCall, Var, all_nodes, region_defines
from ..ir.shapes import Shape

#: operations on numbers that never raise (float overflow gives inf, as inside the loop)
_SAFE = (operator.add, operator.sub, operator.mul, operator.neg, operator.pos)


def hoist_invariants(function: Function, shape_of: Mapping[str, Shape]) -> Function:
    """`function` with loop-invariant scalar arithmetic before its loops (a new Function;
    the lowered one is left as it is).  Returns `function` itself when nothing moves."""
    count = Counter(n.out.name for n in all_nodes(function))
    once = {name for name, k in count.items() if k == 1} - set(function.lists)
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
    if not _number(node.out.name, shape_of):
        return False
    for operand in node.inputs:
        if isinstance(operand, Var):
            if operand.name in varying or not _number(operand.name, shape_of):
                return False
        elif not (isinstance(operand, Const) and isinstance(operand.value, (int, float)) and
                  not isinstance(operand.value, bool)):
            return False
    return True


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
    for name in saved:
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
