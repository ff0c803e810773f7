"""A product of one value with itself and numbers (``0.5 * y * y``, ``0.1 * x * x * x``) gets
its derivative as one expression, ``g * y`` or ``0.30000000000000004 * g * x * x``.

Lowered, ``0.5 * y * y`` is two products, ``t = 0.5 * y`` and ``p = t * y``; their adjoints,
rule by rule, are ``t_bar = p_bar * y``, ``y_bar = p_bar * t`` and ``y_bar = y_bar + t_bar *
0.5``: four operations, and the backward sweep reads ``t``, which a loop then saves or
computes again.  When the inner products are read by nothing else, ``p`` is ``c * y ** m``
and its derivative ``m * c * y ** (m - 1)``: ``m - 1`` products of ``y`` and one constant
(none when ``m * c`` is 1, as for ``0.5 * y * y``), and the inner products get no adjoint at
all.  The value is the same up to rounding (``m * c`` rounds once; the sum of the rule-by-rule
terms rounded each).

Only where nothing else needs the rule-by-rule form: the product's adjoint is not one that
may be infinite (``ad/zero_factors.py`` selects there) nor below a branch of ``np.where``
(masks); the inner products are in the same block, read once, and are not lists.
"""

from __future__ import annotations

import ast
import math
import operator
from collections import Counter
from dataclasses import dataclass

from ..ir.nodes import Block, Branch, Const, Function, Loop, Node, UserCall, Var, all_nodes, region_reads


@dataclass(frozen=True)
class Power:
    """``out = coefficient * base ** degree``, computed by ``inner`` products and the last one."""

    base: str
    degree: int
    coefficient: float
    inner: tuple[str, ...]


def find_powers(function: Function) -> dict[int, Power]:
    """The products of `function` that are a number times a power of one value, by node id
    (only the outermost product of each chain)."""
    reads = Counter(v.name for v in region_reads(function.body))
    if isinstance(function.output, Var):
        reads[function.output.name] += 1
    assigned = Counter(n.out.name for n in all_nodes(function))
    once = Counter({name: k for name, k in reads.items() if assigned[name] == 1})
    found: dict[int, Power] = {}
    _scan(function.body, once, set(function.lists), found)
    return found


def _scan(block: Block, reads: Counter, lists: set[str], found: dict[int, Power]) -> None:
    products = {}
    for item in block.nodes:
        if isinstance(item, Branch):
            _scan(item.body, reads, lists, found)
            _scan(item.orelse, reads, lists, found)
        elif isinstance(item, Loop):
            _scan(item.body, reads, lists, found)
        elif _is_product(item):
            products[item.out.name] = item
    inner_of_some = set()
    chains = {}
    for name, node in products.items():
        chain = _chain(node, products, reads, lists)
        if chain is not None:
            chains[name] = chain
            inner_of_some.update(chain.inner)
    found.update({products[name].id: chain for name, chain in chains.items() if name not in inner_of_some})


def _is_product(node: Node) -> bool:
    return not isinstance(node, UserCall) and getattr(node.rule, "func", None) is operator.mul \
        and not node.static and len(node.inputs) == 2


def _chain(node: Node, products: dict, reads: Counter, lists: set[str]) -> Power | None:
    bases: list[str] = []
    inner: list[str] = []
    coefficient = [1.0]

    def expand(operand, top: bool) -> bool:
        if isinstance(operand, Const):
            value = operand.value
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value == 0:
                return False
            coefficient[0] *= value
            return True
        if not isinstance(operand, Var):
            return False
        below = products.get(operand.name)
        if not top and below is not None and reads[operand.name] == 1 and operand.name not in lists:
            inner.append(operand.name)
            return all(expand(o, False) for o in below.inputs)
        bases.append(operand.name)
        return True

    if not all(expand(o, False) for o in node.inputs):  # (the inner products: read once, assigned once)
        return None
    if not inner or len(bases) < 2 or len(set(bases)) != 1 or bases[0] in lists:
        return None
    if not math.isfinite(coefficient[0]):
        return None
    return Power(bases[0], len(bases), coefficient[0], tuple(inner))


def power_contribution(power: Power, adjoint: ast.expr) -> ast.expr:
    """``m * c * g * x * ... * x`` (``m - 1`` factors `x`), the constant left out when it is 1."""
    scale = power.degree * power.coefficient
    out = adjoint if scale == 1.0 else ast.BinOp(ast.Constant(scale), ast.Mult(), adjoint)
    for _ in range(power.degree - 1):
        out = ast.BinOp(out, ast.Mult(), ast.Name(power.base, ast.Load()))
    return out


__all__ = ["Power", "find_powers", "power_contribution"]
