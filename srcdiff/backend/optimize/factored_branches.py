"""A number both branches of a selection share, factored out: ``np.where(c, s * a, s * b)`` is
``np.where(c, a, b) * s`` (moved out of wheres.py, which holds the selections' decided branches)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from .liveness import is_pure, nodes
from .simplify import is_float, is_number
from .wheres import is_where


def factor_branches(func: ast.FunctionDef, is_scalar: Callable[[str], bool],
                    float_names: Callable[[str], bool]) -> bool:
    """``np.where(c, s * a, s * b)`` is ``np.where(c, a, b) * s`` for a number `s` (the mean's
    ``1 / n`` in both branches of a piecewise loss's adjoint): one array product instead of
    two.  Only a leading factor both branches share, a name of a number or a constant; the
    product rounds as ``(a * b) * s`` rather than ``(s * a) * b``."""
    changed = False
    for node in nodes(func):
        for field in ("value", "left", "right", "operand"):
            sub = getattr(node, field, None)
            if not (is_where(sub) and is_pure(sub)):
                continue
            leads = [_leading(b) for b in sub.args[1:]]
            if None in leads or ast.dump(leads[0]) != ast.dump(leads[1]) or not _number(leads[0], is_scalar):
                continue
            branches = [_unit_dropped(_without_leading(b), float_names) for b in sub.args[1:]]
            setattr(node, field, ast.BinOp(ast.Call(sub.func, [sub.args[0], *branches], []), ast.Mult(), leads[0]))
            changed = True
    return changed


def _leading(expr: ast.expr) -> ast.expr | None:
    """The leftmost factor of a product of two or more factors."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult)):
        return None
    while isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        expr = expr.left
    return expr


def _without_leading(expr: ast.BinOp) -> ast.expr:
    if not (isinstance(expr.left, ast.BinOp) and isinstance(expr.left.op, ast.Mult)):
        return expr.right
    return ast.BinOp(_without_leading(expr.left), ast.Mult(), expr.right)


def _unit_dropped(expr: ast.expr, float_names) -> ast.expr:
    """``0.5 * 2 * x`` is `x` (a float): constants whose product is exactly one (a selection
    copies its branches, so no array is shared)."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult) and is_float(expr.right, float_names)):
        return expr
    factors, left = [], expr.left
    while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mult):
        factors.append(left.right)
        left = left.left
    factors.append(left)
    if not all(is_number(f) for f in factors):
        return expr
    product = 1.0
    for f in reversed(factors):
        product *= f.value
    return expr.right if product == 1.0 else expr


def _number(expr: ast.expr, is_scalar: Callable[[str], bool]) -> bool:
    return is_number(expr) or (isinstance(expr, ast.Name) and is_scalar(expr.id))
