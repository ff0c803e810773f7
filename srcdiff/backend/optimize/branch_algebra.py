"""The algebra of a selection's branches (backend/optimize/masks.py): arithmetic simplified with a
mask's value put in (numbers folded, products by 1 and by 0 and sums with 0 dropped), like terms
collected, and the array operations an expression costs."""

from __future__ import annotations

import ast

from .liveness import nodes
from .shape_classes import SCALAR, ShapeClasses

ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def is_number(node: ast.expr, value=None) -> bool:
    """A numeric constant (equal to `value`, if given)."""
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) \
        and (value is None or node.value == value)


def simplified(node: ast.expr) -> ast.expr | None:
    """`node` with numbers folded, products by 1 and by 0 and sums with 0 dropped."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = simplified(node.operand)
        if is_number(operand):
            return ast.Constant(-float(operand.value))
        return ast.UnaryOp(ast.USub(), operand)
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC)):
        return node
    left, right, op = simplified(node.left), simplified(node.right), node.op
    if is_number(left) and is_number(right):
        a, b = float(left.value), float(right.value)
        if isinstance(op, ast.Div) and b == 0.0:
            return ast.BinOp(left, op, right)
        return ast.Constant({ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b, ast.Div: a / b if b else 0.0}[type(op)])
    if isinstance(op, ast.Mult):
        if is_number(left, 0.0) or is_number(right, 0.0):
            return ast.Constant(0.0)
        if is_number(left, 1.0):
            return right
        if is_number(right, 1.0):
            return left
    if isinstance(op, ast.Div):
        if is_number(left, 0.0):
            return ast.Constant(0.0)
        if is_number(right, 1.0):
            return left
    if isinstance(op, ast.Add):
        if is_number(left, 0.0):
            return right
        if is_number(right, 0.0):
            return left
    if isinstance(op, ast.Sub):
        if is_number(right, 0.0):
            return left
        if is_number(left, 0.0):
            return ast.UnaryOp(ast.USub(), right)
    return ast.BinOp(left, op, right)


def cost(node: ast.expr, classes: ShapeClasses) -> int:
    """The array operations evaluating `node` takes (arithmetic on numbers is free)."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return 0
    own = 0 if classes.of(node) == SCALAR else 1
    if isinstance(node, ast.BinOp):
        return own + cost(node.left, classes) + cost(node.right, classes)
    if isinstance(node, ast.UnaryOp):
        return own + cost(node.operand, classes)
    return own + sum(1 for n in nodes(node) if isinstance(n, (ast.Call, ast.BinOp)) and n is not node)


def cost_saved(node: ast.expr, classes: ShapeClasses) -> int:
    """The array operations the code `node` was inlined from runs that a selection saves: each
    distinct operation once (the code computed a temporary once, however often the inlined tree
    repeats it), none of the parts inlined from names read elsewhere too (still computed)."""
    found: set[str] = set()

    def visit(n: ast.expr) -> None:
        if getattr(n, "shared", False) or isinstance(n, (ast.Name, ast.Constant)):
            return
        if classes.of(n) != SCALAR:
            found.add(ast.unparse(n))
        if isinstance(n, (ast.BinOp, ast.UnaryOp)):
            for child in ((n.left, n.right) if isinstance(n, ast.BinOp) else (n.operand,)):
                visit(child)
        else:
            found.update(ast.unparse(c) for c in nodes(n) if isinstance(c, (ast.Call, ast.BinOp)) and c is not n)

    visit(node)
    return len(found)


def collected(node: ast.expr, classes: ShapeClasses) -> ast.expr:
    """`node` with like terms collected, where it is a sum of products of numbers, names of
    numbers and array atoms (divided by numbers only); else `node`."""
    terms = _terms(node, classes)
    if terms is None:
        return node
    merged: dict = {}
    for number, scalars, arrays in terms:
        key = (scalars, arrays)
        merged[key] = merged.get(key, 0.0) + number
    rendered = None
    for (scalars, arrays), number in merged.items():
        if number == 0.0:
            continue
        term = _product(number, scalars, arrays)
        rendered = term if rendered is None else ast.BinOp(rendered, ast.Add(), term)
    rendered = rendered if rendered is not None else ast.Constant(0.0)
    return rendered if cost(rendered, classes) < cost(node, classes) else node


def _terms(node: ast.expr, classes: ShapeClasses) -> list | None:
    """`node` as (number, scalar factors, array factors) terms; None where it is not such a sum."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left, right = _terms(node.left, classes), _terms(node.right, classes)
        if left is None or right is None:
            return None
        sign = -1.0 if isinstance(node.op, ast.Sub) else 1.0
        return left + [(sign * n, s, a) for n, s, a in right]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _terms(node.operand, classes)
        return None if inner is None else [(-n, s, a) for n, s, a in inner]
    factors = _factors(node, classes)
    return None if factors is None else [factors]


def _factors(node: ast.expr, classes: ShapeClasses):
    """`node` as one product (number, sorted scalar factors, sorted array factors), or None; a
    factor is the text of its expression, a divisor's with "/" before it."""
    if is_number(node):
        return float(node.value), (), ()
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        left, right = _factors(node.left, classes), _factors(node.right, classes)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Mult):
            return left[0] * right[0], tuple(sorted(left[1] + right[1])), tuple(sorted(left[2] + right[2]))
        if right[2] or right[0] == 0.0:  # only numbers divide
            return None
        inverted = tuple(s[1:] if s.startswith("/") else "/" + s for s in right[1])
        return left[0] / right[0], tuple(sorted(left[1] + inverted)), left[2]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _factors(node.operand, classes)
        return None if inner is None else (-inner[0], inner[1], inner[2])
    if classes.of(node) == SCALAR:  # a number's name, or arithmetic of numbers (``1.0 - tau``)
        return 1.0, (ast.unparse(node),), ()
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return None
    return 1.0, (), (ast.unparse(node),)


def _product(number: float, scalars: tuple, arrays: tuple) -> ast.expr:
    """number * scalars / divisors * arrays, the numbers first (one array operation a factor)."""
    out: ast.expr | None = None if number == 1.0 else ast.Constant(number)
    for s in scalars:
        factor = ast.parse(s.removeprefix("/"), mode="eval").body
        if s.startswith("/"):
            out = ast.BinOp(out if out is not None else ast.Constant(1.0), ast.Div(), factor)
        else:
            out = factor if out is None else ast.BinOp(out, ast.Mult(), factor)
    for a in arrays:
        atom = ast.parse(a, mode="eval").body
        out = atom if out is None else ast.BinOp(out, ast.Mult(), atom)
    return out if out is not None else ast.Constant(1.0)


def common_factor(first: ast.expr, second: ast.expr, classes: ShapeClasses):
    """(number expression of `first`, of `second`, their common array factor) where each branch is
    one product of numbers by the same arrays (``tau * r * r`` and ``(1.0 - tau) * r * r``): a
    selection of the numbers times the arrays then makes one array of the selection, not two of
    the branches.  None otherwise."""
    found = [_terms(b, classes) for b in (first, second)]
    if any(t is None or len(t) != 1 for t in found):
        return None
    (n1, s1, a1), = found[0]
    (n0, s0, a0), = found[1]
    if not a1 or a1 != a0:
        return None
    arrays = _product(1.0, (), a1)
    return _product(n1, s1, ()), _product(n0, s0, ()), arrays
