"""Elements the output does not use, in a gradient srcdiff differentiates again.

``np.sum(np.abs(x)[1:] * x[1:])`` or ``np.sum(W * np.sqrt(x))`` with ``W[0] == 0``: the adjoint
flowing into ``np.abs`` / ``np.sqrt`` is 0 at element 0 whatever x is, because the slice leaves the
element out, or the constant factor is 0 there.  The derivable adjoint of such a primitive there is
0 and so is its derivative, but the rule-by-rule code says NaN: ``0 / (2 * 0)`` at sqrt's infinite
slope, and abs's ``kink(x == 0, ...)``, whose derivative is NaN at its kink whatever flows in.

A value's *use mask* (`use_masks`) is an expression that is 0 exactly where its adjoint is 0 by the
structure of the code, whatever the input: for a value read by one primitive only, a slice or an
index of it (``index_add(zeros_like(s), index, 1.0)``) or a product with a factor that does not
depend on a differentiated input (the factor).  It depends on no differentiated value, so a select
by it is exact at every order (`masked`): the contribution of a primitive of infinite slope is held
at 0 where the mask is (``held_still``), and a kink's condition holds only where the mask is not 0.
A value whose adjoint is 0 by the input's value (``x[1] * np.sqrt(x[0])`` at x[1] = 0) has no mask
and keeps the honest NaN.
"""

from __future__ import annotations

import ast
import copy

from ..ir.flows import edges, reachable
from ..ir.nodes import Branch, Const, Function, Global, Loop, Node, Var, all_nodes, operand_ast
from ..ir.shapes import alike
from ..rules.structural import GETITEM, gradient_inputs
from .static_index import index_value
from .still_adjoints import finite_there, held_if_still, may_blow_up, region_values
from .sweep import operand_shape
from .tangent_node import instantiate


def _users(nodes: list[Node]) -> dict[str, list[Node]]:
    """Each value's readers among `nodes` that carry a gradient."""
    users: dict[str, list[Node]] = {}
    for n in nodes:
        if not getattr(n.rule, "nograd", False):
            for v in set(v.name for v in n.input_vars):
                users.setdefault(v, []).append(n)
    return users


def use_masks(function: Function, shape_of: dict, active: set[str], seed: str | None = None) -> dict:
    """The values whose adjoint is 0 by the code's structure somewhere: name -> the use mask's
    expression (module docstring), found from the output back (a value read once, by a slice, a
    product with a constant, a sum, a select by a mask).  With `seed` (a pullback's cotangent, not
    differentiated: a Hessian's row by reverse over reverse), the output's mask is the seed."""
    nodes = [n for n in all_nodes(function) if isinstance(getattr(n, "out", None), Var)]
    active = _moving(function, active)
    users = _users([n for n in nodes if n.out.name in active])  # (an inactive result passes no adjoint back)
    escapes = region_values(function.body)
    output = function.output.name if isinstance(function.output, Var) else None
    looped = _looped(function.body)
    found: dict = {}
    if seed is not None and output is not None and output not in escapes:
        found[output] = ast.Name(seed, ast.Load())
    for n in reversed(nodes):
        name = n.out.name
        if name in escapes or name == output or name in found or not users.get(name):
            continue
        # read by several primitives: unused where each leaves it unused (`_either`)
        masks = [_mask(user, n.out, shape_of, active, found, id(user) in looped) for user in users[name]]
        if all(mask is not None for mask in masks):
            found[name] = masks[0] if len(masks) == 1 else _either(masks)
    return found


def _moving(function: Function, active: set[str]) -> set[str]:
    """The active values that depend on a differentiated parameter's value, not on its shape alone
    (``unbroadcast(t, x)``, a generated gradient's sum back to x's shape, is as constant as t), and
    whose value the output reads (a value read for its shape alone receives no adjoint)."""
    def inputs(node):
        return [v for p, v in zip(node.rule.params, node.inputs) if isinstance(v, Var) and v in gradient_inputs(node)
                and p not in node.rule.shape_only]
    params = {p.name for p in function.params} & active
    pairs = edges(function, inputs)
    found = reachable(pairs, params) & active
    output = function.output.name if isinstance(function.output, Var) else None
    return found & reachable(pairs, {output}, backwards=True) if output in found else found


def held_values(function: Function) -> frozenset[str]:
    """The values every path of whose adjoint ends in a hold (``held_still(value, direction)``, read
    by nothing else, or by primitives whose results are such values): a generated gradient's
    ``g / (2.0 * root)``, NaN where its hold's direction is 0, which the function's value drops.  A
    zero factor after them does not leave f NaN, so `masked` holds their contributions at first
    order too."""
    nodes = [n for n in all_nodes(function) if isinstance(getattr(n, "out", None), Var)]
    users = _users(nodes)
    found: set = set()
    for n in reversed(nodes):
        readers = users.get(n.out.name)
        if readers and all(u.out.name in found or u.rule.name == _HOLD and u.inputs[0] == n.out
                           and n.out not in u.inputs[1:] for u in readers):
            found.add(n.out.name)
    return frozenset(found)


_HOLD = "srcdiff.rules.kinks.held_still"
_SCATTER = "srcdiff.rules.runtime.index_add"
_UNBROADCAST = "srcdiff.rules.runtime.unbroadcast"
_SUMS = {"numpy.sum", "numpy.mean"}
_DOTS = {"numpy.dot", "numpy.vdot", "numpy.inner", "numpy.matmul", "operator.matmul"}
#: the helpers of a kink's or a tie's derivative, NaN where their condition (first argument) holds
_NAN_HELPERS = {"kink_nan", "tie_nan", "tie_still_nan"}
#: rules whose contribution to this operand divides by another (``g / y``): infinite where y is 0
_NUMERATORS = {"operator.truediv": "x", "numpy.divide": "x", "numpy.true_divide": "x"}


#: rules whose operand's adjoint is the result's, shaped alike
_PASSING = {"operator.add", "operator.sub", "operator.neg", "operator.pos", "numpy.add", "numpy.subtract",
            "numpy.negative", "numpy.positive", "copy", "numpy.asarray", "numpy.array", "numpy.asanyarray",
            "numpy.ascontiguousarray"}
#: a generated gradient's copy before a write in place: the same shape whether or not it is known
_COPY = "srcdiff.rules.runtime.copy_array"


def _looped(block) -> set[int]:
    """The ids of the nodes inside a loop's body (at any depth)."""
    found = set()
    for item in block.nodes:
        if isinstance(item, Loop):
            found |= {id(n) for n in all_nodes(item.body)}
        elif isinstance(item, Branch):
            found |= _looped(item.body) | _looped(item.orelse)
    return found


def _mask(user: Node, value: Var, shape_of: dict, active: set[str], found: dict, looped: bool) -> ast.expr | None:
    """The use mask of `value`, read by `user` alone, or None (`found`: the masks of values after it).
    An index read in a loop by a name (``logp[t]``, t the loop's counter) has no mask: the mask is
    computed after the loop, where the name holds its last value only, not every element read."""
    if looped and user.rule is GETITEM and any(isinstance(n, ast.Name) for n in ast.walk(user.expr.slice)):
        return None
    mask = _factor_mask(user, value, shape_of, active, found)
    if mask is None and user.rule.elementwise and user.rule.name != _HOLD:
        # an element of an elementwise primitive's result the output leaves unused leaves the operand's
        # element of the same shape unused (the contribution there is held: `masked`)
        own, out = operand_shape(value, shape_of), operand_shape(user.out, shape_of)
        after = found.get(user.out.name)
        if alike(own, out) or after is None:
            return after
        if own.known and out.known and own.ndim <= out.ndim:
            # broadcast into the result: unused where every element it reaches is
            return ast.Call(ast.Name("unbroadcast", ast.Load()), [_np("not_equal", after, ast.Constant(0.0)),
                                                                  ast.Name(value.name, ast.Load())], [])
    return mask


def _factor_mask(user: Node, value: Var, shape_of: dict, active: set[str], found: dict) -> ast.expr | None:
    """`_mask` by a slice or an index, an adjoint passed on as it is, or a constant factor."""
    after = found.get(user.out.name)
    params = [p for p, v in zip(user.rule.params, user.inputs) if v == value]
    own = operand_shape(value, shape_of)
    if user.rule is GETITEM:
        if user.inputs[0] != value or any(v.name in active for v in user.input_vars[1:]) or user.static.get("nested"):
            return None
        zeros = ast.Call(ast.Name("zeros_like", ast.Load()), [ast.Name(value.name, ast.Load())], [])
        return ast.Call(ast.Name("index_add", ast.Load()), [zeros, index_value(user.expr.slice),
                                                            after if after is not None else ast.Constant(1.0)], [])
    if user.rule.name == _SCATTER:
        return _scattered(user, params, value, active, after)
    whole_sum = user.rule.name in _SUMS and user.static.get("axis") is None and not user.static.get("where")
    if (user.rule.name == _UNBROADCAST and params == ["a"] or whole_sum) and after is not None:
        # (a's adjoint is the result's spread back over a's shape: ``g + zeros_like(a)``; so is a sum's
        # of every element: the bound of a clip summed back from its broadcast, np.mean's alike)
        if alike(own, operand_shape(user.out, shape_of)):
            return after
        zeros = ast.Call(ast.Name("zeros_like", ast.Load()), [ast.Name(value.name, ast.Load())], [])
        return ast.BinOp(_np("not_equal", after, ast.Constant(0.0)), ast.Add(), zeros)
    if user.rule.name == _COPY:
        return after
    if len(params) != 1 or not own.known:
        return None
    if user.rule.name in _DOTS:
        return _dotted(user, params[0], own, shape_of, active, after)
    factors = getattr(user.rule, "zero_factors", None) or {}
    if user.rule.name == _HOLD and params[0] == "a":
        # (zero where its direction is, the select's adjoint; srcdiff shapes the direction like a)
        factors = {"a": "direction"}
    elif not alike(operand_shape(user.out, shape_of), own):
        return None
    if user.rule.name == "numpy.where" and params[0] in ("x", "y"):
        # the branch np.where leaves: its condition is read for no slope (constant near the point, as a
        # still adjoint's mask is: still_adjoints._downstream), a generated gradient's ``g / d`` at d = 0
        condition = user.inputs[0]
        if not (isinstance(condition, Var) and condition.name not in active
                and alike(operand_shape(condition, shape_of), own)):
            return after
        picked = operand_ast(condition) if params[0] == "x" else _np("logical_not", operand_ast(condition))
        return picked if after is None else _both(picked, after)
    if user.rule.name in _PASSING:
        return after
    kept = _kept_side(user, params[0], shape_of)
    if kept is not None:
        return kept if after is None else _both(kept, after)
    if params[0] not in factors:
        return None
    other = user.inputs[user.rule.params.index(factors[params[0]])]
    if isinstance(other, Var) and other.name in active or not isinstance(other, (Var, Const, Global)):
        return after
    shape = operand_shape(other, shape_of)
    if not (shape.known and (shape.ndim == 0 or alike(shape, own))) and user.rule.name != _HOLD:
        return after
    return operand_ast(other) if after is None else _both(operand_ast(other), after)


def _dotted(user: Node, param: str, own, shape_of: dict, active: set[str], after: ast.expr | None):
    """`_mask` through the dot product of two vectors, the other one not moving (``np.dot(W, r)``):
    this one's adjoint is ``g * W``, unused where W is 0."""
    other = next((v for p, v in zip(user.rule.params, user.inputs) if p != param), None)
    if own.ndim != 1 or not isinstance(other, (Var, Const, Global)) or isinstance(other, Var) and other.name in active:
        return None
    if not alike(operand_shape(other, shape_of), own):
        if param != user.rule.params[-1] or after is not None:
            return None
        # (``W @ y`` with W a matrix, or of a shape told at run time, a module list's: y's element j is
        # unused where W's column j is all 0)
        name = ast.unparse(operand_ast(other))
        return ast.parse(f"np.sum(np.abs(np.reshape({name}, (-1, np.shape({name})[-1]))), axis=0)", mode="eval").body
    return operand_ast(other) if after is None else _both(operand_ast(other), after)


def _scattered(user: Node, params: list, value: Var, active: set[str], after: ast.expr | None) -> ast.expr | None:
    """`_mask` through ``index_add(base, index, value)`` (a generated gradient's ``x_bar[i] += v``, an
    ``np.add.at``): `base` is passed on as it is; `value` is unused where the positions it is added to
    are, its mask the result's read at the index (summed back over what it was broadcast into, by
    magnitude so that masks of opposite signs do not cancel)."""
    index = user.inputs[1]
    if after is None or params not in (["base"], ["value"]) or isinstance(index, Var) and index.name in active:
        return None
    if params == ["base"]:
        return after
    read = ast.Call(ast.Name("index_read", ast.Load()), [after, operand_ast(index)], [])
    return ast.Call(ast.Name("unbroadcast", ast.Load()), [_np("abs", read), ast.Name(value.name, ast.Load())], [])


def _kept_side(user: Node, param: str, shape_of: dict) -> ast.expr | None:
    """The condition of the side `user` keeps for its operand `param` (np.minimum's ``x <= y``, np.clip's
    inside, `Rule.selects`), or None: where it fails, the operand's adjoint is an exact 0 (the rule selects
    it), and it fails on an open set (a strict comparison of the operands), so a hold by it is exact at
    every order though it reads a differentiated value."""
    shapes = {p: operand_shape(v, shape_of) for p, v in zip(user.rule.params, user.inputs)}
    selection = user.rule.selection(param, user.static, shapes)
    if selection is None:
        return None
    bindings = {p: operand_ast(v) for p, v in zip(user.rule.params, user.inputs)}
    bindings.update({k: ast.Constant(v) for k, v in user.static.items()})
    condition = instantiate(selection[0], bindings)
    return condition if selection[1] else _np("logical_not", condition)


def _shaped_like_value(contribution: ast.expr, node: Node, param: str, sweep) -> bool:
    """Whether `contribution`'s conditions may be masked by the value's use mask: the operand is shaped
    like the value, or unknown, or the contribution is summed back over broadcast axes
    (``unbroadcast(...)``, its conditions shaped like the value)."""
    if isinstance(contribution, ast.Call) and getattr(contribution.func, "id", None) == "unbroadcast":
        return True
    own = operand_shape(node.inputs[node.rule.params.index(param)], sweep.shapes)
    out = operand_shape(node.out, sweep.shapes)
    return not (own.known and out.known) or alike(own, out)


def _by_index(mask: ast.expr) -> bool:
    """Whether `mask` is a slice's or an index's alone (``index_add(zeros_like(s), index, 1.0)``)."""
    return isinstance(mask, ast.Call) and getattr(mask.func, "id", None) == "index_add" \
        and isinstance(mask.args[2], ast.Constant)


def _both(a: ast.expr, b: ast.expr) -> ast.expr:
    """Not 0 where neither mask is: ``np.logical_and(np.not_equal(a, 0.0), np.not_equal(b, 0.0))``
    (a number that is not 0, a constant factor, leaves the other mask as it is)."""
    if _nonzero_number(a) or _nonzero_number(b):
        return b if _nonzero_number(a) else a
    return _np("logical_and", _np("not_equal", a, ast.Constant(0.0)), _np("not_equal", b, ast.Constant(0.0)))


def _nonzero_number(mask: ast.expr) -> bool:
    value = mask.value if isinstance(mask, ast.Constant) else None
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value != 0


def _either(masks: list) -> ast.expr:
    """Not 0 where some mask is not: ``np.logical_or(np.not_equal(a, 0.0), ...)``."""
    found = _np("not_equal", masks[0], ast.Constant(0.0))
    for mask in masks[1:]:
        found = _np("logical_or", found, _np("not_equal", mask, ast.Constant(0.0)))
    return found


def _np(name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), list(args), [])


def held_at_zero(node: Node, param: str, contribution: ast.expr, g: ast.expr, sweep) -> ast.expr:
    """`contribution` held at 0 where the adjoint `g` stands still at 0 (still_adjoints.py) or where the
    use mask is 0 (`masked`): one hold at first order, both in a gradient differentiated again."""
    held = held_if_still(node, param, contribution, g, sweep)
    if sweep.used and (held is contribution or sweep.derivable):
        held = masked(held, node, param, sweep)
    return held


def _unbounded_factor(node: Node, param: str, sweep) -> bool:
    """Whether `param`'s contribution is the adjoint times another operand that may be infinite
    (ad/unbounded_values.py): a product's other factor (`Rule.zero_factors`)."""
    factors = getattr(node.rule, "zero_factors", None) or {}
    other = factors.get(param)
    if other is None or not sweep.unbounded:
        return False
    operand = node.inputs[node.rule.params.index(other)]
    return isinstance(operand, Var) and operand.name in sweep.unbounded


def masked(contribution: ast.expr, node: Node, param: str, sweep) -> ast.expr:
    """In a gradient differentiated again, `contribution` held at 0 where the use mask of `node`'s
    value is 0 (`use_masks`): inside the sum back over broadcast axes for a slope that may be
    infinite, and a kink's condition (``kink(x == 0, ...)``) kept only where the mask is not 0."""
    mask = sweep.used.get(node.out.name)
    if mask is None:
        return contribution

    # a copy where it is emitted, only there: masks share subexpressions (`_either`, `_both`), and a later
    # pass that rewrites an emitted statement in place (adjoints._shared) must not reach into another
    # statement emitted before it; the mask of a value deep in an unrolled loop is as deep as the loop, and
    # most contributions emit none of it
    def nonzero():
        return _np("not_equal", copy.deepcopy(mask), ast.Constant(0.0))

    shaped = _shaped_like_value(contribution, node, param, sweep)
    if not (shaped or node.rule.elementwise):
        return contribution  # (a reduction's operand, ``x.std(axis=1)``: the mask is shaped like its result)
    # (an elementwise rule's kink and tie helpers are shaped like its value, before a number's share, np.clip's
    # bound, is summed back over the broadcast)
    for call in ast.walk(contribution):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "kink" and call.args:
            call.args[0] = _np("logical_and", call.args[0], nonzero())
            return contribution
    # the derivative of a kink or a tie (NaN where it holds): 0 where the value's adjoint is 0 whatever
    # the input (a Hessian's column by reverse over reverse: the cotangent of another row), since
    # nothing the output computes reads the share there
    nans = [call for call in ast.walk(contribution) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id in _NAN_HELPERS and call.args]
    for call in nans:
        call.args[0] = _np("logical_and", call.args[0], nonzero())
    if nans or not shaped:
        return contribution
    if _unbounded_factor(node, param, sweep):
        pass  # (a product with a factor that may be infinite: ``0 * inf`` where the mask is 0)
    elif not (may_blow_up(node, param) or _NUMERATORS.get(node.rule.name) == param) \
            or not sweep.derivable and not finite_there(node, param) and not _by_index(mask) \
            and node.out.name not in sweep.held:  # (first order: a zero factor after log(0) leaves f NaN anyway)
        return contribution
    if isinstance(contribution, ast.Call) and getattr(contribution.func, "id", None) == "unbroadcast" \
            and contribution.args:
        held = ast.Call(ast.Name("held_still", ast.Load()), [contribution.args[0], copy.deepcopy(mask)], [])
        return ast.Call(contribution.func, [held, *contribution.args[1:]], contribution.keywords)
    out = operand_shape(node.out, sweep.shapes)
    if not alike(operand_shape(node.inputs[node.rule.params.index(param)], sweep.shapes), out):
        return contribution
    if out.scalar and not sweep.derivable:  # numbers (a module tuple's weight): a select, not an array's test
        return ast.IfExp(ast.Compare(copy.deepcopy(mask), [ast.Eq()], [ast.Constant(0.0)]), ast.Constant(0.0),
                         contribution)
    return ast.Call(ast.Name("held_still", ast.Load()), [contribution, copy.deepcopy(mask)], [])


__all__ = ["held_at_zero", "held_values", "masked", "use_masks"]
