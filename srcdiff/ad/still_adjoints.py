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
merge or a loop's carry is followed into what the region passes it to (`region_edges`: ``s += W[i] *
math.sqrt(x[i])`` in a loop is held where its weight is 0); a call's result keeps the rule-by-rule code.
"""

from __future__ import annotations

import ast

from ..errors import SrcDiffError
from ..ir.flows import edges, reachable
from ..ir.nodes import Block, Branch, Const, Function, Loop, Node, UserCall, Var, all_nodes
from ..ir.shapes import alike
from ..rules.structural import APPEND, gradient_inputs
from ..rules.table import LINEAR
from .sweep import operand_shape
from .zero_factors import slope_may_be_infinite

#: rules whose operand's slope is infinite where their value is: ``y`` in ``x / y``, ``1 / x``
_DIVISIONS = {"operator.truediv": "y", "numpy.divide": "y", "numpy.true_divide": "y", "numpy.reciprocal": "x"}
_POWERS = {"numpy.power", "operator.pow", "numpy.float_power"}
#: calls of a template that read their operand's shape only
_SHAPE_READS = {"shape", "size", "ndim", "len", "zeros_like", "ones_like", "full_like", "empty_like"}
#: runtime helpers that read one argument for its shape only: the operand an adjoint is summed back to,
#: a product's adjoint for the operand it is for (``dot_adjoint_y(g, W, y)`` reads y's ndim, not y)
_SHAPE_ARGS = {"unbroadcast": 1, "dot_adjoint_x": 1, "matmul_adjoint_x": 1, "dot_adjoint_y": 2, "matmul_adjoint_y": 2}


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


def eligibility(derivable: bool, held: frozenset = frozenset()):
    """Which contributions a still adjoint holds: in a gradient differentiated again every one of possibly
    infinite slope (`may_blow_up`); at first order only where the value is finite (`finite_there`: a zero
    factor after ``np.log`` at 0 makes f NaN anyway, so smooth code with logs and divisions stays as it
    was), or where the value's every path ends in a hold (`held`: a generated gradient's ``g / (2 * r)``
    in ``held_still(g / (2 * r), g)``, whose NaN f drops)."""
    if derivable:
        return may_blow_up
    if not held:
        return finite_there
    return lambda node, param: finite_there(node, param) or node.out.name in held and may_blow_up(node, param)


def still_adjoints(function: Function, shape_of: dict, active: set[str], derivable: bool,
                   held: frozenset = frozenset()) -> frozenset[str]:
    """The outputs of primitives of possibly infinite slope (`may_blow_up`) whose adjoint stands
    still (module docstring): their contribution is held at 0 where the adjoint is 0 (`eligibility`)."""
    nodes = [n for n in all_nodes(function) if isinstance(getattr(n, "out", None), Var)]
    singular = [n for n in nodes if any(isinstance(v, Var) and v.name in active and may_blow_up(n, p)
                                        for p, v in zip(n.rule.params, n.inputs))]
    eligible = eligibility(derivable, held)
    if not any(eligible(n, p) for n in singular for p in n.rule.params):
        return frozenset()
    users: dict[str, list[Node]] = {}
    for n in nodes:
        for v in n.input_vars:
            users.setdefault(v.name, []).append(n)
    seeds = {n.out.name for n in singular} | {n.out.name for n in nodes if isinstance(n, UserCall)}
    tainted = reachable(edges(function, value_inputs), seeds)
    if derivable:  # (a select's derivative is 0 where its adjoint is 0: only right where that stays 0)
        # (the values that move with a differentiated parameter's value, not its shape alone)
        tainted |= reachable(edges(function, value_inputs), {p.name for p in function.params} & active) & active
    passed = region_edges(function.body)
    still: set[str] = set()
    for n in reversed(singular):  # the ones downstream first: a held contribution reads only its adjoint
        reached = _downstream({n.out.name}, users, passed)
        readers = {id(u): u for r in reached for u in users.get(r, ())}.values()
        if not any(read in tainted for user in readers for read in _reads(user, reached, shape_of, still, eligible)) \
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


def value_inputs(node: Node) -> list:
    """The operands whose gradient reaches `node`'s result and that it reads by value, not for their
    shape alone (``unbroadcast(g, x)`` is as constant as g near a point where x is not)."""
    found = gradient_inputs(node)
    return [v for p, v in zip(node.rule.params, node.inputs) if v in found and p not in node.rule.shape_only]


def _downstream(seeds: set[str], users: dict, passed: dict | None = None) -> set[str]:
    """`seeds` and every value computed from one of them through a gradient (a shape, a comparison
    reads no slope: a mask is constant near the point, as a branch of ``np.where`` is), also through
    a region (`region_edges`: a loop's carry, a branch's merge)."""
    found, todo = set(seeds), list(seeds)
    while todo:
        name = todo.pop()
        for out in [u.out.name for u in users.get(name, ()) if any(v.name == name for v in value_inputs(u))] \
                + list((passed or {}).get(name, ())):
            if out not in found:
                found.add(out)
                todo.append(out)
    return found


def region_edges(block: Block) -> dict[str, set[str]]:
    """name -> the values a region passes it into: a loop's carried value from its start value and from
    the body's final one (read in the next iteration and after the loop), a branch's merged value from
    each side's.  The adjoint a region passes back is the one of what it passes into, accumulated by
    the readers of that value, so following these edges reads every rule the adjoint comes through."""
    found: dict[str, set[str]] = {}
    for item in block.nodes:
        if isinstance(item, (Branch, Loop)):
            for inner in (item.body, item.orelse) if isinstance(item, Branch) else (item.body,):
                for name, outs in region_edges(inner).items():
                    found.setdefault(name, set()).update(outs)
        pairs = [(v, m.out) for m in item.merges for v in (m.body, m.orelse)] if isinstance(item, Branch) else \
            [(v, c.var) for c in item.carried for v in (c.init, c.final)] if isinstance(item, Loop) else []
        for source, out in pairs:
            if isinstance(source, Var) and source.name != out.name:
                found.setdefault(source.name, set()).add(out.name)
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
    if getattr(rule, "nograd", False) or getattr(rule, "tangents", None) == LINEAR or rule is APPEND:
        return set()  # (nothing flows back, or the adjoint alone: an appended item's is the list's last one)
    shapes = {p: operand_shape(v, shape_of) for p, v in zip(rule.params, node.inputs)}
    try:
        templates = rule.adjoints(node.static, shapes, derivable=False)
    except (SrcDiffError, TypeError, KeyError, AttributeError):
        return everything
    bound = dict(zip(rule.params, node.inputs))
    found = set()
    for param, operand in bound.items():
        if not (isinstance(operand, Var) and operand.name in reached) or param in rule.shape_only \
                or _held(node, param, shapes, shape_of, still, eligible):
            continue  # (an operand read for its shape only, ``unbroadcast(g, x)``'s x, gets no adjoint)
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
            elif func in _SHAPE_ARGS and len(node.args) > _SHAPE_ARGS[func]:
                shape_only.add(id(node.args[_SHAPE_ARGS[func]]))
        elif isinstance(node, ast.Attribute) and node.attr in ("shape", "size", "ndim", "dtype"):
            shape_only.add(id(node.value))
    return {node.id for node in ast.walk(template) if isinstance(node, ast.Name) and id(node) not in shape_only}


def held_if_still(node: Node, param: str, contribution: ast.expr, g: ast.expr, sweep) -> ast.expr:
    """`contribution` where the output's adjoint `g` is not 0, an exact 0.0 where it is, for an
    operand of possibly infinite slope whose output's adjoint stands still (`still_adjoints`).
    Arrays pay one finite test of the sum (`held_still`); the select goes inside the sum back over
    broadcast axes (``unbroadcast``), where `g` and the contribution have one shape."""
    operand_shapes = {p: operand_shape(v, sweep.shapes) for p, v in zip(node.rule.params, node.inputs)}
    eligible = eligibility(sweep.derivable, sweep.held)
    if not _held(node, param, operand_shapes, sweep.shapes, sweep.still, eligible):
        return contribution
    result = sweep.shapes.get(node.out.name)
    if result is not None and result.known and result.scalar:  # (Python floats: 0.0 / 0.0 would raise)
        held = ast.IfExp(ast.Compare(g, [ast.Eq()], [ast.Constant(0.0)]), ast.Constant(0.0), contribution)
        # (differentiated again, the hold says that every path of the contribution's adjoint ends in it:
        # unused_elements.held_values, so the root before it is held in turn)
        return ast.Call(ast.Name("held_still", ast.Load()), [held, g], []) if sweep.derivable else held
    if isinstance(contribution, ast.Call) and getattr(contribution.func, "id", None) == "unbroadcast" \
            and contribution.args:
        held = ast.Call(ast.Name("held_still", ast.Load()), [contribution.args[0], g], [])
        return ast.Call(contribution.func, [held, *contribution.args[1:]], contribution.keywords)
    if result is None or not alike(operand_shapes[param], result):  # (then a NaN stays NaN: never a wrong number)
        return contribution
    return ast.Call(ast.Name("held_still", ast.Load()), [contribution, g], [])


__all__ = ["blown_values", "eligibility", "finite_there", "held_if_still", "may_blow_up", "region_edges",
           "region_values", "still_adjoints", "value_inputs"]
