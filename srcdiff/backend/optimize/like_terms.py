"""Like terms and power-of-two factors collected, so that numbers meet numbers before arrays.

A square's adjoint written as a product ``a * a`` adds its two terms, ``s + s``, a pass over the
array where the factor 2 could go to the numbers already multiplying it; and numbers that reach a
product from both sides of a selection or of parentheses each cost a pass:

* ``s + s`` is ``2.0 * s`` for a float `s` (a name): bit for bit, both round the exact 2 s once;
* ``k * np.where(c, a, 0.0)`` (`k` a positive finite number written in the code) is
  ``np.where(c, k * a, 0.0)``: bit for bit, k times +0.0 is +0.0, and the product where `c` holds
  is the same one;
* ``s = np.where(c, a, 0.0)`` read only by the next statement, ``x = k * s``, is
  ``x = np.where(c, k * a, 0.0)`` (the two statements were one expression's two steps);
* ``k * (e * x)`` and ``(e * x) * k`` with `k` a power of two written in the code and `e` a number
  (not an array) are ``(k * e) * x``: a power of two scales without rounding, so both are the
  exact k e x rounded once, but where a product leaves the normal range (an overflow, a subnormal
  rounded on one side and not the other); ``k * e`` read as the name a statement before bound to it.

Float64 code (the bit-for-bit arguments are IEEE's, for one width); numbers reach here as Python
floats or names the optimizer knows hold numbers.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

from .liveness import assigned_name, bodies, bound_once, is_comment, is_pure, is_size, reads


def collect(func: ast.FunctionDef, float_names: Callable[[str], bool], scalar_names: Callable[[str], bool]) -> bool:
    """Rewrite `func`'s expressions as the module says; whether anything changed."""
    collector = _Collect(float_names, scalar_names, bound_once(func))
    for place, stmt in enumerate(func.body):
        collector.place = place
        collector.visit(stmt)
    loads = reads(func)
    collector.place = -1  # (below, statements of any block: no product read as a name)
    for block in bodies(func.body):
        for i in reversed(range(len(block))):
            if _scaled_next(block, i, loads, collector):
                del block[i]
                collector.changed = True
    return collector.changed


def _scaled_next(block: list[ast.stmt], i: int, loads, collector: _Collect) -> bool:
    """Whether ``s = np.where(c, a, 0.0)`` at `i` went into the next statement, ``x = k * s``."""
    stmt = block[i]
    name = assigned_name(stmt)
    if name is None or loads[name] != 1 or not _is_where_zero(stmt.value) or not is_pure(stmt.value):
        return False
    later = next((s for s in block[i + 1:] if not is_comment(s)), None)
    scaled = later.value if isinstance(later, ast.Assign) and len(later.targets) == 1 else None
    if not (isinstance(scaled, ast.BinOp) and isinstance(scaled.op, ast.Mult)):
        return False
    for k, s in ((scaled.left, scaled.right), (scaled.right, scaled.left)):
        if _positive(k) and isinstance(s, ast.Name) and s.id == name:
            later.value = collector.visit_BinOp(ast.BinOp(k, ast.Mult(), stmt.value))
            return True
    return False


class _Collect(ast.NodeTransformer):
    def __init__(self, float_names, scalar_names, bound: dict[str, tuple[int, ast.expr]]):
        self.float_names, self.scalar_names, self.bound = float_names, scalar_names, bound
        self.place, self.changed = len(bound), False
        # a number's product already held by a name (``t4 = 2.0 * x``): read as that name
        self.held = {ast.dump(value): (place, name) for name, (place, value) in bound.items()
                     if isinstance(value, ast.BinOp)}

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        left, right = node.left, node.right
        if isinstance(node.op, ast.Add) and isinstance(left, ast.Name) and isinstance(right, ast.Name) \
                and left.id == right.id and self.float_names(left.id):
            return self._done(ast.BinOp(ast.Constant(2.0), ast.Mult(), left))
        if not isinstance(node.op, ast.Mult):
            return node
        for k, other in ((left, right), (right, left)):
            if _positive(k) and _is_where_zero(other):
                other.args[1] = self.visit_BinOp(ast.BinOp(ast.Constant(k.value), ast.Mult(), other.args[1]))
                return self._done(other)
            if _power_of_two(k) and isinstance(other, ast.BinOp) and isinstance(other.op, ast.Mult) \
                    and self._number(other.left) and not self._number(other.right):
                scale = self._held(ast.BinOp(ast.Constant(k.value), ast.Mult(), other.left))
                return self._done(ast.BinOp(scale, ast.Mult(), other.right))
        return node

    def _done(self, node: ast.expr) -> ast.expr:
        self.changed = True
        return node

    def _held(self, product: ast.BinOp) -> ast.expr:
        """The name a top statement before this one bound to `product`, if every name it reads holds one
        value there; else `product`."""
        place, name = self.held.get(ast.dump(product), (self.place, None))
        names = {n.id for n in ast.walk(product) if isinstance(n, ast.Name)}
        if place < self.place and all(n in self.bound and self.bound[n][0] < self.place for n in names):
            return ast.Name(name, ast.Load())
        return product

    def _number(self, e: ast.expr) -> bool:
        """Whether `e` certainly is a number, not an array."""
        if isinstance(e, ast.Constant):
            return type(e.value) in (int, float)
        if isinstance(e, ast.Name):
            return self.scalar_names(e.id)
        if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
            return self._number(e.left) and self._number(e.right)
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
            return self._number(e.operand)
        return is_size(e) or isinstance(e, ast.Attribute) and e.attr == "size" and isinstance(e.value, ast.Name)


def _positive(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is float and math.isfinite(node.value) \
        and node.value > 0.0


def _power_of_two(node: ast.expr) -> bool:
    """A float written in the code whose magnitude is a power of two (0.5, 2.0, -2.0)."""
    if not (isinstance(node, ast.Constant) and type(node.value) is float and math.isfinite(node.value)
            and node.value != 0.0):
        return False
    mantissa, _ = math.frexp(abs(node.value))
    return mantissa == 0.5


def _is_where_zero(node: ast.expr) -> bool:
    """``np.where(c, a, 0.0)``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "where" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" and len(node.args) == 3 \
        and not node.keywords and isinstance(node.args[2], ast.Constant) and type(node.args[2].value) is float \
        and node.args[2].value == 0.0 and math.copysign(1.0, node.args[2].value) > 0
