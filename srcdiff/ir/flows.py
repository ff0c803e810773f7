"""How values flow into one another through operations that carry a gradient.

One model serves the reverse pass (which values are active) and lowering's facts about
callees (which results no parameter reaches): an edge runs from each operand whose gradient
reaches a primitive's result (which ones, the rules say), from both sides
of a branch to the value they merge into, and from a loop-carried value's initial and final
values to the carried value.
"""

from __future__ import annotations

from collections.abc import Callable

from .nodes import Branch, Function, Node, Var

#: The operands of a node whose gradient reaches its result (`rules.structural.gradient_inputs`).
Inputs = Callable[[Node], list[Var]]


def edges(function: Function, inputs: Inputs) -> list[tuple[str, str]]:
    """(source, destination) of every flow of value that carries a gradient."""
    found = []

    def collect(block):
        for item in block.nodes:
            if isinstance(item, Node):
                found.extend((v.name, item.out.name) for v in inputs(item))
            elif isinstance(item, Branch):
                collect(item.body)
                collect(item.orelse)
                found.extend((v.name, m.out.name) for m in item.merges for v in (m.body, m.orelse)
                             if isinstance(v, Var))
            else:
                found.extend((v.name, c.var.name) for c in item.carried for v in (c.init, c.final)
                             if isinstance(v, Var))
                collect(item.body)

    collect(function.body)
    return found


def flows(function: Function, sources: set[str], inputs: Inputs) -> tuple[set[str], set[str]]:
    """The names that depend on one of `sources`, and those the output depends on."""
    varies = set(sources)
    useful = {function.output.name} if isinstance(function.output, Var) else set()
    found = edges(function, inputs)
    changed = True
    while changed:
        changed = False
        for src, dst in found:
            if src in varies and dst not in varies:
                varies.add(dst)
                changed = True
            if dst in useful and src not in useful:
                useful.add(src)
                changed = True
    return varies, useful


def reachable(pairs: list[tuple[str, str]], seeds: set[str], backwards: bool = False) -> set[str]:
    """`seeds` and every name reached from one of them along `pairs` ``(src, dst)`` (`edges`), from
    src to dst, or from dst to src when `backwards` (what a value is computed from)."""
    step: dict[str, list[str]] = {}
    for src, dst in pairs:
        a, b = (dst, src) if backwards else (src, dst)
        step.setdefault(a, []).append(b)
    found, todo = set(seeds), list(seeds)
    while todo:
        for name in step.get(todo.pop(), ()):
            if name not in found:
                found.add(name)
                todo.append(name)
    return found
