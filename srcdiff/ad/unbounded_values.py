"""Values that may be infinite where the operands they are computed from are finite.

A generated gradient divides by a root or a value (``1.0 / (2.0 * t4)``, ``g / x``): at the root's 0
the quotient is infinite, and so is every product it is multiplied into.  Differentiating that
gradient again, a product's contribution to its other operand is ``g * inf``: NaN where the
product's adjoint is 0 by the code's structure (a Hessian's row whose seed leaves the element
out), though the true contribution is 0.  `unbounded_values` names the values whose factor can be
infinite so (ad/unused_elements.masked holds such a product's contribution by its use mask).
"""

from __future__ import annotations

from ..ir.flows import edges, reachable
from ..ir.nodes import Function, Var, all_nodes
from ..rules.structural import gradient_inputs
from .still_adjoints import finite_there, may_blow_up


def unbounded_values(function: Function) -> frozenset[str]:
    """The outputs of primitives whose value may be infinite at finite operands (a division, a
    reciprocal, a log, a negative power: `may_blow_up` where the value is not `finite_there`),
    and every value computed from one of them."""
    seeds = {node.out.name for node in all_nodes(function) if isinstance(getattr(node, "out", None), Var)
             and any(may_blow_up(node, p) and not finite_there(node, p) for p in node.rule.params)}
    if not seeds:
        return frozenset()
    return frozenset(reachable(edges(function, gradient_inputs), seeds))


__all__ = ["unbounded_values"]
