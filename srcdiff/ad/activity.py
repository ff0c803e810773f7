"""Which values carry a gradient: those between a differentiated parameter and the output."""

from __future__ import annotations

from ..ir.nodes import Branch, Function, Node, Var, all_nodes
from ..rules.structural import GETITEM


def active_values(function: Function, wrt: set[str]) -> set[str]:
    """Names that depend on a `wrt` parameter and that the output depends on."""
    varies, useful = _flows(function, wrt)
    return varies & useful


def value_dependent_constructor(function: Function, wrt: set[str]) -> Node | None:
    """A node whose rule gives no gradient although its value depends on its operands'
    values (``np.arange(start, stop)``, `Rule.refuses_active`), fed by a `wrt` parameter."""
    varies, _ = _flows(function, wrt)
    for node in all_nodes(function):
        if getattr(node.rule, "refuses_active", "") and any(v.name in varies for v in node.input_vars):
            return node
    return None


def _flows(function: Function, wrt: set[str]) -> tuple[set[str], set[str]]:
    """The names that depend on a `wrt` parameter, and those the output depends on."""
    edges = []  # (source, destination) of every flow of value that carries a gradient

    def collect(block):
        for item in block.nodes:
            if isinstance(item, Node):
                if not getattr(item.rule, "nograd", False):
                    inputs = item.input_vars if item.rule is not GETITEM else item.input_vars[:1]
                    edges.extend((v.name, item.out.name) for v in inputs)
            elif isinstance(item, Branch):
                collect(item.body)
                collect(item.orelse)
            else:
                for c in item.carried:
                    edges.extend((v.name, c.var.name) for v in (c.init, c.final) if isinstance(v, Var))
                collect(item.body)

    collect(function.body)
    varies = set(wrt)
    useful = {function.output.name} if isinstance(function.output, Var) else set()
    changed = True
    while changed:
        changed = False
        for src, dst in edges:
            if src in varies and dst not in varies:
                varies.add(dst)
                changed = True
            if dst in useful and src not in useful:
                useful.add(src)
                changed = True
    return varies, useful
