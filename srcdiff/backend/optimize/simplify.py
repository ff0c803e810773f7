"""Expression rewrites of the optimizer: each keeps the value, the type and the identity rules.

Rule templates are general (``g * y * x ** (y - 1)``); instantiated with the seed ``1.0`` or
a constant exponent they read better and run faster folded (``2 * x``).  A rewrite here
never turns a float into an int (``1.0 * e -> e`` only where `e` is known to be a float) nor
an expression into a bare name of an array (``1.0 * y -> y`` would hand out the array `y`
itself, which a returned gradient must never be), and it keeps NumPy's evaluation order, so
results are bitwise the same (but for a float's ``x ** 3`` and ``x ** 4``, products within an ulp
or two of ``pow``).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

import numpy as np

from ...rules import spelled_rule
from .known_names import item_of
from .liveness import is_fresh, is_pure

_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne}
_FOLD = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
         ast.Div: operator.truediv, ast.Pow: operator.pow}


def is_float_call(node: ast.expr) -> bool:
    """Whether `node` calls a function whose rule has a `float_result` (``math.sin(x)``):
    its value is a Python float whatever numbers it is given."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)):
        return False
    rule = spelled_rule(node.func.value.id, node.func.attr)
    return rule is not None and rule.float_result


def _is_false(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def is_number(node: ast.expr, value=None) -> bool:
    ok = isinstance(node, ast.Constant) and type(node.value) in (int, float)
    return ok and (value is None or node.value == value)


def nonzero_number(node: ast.expr) -> bool:
    """A number literal other than 0 (``held_still(e, 1.0)`` is `e`: no element of its direction is
    0), or one over an array's size (a mean's ``1.0 / x.size``: a Python int, so an empty array
    raises rather than dividing to a number)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and size_read(node.right):
        return nonzero_number(node.left)
    return is_number(node) and node.value != 0


def size_read(node: ast.expr) -> bool:
    """``x.size`` of a name."""
    return isinstance(node, ast.Attribute) and node.attr == "size" and isinstance(node.value, ast.Name)


def is_float(node: ast.expr, float_names: Callable[[str], bool]) -> bool:
    """Whether `node` is certainly a float or an array of floats (never an int or a bool)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    if isinstance(node, ast.Name):
        return float_names(node.id)
    if isinstance(node, ast.Subscript):  # an item of a list of floats (known_names.py)
        key = item_of(node)
        return key is not None and float_names(key)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.MatMult)):
        return is_float(node.left, float_names) or is_float(node.right, float_names)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return is_float(node.operand, float_names)
    if numeric_ufunc(node) or _float_to_float(node):  # np.exp(x) of a float x: NumPy's loops keep floats floats
        return any(is_float(a, float_names) for a in node.args)
    if _np_named(node, "where", 3):  # a float branch makes the selection a float
        return is_float(node.args[1], float_names) or is_float(node.args[2], float_names)
    if _np_named(node, "full", 2):   # np.full(shape, v) has v's type
        return is_float(node.args[1], float_names)
    if _helper_named(node, "held_still", 2) or _helper_named(node, "tie", 4):  # (their value's type: a selection
        return is_float(node.args[0 if node.func.id == "held_still" else 1], float_names)  # of it and 0.0, halves)
    return is_float_call(node) or _float_constructor(node)


def _float_to_float(node: ast.expr) -> bool:
    """``np.abs(x)``, ``np.sign(x)``: a ufunc with a bool loop too, whose float loop gives a float."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np"):
        return False
    ufunc = getattr(np, node.func.attr, None)
    return isinstance(ufunc, np.ufunc) and ufunc.nout == 1 and "d" * ufunc.nin + "->d" in ufunc.types


def _helper_named(node: ast.expr, name: str, nargs: int) -> bool:
    """A call of the run-time helper `name` (rules/runtime.py) with `nargs` positional arguments."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name \
        and len(node.args) == nargs and not node.keywords


def _np_named(node: ast.expr, name: str, nargs: int) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" and len(node.args) == nargs \
        and not node.keywords


def _float_constructor(node: ast.expr) -> bool:
    """``np.zeros(n)``, ``np.ones``, ``np.empty``, ``np.linspace`` (float64 unless told), and
    ``np.arange`` of a float (``np.arange(5.0)``)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np"):
        return False
    if node.func.attr == "arange":
        return any(isinstance(a, ast.Constant) and type(a.value) is float for a in node.args)
    return node.func.attr in ("zeros", "ones", "empty", "linspace")


def numeric_ufunc(node: ast.expr) -> bool:
    """``np.f(...)`` where `f` is a ufunc none of whose loops gives a bool (not a comparison)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np"):
        return False
    ufunc = getattr(np, node.func.attr, None)
    return isinstance(ufunc, np.ufunc) and ufunc.nout == 1 and all(not t.endswith("?") for t in ufunc.types)


class Simplify(ast.NodeTransformer):
    """Constant arithmetic, one-folding, ``e ** 2 -> e * e``, and signs moved outward.

    `float_names(name)` says whether a name holds a float (adjoints, wrt parameters);
    `scalar_names(name)` whether it holds a Python/NumPy number rather than an array.
    """

    def __init__(self, float_names: Callable[[str], bool], scalar_names: Callable[[str], bool]):
        self.float_names = float_names
        self.scalar_names = scalar_names

    def _unit_removable(self, e: ast.expr) -> bool:
        """Whether ``1.0 * e`` may become `e`: same type, and no new alias of an array."""
        return is_float(e, self.float_names) and self._same_object_ok(e)

    def _same_object_ok(self, e: ast.expr) -> bool:
        """Whether `e` may stand where a new object was made (an array would become shared)."""
        if isinstance(e, ast.Name):
            return self.scalar_names(e.id)
        return is_fresh(e) or isinstance(e, ast.Constant)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        """``np.where(c, -a, 0.0) -> -np.where(c, a, 0.0)`` (and ``-a``/``-b``) for floats: the sign
        leaves the selection for a sum or a product (``X.T @ -s`` is ``-(X.T @ s)``): one pass
        fewer; exact but for the sign of the zeros the other branch gives."""
        self.generic_visit(node)
        if _helper_named(node, "held_still", 2) and nonzero_number(node.args[1]) \
                and is_float(node.args[0], self.float_names):
            # a hold whose direction is a nonzero number holds nothing: `held_still` returns its contribution
            # there (the seed's ``1.0``: a log's ``held_still(1.0 / s, 1.0)``; one finite test of a sum saved)
            return node.args[0]
        if _helper_named(node, "held_still", 2) and _helper_named(node.args[0], "held_still", 2) \
                and is_pure(node.args[1]) and ast.dump(node.args[1]) == ast.dump(node.args[0].args[1]):
            return node.args[0]  # (a hold held again by the same direction: the first one's value, as it is)
        ones = _filled_rows(node)
        if ones is not None:
            return ones
        if not _np_named(node, "where", 3):
            return node
        if _difference_at_tie(*node.args):
            return node.args[2]
        # np.where(c, np.where(False, 0.0, e), 0.0) -> np.where(c, e, 0.0): a branch decided when
        # compiling (a constant bound's side) chooses e's elements, which the outer one selects anew
        for k in (1, 2):
            inner = node.args[k]
            if _np_named(inner, "where", 3) and isinstance(inner.args[0], ast.Constant) \
                    and type(inner.args[0].value) is bool:
                chosen, other = inner.args[1:] if inner.args[0].value else inner.args[:0:-1]
                if is_number(other) and is_float(chosen, self.float_names):
                    node.args[k] = chosen
        negated = [_is_neg(b) and is_float(b.operand, self.float_names) for b in node.args[1:]]
        if any(negated) and all(n or is_number(b, 0.0) for n, b in zip(negated, node.args[1:])):
            branches = [b.operand if n else b for n, b in zip(negated, node.args[1:])]
            return self.visit_UnaryOp(ast.UnaryOp(ast.USub(), ast.Call(node.func, [node.args[0], *branches], [])))
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        return node.orelse if _difference_at_tie(node.test, node.body, node.orelse) else node

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        """``np.zeros(s).shape -> s``: an array made only for its shape is not made."""
        self.generic_visit(node)
        made = node.value
        if node.attr == "shape" and isinstance(made, ast.Call) and len(made.args) == 1 and not made.keywords \
                and ast.unparse(made.func) in ("np.zeros", "np.ones", "np.empty") \
                and isinstance(made.args[0], (ast.Name, ast.Tuple)):
            return made.args[0]
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        """``2 == 0 -> False``: a rule's guard for a special point, on a constant."""
        self.generic_visit(node)
        if len(node.ops) == 1 and type(node.ops[0]) in _COMPARE and is_number(node.left) \
                and is_number(node.comparators[0]):
            return ast.Constant(_COMPARE[type(node.ops[0])](node.left.value, node.comparators[0].value))
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        left, right, op = node.left, node.right, node.op
        if is_number(left) and is_number(right) and type(op) in _FOLD:
            try:
                return ast.Constant(_FOLD[type(op)](left.value, right.value))
            except (ArithmeticError, ValueError):
                return node
        # 0.0 + e -> e, 0.0 - e -> -e for a float e: an adjoint reset to zero (before a branch)
        # and its first contribution (exact, but for the sign of a zero result)
        if isinstance(op, (ast.Add, ast.Sub)) and is_number(left, 0.0) and type(left.value) is float \
                and is_float(right, self.float_names) and self._same_object_ok(right):
            return right if isinstance(op, ast.Add) else self.visit_UnaryOp(ast.UnaryOp(ast.USub(), right))
        # n + False -> n for a number n: a guard that does not apply (bool + int is that int)
        if isinstance(op, (ast.Add, ast.Sub)) and is_number(left) and _is_false(right):
            return left
        if isinstance(op, ast.Pow) and is_number(right, 1):
            return left
        if isinstance(op, ast.Pow) and is_number(right, 2) and type(right.value) is int \
                and isinstance(left, ast.Name):
            return ast.BinOp(left, ast.Mult(), ast.Name(left.id, ast.Load()))
        # x ** 3 -> x * x * x, x ** 4 -> x * x * (x * x) for floats: NumPy's ``**`` of an integer
        # past 2 calls ``pow`` per element, ten times the products (a hundred for negative bases);
        # within an ulp or two, not bitwise (JAX's integer_pow multiplies too)
        if isinstance(op, ast.Pow) and is_number(right) and type(right.value) is int and right.value in (3, 4) \
                and isinstance(left, ast.Name) and is_float(left, self.float_names):
            def name():
                return ast.Name(left.id, ast.Load())
            square = ast.BinOp(name(), ast.Mult(), name())
            return ast.BinOp(square, ast.Mult(), name() if right.value == 3 else ast.BinOp(name(), ast.Mult(), name()))
        if isinstance(op, ast.Mult):
            for one, other in ((left, right), (right, left)):
                if is_number(one) and type(one.value) is float and self._unit_removable(other):
                    if one.value == 1.0:
                        return other
                    if one.value == -1.0:
                        return ast.UnaryOp(ast.USub(), other)
            # (1.0 * e) * f -> e * f where f is a float: the product is a float whatever e is
            for side, other in (("left", right), ("right", left)):
                unit = _unit_factor(getattr(node, side))
                if unit is not None and is_float(other, self.float_names):
                    setattr(node, side, unit)
                    return self.visit_BinOp(node)
        if isinstance(op, ast.Div) and is_number(right, 1.0) and type(right.value) is float \
                and self._unit_removable(left):
            return left
        # f + 1.0 * e -> f + e where f is a float: the sum is a float whatever e is.
        if isinstance(op, (ast.Add, ast.Sub)):
            for side in ("left", "right"):
                other = right if side == "left" else left
                unit = _unit_factor(getattr(node, side))
                if unit is not None and is_float(other, self.float_names) and self._same_object_ok(unit):
                    setattr(node, side, unit)
                    return self.visit_BinOp(node)
        # 0.5 * (e - 0.0) -> 0.5 * e: a float times e - 0.0 is the float times e, whatever e's
        # type (both convert e to a float first) and sign of zero (-0.0 - 0.0 is -0.0)
        if isinstance(op, ast.Mult):
            for side, other in (("left", right), ("right", left)):
                inner = getattr(node, side)
                if is_number(other) and type(other.value) is float and isinstance(inner, ast.BinOp) \
                        and isinstance(inner.op, ast.Sub) and is_number(inner.right, 0.0) \
                        and type(inner.right.value) is float and math.copysign(1.0, inner.right.value) > 0:
                    setattr(node, side, inner.left)
                    return self.visit_BinOp(node)
        # 0.5 - 0.5 * np.tanh(k * (0.0 - e)) -> 0.5 + 0.5 * np.tanh(k * e): logaddexp(0.0, e)'s share
        # (tanh is odd, bit for bit; at e = ±0 both are the leading number, not zero)
        odd = _tanh_of_difference(right) if isinstance(op, ast.Sub) and is_number(left) and left.value else None
        if odd is not None:
            return ast.BinOp(left, ast.Add(), odd)
        # (-a) * 2.0 -> a * -2.0 and -2.0 * (-a) -> 2.0 * a: the sign goes into the number.
        if isinstance(op, ast.Mult) and _is_neg(left) and is_number(right):
            return ast.BinOp(left.operand, op, ast.Constant(-right.value))
        if isinstance(op, ast.Mult) and _is_neg(right) and is_number(left):
            return ast.BinOp(ast.Constant(-left.value), op, right.operand)
        # (-a) * b -> -(a * b), so that the sign can reach an addition: exact in IEEE.
        if isinstance(op, (ast.Mult, ast.Div)) and _is_neg(left):
            return self.visit_UnaryOp(ast.UnaryOp(ast.USub(), ast.BinOp(left.operand, op, right)))
        # a @ (-b) -> -(a @ b): the sign of a vector of adjoints leaves the long axis for the
        # product's (``X.T @ -r_bar``); each product and sum only changes sign, exact in IEEE.
        if isinstance(op, ast.MatMult) and (_is_neg(left) or _is_neg(right)) and not (_is_neg(left) and _is_neg(right)):
            inner = ast.BinOp(left.operand if _is_neg(left) else left, op, right.operand if _is_neg(right) else right)
            return self.visit_UnaryOp(ast.UnaryOp(ast.USub(), inner))
        # a + -1.0 / y * b -> a - 1.0 / y * b: the sign of the leading number moves out.
        if isinstance(op, (ast.Add, ast.Sub)):
            flipped = _without_leading_minus(right)
            if flipped is not None:
                return ast.BinOp(left, ast.Sub() if isinstance(op, ast.Add) else ast.Add(), flipped)
        # (-a) + b -> b - a: IEEE addition commutes exactly.
        if isinstance(op, ast.Add) and _is_neg(left) and not _is_neg(right):
            return ast.BinOp(right, ast.Sub(), left.operand)
        # a + (-b) -> a - b, a - (-b) -> a + b: exact in IEEE.
        if isinstance(op, (ast.Add, ast.Sub)) and _is_neg(right) and not is_number(right.operand):
            flipped = ast.Sub() if isinstance(op, ast.Add) else ast.Add()
            return ast.BinOp(left, flipped, right.operand)
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.USub) and is_number(node.operand):
            return ast.Constant(-node.operand.value)
        # -(2.0 * a) -> -2.0 * a: one operation fewer on arrays, and exact.
        inner = node.operand
        if isinstance(node.op, ast.USub) and isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mult):
            if is_number(inner.left):
                return ast.BinOp(ast.Constant(-inner.left.value), ast.Mult(), inner.right)
            if is_number(inner.right):
                return ast.BinOp(inner.left, ast.Mult(), ast.Constant(-inner.right.value))
            if isinstance(inner.left, ast.Name) and self.scalar_names(inner.left.id):
                return ast.BinOp(ast.UnaryOp(ast.USub(), inner.left), ast.Mult(), inner.right)
        if isinstance(node.op, ast.USub) and _is_neg(node.operand) and self._same_object_ok(node.operand.operand):
            return node.operand.operand
        return node


def _difference_at_tie(test: ast.expr, tied: ast.expr, difference: ast.expr) -> bool:
    """``np.where(c == z, 0.0, c - z)`` (logaddexp's share, rules/numpy_elementwise.py) with `c` a
    finite float literal other than -0.0: ``c - z`` is +0.0 exactly where ``z == c``, and NaN or
    inf, as selected, where z is."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and is_number(tied, 0.0) and isinstance(difference, ast.BinOp) and isinstance(difference.op, ast.Sub)):
        return False
    sides = (test.left, test.comparators[0])
    same = ast.dump(sides[0]) == ast.dump(difference.left) and ast.dump(sides[1]) == ast.dump(difference.right)
    finite = [isinstance(e, ast.Constant) and type(e.value) is float and math.isfinite(e.value)
              and math.copysign(1.0, e.value) > 0 for e in sides]
    return same and any(finite) and all(f or is_pure(e) for f, e in zip(finite, sides))


def _tanh_of_difference(node: ast.expr) -> ast.expr | None:
    """``b * np.tanh(k * e)`` for ``b * np.tanh(k * (0.0 - e))`` (`b`, `k` float numbers), else None."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and is_number(node.left)
            and type(node.left.value) is float and _np_named(node.right, "tanh", 1)):
        return None
    inner = node.right.args[0]
    if not (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mult) and is_number(inner.left)
            and type(inner.left.value) is float and isinstance(inner.right, ast.BinOp)
            and isinstance(inner.right.op, ast.Sub) and is_number(inner.right.left, 0.0)):
        return None
    tanh = ast.Call(node.right.func, [ast.BinOp(inner.left, ast.Mult(), inner.right.right)], [])
    return ast.BinOp(node.left, ast.Mult(), tanh)


def _unit_factor(node: ast.expr) -> ast.expr | None:
    """`e` when `node` is ``1.0 * e`` or ``e * 1.0``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        if is_number(node.left, 1.0) and type(node.left.value) is float:
            return node.right
        if is_number(node.right, 1.0) and type(node.right.value) is float:
            return node.left
    return None


def _without_leading_minus(node: ast.expr) -> ast.expr | None:
    """``-c * e / f`` (c a negative number, or ``-c`` any value) as ``c * e / f`` with the
    sign dropped: the same value negated, exactly.  None when `node` has no leading minus."""
    if is_number(node) and node.value < 0:
        return ast.Constant(-node.value)
    if _is_neg(node):
        return node.operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        left = _without_leading_minus(node.left)
        return None if left is None else ast.BinOp(left, node.op, node.right)
    return None


def _is_neg(node: ast.expr) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)


def simplify(tree: ast.AST, float_names, scalar_names) -> ast.AST:
    """`tree` with every expression simplified (statements are kept as they are)."""
    return Simplify(float_names, scalar_names).visit(tree)


def _filled_rows(node: ast.Call) -> ast.expr | None:
    """``np.full(np.asarray(xs).shape, 1.0).tolist()`` -> ``[1.0] * len(xs)``: the adjoint of ``np.sum`` of a
    list of numbers handed back as its items (rules/structural.py gives ``.tolist()`` only for a list of
    numbers, whose array is a vector of its length); the same floats, no array made."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "tolist" and not node.args
            and not node.keywords and _np_named(node.func.value, "full", 2)):
        return None
    shape, fill = node.func.value.args
    if not (isinstance(fill, ast.Constant) and type(fill.value) is float and isinstance(shape, ast.Attribute)
            and shape.attr == "shape" and _np_named(shape.value, "asarray", 1) and is_pure(shape.value.args[0])):
        return None
    length = ast.Call(ast.Name("len", ast.Load()), [shape.value.args[0]], [])
    return ast.BinOp(ast.List([fill], ast.Load()), ast.Mult(), length)
