"""A result reached only through comparisons inside a loop: a search (bisection, golden section).

Such a result is computed from constants; the differentiated input only picks branches, so the
program's own derivative is 0 wherever it exists (a staircase with steps of the tolerance) while
the user means the derivative of the root or point found.  The driver refuses it at the loop
before any transformation (driver/compile.py), so every one refuses alike.
"""

from __future__ import annotations

import ast
import operator

import numpy as np

from ..errors import SrcDiffError
from ..ir.flows import edges, flows
from ..ir.nodes import Branch, Const, Function, Loop, Merge, Node, Var, all_nodes
from ..rules import runtime
from ..rules.structural import gradient_inputs

#: reading these of an array reads its shape, not its values
_SHAPE_ATTRIBUTES = {"shape", "size", "ndim", "dtype"}
_SHAPE_CALLS = {"len", "np.shape", "np.size", "np.ndim", "numpy.shape", "numpy.size", "numpy.ndim"}
#: operations that keep an integer counter an integer
_COUNTING = {operator.add, operator.sub, operator.mul, operator.floordiv, operator.iadd, operator.isub}


def value_reads(expr: ast.expr | None) -> set[str]:
    """The names whose values (not only shapes) `expr` reads."""
    names: set[str] = set()

    def visit(e: ast.AST) -> None:
        if isinstance(e, ast.Attribute) and e.attr in _SHAPE_ATTRIBUTES:
            return
        if isinstance(e, ast.Call) and ast.unparse(e.func) in _SHAPE_CALLS:
            return
        if isinstance(e, ast.Name):
            names.add(e.id)
        for child in ast.iter_child_nodes(e):
            visit(child)

    if expr is not None:
        visit(expr)
    return names


def _value_inputs(node: Node) -> list[Var]:
    """The operands whose values `node`'s value depends on, with or without a gradient; none
    through srcdiff.stop_gradient, which says a zero derivative is meant."""
    if getattr(node.rule, "func", None) is runtime.stop_gradient:
        return []
    if getattr(node.rule, "nograd", False):
        reads = value_reads(node.expr)
        return [v for v in node.input_vars if v.name in reads]
    return list(node.input_vars)


def _closure(pairs: list[tuple[str, str]], start: set[str], forward: bool) -> set[str]:
    found = set(start)
    changed = True
    while changed:
        changed = False
        for src, dst in pairs:
            a, b = (src, dst) if forward else (dst, src)
            if a in found and b not in found:
                found.add(b)
                changed = True
    return found


def _integers(function: Function) -> set[str]:
    """Names that hold integer counters (``i = 0`` ... ``i += 1``, a range's item, the index of
    the best item so far): the largest set whose every value is an int constant or counts from
    others of the set."""
    sources: dict[str, list[list]] = {}

    def collect(block):
        for item in block.nodes:
            if isinstance(item, Node):
                ok = getattr(item.rule, "func", None) in _COUNTING or item.rule.name == "copy"
                sources.setdefault(item.out.name, []).append(list(item.inputs) if ok else [None])
            elif isinstance(item, Branch):
                collect(item.body)
                collect(item.orelse)
                for m in item.merges:
                    sources.setdefault(m.out.name, []).append([m.body, m.orelse])
            else:
                if item.kind == "range" and item.target is not None:  # range's items are ints
                    sources.setdefault(item.target.name, []).append([Const(0)])
                for c in item.carried:
                    sources.setdefault(c.var.name, []).append([c.init, c.final])
                collect(item.body)

    collect(function.body)
    found = set(sources)

    def integral(v) -> bool:
        if isinstance(v, Const):
            return isinstance(v.value, int) and not isinstance(v.value, bool)
        return isinstance(v, Var) and v.name in found

    changed = True
    while changed:
        changed = False
        for name in list(found):
            if not all(integral(v) for group in sources[name] for v in group):
                found.discard(name)
                changed = True
    return found


def _decided(function: Function, tainted: set[str]) -> list[tuple[Loop, set[str]]]:
    """(loop, the values its branches or its condition decide) for conditions inside a loop
    that read a `tainted` value."""
    found: list[tuple[Loop, set[str]]] = []

    def branches(block, loop):
        for item in block.nodes:
            if isinstance(item, Branch):
                if loop is not None and isinstance(item.test, Var) and item.test.name in tainted:
                    found.append((loop, {m.out.name for m in item.merges}))
                branches(item.body, loop)
                branches(item.orelse, loop)
            elif isinstance(item, Loop):
                stops = isinstance(item.stop, Var) and item.stop.name in tainted
                if stops or (item.kind == "while" and value_reads(item.test) & tainted):
                    found.append((item, {c.var.name for c in item.carried}))
                branches(item.body, item)

    branches(function.body, None)
    return found


def _decisions(block) -> list[tuple[str, str]]:
    """(a branch's test, a value it merges): a flag a comparison of the input sets (``stop =
    True`` before a ``break``) carries what the comparison read."""
    found: list[tuple[str, str]] = []
    for item in block.nodes:
        if isinstance(item, Branch):
            if isinstance(item.test, Var):
                found.extend((item.test.name, m.out.name) for m in item.merges)
            found.extend(_decisions(item.body) + _decisions(item.orelse))
        elif isinstance(item, Loop):
            found.extend(_decisions(item.body))
    return found


def _leaves(function: Function) -> list[Var]:
    """The returned values, each part of a returned tuple or list."""
    made = {n.out.name: n for n in all_nodes(function)}

    def parts(v) -> list[Var]:
        if not isinstance(v, Var):
            return []
        node = made.get(v.name)
        if node is not None and getattr(node.rule, "func", None) in (list, tuple):
            return [leaf for op in node.inputs for leaf in parts(op)]
        return [v]

    return parts(function.output)


def comparison_only_loop(function: Function, wrt: set[str]) -> Loop | None:
    """The loop whose comparisons alone carry a `wrt` parameter to a returned value (or to a
    part of a returned tree) that no `wrt` parameter reaches differentiably, or None."""
    varies, _ = flows(function, wrt, gradient_inputs)
    leaves = [v for v in _leaves(function) if v.name not in varies]
    if not leaves:
        return None
    pairs = edges(function, _value_inputs)
    tainted = _closure(pairs + _decisions(function.body), set(wrt), forward=True)
    decided = _decided(function, tainted)
    if not decided:
        return None
    reached = _closure(pairs, {v.name for v in leaves}, forward=False)
    counters = _integers(function)
    for loop, names in decided:
        if (names - counters) & reached:
            return loop
    return None


def _searches(function: Function, varies: set[str], counters: set[str],
              pairs: list[tuple[str, str]]) -> list[tuple[Loop, set[str]]]:
    """(loop, the values a branch inside it decides) for a branch that reads back, within one
    iteration, a carried value no parameter reaches differentiably: ``if g(mid, k) > 0: hi = mid``
    with ``mid = 0.5 * (lo + hi)``.  The walk back from the test stops at a carried value that
    varies (``y`` of ``if y < 0: v = -v``): a state the test reads, not a point being searched."""
    into: dict[str, list[str]] = {}
    for src, dst in pairs:
        into.setdefault(dst, []).append(src)
    found: list[tuple[Loop, set[str]]] = []

    def reads_back(test: str, loop: Loop) -> bool:
        carried = {c.var.name for c in loop.carried} | {c.final.name for c in loop.carried
                                                         if isinstance(c.final, Var)}
        seen, todo = {test}, [test]
        while todo:
            name = todo.pop()
            if name in carried:
                if name not in varies and name not in counters:
                    return True
                continue
            for src in into.get(name, ()):
                if src not in seen:
                    seen.add(src)
                    todo.append(src)
        return False

    made = {n.out.name: n for n in all_nodes(function)}
    merged: dict[str, Merge] = {}

    def merges(block):
        for item in block.nodes:
            if isinstance(item, Branch):
                merged.update((m.out.name, m) for m in item.merges)
                merges(item.body)
                merges(item.orelse)
            elif isinstance(item, Loop):
                merges(item.body)

    merges(function.body)

    def bounds_read(v, loop: Loop, seen: set) -> set[str]:
        """The loop's carried values `v` is worked out from in this iteration."""
        if not isinstance(v, Var) or v.name in seen:
            return set()
        seen.add(v.name)
        if v.name in {c.var.name for c in loop.carried}:
            return {v.name}
        node = made.get(v.name)  # (a side's block assigns the merged name itself: its node first)
        if node is not None:
            return set().union(*(bounds_read(x, loop, seen) for x in node.input_vars))
        m = merged.get(v.name)
        return set() if m is None else bounds_read(m.body, loop, seen) | bounds_read(m.orelse, loop, seen)

    def computed(v, loop: Loop) -> bool:
        # a point worked out of a bracket (``mid = 0.5 * (lo + hi)``, golden section's ``lo + r * (hi - lo)``),
        # not a mode set to constants (``heater = 0.0``) nor a step scaled on its own (``step * 1.2``)
        if not isinstance(v, Var) or v.name in {c.var.name for c in loop.carried}:
            return False
        return len(bounds_read(v, loop, set()) - varies - counters) >= 2

    def walk(block, loop):
        for item in block.nodes:
            if isinstance(item, Node) and loop is not None and getattr(item.rule, "func", None) is np.where \
                    and len(item.inputs) == 3 and isinstance(item.inputs[0], Var):
                # ``hi = np.where(up, mid, hi)``: the vectorised bisection, a branch per element
                cond, x, y = item.inputs
                if item.out.name not in varies | counters and (computed(x, loop) or computed(y, loop)) \
                        and reads_back(cond.name, loop):
                    found.append((loop, {item.out.name}))
            elif isinstance(item, Branch):
                decided = {m.out.name for m in item.merges
                           if loop is not None and (computed(m.body, loop) or computed(m.orelse, loop))}
                decided -= varies | counters
                if decided and isinstance(item.test, Var) and reads_back(item.test.name, loop):
                    found.append((loop, decided))
                walk(item.body, loop)
                walk(item.orelse, loop)
            elif isinstance(item, Loop):
                walk(item.body, item)

    walk(function.body, None)
    return found


def search_feeding_result(function: Function, wrt: set[str]) -> Loop | None:
    """The loop of a search whose point, found by comparisons alone, reaches a returned value that
    also depends on a `wrt` parameter differentiably (``f(t, c)`` at the golden-section ``t``), or
    None: its derivative would hold the point still where the user means it to move."""
    varies, _ = flows(function, wrt, gradient_inputs)
    pairs = edges(function, _value_inputs)
    tainted = _closure(pairs + _decisions(function.body), set(wrt), forward=True)
    reached = _closure(pairs, {v.name for v in _leaves(function)}, forward=False)
    for loop, names in _searches(function, varies, _integers(function), pairs):
        if names & reached and names & tainted:
            return loop
    return None


def refuse_comparison_only(function: Function, wrt: set[str], location) -> None:
    """Raise, at the user's loop, for a `comparison_only_loop`: every transformation refuses
    rather than answer the staircase's silent 0."""
    loop = comparison_only_loop(function, wrt)
    if loop is None:
        loop = search_feeding_result(function, wrt)
        if loop is not None:
            names = ", ".join(sorted(wrt))
            raise SrcDiffError(
                f"the result depends on {names} through a value this loop finds by comparisons alone (a search "
                "such as golden section or bisection): its derivative would hold that value still, not move "
                "it with the point the search finds", location(loop.line),
                "give the point its derivative with @srcdiff.custom_vjp or @srcdiff.custom_jvp through the "
                "implicit function theorem, or wrap it in srcdiff.stop_gradient(...) if a fixed point is meant")
        return
    names = ", ".join(sorted(wrt))
    raise SrcDiffError(
        f"the result depends on {names} only through comparisons inside this loop (a search such as "
        "bisection): its derivative is 0 wherever it exists, not the derivative of the root or point "
        "the search finds", location(loop.line),
        "give the root its derivative with @srcdiff.custom_vjp or @srcdiff.custom_jvp through the implicit "
        "function theorem (for g(r, k) = 0: dr/dk = -(dg/dk) / (dg/dr)), or wrap the result in "
        "srcdiff.stop_gradient(...) if 0 is meant")
