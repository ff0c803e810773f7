"""A tie's half share of a gradient that is zero wherever the tie holds: the gradient itself.

The adjoint of ``np.maximum(a, 0.0)`` (and of minimum, fmax, fmin) gives each side half the
gradient where ``a == 0.0``: ``np.where(a == 0.0, 0.5 * g, g)``, a comparison over the array and,
once `tie_shares` guards it, a test for a tie before every gradient.  Where `g` is a product one of
whose factors is itself zero at the tie, halving it changes nothing: a squared hinge's
``m = np.maximum(a, 0.0)`` with ``g = 2.0 * k * m`` (the square's adjoint), Huber's
``e = np.maximum(abs(r) - d, 0.0)`` with ``g = -k * e``.  At a tie ``m`` is ±0, so `g` is ±0 or
NaN (a factor inf or NaN), and half of it is the same bits: the share is `g`, exactly, in `g`'s
shape and dtype (every factor broadcasts to `g`'s shape, so the comparison, of `m`'s shape or of
`a`'s, was never wider than `g`).

A factor is zero at the tie ``a == b`` (one side a zero number, the other a name of an array) when
it is that zero side's partner itself, a maximum or minimum of the two (``np.maximum(a, 0.0)`` is
``a`` = 0 there), a product with such a factor, a quotient of one, its negation, absolute value or
positive power, or a name bound once, at the function's top, to such a factor before the share is
read and never written into.  The names the tie reads are bound once at the top too, so the
factor's value is of the same `a`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .liveness import bound_once

#: calls whose value at a tie of their two arguments is that tied value
_TIED = frozenset({"maximum", "minimum", "fmax", "fmin"})
#: calls whose value is zero where their one argument is
_ZERO_KEEPING = frozenset({"abs", "absolute", "negative", "positive", "fabs", "square", "sqrt", "sin", "tanh",
                           "sinh", "arctan", "arcsin", "arctanh", "expm1", "log1p", "sign"})


def drop_zero_shares(func: ast.FunctionDef, is_array: Callable[[str], bool]) -> bool:
    """Replace every ``np.where(a == 0.0, 0.5 * g, g)`` whose `g` is zero at the tie by `g` (see
    the module); `is_array(name)` says that a name certainly holds an array."""
    bound = bound_once(func)
    changed = False
    for place, stmt in enumerate(func.body):
        rewriter = _Shares(bound, place, is_array)
        rewriter.visit(stmt)
        changed |= rewriter.changed
    return changed


class _Shares(ast.NodeTransformer):
    def __init__(self, bound: dict[str, tuple[int, ast.expr]], place: int, is_array):
        self.bound, self.place, self.is_array = bound, place, is_array
        self.changed = False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        share = _share(node)
        if share is None:
            return node
        left, right, g = share
        for zero, other in ((left, right), (right, left)):
            if _is_zero(zero) and isinstance(other, ast.Name) and self.is_array(other.id) \
                    and self._fixed(other.id) and self._zero_at(g, other, (left, right), 8):
                self.changed = True
                return g
        return node

    def _fixed(self, name: str) -> bool:
        """Whether `name` holds one value wherever the share reads it: bound once, at the top, before."""
        found = self.bound.get(name)
        return found is not None and found[0] < self.place

    def _zero_at(self, e: ast.expr, side: ast.Name, tied: tuple[ast.expr, ast.expr], depth: int) -> bool:
        """Whether `e` is ±0 or NaN wherever ``side == 0`` (the two `tied` expressions are equal)."""
        if depth == 0:
            return False
        if isinstance(e, ast.Name):
            if e.id == side.id:
                return True
            return self._fixed(e.id) and self._zero_at(self.bound[e.id][1], side, tied, depth - 1)
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
            return self._zero_at(e.operand, side, tied, depth - 1)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult):
            return self._zero_at(e.left, side, tied, depth - 1) or self._zero_at(e.right, side, tied, depth - 1)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Div):
            return self._zero_at(e.left, side, tied, depth - 1)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Pow):
            return isinstance(e.right, ast.Constant) and type(e.right.value) in (int, float) \
                and e.right.value > 0 and self._zero_at(e.left, side, tied, depth - 1)
        name = _np_call(e)
        if name in _TIED and len(e.args) == 2:
            pair = sorted(ast.dump(a) for a in e.args)
            return pair == sorted(ast.dump(t) for t in tied)
        if name in _ZERO_KEEPING and len(e.args) == 1 or _is_builtin_abs(e):
            return self._zero_at(e.args[0], side, tied, depth - 1)
        return False


def _share(node: ast.Call) -> tuple[ast.expr, ast.expr, ast.expr] | None:
    """``np.where(a == b, 0.5 * g, g)``: (a, b, g)."""
    if _np_call(node) != "where" or len(node.args) != 3:
        return None
    test, half, whole = node.args
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    if not (isinstance(half, ast.BinOp) and isinstance(half.op, ast.Mult) and isinstance(half.left, ast.Constant)
            and type(half.left.value) is float and half.left.value == 0.5 and ast.dump(half.right) == ast.dump(whole)):
        return None
    return test.left, test.comparators[0], whole


def _np_call(node: ast.expr) -> str | None:
    """`f` when `node` is ``np.f(...)`` with positional arguments only."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == "np" and not node.keywords:
        return node.func.attr
    return None


def _is_builtin_abs(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "abs" \
        and len(node.args) == 1 and not node.keywords


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 0
