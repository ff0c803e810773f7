"""Which values carry a gradient: those between a differentiated parameter and the output."""

from __future__ import annotations

from ..ir.flows import flows
from ..ir.nodes import Function, Node, all_nodes
from ..rules.structural import gradient_inputs


def active_values(function: Function, wrt: set[str]) -> set[str]:
    """Names that depend on a `wrt` parameter and that the output depends on."""
    varies, useful = flows(function, wrt, gradient_inputs)
    return varies & useful


def value_dependent_constructor(function: Function, wrt: set[str]) -> Node | None:
    """A node whose rule gives no gradient although its value depends on its operands'
    values (``np.arange(start, stop)``, `Rule.refuses_active`), fed by a `wrt` parameter."""
    varies, _ = flows(function, wrt, gradient_inputs)
    for node in all_nodes(function):
        if getattr(node.rule, "refuses_active", "") and any(v.name in varies for v in node.input_vars):
            return node
    return None
