"""An adjoint that stands still: a zero cotangent before a point of infinite slope gives 0.

``np.sum(np.sqrt(x)[1:])`` or ``np.sum(W * np.sqrt(x))`` with ``W[0] == 0`` at ``x[0] == 0``: the
adjoint flowing into ``np.sqrt`` is 0 there, and its rule's ``g / (2 * ans)`` makes ``0 / 0`` =
NaN, where the true derivative is 0 (f does not depend on ``x[0]``).  A zero adjoint gives an exact
0 through an infinite local slope when it *stands still*: where it stays 0 as the primitive's value
moves, f is constant along that value near the point.  It does not where it moves with the value:
``np.sqrt(x) ** 2`` (the adjoint ``2 sqrt(x)`` is 0 at 0, yet f = x has the slope 1) and
``np.sqrt(x) * np.sqrt(x)`` keep their honest NaN.

So a primitive's output is *still* (`still_adjoints`) when its adjoint is computed from no value that
a primitive of possibly infinite slope computed (``np.sqrt``, ``np.arcsin``, ``x ** 0.5``, ``np.log``,
``1 / x``: `may_blow_up`), nor from a value computed from one: the adjoint is then a locally
Lipschitz function of the input that is 0 at the point, and its product with a slope of order
``h ** -p`` (p < 1, the edge of a root's domain) or with an infinite value that the output leaves
unused tends to 0.  At first order only primitives whose value is finite there are held
(`finite_there`: roots, arcsin at 1): after ``np.log`` or ``1 / x`` at 0 a zero factor leaves f NaN
anyway, and an element a slice leaves out has its use mask (ad/unused_elements.py), so code with
logs and divisions (a cross-entropy, a logsumexp) is generated as before.  In a gradient srcdiff
differentiates again, every such primitive is held (its code divides by the root), and the adjoint
must read no value that depends on a differentiated input at all, so the select's derivative, 0
where the adjoint is 0, is the true one: a zero that moves, even at second order only (``x[1] ** 2
* np.sqrt(x[0])`` at ``x = 0``, whose adjoint ``x[1] ** 2`` has the tangent 0 there), leaves no
derivative along x[1] (``x[1] ** 2 * inf``), which a select keyed on the tangent would call 0.

The adjoint of a value reads, for each primitive downstream of it, what that primitive's adjoint
template reads besides the adjoint: nothing for a linear rule (a sum, a slice, a reshape), the other
factor of a product, every operand and the result otherwise.  A value that leaves for a branch's
merge or a loop's carry, or a call's result, keeps the rule-by-rule code.
"""

from __future__ import annotations

import ast

from ..errors import SrcDiffError
from ..ir.flows import edges, reachable
from ..ir.nodes import Block, Branch, Const, Function, Loop, Node, UserCall, Var, all_nodes
from ..ir.shapes import alike
from ..rules.structural import gradient_inputs
from ..rules.table import LINEAR
from .sweep import operand_shape
from .zero_factors import slope_may_be_infinite

#: rules whose operand's slope is infinite where their value is: ``y`` in ``x / y``, ``1 / x``
_DIVISIONS = {"operator.truediv": "y", "numpy.divide": "y", "numpy.true_divide": "y", "numpy.reciprocal": "x"}
_POWERS = {"numpy.power", "operator.pow", "numpy.float_power"}
#: calls of a template that read their operand's shape only
_SHAPE_READS = {"shape", "size", "ndim", "len", "zeros_like", "ones_like", "full_like", "empty_like"}


#: primitives whose value is finite where their slope is infinite (the edge of a root's domain); the
#: others (``np.log``, ``1 / x``) are infinite there, so a zero factor after them makes f NaN anyway
_FINITE_THERE = {"numpy.sqrt", "math.sqrt", "numpy.cbrt", "numpy.power", "operator.pow", "numpy.float_power",
                 "numpy.arcsin", "numpy.arccos", "numpy.arccosh", "math.asin", "math.acos", "math.acosh"}


def finite_there(node: Node, param: str) -> bool:
    """Whether `param`'s slope may be infinite where `node`'s value is finite (``np.sqrt`` at 0,
    ``x ** 0.5``, ``np.arcsin`` at 1): a zero adjoint there is worth holding."""
    return node.rule.name in _FINITE_THERE and slope_may_be_infinite(node, param)


def may_blow_up(node: Node, param: str) -> bool:
    """Whether `param`'s local slope can be infinite at some point: `Rule.singular` (``np.sqrt`` at 0,
    ``x ** p`` with 0 < p < 1, ``np.log`` at 0), a divisor, ``x ** p`` with p < 0."""
    if slope_may_be_infinite(node, param):
        return True
    name = node.rule.name
    if _DIVISIONS.get(name) == param:
        return True
    if name in _POWERS and param == "x" and len(node.inputs) > 1:
        exponent = node.inputs[1]
        return not isinstance(exponent, Const) or not isinstance(exponent.value, (int, float)) or exponent.value < 0
    return False


def still_adjoints(function: Function, shape_of: dict, active: set[str], derivable: bool) -> frozenset[str]:
    """The outputs of primitives of possibly infinite slope (`may_blow_up`) whose adjoint stands
    still (module docstring): their contribution is held at 0 where the adjoint is 0."""
    nodes = [n for n in all_nodes(function) if isinstance(getattr(n, "out", None), Var)]
    singular = [n for n in nodes if any(isinstance(v, Var) and v.name in active and may_blow_up(n, p)
                                        for p, v in zip(n.rule.params, n.inputs))]
    # first order holds only where the value is finite (a zero factor after ``np.log`` at 0 makes f
    # NaN anyway), so smooth code with logs and divisions stays as it was
    eligible = may_blow_up if derivable else finite_there
    if not any(eligible(n, p) for n in singular for p in n.rule.params):
        return frozenset()
    users: dict[str, list[Node]] = {}
    for n in nodes:
        for v in n.input_vars:
            users.setdefault(v.name, []).append(n)
    seeds = {n.out.name for n in singular} | {n.out.name for n in nodes if isinstance(n, UserCall)}
    tainted = reachable(edges(function, gradient_inputs), seeds)
    if derivable:  # (a select's derivative is 0 where its adjoint is 0: only right where that stays 0)
        tainted |= set(active)
    escapes = region_values(function.body)
    still: set[str] = set()
    for n in reversed(singular):  # the ones downstream first: a held contribution reads only its adjoint
        reached = _downstream({n.out.name}, users)
        readers = {id(u): u for r in reached for u in users.get(r, ())}.values()
        if reached.isdisjoint(escapes) and not any(read in tainted for user in readers
                                                   for read in _reads(user, reached, shape_of, still, eligible)) \
                and any(eligible(n, p) for p in n.rule.params):
            still.add(n.out.name)
    return frozenset(still)


def blown_values(function: Function, active: set[str]) -> frozenset[str]:
    """The values whose tangent may be infinite where they are finite: those computed from a
    primitive whose slope may be infinite where its value is finite (`finite_there`: a root at the edge of
    its domain; ``np.log`` at 0 is infinite itself, so a zero factor after it leaves f NaN anyway) at an
    operand that carries a tangent, or from a call.
    Forward mode holds a product's term ``x_dot * y`` at 0 where ``y``, computed from none of them,
    is 0 (``W * np.sqrt(x)`` with ``W[0] == 0`` at ``x[0] == 0``): y is then a locally Lipschitz
    function of the input, 0 at the point, and the product moves by O(h) times a root's
    O(h ** p), p > 0, or not at all (tangent_node.py)."""
    seeds = {n.out.name for n in all_nodes(function) if isinstance(getattr(n, "out", None), Var)
             and (isinstance(n, UserCall) or any(isinstance(v, Var) and v.name in active and finite_there(n, p)
                                                 for p, v in zip(n.rule.params, n.inputs)))}
    return frozenset(reachable(edges(function, gradient_inputs), seeds)) if seeds else frozenset()


def _downstream(seeds: set[str], users: dict) -> set[str]:
    """`seeds` and every value computed from one of them through a gradient (a shape, a comparison
    reads no slope: a mask is constant near the point, as a branch of ``np.where`` is)."""
    found, todo = set(seeds), list(seeds)
    while todo:
        for user in users.get(todo.pop(), ()):
            if user.out.name not in found and not getattr(user.rule, "nograd", False):
                found.add(user.out.name)
                todo.append(user.out.name)
    return found


def region_values(block: Block) -> set[str]:
    """The values that leave a node for a branch's merge or a loop's carry: their adjoint comes
    through the region, which the walk over nodes does not read."""
    found = set()
    for item in block.nodes:
        if isinstance(item, Branch):
            found |= region_values(item.body) | region_values(item.orelse)
            found |= {v.name for m in item.merges for v in (m.body, m.orelse) if isinstance(v, Var)}
        elif isinstance(item, Loop):
            found |= region_values(item.body)
            found |= {v.name for c in item.carried for v in (c.init, c.final, c.var) if isinstance(v, Var)}
    return found


def _reads(node: Node, reached: set[str], shape_of: dict, still: set[str], eligible=may_blow_up) -> set[str]:
    """The values `node`'s adjoints for its operands in `reached` read besides their adjoint (none
    for a contribution held at 0 where a still adjoint is 0: `held_if_still`)."""
    everything = {v.name for v in node.input_vars} | {node.out.name}
    rule = node.rule
    if isinstance(node, UserCall):
        return everything
    if getattr(rule, "nograd", False) or getattr(rule, "tangents", None) == LINEAR:  # (nothing flows back)
        return set()
    shapes = {p: operand_shape(v, shape_of) for p, v in zip(rule.params, node.inputs)}
    try:
        templates = rule.adjoints(node.static, shapes, derivable=False)
    except (SrcDiffError, TypeError, KeyError, AttributeError):
        return everything
    bound = dict(zip(rule.params, node.inputs))
    found = set()
    for param, operand in bound.items():
        if not (isinstance(operand, Var) and operand.name in reached) \
                or _held(node, param, shapes, shape_of, still, eligible):
            continue
        template = templates.get(param)
        if not isinstance(template, ast.AST):
            return everything
        for name in _value_names(template):
            if name == "ans":
                found.add(node.out.name)
            elif isinstance(bound.get(name), Var):
                found.add(bound[name].name)
    return found


def _held(node: Node, param: str, operand_shapes: dict, shape_of: dict, still: set[str], eligible=may_blow_up) -> bool:
    """Whether `held_if_still` holds `param`'s contribution where the adjoint of `node` is 0."""
    if node.out.name not in still or not eligible(node, param):
        return False
    result = shape_of.get(node.out.name)
    own = operand_shapes[param]
    return result is not None and result.known and (node.rule.elementwise or alike(own, result))


def _value_names(template: ast.AST) -> set[str]:
    """The names `template` reads as values (not only for their shape: ``np.shape(x)``, ``zeros_like(x)``)."""
    shape_only = set()
    for node in ast.walk(template):
        if isinstance(node, ast.Call):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if func in _SHAPE_READS:
                shape_only.update(id(a) for a in node.args)
            elif func == "unbroadcast" and len(node.args) > 1:
                shape_only.add(id(node.args[1]))
        elif isinstance(node, ast.Attribute) and node.attr in ("shape", "size", "ndim", "dtype"):
            shape_only.add(id(node.value))
    return {node.id for node in ast.walk(template) if isinstance(node, ast.Name) and id(node) not in shape_only}


def held_if_still(node: Node, param: str, contribution: ast.expr, g: ast.expr, sweep) -> ast.expr:
    """`contribution` where the output's adjoint `g` is not 0, an exact 0.0 where it is, for an
    operand of possibly infinite slope whose output's adjoint stands still (`still_adjoints`).
    Arrays pay one finite test of the sum (`held_still`); the select goes inside the sum back over
    broadcast axes (``unbroadcast``), where `g` and the contribution have one shape."""
    operand_shapes = {p: operand_shape(v, sweep.shapes) for p, v in zip(node.rule.params, node.inputs)}
    eligible = may_blow_up if sweep.derivable else finite_there
    if not _held(node, param, operand_shapes, sweep.shapes, sweep.still, eligible):
        return contribution
    result = sweep.shapes.get(node.out.name)
    if result is not None and result.known and result.scalar and not sweep.derivable:
        return ast.IfExp(ast.Compare(g, [ast.Eq()], [ast.Constant(0.0)]), ast.Constant(0.0), contribution)
    if isinstance(contribution, ast.Call) and getattr(contribution.func, "id", None) == "unbroadcast" \
            and contribution.args:
        held = ast.Call(ast.Name("held_still", ast.Load()), [contribution.args[0], g], [])
        return ast.Call(contribution.func, [held, *contribution.args[1:]], contribution.keywords)
    if result is None or not alike(operand_shapes[param], result):  # (then a NaN stays NaN: never a wrong number)
        return contribution
    return ast.Call(ast.Name("held_still", ast.Load()), [contribution, g], [])


__all__ = ["blown_values", "finite_there", "held_if_still", "may_blow_up", "region_values", "still_adjoints"]
