"""Which values carry a gradient: those between a differentiated parameter and the output."""

from __future__ import annotations

from ..ir.nodes import Branch, Function, Node, Var
from ..rules.structural import GETITEM


def active_values(function: Function, wrt: set[str]) -> set[str]:
    """Names that depend on a `wrt` parameter and that the output depends on."""
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
    return varies & useful
