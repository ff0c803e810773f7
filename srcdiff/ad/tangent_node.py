"""The tangent of one primitive call: its rule's tangent templates, instantiated and added.

Three kinds of rule (`Rule.tangents`):

* linear (``np.sum``, ``np.reshape``, ``x[i]``, ``np.concatenate``...): the call itself, as
  the user spelled it, on the operands' tangents (zeros for an operand that has none);
* templates: each active operand's contribution (``x_dot @ y`` and ``x @ y_dot`` for
  ``x @ y``), added;
* derived, for elementwise rules and functions of one number: the adjoint template with
  ``g`` replaced by the operand's tangent.  The Jacobian of an elementwise function is
  diagonal, so its transpose is itself: nothing is summed back, and the contribution
  broadcasts as the operands did.

A primitive with no tangent rule is refused, naming the user's line.
"""

from __future__ import annotations

import ast
import copy
import numbers
from dataclasses import dataclass, field

import numpy as np

from ..errors import SrcDiffError
from ..frontend.naming import Namer
from ..ir import shapes
from ..ir.nodes import Const, Global, Node, Operand, Var, operand_ast
from ..ir.shapes import Shape
from ..rules.structural import GETITEM, is_setitem
from ..rules.table import LINEAR, tangent_name
from .held_dots import held_in_a_dot
from .moving_values import moves_test
from .refusals import not_differentiable
from .sweep import operand_shape
from .zero_factors import slope_may_be_infinite


@dataclass
class Tangents:
    """What the tangent pass knows: the values that carry a tangent, and their tangents' names."""

    namer: Namer
    shapes: dict[str, Shape]
    active: set[str]  # values depending on an input with a tangent, that the output depends on
    location: object  # line -> Location, for errors
    names: dict[str, str] = field(default_factory=dict)  # primal name -> tangent name
    primal_of: dict[str, str] = field(default_factory=dict)  # tangent name -> primal name
    calls: dict = field(default_factory=dict)  # tangent function name -> the `CallSpec` of the call it serves
    #: id of the statement computing a node's value -> the node (its shape check, if pruned)
    statements: dict = field(default_factory=dict)
    #: roots of a power of one value (ad/roots.py)
    roots: object = None
    #: values whose tangent may be infinite where they are finite (ad/still_adjoints.py)
    blown: frozenset = frozenset()
    #: where values move along the tangent's line: the affine values whose tangents tell (ad/moving_values.py)
    moving: dict = field(default_factory=dict)

    #: value -> the name of its flag where it may move (a loop's carried value: ad/moving_values.py `Moves`)
    flags: dict = field(default_factory=dict)

    def flag(self, value: str) -> str:
        if value not in self.flags:
            self.flags[value] = self.namer.fresh(f"{value}_moves")
        return self.flags[value]

    def name(self, primal: str) -> str:
        if primal not in self.names:
            self.names[primal] = self.namer.fresh(tangent_name(primal))
            self.primal_of[self.names[primal]] = primal
        return self.names[primal]

    def of(self, operand: Operand) -> ast.expr | None:
        """The tangent of an operand; None where it is zero (a constant, an inactive value)."""
        if isinstance(operand, Var) and operand.name in self.active:
            return ast.Name(self.name(operand.name), ast.Load())
        return None

    def zeros(self, operand: Operand) -> ast.expr:
        """Zeros shaped like `operand` (floats even where the operand holds integers)."""
        shape = operand_shape(operand, self.shapes)
        number = isinstance(operand, Const) and not isinstance(operand.value, (list, tuple))
        if number or (shape.known and shape.scalar):
            return ast.Constant(0.0)
        value = operand_ast(operand)
        if shape.known:
            return _np("zeros", _np("shape", value))
        return ast.Call(ast.Name("zeros_like", ast.Load()), [value], [])

    def of_or_zeros(self, operand: Operand) -> ast.expr:
        found = self.of(operand)
        return found if found is not None else self.zeros(operand)


def tangent_expr(node: Node, state: Tangents) -> ast.expr | None:
    """The tangent of `node`'s value, or None when none of its operands has one."""
    rule = node.rule
    operands = list(zip(rule.params, node.inputs))
    if rule.nograd or not any(state.of(v) is not None for _, v in operands):
        return None  # (a value with no gradient, zeros_list(xs) of a list xs that has one: zero)
    operand_shapes = {p: operand_shape(v, state.shapes) for p, v in operands}
    try:
        templates = rule.tangent_templates(node.static, operand_shapes)
        if templates == LINEAR:
            # getitem's adjoint is a scatter, not a template: its one operand is x
            differentiable = {"x"} if rule is GETITEM else set(rule.adjoints(node.static, operand_shapes))
            return _linear(node, state, differentiable)
        if templates is None and (rule.elementwise or rule.float_result):
            return _derived(node, state, rule.adjoints(node.static, operand_shapes))
    except SrcDiffError as exc:  # a rule refusing these arguments: say where the call is
        if exc.location is not None:
            raise
        raise SrcDiffError(exc.reason, state.location(node.line), exc.hint) from None
    if templates is None:
        raise SrcDiffError(f"{rule.name} has no tangent rule: forward mode (jvp) cannot differentiate it",
                           state.location(node.line),
                           "use reverse mode (srcdiff.grad), compute this value from functions that "
                           "have tangent rules, or register a tangent: srcdiff.register_adjoint(..., "
                           "tangents={'x': 'x_dot * ...'}, replace=True)")
    return _added(_contributions(node, state, templates), node, state)


def _shapes(node: Node, state: Tangents) -> dict:
    return {p: operand_shape(v, state.shapes) for p, v in zip(node.rule.params, node.inputs)}


def _bindings(node: Node, state: Tangents) -> dict[str, ast.expr]:
    bindings = {"ans": ast.Name(node.out.name, ast.Load())}
    bindings.update({p: operand_ast(v) for p, v in zip(node.rule.params, node.inputs)})
    bindings.update({k: ast.Constant(v) for k, v in node.static.items()})
    return bindings


def _contributions(node: Node, state: Tangents, templates: dict, derived: bool = False) -> list[ast.expr]:
    """Each active operand's contribution, its template instantiated with its tangent (for
    `derived` ones, an adjoint template, the tangent standing for ``g``)."""
    bindings = _bindings(node, state)
    found = []
    for param, operand in zip(node.rule.params, node.inputs):
        dot = state.of(operand)
        if dot is None or param in node.rule.shape_only:
            continue
        if param not in templates:
            raise not_differentiable(node.rule, param, _shapes(node, state), state.location(node.line))
        own = {**bindings, tangent_name(param): held_in_a_dot(dot, node, param, state)}
        if derived:
            own["g"] = dot
        contribution = instantiate(templates[param], own)
        if slope_may_be_infinite(node, param):
            contribution = _held_still(contribution, dot, node, state, _moving_factors(node, param, state))
        contribution = _held_by_factor(contribution, node, param, state)
        _kinks_where_moving(contribution, operand, state)
        found.append(_selected(contribution, node, param, own, state))
    return found


def _held_still(contribution: ast.expr, dot: ast.expr, node: Node, state: Tangents, moving=()) -> ast.expr:
    """`contribution` where the operand's tangent `dot` is not 0, an exact 0.0 where it is: a
    clamped or masked operand (tangent 0) at a point of infinite slope (sqrt at 0) moves the
    result by nothing, not by 0 * inf = NaN (an array's: `held_still`, which costs smooth code one
    sum).  The 0.0 is a Python float: float32 stays float32.  `moving`: the factors of each product
    or power term of the operand, with their tangents; where all of one term's factors are 0 and
    one of them moves (its tangent is not 0), the term is stationary, not held
    (``np.cbrt(x * x * np.sin(x))`` is x), and the NaN is kept there; unless a factor a select
    makes has the tangent 0 (``np.maximum(s, 0.0)`` at s < 0: held at 0, and the term with it)."""
    result = state.shapes.get(node.out.name, shapes.UNKNOWN)
    if (result.known and result.scalar) or not node.rule.elementwise:
        test = ast.Compare(dot, [ast.Eq()], [ast.Constant(0.0)])
        for term in moving:  # each term has a factor that is not 0, or none that moves
            held = [ast.Compare(operand_ast(f), [ast.NotEq()], [ast.Constant(0.0)]) for f, _ in term]
            held.append(_any_of([ast.Compare(d, [ast.Eq()], [ast.Constant(0.0)]) for _, d in term], ast.And))
            held += [ast.Compare(d, [ast.Eq()], [ast.Constant(0.0)]) for f, d in term if f.name in state.roots.selected]
            test = ast.BoolOp(ast.And(), [test, _any_of(held, ast.Or)])
        return ast.IfExp(test, ast.Constant(0.0), contribution)
    for term in moving:
        zero = _any_of([_np("equal", operand_ast(f), ast.Constant(0.0)) for f, _ in term], "logical_and")
        moves = _any_of([_np("not_equal", d, ast.Constant(0.0)) for _, d in term], "logical_or")
        for f, d in term:
            if f.name in state.roots.selected:  # a select's zero tangent holds it
                moves = _np("logical_and", moves, _np("not_equal", d, ast.Constant(0.0)))
        dot = _np("where", _np("logical_and", zero, moves), ast.Attribute(ast.Name("np", ast.Load()), "nan",
                                                                        ast.Load()), dot)
    return ast.Call(ast.Name("held_still", ast.Load()), [contribution, dot], [])


#: the helpers of a kink's or a tie's derivative, NaN where their condition (first argument) holds
_NAN_HELPERS = {"kink_nan", "tie_nan", "tie_still_nan"}


def _kinks_where_moving(contribution: ast.expr, operand, state: Tangents) -> None:
    """A kink's or a tie's NaN (`_NAN_HELPERS`) in `contribution` kept only where `operand` moves along
    the tangent's line (`Tangents.moving`): where it does not, the share is constant on the line and its
    derivative is 0, whatever the operand's curvature (ad/moving_values.py).  In place."""
    names = state.moving.get(operand.name) if isinstance(operand, Var) else None
    if not names:
        return
    for call in ast.walk(contribution):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in _NAN_HELPERS \
                and call.args:
            moves = moves_test(names, state.name, state.flag)
            call.args[0] = _np("logical_and", call.args[0], moves)


def _held_by_factor(contribution: ast.expr, node: Node, param: str, state: Tangents) -> ast.expr:
    """A product's term ``x_dot * y`` where x's tangent may be infinite (`Tangents.blown`): an
    exact 0.0 where the other factor y, computed from no such value, is 0, not 0 * inf
    (still_adjoints.blown_values); smooth code pays one finite test of the sum (`held_still`)."""
    factors = getattr(node.rule, "zero_factors", None) or {}
    operand = node.inputs[node.rule.params.index(param)]
    if param not in factors or not (isinstance(operand, Var) and operand.name in state.blown):
        return contribution
    other = node.inputs[node.rule.params.index(factors[param])]
    if isinstance(other, Var) and other.name in state.blown:
        return contribution
    if isinstance(other, Const):
        value = other.value
        if isinstance(value, bool) or not isinstance(value, (numbers.Number, np.ndarray)):
            return contribution
        if np.all(np.asarray(value) != 0):
            return contribution
    result = state.shapes.get(node.out.name, shapes.UNKNOWN)
    if result.known and result.scalar:
        return ast.IfExp(ast.Compare(operand_ast(other), [ast.Eq()], [ast.Constant(0.0)]), ast.Constant(0.0),
                         contribution)
    return ast.Call(ast.Name("held_still", ast.Load()), [contribution, operand_ast(other)], [])


def _any_of(tests: list, op) -> ast.expr:
    """`tests` joined by the boolean `op` (a Python operator, or a NumPy function's name)."""
    if len(tests) == 1:
        return tests[0]
    if isinstance(op, str):
        out = tests[0]
        for t in tests[1:]:
            out = _np(op, out, t)
        return out
    return ast.BoolOp(op(), tests)


def _moving_factors(node: Node, param: str, state: Tangents) -> tuple:
    """The factors of each term of the operand under a root (ad/roots.py), the terms whose factors all have a
    tangent."""
    terms = (state.roots.of_products or {}).get(node.id) if state.roots is not None else None
    if not terms or param != node.rule.params[0]:
        return ()
    return tuple(tuple((f, state.of(f)) for f in t) for t in terms if all(state.of(f) is not None for f in t))


def _selected(contribution: ast.expr, node: Node, param: str, bindings: dict, state: Tangents) -> ast.expr:
    """`contribution` where the rule's selecting condition for `param` holds (``x > y`` for
    ``np.maximum``'s x), an exact 0.0 elsewhere: a non-finite tangent is cut off, not
    multiplied by 0."""
    operand_shapes = {p: operand_shape(v, state.shapes) for p, v in zip(node.rule.params, node.inputs)}
    selection = node.rule.selection(param, node.static, operand_shapes)
    if selection is None:
        return contribution
    test = instantiate(selection[0], bindings)
    kept, dropped = (contribution, ast.Constant(0.0)) if selection[1] else (ast.Constant(0.0), contribution)
    result = state.shapes.get(node.out.name, shapes.UNKNOWN)
    if (result.known and result.scalar) or not node.rule.elementwise:  # numbers stay numbers (builtin max)
        return ast.IfExp(test, kept, dropped)
    return _np("where", test, kept, dropped)


def _derived(node: Node, state: Tangents, adjoints: dict) -> ast.expr:
    """An elementwise rule's tangent: its adjoint with ``g`` the operand's tangent, broadcast to
    the result's shape unless it is sure to have it."""
    total = _added(_contributions(node, state, adjoints, derived=True), node, state)
    result = state.shapes.get(node.out.name, shapes.UNKNOWN)
    if (result.known and result.scalar) or _spans(total, node, state):
        return total
    return _np("broadcast_to", total, _np("shape", ast.Name(node.out.name, ast.Load())))


def _spans(total: ast.expr, node: Node, state: Tangents) -> bool:
    """Whether `total`, elementwise arithmetic on the node's operands, their tangents and its
    result, has the result's shape: it reads the result, or every operand that is not a
    number (itself or its tangent), so it broadcasts exactly as the call did."""
    read = elementwise_names(total)
    if read is None:
        return False
    read = {state.primal_of.get(n, n) for n in read}
    operands = {v.name for v in node.inputs if isinstance(v, Var) or isinstance(v, Global)}
    arrays = {n for n in operands if not (state.shapes.get(n) is not None and state.shapes[n].known
                                          and state.shapes[n].scalar)}
    return node.out.name in read or arrays <= read
def _added(parts: list[ast.expr], node: Node, state: Tangents) -> ast.expr:
    """The sum of the contributions; equal ones (``x * x`` gives ``x_dot * x`` twice) doubled."""
    merged: list[list] = []
    for part in parts:
        same = next((m for m in merged if _same_product(m[0], part)), None)
        if same is None:
            merged.append([part, 1])
        else:
            same[1] += 1
    total = None
    for part, count in merged:
        if count > 1:
            part = ast.BinOp(ast.Constant(float(count)), ast.Mult(), part)
        if total is not None and node.rule.tuple_result:  # tuples add item by item, not joined
            total = ast.Call(ast.Name("lists_add", ast.Load()), [total, part], [])
        else:
            total = part if total is None else ast.BinOp(total, ast.Add(), part)
    return total


def _same_product(a: ast.expr, b: ast.expr) -> bool:
    """Equal, or equal products with the factors swapped (``h_dot * h`` and ``h * h_dot``)."""
    if ast.dump(a) == ast.dump(b):
        return True
    return all(isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult) for e in (a, b)) \
        and ast.dump(a.left) == ast.dump(b.right) and ast.dump(a.right) == ast.dump(b.left)


def _linear(node: Node, state: Tangents, differentiable: set[str]) -> ast.expr:
    """The call itself on the tangents: every differentiable operand's name in the user's
    expression replaced by its tangent (zeros where it has none)."""
    if isinstance(node.expr, (ast.List, ast.Tuple)) and len(node.expr.elts) == len(node.inputs):
        return type(node.expr)([state.of_or_zeros(v) for v in node.inputs], ast.Load())
    if is_setitem(node.rule):  # set_item(x, index, v): both x and v may be constants
        x, v = node.inputs[:2]
        args = [state.of_or_zeros(x), *copy.deepcopy(node.expr.args[1:-1]), state.of_or_zeros(v)]
        return ast.Call(copy.deepcopy(node.expr.func), args, [])
    replace: dict[str, ast.expr] = {}
    others, constants = set(), []
    for param, operand in zip(node.rule.params, node.inputs):
        if param in differentiable:
            if isinstance(operand, Var):
                replace[operand.name] = state.of_or_zeros(operand)
            else:
                constants.append(operand)
        elif state.of(operand) is not None:
            raise not_differentiable(node.rule, param, _shapes(node, state), state.location(node.line))
        elif isinstance(operand, Var):
            others.add(operand.name)
    others |= {v.name for v in node.inputs[len(node.rule.params):] if isinstance(v, Var)}
    if set(replace) & others:
        raise SrcDiffError(f"{node.rule.name}: a value used both as a differentiated operand and as an "
                           "index or static argument has no tangent rule", state.location(node.line),
                           "use a copy of the value for one of the two")
    expr = node.expr
    if constants and _numbers_in_place(node, constants):  # ``index_add(x_bar, i, 1.0)``: 1.0's tangent is 0.0
        expr = copy.deepcopy(node.expr)
        expr.args = [ast.Constant(0.0) if any(v is c for c in constants) else a for a, v in zip(expr.args, node.inputs)]
    elif constants:
        raise SrcDiffError(f"{node.rule.name} of a constant and a differentiated value has no tangent rule",
                           state.location(node.line), "name the constant before the call")
    return instantiate(expr, replace)


def _numbers_in_place(node: Node, constants: list) -> bool:
    """Whether `node.expr` is a call whose positional arguments are its operands, in order, each
    constant among them a number written there (so it can be replaced by its zero tangent)."""
    expr = node.expr
    if not (isinstance(expr, ast.Call) and not expr.keywords and len(expr.args) == len(node.inputs)
            and not any(isinstance(a, ast.Starred) for a in expr.args)):
        return False
    return all(isinstance(a, ast.Constant) and type(a.value) in (int, float) and isinstance(v, Const)
               and v.value == a.value for a, v in zip(expr.args, node.inputs) if any(v is c for c in constants))


def instantiate(template: ast.expr, bindings: dict[str, ast.expr]) -> ast.expr:
    """A copy of `template` with the names in `bindings` substituted."""

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            return copy.deepcopy(bindings[name.id]) if name.id in bindings else name

    return Substitute().visit(copy.deepcopy(template))


def elementwise_names(e: ast.expr) -> set[str] | None:
    """The names an expression of elementwise arithmetic reads (numbers, operators, NumPy
    ufuncs and ``np.where``); None for an expression of any other kind."""
    if isinstance(e, ast.Constant):
        return set() if isinstance(e.value, (int, float, bool)) else None
    if isinstance(e, ast.Name):
        return {e.id}
    parts = None
    if isinstance(e, ast.UnaryOp):
        parts = [e.operand]
    elif isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
        parts = [e.left, e.right]
    elif isinstance(e, ast.Compare):
        parts = [e.left, *e.comparators]
    elif isinstance(e, ast.Call) and not e.keywords and isinstance(e.func, ast.Attribute) \
            and isinstance(e.func.value, ast.Name) and e.func.value.id == "np" \
            and (e.func.attr == "where" or isinstance(getattr(np, e.func.attr, None), np.ufunc)):
        parts = e.args
    elif isinstance(e, ast.Call) and not e.keywords and isinstance(e.func, ast.Name) and e.func.id == "held_still":
        parts = e.args  # np.where(direction == 0, 0.0, contribution)
    if not parts:
        return None
    found = [elementwise_names(p) for p in parts]
    return None if None in found else set().union(*found)


def _np(name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), list(args), [])
