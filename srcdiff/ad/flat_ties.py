"""Where a tie's share meets a flat zero: a value ``m`` of ``np.maximum`` / ``np.minimum`` /
``np.clip`` (builtin ``max`` / ``min``) read only as a power above 2 (``m ** 3``, ``m * m * m``).

A derivable gradient gives ``m``'s operands ``tie(condition, m_bar, x, y)``, whose derivative at the
tie is NaN (rules/kinks.py): the share jumps there.  But ``m_bar`` is then ``p * c * m ** (p - 1)``
with ``p > 2``, and where ``m == 0`` it is not only 0 but flat: ``m`` moves by O(h) (a maximum of
differentiable operands is Lipschitz), so ``m_bar`` by o(h), and the share times it, whatever the
jump, by o(h) too.  Its derivative is exactly 0, as is the share times ``m_bar``'s own tangent
(``p (p - 1) c m ** (p - 2) m_dot``).  So ``np.maximum(x, 0) ** 3`` has the Hessian 0 at 0, not NaN;
``np.maximum(x, 0) ** 2``, whose Hessian does not exist there, keeps the NaN (``p = 2``: ``m_bar``
is ``2 m``, which moves by O(h)), and so does a value read any other way besides.

The condition ``m == 0`` is passed to the ties as their `persist` operand (ad/ties.py), which makes
their derivative 0 where it holds.  An operand that is not Lipschitz at the tie (``np.sqrt`` at 0)
has an infinite tangent, so the tangent of ``m_bar`` is NaN there, never a silent 0.
"""

from __future__ import annotations

import ast
from collections import Counter

from ..ir.nodes import Const, Function, Node, UserCall, Var, all_nodes, region_reads
from .powers import Power
from .ties import zero_persistence

_POWERS = {"numpy.power", "operator.pow", "numpy.float_power"}


def flat_tie_values(function: Function, powers: dict[int, Power]) -> frozenset[str]:
    """The values every read of which is a power above 2 (a constant exponent, or a chain of
    products of the value with itself and numbers, `powers`), assigned once."""
    reads = Counter(v.name for v in region_reads(function.body))
    if isinstance(function.output, Var):
        reads[function.output.name] += 1
    assigned = Counter(n.out.name for n in all_nodes(function))
    nodes = {n.id: n for n in all_nodes(function)}
    covered: Counter = Counter()
    for node in nodes.values():
        if _steep_power(node):
            covered[node.inputs[0].name] += 1
    for node_id, power in powers.items():
        if power.degree > 2 and node_id in nodes:
            covered[power.base] += power.degree
    return frozenset(name for name, k in covered.items()
                     if k == reads[name] and assigned[name] == 1 and name not in function.lists)


def _steep_power(node: Node) -> bool:
    if isinstance(node, UserCall) or getattr(node.rule, "name", None) not in _POWERS or len(node.inputs) != 2:
        return False
    base, exponent = node.inputs
    return isinstance(base, Var) and isinstance(exponent, Const) and isinstance(exponent.value, (int, float)) \
        and not isinstance(exponent.value, bool) and exponent.value > 2


def flat_condition(node: Node, flat: frozenset[str]) -> ast.expr | None:
    """``np.equal(m, 0.0)`` for a tie's value `m` that is flat where it is 0, else None (not
    ``m == 0.0``: the gradient read back would take that for a guard of the point)."""
    if node.out.name not in flat:
        return None
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "equal", ast.Load()),
                    [ast.Name(node.out.name, ast.Load()), ast.Constant(0.0)], [])


def flat_kink(contribution: ast.expr, node: Node, sweep) -> ast.expr:
    """`contribution` (abs's derivable ``kink(x == 0, g * np.sign(x), x)``) with its kink's condition
    kept only where ``|x|`` is not a flat zero: read only as a power above 2 (``np.abs(x) ** 3``), its
    adjoint g moves by o(h) at 0, and so does g times sign's jump: the derivative there is 0; or x a
    difference of one function with itself near the point (`zero_persistence`), 0 nearby."""
    condition = flat_condition(node, sweep.flat) if node.rule.name in _ABS and not sweep.loops else None
    if condition is None and node.rule.name in _ABS and sweep.derivable and not sweep.loops and node.inputs:
        # |a - b| where a and b are one function near the point (``r - np.clip(r, -d, d)`` inside the
        # band): 0 on a neighbourhood, so its derivative there is 0, not a kink's NaN
        condition = zero_persistence(node.inputs[0], sweep.definitions)
    if condition is None:
        return contribution
    for call in ast.walk(contribution):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "kink" and call.args:
            call.args[0] = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "logical_and", ast.Load()), [
                call.args[0], ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "logical_not", ast.Load()),
                                       [condition], [])], [])
    return contribution


_ABS = {"numpy.absolute", "numpy.abs", "numpy.fabs", "builtins.abs", "math.fabs"}

__all__ = ["flat_condition", "flat_kink", "flat_tie_values"]
