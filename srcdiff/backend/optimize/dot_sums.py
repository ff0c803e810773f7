"""Sums of products of vectors of one shape as dot products: ``np.mean(0.5 * r * r - 0.5 * e * e)``
is ``(0.5 * (r @ r) - 0.5 * (e @ e)) / r.size``.

A loss's value (value_and_grad computes it beside the gradient) and a scalar parameter's
adjoint are sums of element-wise polynomials of a few vectors: NumPy makes each product and each
difference as a full temporary, then sums it, four or five passes over memory where a dot
product, one pass that makes nothing, reads each pair once (a tenth of the cost of the
temporaries on 10,000 elements).  A careful hand writes the dots.

The summand is read as a sum of terms, each a number (constants, names of numbers, read from
the sum's operands) times one, two or three vectors; every vector of one shape class
(shape_classes.py: arrays proved of one shape, so no term broadcasts, and the mean's count is
any vector's size) and one-dimensional, each a float (a product of booleans would sum as a
count where ``@`` gives a boolean).  A term of one vector sums it (``a.sum()``), of two is
``a @ b``, of three ``(a * b) @ c``.  Rewritten only where it makes fewer passes than the sum
as written.  Like the contractions (contract.py) this rounds differently: a dot sums in another
order than NumPy's pairwise sum, within a few ulps of the sum's magnitude.  Only for code NumPy
runs as it is, every argument float64 (a float32 dot accumulates in float32, where np.sum's
pairwise sum is more accurate).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from .liveness import is_pure
from .shape_classes import SCALAR, ShapeClasses

#: the vectors a term may multiply (more: the sum as written)
MOST = 3


@dataclass
class Term:
    """``sign * (scalars...) * (vectors...)``; `scalars` are (operator, number expression) in order."""

    vectors: list[ast.expr] = field(default_factory=list)
    scalars: list[tuple[ast.operator, ast.expr]] = field(default_factory=list)
    negative: bool = False


def dot_sums(func: ast.FunctionDef, classes: ShapeClasses, is_float: Callable[[ast.expr], bool]) -> bool:
    """Rewrite every whole sum or mean in `func` of a polynomial of same-shape vectors (see the module)."""
    rewriter = _Rewrite(classes, is_float)
    rewriter.visit(func)
    return rewriter.changed


def _whole_sum(node: ast.expr) -> tuple[ast.expr, bool] | None:
    """(summand, whether a mean) of ``np.sum(e)``, ``np.mean(e)`` or ``e.sum()`` over every axis."""
    if not isinstance(node, ast.Call) or node.keywords or not isinstance(node.func, ast.Attribute):
        return None
    func = node.func
    if isinstance(func.value, ast.Name) and func.value.id == "np" and func.attr in ("sum", "mean") \
            and len(node.args) == 1:
        return node.args[0], func.attr == "mean"
    if func.attr == "sum" and not node.args and not (isinstance(func.value, ast.Name) and func.value.id == "np"):
        return func.value, False
    return None


def _passes(node: ast.expr, is_vector: Callable[[ast.expr], bool]) -> int:
    """How many array operations the summand as written makes (each a pass over the vectors)."""
    if isinstance(node, ast.BinOp):
        own = 1 if is_vector(node) else 0
        return own + _passes(node.left, is_vector) + _passes(node.right, is_vector)
    if isinstance(node, ast.UnaryOp):
        return (1 if is_vector(node) else 0) + _passes(node.operand, is_vector)
    return 0


class _Rewrite(ast.NodeTransformer):
    def __init__(self, classes: ShapeClasses, is_float: Callable[[ast.expr], bool]):
        self.classes, self.is_float = classes, is_float
        self.changed = False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        found = _whole_sum(node)
        if found is None:
            return node
        summand, mean = found
        if not is_pure(summand):
            return node
        terms = self.terms(summand)
        if not terms or any(not t.vectors or len(t.vectors) > MOST for t in terms):
            return node
        kinds = {self.classes.of(v) for t in terms for v in t.vectors}
        if len(kinds) != 1 or None in kinds or SCALAR in kinds:
            return node
        dims = self.classes.dims(kinds.pop())
        if dims is None or len(dims) != 1:
            return node
        if not all(self.is_float(v) for t in terms for v in t.vectors):
            return node
        after = sum(len(t.vectors) - 1 if len(t.vectors) > 2 else 1 for t in terms) + len(terms) - 1
        if after >= _passes(summand, self.is_vector) + 1:
            return node
        total = None
        for t in terms:
            value = self.reduced(t)
            if total is None:
                total = ast.UnaryOp(ast.USub(), value) if t.negative else value
            else:
                total = ast.BinOp(total, ast.Sub() if t.negative else ast.Add(), value)
        if mean:
            vectors = [v for t in terms for v in t.vectors]  # (the size of a name: no expression computed again)
            sized = next((v for v in vectors if isinstance(v, ast.Name)), vectors[0])
            size = ast.Attribute(copy.deepcopy(sized), "size", ast.Load())
            total = ast.BinOp(total, ast.Div(), size)
        self.changed = True
        return ast.copy_location(total, node)

    def is_vector(self, node: ast.expr) -> bool:
        kind = self.classes.of(node)
        return kind is not None and kind != SCALAR

    def reduced(self, term: Term) -> ast.expr:
        vectors = [copy.deepcopy(v) for v in term.vectors]
        if len(vectors) == 1:
            value = ast.Call(ast.Attribute(vectors[0], "sum", ast.Load()), [], [])
        else:
            left = vectors[0] if len(vectors) == 2 else ast.BinOp(vectors[0], ast.Mult(), vectors[1])
            value = ast.BinOp(left, ast.MatMult(), vectors[-1])
        for op, scalar in term.scalars:
            value = ast.BinOp(copy.deepcopy(scalar), op, value) if isinstance(op, ast.Mult) \
                else ast.BinOp(value, op, copy.deepcopy(scalar))
        return value

    def terms(self, node: ast.expr) -> list[Term] | None:
        """`node` as a sum of terms, or None where it is not a polynomial of vectors and numbers."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            left, right = self.terms(node.left), self.terms(node.right)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Sub):
                right = [Term(t.vectors, t.scalars, not t.negative) for t in right]
            return left + right
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.terms(node.operand)
            return None if inner is None else [Term(t.vectors, t.scalars, not t.negative) for t in inner]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            left, right = self.terms(node.left), self.terms(node.right)
            if left is None or right is None or len(left) != 1 or len(right) != 1:
                return None
            a, b = left[0], right[0]
            return [Term(a.vectors + b.vectors, a.scalars + b.scalars, a.negative != b.negative)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and self.classes.of(node.right) == SCALAR:
            left = self.terms(node.left)
            if left is None or len(left) != 1:
                return None
            t = left[0]
            return [Term(t.vectors, t.scalars + [(ast.Div(), node.right)], t.negative)]
        kind = self.classes.of(node)
        if kind == SCALAR:
            return [Term([], [(ast.Mult(), node)])]
        if kind is None or isinstance(node, (ast.BinOp, ast.UnaryOp)):
            return None
        return [Term([node])]
