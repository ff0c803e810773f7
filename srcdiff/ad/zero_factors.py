"""A zero factor before a point of infinite slope: the product's adjoint selects an exact 0.

``np.sqrt(x * mask)`` where ``mask`` is 0: the product is 0 whatever ``x`` is, so ``x``'s
derivative through it is exactly 0, but ``sqrt``'s adjoint there is ``g / (2 * 0)`` = inf and
the product's ``inf * 0`` would make it NaN.  So where a product's result can receive a
non-finite adjoint (it is, or computes, an operand of a rule whose slope can be infinite where
its value is finite: `Rule.singular`), each operand's contribution is selected where the other
factor (`Rule.zero_factors`) is 0: ``np.where(np.equal(mask, 0.0), 0.0, g * mask)``, and that zero is
kept down the operand's chain like a branch of ``np.where`` (masks.Mask).  Clean code (no
singular primitive upstream of the output) is generated as before.

Forward mode needs no such select: there the product's tangent is ``x_dot * 0`` = 0, and a
singular rule's tangent is already 0 where its operand's is (tangent_node.py, `held_still`).
"""

from __future__ import annotations

import ast
import copy
import math
import numbers

import numpy as np

from ..errors import SrcDiffError
from ..ir.flows import edges, reachable
from ..ir.nodes import Const, Function, Node, Var, all_nodes, operand_ast
from ..rules.structural import gradient_inputs
from .roots import even_sum_held
from .sweep import operand_shape


def slope_may_be_infinite(node: Node, param: str) -> bool:
    """Whether `param`'s slope can be infinite where the value is finite (`Rule.singular`): for
    a power's base with a constant exponent, only an exponent between 0 and 1 (``x ** 0.5``)."""
    if param not in getattr(node.rule, "singular", ()):
        return False
    exponent = dict(zip(node.rule.params, node.inputs)).get("y")
    if param == "x" and isinstance(exponent, Const) and isinstance(exponent.value, (int, float)):
        return 0 < exponent.value < 1  # (a negative power's value is infinite there too)
    return True


def non_finite_adjoints(function: Function, shape_of: dict, derivable: bool = False) -> frozenset[str]:
    """The values whose adjoint may be infinite or NaN where the function is finite: an operand
    of a singular rule at its singular parameter, and every value it is computed from.  In a
    gradient srcdiff differentiates again (`derivable`), also the operands whose adjoint is a
    kink's or a tie's (``np.abs``, ``np.maximum``, ``np.linalg.norm`` at 0): its derivative is
    NaN there (rules/kinks.py), which the next order must not multiply by a zero factor."""
    seeds = set()
    for node in all_nodes(function):
        kinked = kinked_params(node, shape_of) if derivable else ()
        seeds.update(operand.name for param, operand in zip(node.rule.params, node.inputs)
                     if isinstance(operand, Var) and (param in kinked or slope_may_be_infinite(node, param)))
    return _upstream(function, seeds)


def kinked_adjoints(function: Function) -> frozenset[str]:
    """In a gradient differentiated again, the values whose adjoint may be the NaN of one of its
    kinks or ties (``kink(...)``, ``tie(...)``: the norm of zeros, a tie of maximum), and every
    value they are computed from.  A constant zero factor before them gives an exact 0 there;
    a factor that moves keeps the honest NaN (`zero_factor`)."""
    seeds = {operand.name for node in all_nodes(function) if node.rule.name in _KINK_RULES
             for param, operand in zip(node.rule.params, node.inputs)
             if param in ("x", "y") and isinstance(operand, Var)}
    return _upstream(function, seeds)


def _upstream(function: Function, seeds: set[str]) -> frozenset[str]:
    """`seeds` and every value they are computed from."""
    if not seeds:
        return frozenset()
    return frozenset(reachable(edges(function, gradient_inputs), seeds, backwards=True))


def kinked_params(node: Node, shape_of: dict) -> set[str]:
    """The parameters whose derivable adjoint is a kink's or a tie's share (rules/kinks.py)."""
    rule = node.rule
    if getattr(rule, "derivable", None) is None:
        return set()
    operand_shapes = {p: operand_shape(v, shape_of) for p, v in zip(rule.params, node.inputs)}
    try:
        templates = rule.adjoints(node.static, operand_shapes, derivable=True)
    except SrcDiffError:
        return set()
    return {param for param, template in templates.items()
            if any(isinstance(n, ast.Name) and n.id in _KINKS for n in ast.walk(template))}


#: the helpers whose derivative is NaN at a kink or a tie (rules/kinks.py)
_KINKS = {"kink", "tie"}
#: their rules (rules/generated_code.py), met where a derivable gradient is differentiated again
_KINK_RULES = {"srcdiff.rules.kinks.kink", "srcdiff.rules.kinks.tie"}


def zero_factor(node: Node, param: str, sweep):
    """The operand of `node` whose value 0 makes `param`'s contribution exactly 0 (``y`` in
    ``x * y``), when the contribution can meet a non-finite adjoint: an `ast.expr` to test, or
    None.  A constant factor that is nowhere 0 needs no test; ``ZERO`` when it is 0 everywhere.

    In a gradient srcdiff differentiates again (`Sweep.derivable`), only a factor that carries
    no gradient: a select's derivative is 0, right where the factor stays 0 near the point (a
    mask, a scale), wrong where it moves (``np.maximum(x * x, 0)`` at 0: the Hessian is 2);
    there the product keeps its honest NaN, as a tie that may end does (rules/kinks.py)."""
    factors = getattr(node.rule, "zero_factors", None) or {}
    if param not in factors or node.out.name not in sweep.non_finite:
        return None
    other = node.inputs[node.rule.params.index(factors[param])]
    if (sweep.derivable or node.out.name in sweep.kinked) and isinstance(other, Var) and other.name in sweep.active:
        return None
    if isinstance(other, Const):
        value = other.value
        if isinstance(value, numbers.Number) and not isinstance(value, bool):
            return ZERO if value == 0 else None
        if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
            return None if np.all(value != 0) else ZERO if not np.any(value) else _is_zero(operand_ast(other), False)
        return None
    test = _is_zero(operand_ast(other), operand_shape(other, sweep.shapes).scalar)
    own = node.inputs[node.rule.params.index(param)]
    if isinstance(other, Var) and other.name in sweep.active and isinstance(own, Var) and own != other:
        # (a square ``x * x`` keeps the select: under a root of a sum it is a norm's kink, whose
        # convention is 0, as ``np.linalg.norm``'s; a root of the square alone is ad/roots.py's)
        # both factors move with the input: where both are 0 the product is stationary, not held
        # (``np.cbrt(x * x * x)`` is x), and the rule-by-rule NaN is kept there
        return _and_not_zero(test, operand_ast(own), operand_shape(own, sweep.shapes).scalar
                             and operand_shape(other, sweep.shapes).scalar)
    return test


def _and_not_zero(test: ast.expr, own: ast.expr, scalar: bool) -> ast.expr:
    """`test` and `own` is not 0: ``not y and x != 0.0``, ``np.logical_and(np.equal(y, 0.0), np.not_equal(x, 0.0))``."""
    if scalar:
        return ast.BoolOp(ast.And(), [test, ast.Compare(own, [ast.NotEq()], [ast.Constant(0.0)])])
    np_ = ast.Name("np", ast.Load())
    moving = ast.Call(ast.Attribute(np_, "not_equal", ast.Load()), [own, ast.Constant(0.0)], [])
    return ast.Call(ast.Attribute(np_, "logical_and", ast.Load()), [test, moving], [])


#: a constant factor that is 0 everywhere: the operand's contribution is dropped
ZERO = object()

#: singular rules whose value is finite at their point of infinite slope, the edge of their domain
_EDGE_SINGULAR = {"numpy.sqrt", "math.sqrt", "numpy.power", "operator.pow", "numpy.float_power", "numpy.arcsin",
                  "numpy.arccos", "numpy.arccosh", "math.asin", "math.acos", "math.acosh"}
_POWERS = {"numpy.power", "operator.pow", "numpy.float_power"}


def vanishing_adjoints(function: Function) -> frozenset[str]:
    """The values raised to a constant power above 1 (``r ** 3``, ``np.square(r)``, ``r * r``):
    their adjoint is exactly 0 where they are (`held_by_zero_adjoint`).  Only where the power of
    the root, p m (m the least power r is raised to, p the root's: 1/2 for ``np.sqrt`` and the
    arcs), is above 1, so that ``u ** (p m)`` has the slope 0 at u = 0 however u moves:
    ``np.sqrt(s) ** 2`` is s (slope 1 at s = 0, one-sided), ``(u ** 0.25) ** 2`` is sqrt(u)
    (slope infinite), and keep their NaN; a root of a sum of squares (`_distances`) is held
    whatever its power, since its radicand is stationary there."""
    raised: dict[str, float] = {}
    for node in all_nodes(function):
        first = node.inputs[0] if node.inputs else None
        if not isinstance(first, Var):
            continue
        name = node.rule.name
        exponent = node.inputs[1] if len(node.inputs) > 1 else None
        if name in _POWERS and isinstance(exponent, Const) and isinstance(exponent.value, (int, float)) \
                and not isinstance(exponent.value, bool) and exponent.value > 1:
            raised[first.name] = min(raised.get(first.name, math.inf), exponent.value)
        elif name == "numpy.square" or name == "operator.mul" and exponent == first:
            raised[first.name] = min(raised.get(first.name, math.inf), 2.0)
    for node in all_nodes(function):
        if node.out.name not in raised:
            continue
        if node.rule.name not in _EDGE_SINGULAR:  # (no hold: `held_by_zero_adjoint` holds roots and arcs)
            del raised[node.out.name]
            continue
        p = 0.5  # a square root, or an arc whose slope at the edge is a square root's
        if node.rule.name in _POWERS:
            p = node.inputs[1].value if len(node.inputs) > 1 and isinstance(node.inputs[1], Const) else None
        if not isinstance(p, (int, float)) or p * raised[node.out.name] <= 1.0:
            del raised[node.out.name]
    return frozenset(set(raised) | _distances(function) | _log_sums(function))


_SQUARES_SUMMED = {"numpy.sum", "operator.add", "numpy.add"}
_ROOTS = {"numpy.sqrt", "math.sqrt"}


def _distances(function: Function) -> set[str]:
    """The roots of sums of squares (``np.sqrt(np.sum(d ** 2, axis=-1))``, ``np.sqrt(d @ d)``,
    ``math.sqrt(a * a + b * b)``): a distance whose adjoint is 0 where it is 0 (a Matérn
    kernel's ``k'(0) = 0`` on the diagonal of pairwise distances) passes nothing on
    (`held_by_zero_adjoint`): the sum of squares is at its minimum there."""
    made = _made(function)

    def square(v, depth=0) -> bool:
        node = made.get(v.name) if isinstance(v, Var) else None
        if node is None or depth > 8:
            return False
        name, ins = node.rule.name, node.inputs
        if name in _POWERS:
            return len(ins) > 1 and isinstance(ins[1], Const) and ins[1].value == 2
        if name == "numpy.square" or name in ("operator.mul", "numpy.multiply"):
            return name == "numpy.square" or (len(ins) > 1 and ins[0] == ins[1])
        if name in ("operator.matmul", "numpy.dot", "numpy.vdot", "numpy.inner"):
            return len(ins) > 1 and ins[0] == ins[1]
        if name in _SQUARES_SUMMED:
            return all(square(a, depth + 1) for a in ins[:1 if name == "numpy.sum" else 2])
        return False

    return {node.out.name for node in made.values() if node.rule.name in _ROOTS and square(node.inputs[0])}


#: rules whose value is 0 only where their slope is 0 too (exp's at -inf, a square's at 0)
_EXPS = {"numpy.exp", "numpy.exp2", "math.exp"}
_SUMMED = {"numpy.sum", "numpy.mean", "operator.add", "numpy.add"}
_LOGS = {"numpy.log", "numpy.log2", "numpy.log10", "math.log"}


def _made(function: Function) -> dict:
    return {node.out.name: node for node in all_nodes(function) if isinstance(getattr(node, "out", None), Var)}


def _log_sums(function: Function) -> set[str]:
    """The logs of sums of exponentials (``np.log(np.sum(np.exp(v - m), axis=0))``, a logsumexp by
    hand): where the sum is 0 (a column all log 0, -inf), each exponential is 0 and so is its slope,
    so the sum stands still there; a log 0 (-inf) whose adjoint is 0 there (what reads it next is
    another exponential, 0 at -inf) passes nothing on (`held_by_zero_adjoint`), not ``0 / 0``."""
    made = _made(function)

    def exps(v, depth=0) -> bool:
        node = made.get(v.name) if isinstance(v, Var) else None
        if node is None or depth > 8 or not node.inputs:
            return False
        name = node.rule.name
        if name in _EXPS:
            return True
        return name in _SUMMED and all(exps(a, depth + 1) for a in node.inputs[:1 if "add" not in name else 2])

    return {node.out.name for node in made.values() if node.rule.name in _LOGS and len(node.inputs) == 1
            and exps(node.inputs[0])}


def held_by_zero_adjoint(node: Node, param: str, contribution: ast.expr, g: ast.expr, sweep) -> ast.expr:
    """`contribution` where the output's adjoint `g` is not 0, an exact 0.0 where it is, for an
    operand at a point of infinite slope whose output is raised to a power above 1
    (``np.sqrt(np.sum(x * x)) ** 3`` at x = 0: ``0 / 0``).  The point is the edge of the
    primitive's domain, so where f has a derivative at all, the operand is at a minimum and
    moves by O(h ** 2): a zero adjoint of the output makes the path's share exactly 0.  Not in
    a gradient srcdiff differentiates again (in the derivable code vmap batches, `Sweep.once`, it is):
    the select's derivative would be 0 where the true
    second derivative is not (``np.sqrt(u) ** 2`` is u)."""
    if not sweep.derivable and sweep.roots is not None and node.id in sweep.roots.of_even_sums \
            and param == node.rule.params[0]:
        result = sweep.shapes.get(node.out.name)
        return even_sum_held(contribution, node, result is not None and result.known and result.scalar)
    # (a log of a sum of exponentials is held at every order: where the sum is 0 it stands still, so
    # the contribution is 0 nearby, and so is the select's derivative)
    if (sweep.derivable and not sweep.once and node.rule.name not in _LOGS) or node.out.name not in sweep.vanishing \
            or node.rule.name not in _EDGE_SINGULAR | _LOGS or not slope_may_be_infinite(node, param):
        return contribution
    result = sweep.shapes.get(node.out.name)
    scalar = result is not None and result.known and result.scalar
    if node.rule.name in _LOGS and sweep.derivable and not sweep.once:
        return contribution if scalar else _divided_where_still(contribution, node.inputs[0], g)
    if scalar:
        return ast.IfExp(ast.Compare(g, [ast.Eq()], [ast.Constant(0.0)]), ast.Constant(0.0), contribution)
    return ast.Call(ast.Name("held_still", ast.Load()), [contribution, g], [])


def _divided_where_still(contribution: ast.expr, operand: Var, g: ast.expr) -> ast.expr:
    """A log's ``g / x`` with x read as 1.0 where both x and g are 0 (a sum of exponentials standing
    still at 0, `_log_sums`): 0 there, in a gradient differentiated again.  Not ``held_still(g / x, g)``,
    whose derivative in its direction is NaN where g is 0 (it cannot tell that g stands still), nor a hold
    by x: the selection's derivative in x is 0 there (the constant branch), and x's own slope is 0 too."""
    np_ = ast.Name("np", ast.Load())

    def equal_zero(e):
        return ast.Call(ast.Attribute(np_, "equal", ast.Load()), [e, ast.Constant(0.0)], [])

    read = ast.Name(operand.name, ast.Load())
    both = ast.Call(ast.Attribute(np_, "logical_and", ast.Load()), [equal_zero(read), equal_zero(copy.deepcopy(g))], [])
    where = ast.Call(ast.Attribute(np_, "where", ast.Load()), [both, ast.Constant(1.0), copy.deepcopy(read)], [])

    class Swap(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            return copy.deepcopy(where) if name.id == operand.name else name

    return Swap().visit(copy.deepcopy(contribution))


def _is_zero(e: ast.expr, scalar: bool) -> ast.expr:
    """``not e`` for a Python float (scalar code stays off NumPy), ``np.equal(e, 0.0)``
    for an array: not ``e == 0.0``, which a derivable gradient read back would take for a guard
    of the point e = 0 (lower/point_guards.py)."""
    if scalar:
        return ast.UnaryOp(ast.Not(), e)
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "equal", ast.Load()), [e, ast.Constant(0.0)], [])


__all__ = ["ZERO", "held_by_zero_adjoint", "kinked_adjoints", "kinked_params", "non_finite_adjoints",
           "slope_may_be_infinite", "vanishing_adjoints", "zero_factor"]
