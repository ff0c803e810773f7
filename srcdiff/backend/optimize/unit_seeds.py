"""Unit seeds folded into a forward sweep: the tangents of a Hessian's scalar columns.

A Hessian of a few scalar parameters runs one vector forward sweep over the gradient's code
whose tangent parameters are the unit directions: ``c_dot0 = 1.0, k_dot0 = 0.0, c_dot1 = 0.0,
k_dot1 = 1.0``.  Written into the code as numbers, many tangent terms are products with an
exact zero (``k_dot0 * t45``) and go, as do sums with them.

The one fold here that is not exact is ``0.0 * e -> 0.0`` (for a number `e`): where `e` is
inf or NaN the unfolded product is NaN.  That NaN is the seed's artefact, not a derivative:
the column along ``c`` does not move ``k``, so no term carrying ``k``'s zero tangent belongs
to it, whatever the value it multiplies.  Where every value is finite the folded sweep gives
the unfolded one's numbers (up to the sign of a zero); where a value is inf or NaN it gives
the same or, in place of that artefact NaN, the true partial derivative (docs/guarantees.md).
Every other fold (``e + 0.0``, ``e - 0.0``, ``1.0 * e``) is exact.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Mapping

from .liveness import assigned_name, nodes
from .simplify import Simplify, is_number


def fold_seeds(func: ast.FunctionDef, seeds: Mapping[str, float], float_names: Callable[[str], bool],
               scalar_names: Callable[[str], bool], is_scalar_expr: Callable[[ast.expr], bool]) -> None:
    """Drop the tangent parameters `seeds` (name -> its number) from `func`, write their
    numbers where they are read, and fold the arithmetic that becomes trivial, in place.
    `is_scalar_expr(e)` says whether `e` is certainly a number (never an array): only then
    ``0.0 * e`` is a number zero of the same kind."""
    func.args.args = [a for a in func.args.args if a.arg not in seeds]
    stored = {n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    constants = {name: value for name, value in seeds.items() if name not in stored}
    folder = _ZeroFold(float_names, scalar_names, is_scalar_expr)
    while constants:
        _Substitute(constants).visit(func)
        folder.visit(func)
        constants = _top_level_constants(func)


class _Substitute(ast.NodeTransformer):
    """Each read of a constant name becomes its number; its ``del`` goes."""

    def __init__(self, constants: Mapping[str, float]):
        self.constants = constants

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.constants:
            return ast.Constant(self.constants[node.id])
        return node

    def visit_Delete(self, node: ast.Delete) -> ast.stmt | None:
        node.targets = [t for t in node.targets if not (isinstance(t, ast.Name) and t.id in self.constants)]
        return node if node.targets else None

    def visit_Assign(self, node: ast.Assign) -> ast.stmt | None:
        self.generic_visit(node)
        name = assigned_name(node)
        return None if name in self.constants else node


class _ZeroFold(Simplify):
    """`Simplify` plus the folds of a zero: ``0.0 * e -> 0.0`` for a number `e`, ``e + 0.0``,
    ``e - 0.0 -> e`` for a float `e` (the second exact for every float, the first but for
    ``-0.0 + 0.0``)."""

    def __init__(self, float_names, scalar_names, is_scalar_expr):
        super().__init__(float_names, scalar_names)
        self.is_scalar_expr = is_scalar_expr

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        left, right, op = node.left, node.right, node.op
        if isinstance(op, ast.Mult):
            for zero, other in ((left, right), (right, left)):
                if _is_float_zero(zero) and self.is_scalar_expr(other):
                    return ast.Constant(0.0)
        if isinstance(op, (ast.Add, ast.Sub)) and _is_float_zero(right) and self._unit_removable(left):
            return left
        return super().visit_BinOp(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        folded = super().visit_UnaryOp(node)
        if _is_float_zero(folded):  # -0.0: the sign of a zero no sum keeps
            return ast.Constant(0.0)
        return folded


def _is_float_number(node: ast.expr) -> bool:
    return is_number(node) and type(node.value) is float


def _is_float_zero(node: ast.expr) -> bool:
    return is_number(node, 0.0) and type(node.value) is float


def _top_level_constants(func: ast.FunctionDef) -> dict[str, float]:
    """Names assigned once in the whole function, by a number at its top level (read only
    after it: generated code reads no name before its first assignment)."""
    counts = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    params = {a.arg for a in func.args.args}
    found = {}
    for stmt in func.body:
        name = assigned_name(stmt)
        if name is not None and name not in params and counts[name] == 1 and _is_float_number(stmt.value):
            found[name] = stmt.value.value
    return found


__all__ = ["fold_seeds"]
