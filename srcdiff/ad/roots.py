"""A root of a power of one value is itself a power: its derivative is that power's, exact at 0.

``np.cbrt(x * x * x)`` is x, ``np.sqrt(x ** 4)`` is x ** 2, ``(x ** 6) ** (1/3)`` is x ** 2 and
``np.sqrt(2.0 * x ** 4)`` is sqrt(2) x ** 2.  Rule by rule, their derivative at x = 0 is the root's
infinite slope times the power's zero partial: NaN, or (through a product whose factors are all
0, ad/zero_factors.py) a selected 0 where the truth may be 1.  The slope of the composition is
read from the exponents instead: with the operand ``c * x ** k`` and the root ``u ** p``, the
value is ``|c| ** p * |x| ** n`` up to sign, n = k p, so at x = 0 the derivative is 0 for n > 1,
``c ** p`` for n = 1 and an odd power (``np.cbrt(x ** 3)``; one-sided for a fractional power, as
``x ** 1.5`` is), the kink's 0 of ``abs`` for n = 1 and an even power (``np.sqrt(x ** 2)`` is
``|x|``), NaN below (a cusp).  Where n is an integer and the rewritten power is smooth (an even
power with n even, an odd power under ``np.cbrt``) its derivative ``A n x ** (n - 1)`` is the
contribution everywhere, in every transformation and order; otherwise the rule-by-rule
contribution is kept, with that value selected at x = 0 (not in a gradient srcdiff differentiates
again: the select's derivative would be 0 there; the rule-by-rule NaN is honest).

A root of a sum of such powers (``np.sqrt(x ** 4 + y ** 4)``, ``np.sqrt(np.sum(x ** 4))``): where
each term is an even power with a positive scale and n > 1, the sum is 0 only where every base
is, and the root is O(|x| ** n) there, so the root's contribution is an exact 0 where the sum is 0.
"""

from __future__ import annotations

import ast
import copy
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..ir.nodes import Const, Function, Node, Var, all_nodes, operand_ast
from .powers import Power, power_contribution
from .sweep import operand_shape as _shape

_POWERS, _PRODUCTS = {"numpy.power", "operator.pow", "numpy.float_power"}, {"operator.mul", "numpy.multiply"}
_QUOTIENTS, _NEGATIONS = {"operator.truediv", "numpy.divide"}, {"operator.neg", "numpy.negative"}
_SUMS = {"operator.add", "numpy.add", "numpy.sum"}
#: roots and their exponent; odd ones are defined for a negative operand
_ROOT_ORDERS = {"numpy.sqrt": 0.5, "math.sqrt": 0.5, "numpy.cbrt": 1.0 / 3.0}
_ODD_ROOTS = {"numpy.cbrt"}
#: rules whose value is one of their operands, picked: a zero tangent there holds it still
_SELECTS = {"numpy.maximum", "numpy.minimum", "numpy.fmax", "numpy.fmin", "numpy.clip", "numpy.where",
            "builtins.max", "builtins.min"}
_DEPTH = 12
_SCALARS = ""  # (the key of the names known to hold one number, in the table of values made once)
_TOLERANCE = 1e-9  # (x ** 5) ** 0.2: 5 * 0.2 is 1 up to the rounding of 0.2


@dataclass(frozen=True)
class RootOfPower:
    """``root(coefficient * base ** degree)``, the root being ``u ** order``."""

    base: str
    degree: int
    coefficient: float
    order: float
    odd: bool

    @property
    def n(self) -> float:  # the power the root of the power is
        return self.degree * self.order

    def at_zero(self) -> float:
        """The derivative at base = 0 (module docstring)."""
        n = self.n
        if n > 1.0 + _TOLERANCE:
            return 0.0
        if n < 1.0 - _TOLERANCE:
            return math.nan
        if self.degree % 2 == 0:
            return 0.0  # |x|: the kink's value, abs'(0) = 0
        return math.copysign(abs(self.coefficient) ** self.order, self.coefficient)

    def smooth(self) -> Power | None:
        """``A * base ** n`` where that is the function everywhere, n an integer: its `Power`."""
        n = round(self.n)
        if n < 1 or abs(self.n - n) > _TOLERANCE:
            return None
        scale = math.copysign(abs(self.coefficient) ** self.order, self.coefficient)  # (c > 0 unless odd)
        if (self.degree % 2 == 0 and n % 2 == 0) or (self.odd and self.degree % 2 == 1):
            return Power(self.base, n, scale, ())
        return None


def _order(node: Node, made: dict) -> tuple[float, bool] | None:
    """The exponent of a root (``np.sqrt``, ``np.cbrt``, ``u ** p`` with 0 < p < 1) and whether it is odd."""
    name = node.rule.name
    if name in _ROOT_ORDERS and len(node.inputs) == 1 and not node.static:
        return _ROOT_ORDERS[name], name in _ODD_ROOTS
    if name in _POWERS and len(node.inputs) == 2 and not node.static:
        p = _number(node.inputs[1], made)
        if p is not None and 0 < p < 1:
            return p, False
    return None


#: arithmetic on numbers the user wrote, read as the number (``x ** (1 / 3)``)
_ARITHMETIC = {"operator.truediv", "operator.mul", "operator.add", "operator.sub", "operator.neg", "operator.pow"}


def _number(operand, made: dict, depth: int = 4) -> float | None:
    """The finite nonzero number `operand` is, if it is one (a literal, or arithmetic on literals)."""
    value = None
    if isinstance(operand, Const):
        value = operand.value
    elif isinstance(operand, Var) and depth > 0 and made.get(operand.name) is not None:
        node = made[operand.name]
        func = getattr(node.rule, "func", None)
        if node.rule.name in _ARITHMETIC and callable(func) and not node.static:
            args = [_number(i, made, depth - 1) for i in node.inputs]
            if all(a is not None for a in args):
                try:
                    value = func(*args)
                except (ArithmeticError, ValueError):
                    return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = float(value)
        return value if math.isfinite(value) and value != 0 else None
    return None


def _power_of_one(operand, made: dict, depth: int = _DEPTH) -> tuple[str, int, float] | None:
    """``(base, k, c)`` with operand = c * base ** k (k >= 1), base a value assigned once."""
    if not isinstance(operand, Var):
        return None
    node = made.get(operand.name)
    if node is None or depth == 0:
        return _plain(operand, made)
    name, ins = node.rule.name, node.inputs
    if name == "numpy.prod" and len(ins) == 1 and node.static.get("axis") is None:
        return _product_of_copies(ins[0], made, depth) or _plain(operand, made)
    if node.static:
        return _plain(operand, made)
    if name in _POWERS and len(ins) == 2:
        k = _number(ins[1], made)
        inner = _power_of_one(ins[0], made, depth - 1)
        if k is None or k < 1 or k != int(k) or inner is None:
            return _plain(operand, made)
        return inner[0], inner[1] * int(k), inner[2] ** int(k)
    if name == "numpy.square" and len(ins) == 1:
        inner = _power_of_one(ins[0], made, depth - 1)
        return (inner[0], 2 * inner[1], inner[2] ** 2) if inner else _plain(operand, made)
    if name in _PRODUCTS and len(ins) == 2:
        scales = [_number(i, made) for i in ins]
        if scales[0] is not None or scales[1] is not None:
            inner = _power_of_one(ins[1] if scales[0] is not None else ins[0], made, depth - 1)
            scale = scales[0] if scales[0] is not None else scales[1]
            return (inner[0], inner[1], inner[2] * scale) if inner else _plain(operand, made)
        a, b = (_power_of_one(i, made, depth - 1) for i in ins)
        if a and b and a[0] == b[0]:
            return a[0], a[1] + b[1], a[2] * b[2]
        return _plain(operand, made)
    if name in _QUOTIENTS and len(ins) == 2 and _number(ins[1], made) is not None:
        inner = _power_of_one(ins[0], made, depth - 1)
        return (inner[0], inner[1], inner[2] / _number(ins[1], made)) if inner else _plain(operand, made)
    if name in _NEGATIONS and len(ins) == 1:
        inner = _power_of_one(ins[0], made, depth - 1)
        return (inner[0], inner[1], -inner[2]) if inner else _plain(operand, made)
    return _plain(operand, made)


def _product_of_copies(operand, made: dict, depth: int) -> tuple[str, int, float] | None:
    """``np.prod(t * w)`` for a number t and a vector of numbers w: ``prod(w) * t ** len(w)``."""
    node = made.get(operand.name) if isinstance(operand, Var) else None
    if node is None or node.rule.name not in _PRODUCTS or len(node.inputs) != 2 or node.static:
        return None
    for value, weights in (node.inputs, node.inputs[::-1]):
        w = _vector(weights, made)
        if isinstance(w, np.ndarray) and w.ndim == 1 and w.size >= 1 and w.dtype.kind in "fi" \
                and np.all(np.isfinite(w)) and np.all(w != 0) and isinstance(value, Var) \
                and value.name in made.get(_SCALARS, ()):
            inner = _power_of_one(value, made, depth - 1)
            if inner is not None:
                return inner[0], inner[1] * w.size, inner[2] ** w.size * float(np.prod(w))
    return None


def _vector(operand, made: dict):
    """The array of numbers `operand` is, when it is a literal (``np.array([1.0, 2.0])``)."""
    if isinstance(operand, Const):
        return operand.value
    node = made.get(operand.name) if isinstance(operand, Var) else None
    if node is None:
        return None
    if node.rule.name == "numpy.array" and len(node.inputs) == 1 and not node.static:
        return _vector(node.inputs[0], made)
    if node.rule.name == "nograd" and not node.inputs:
        try:
            return np.asarray(ast.literal_eval(node.expr), dtype=float)
        except (ValueError, TypeError, SyntaxError):
            return None
    return None


def _plain(operand: Var, made: dict) -> tuple[str, int, float] | None:  # a base of its own, made once
    return (operand.name, 1, 1.0) if operand.name in made else None


def _high_even_sum(operand, made: dict, order: float, depth: int = _DEPTH) -> bool:
    """Whether `operand` is a sum of terms ``c * b ** k``, k even, c > 0, k * order > 1."""
    node = made.get(operand.name) if isinstance(operand, Var) else None
    if node is None or depth == 0:
        return False
    if node.rule.name in _SUMS:
        terms = node.inputs[:1] if node.rule.name == "numpy.sum" else node.inputs
        if node.rule.name == "numpy.sum" and set(node.static) - {"axis", "keepdims"}:
            return False
        return len(terms) >= 1 and all(_high_even_sum(t, made, order, depth - 1) for t in terms)
    found = _power_of_one(operand, made)
    return found is not None and found[1] % 2 == 0 and found[2] > 0 and found[1] * order > 1.0 + _TOLERANCE


@dataclass(frozen=True)
class Roots:
    """The roots of `function` whose operand is a power of one value, by node id, and the roots
    of a sum of even powers above the root's order (module docstring)."""

    of_powers: dict
    of_even_sums: frozenset
    #: the other roots whose operand is a sum of products and powers (up to scales), by node id: the
    #: factors of each term, for forward mode, which holds the root still (its operand's tangent 0)
    #: only where no term has all its factors 0 (a term that is stationary there, not held)
    of_products: dict = None
    #: of those factors, the ones a select makes (``np.maximum(s, 0.0)``): a zero tangent holds them
    selected: frozenset = frozenset()


def find_roots(function: Function, shape_of: dict | None = None) -> Roots:
    """The roots of powers and of sums of even powers in `function` (names assigned once only)."""
    nodes = all_nodes(function)
    count = Counter(n.out.name for n in nodes if isinstance(getattr(n, "out", None), Var))
    made: dict = {p.name: None for p in function.params if count[p.name] == 0}  # bases of their own
    made[_SCALARS] = {name for name, shape in (shape_of or {}).items() if shape.known and shape.ndim == 0}
    made.update({n.out.name: n for n in nodes if isinstance(getattr(n, "out", None), Var) and count[n.out.name] == 1
                 and getattr(n, "rule", None) is not None and not hasattr(n, "callee")})
    of_powers, sums, products = {}, set(), {}
    for node in nodes:
        if getattr(node, "rule", None) is None or hasattr(node, "callee") or count[node.out.name] != 1:
            continue
        order = _order(node, made)
        if order is None or not isinstance(node.inputs[0], Var):
            continue
        found = _power_of_one(node.inputs[0], made)
        if found is not None and found[1] >= 2 and (found[2] > 0 or order[1] or found[1] % 2 == 1):
            of_powers[node.id] = RootOfPower(found[0], found[1], found[2], order[0], order[1])
        elif _high_even_sum(node.inputs[0], made, order[0]):
            sums.add(node.id)
        elif _factors(node.inputs[0], made, order[0]) is not None:
            products[node.id] = _factors(node.inputs[0], made, order[0])
    selected = {f.name for terms in products.values() for term in terms for f in term
                if made.get(f.name) is not None and made[f.name].rule.name in _SELECTS}
    return Roots(of_powers, frozenset(sums), products, frozenset(selected))


def _same_value(a, b, made: dict) -> bool:
    """Whether `a` and `b` are one value: one name, or one item of one array (``x[0] * x[0]``)."""
    if a == b:
        return isinstance(a, Var)
    na, nb = (made.get(v.name) if isinstance(v, Var) else None for v in (a, b))
    return na is not None and nb is not None and na.rule.name == nb.rule.name == "getitem" \
        and na.inputs == nb.inputs and na.static == nb.static and ast.dump(na.expr) == ast.dump(nb.expr)


def _factors(operand, made: dict, order: float, depth: int = _DEPTH) -> tuple | None:
    """The factors of each product or power term of a sum `operand` is, up to numbers
    (``2.0 * (a * b) - x ** 3``: ``((a, b), (x,))``); None where there is none.  Not a square
    under a square root (``np.sqrt(x ** 2 + y ** 2)``, a distance: the kink's 0 is kept)."""
    node = made.get(operand.name) if isinstance(operand, Var) else None
    if node is None or depth == 0 or node.static:
        return None
    name, ins = node.rule.name, node.inputs
    if name in _PRODUCTS and len(ins) == 2:
        numbers = [_number(i, made) for i in ins]
        if numbers[0] is not None or numbers[1] is not None:
            return _factors(ins[1] if numbers[0] is not None else ins[0], made, order, depth - 1)
        if _same_value(ins[0], ins[1], made) and abs(2.0 * order - 1.0) <= _TOLERANCE:
            return None  # a square under a square root: the kink's 0, as for ``x ** 2``
        return (tuple(ins),) if all(isinstance(i, Var) for i in ins) else None
    k = 2.0 if name == "numpy.square" else _number(ins[1], made) if name in _POWERS and len(ins) == 2 else None
    if k is not None and k > 1 and isinstance(ins[0], Var):
        return None if k % 2 == 0 and abs(k * order - 1.0) <= _TOLERANCE else ((ins[0],),)
    if (name in _QUOTIENTS and len(ins) == 2 and _number(ins[1], made) is not None) or name in _NEGATIONS:
        return _factors(ins[0], made, order, depth - 1)
    if name in ("operator.add", "numpy.add", "operator.sub", "numpy.subtract") and len(ins) == 2:
        terms = [t for t in (_factors(i, made, order, depth - 1) for i in ins) if t is not None]
        return sum(terms, ()) or None
    return None


def _is_zero(base: str, scalar: bool) -> ast.expr:
    """``not x`` for a number, ``np.equal(x, 0.0)`` for an array (not ``x == 0.0``: lower/point_guards.py)."""
    x = ast.Name(base, ast.Load())
    if scalar:
        return ast.UnaryOp(ast.Not(), x)
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "equal", ast.Load()), [x, ast.Constant(0.0)], [])


def _at_zero_value(root: RootOfPower, g: ast.expr) -> ast.expr:
    value = root.at_zero()  # (0.0 alone: float32 stays float32)
    if value == 0.0:
        return ast.Constant(0.0)
    if math.isnan(value):
        return ast.BinOp(g, ast.Mult(), ast.Attribute(ast.Name("np", ast.Load()), "nan", ast.Load()))
    return g if value == 1.0 else ast.BinOp(ast.Constant(value), ast.Mult(), g)


def _selected(root: RootOfPower, g: ast.expr, usual: ast.expr, scalar: bool) -> ast.expr:
    at_zero = _at_zero_value(root, g)
    if scalar:
        return ast.IfExp(_is_zero(root.base, True), at_zero, usual)
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "where", ast.Load()),
                    [_is_zero(root.base, False), at_zero, usual], [])


def root_contribution(node: Node, root: RootOfPower, g: ast.expr, rule_contribution, derivable: bool,
                      scalar: bool) -> ast.expr | None:
    """The contribution of `node` (a root of a power) to its base for the adjoint or tangent `g`
    of its output (reverse) or the base's tangent (forward, `g` the base's tangent): the smooth
    power's derivative, or `rule_contribution()` (the root's own, times the power's derivative)
    with the value at 0 selected; None where neither is right (derivable code with no smooth form)."""
    smooth = root.smooth()
    if smooth is not None:
        return power_contribution(smooth, g)
    if derivable:
        return None
    return _selected(root, g, rule_contribution(), scalar)


def chain_through_power(node: Node, root: RootOfPower, root_template: ast.expr, g: ast.expr) -> ast.expr:
    """The rule-by-rule contribution: the root's template for `g`, times c k base ** (k - 1)."""
    bindings = {"g": g, "ans": ast.Name(node.out.name, ast.Load()), "x": operand_ast(node.inputs[0])}
    if len(node.rule.params) > 1:
        bindings[node.rule.params[1]] = operand_ast(node.inputs[1])
    outer = _instantiate(root_template, bindings)
    return power_contribution(Power(root.base, root.degree, root.coefficient, ()), outer)


def _instantiate(template: ast.expr, bindings: dict[str, ast.expr]) -> ast.expr:
    """A copy of `template` with the names in `bindings` substituted (as ad/adjoints.py does)."""

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            return copy.deepcopy(bindings[name.id]) if name.id in bindings else name

    return ast.fix_missing_locations(Substitute().visit(copy.deepcopy(template)))


def even_sum_held(contribution: ast.expr, node: Node, scalar: bool) -> ast.expr:
    """`contribution` where the sum under the root is not 0, an exact 0.0 where it is."""
    operand = operand_ast(node.inputs[0])
    if scalar:
        return ast.IfExp(ast.UnaryOp(ast.Not(), operand), ast.Constant(0.0), contribution)
    np_ = ast.Name("np", ast.Load())
    test = ast.Call(ast.Attribute(np_, "equal", ast.Load()), [operand, ast.Constant(0.0)], [])
    return ast.Call(ast.Attribute(np_, "where", ast.Load()), [test, ast.Constant(0.0), contribution], [])


def reverse_root(node: Node, sweep) -> bool:
    """The adjoint of a root of a power as one contribution to the power's base (`root_contribution`);
    False leaves it to the rule-by-rule form (below a branch of ``np.where``)."""
    root = sweep.roots.of_powers.get(node.id) if sweep.roots is not None else None
    if root is None or root.base not in sweep.active or root.base in sweep.lists \
            or sweep.masks.get(node.out.name):
        return False
    g = ast.Name(sweep.name(node.out.name), ast.Load())
    result = sweep.shapes.get(node.out.name)
    scalar = result is not None and result.known and result.scalar

    def rule_by_rule() -> ast.expr:
        operand_shapes = {p: _shape(v, sweep.shapes) for p, v in zip(node.rule.params, node.inputs)}
        return chain_through_power(node, root, node.rule.adjoints(node.static, operand_shapes)["x"], g)

    contribution = root_contribution(node, root, g, rule_by_rule, sweep.derivable, scalar)
    if contribution is None:
        return False
    base_shape = sweep.shapes.get(root.base)
    if not (base_shape is not None and base_shape.known and base_shape.scalar) \
            and not any(isinstance(n, ast.Name) and n.id == root.base for n in ast.walk(contribution)):
        # ``np.cbrt(x ** 3)`` is x: ``g`` alone may be the number standing for a filled array (ad/adjoints.py)
        ones = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "ones_like", ast.Load()),
                        [ast.Name(root.base, ast.Load())], [])
        contribution = ast.BinOp(contribution, ast.Mult(), ones)
    sweep.contribute(root.base, contribution, node.line)
    return True


def root_tangent(node: Node, state, usual) -> ast.expr | None:
    """The tangent of a root of a power: the smooth power's, or `usual()` (the rule-by-rule
    tangent) with the derivative at base = 0 selected; None where `node` is no such root."""
    root = state.roots.of_powers.get(node.id) if state.roots is not None else None
    dot = state.of(Var(root.base)) if root is not None else None
    if dot is None:
        return None
    shape = state.shapes.get(node.out.name)
    return root_contribution(node, root, dot, usual, False, shape is not None and shape.known and shape.scalar)


__all__ = ["RootOfPower", "Roots", "chain_through_power", "even_sum_held", "find_roots", "reverse_root",
           "root_contribution", "root_tangent"]
