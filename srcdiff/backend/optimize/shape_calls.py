"""Small readings of generated code's calls that the same-shape passes use (sameshape.py):
an elementwise ufunc, a dtype conversion, an integer constant, the operand of a shape read,
arithmetic of sizes and constants."""

from __future__ import annotations

import ast

import numpy as np


def is_ufunc(call: ast.Call) -> bool:
    """``np.f(...)`` where `f` is an elementwise ufunc (no ``out=``, not a generalised one)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"):
        return False
    ufunc = getattr(np, func.attr, None)
    return isinstance(ufunc, np.ufunc) and ufunc.signature is None and not call.keywords


def is_conversion(expr: ast.expr) -> bool:
    """``np.asarray(e, dtype=d)``."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "asarray" \
        and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np" and len(expr.args) == 1 \
        and [k.arg for k in expr.keywords] == ["dtype"]


def int_value(node: ast.expr) -> int | None:
    """The value of an integer constant (``3``, ``-1``), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and int_value(node.operand) is not None:
        return -int_value(node.operand)
    return None


def shape_of_call(node: ast.expr) -> ast.expr | None:
    """`t` when `node` is ``np.shape(t)`` or ``t.shape`` (`t` any expression)."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "shape" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" and len(node.args) == 1:
        return node.args[0]
    return None


def is_size_arithmetic(node: ast.expr) -> bool:
    """Arithmetic of number constants and sizes (``1.0 / y.size``, ``2.0 / np.size(r)``): a
    Python number whatever the arrays are."""
    if isinstance(node, ast.BinOp):
        return is_size_arithmetic(node.left) and is_size_arithmetic(node.right)
    if isinstance(node, ast.UnaryOp):
        return is_size_arithmetic(node.operand)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" and len(node.args) == 1:
        return not node.keywords
    return (isinstance(node, ast.Constant) and type(node.value) in (int, float)) \
        or (isinstance(node, ast.Attribute) and node.attr == "size")


def self_operand(expr: ast.expr) -> str | None:
    """x of ``x * x``, ``x + x``, ``x * 2.0``, ``2.0 - x`` (elementwise, of one name and itself or a
    number): the value has x's shape when x has one (an array, a NumPy scalar; a Python number
    has no ``.shape`` either way)."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div))):
        return None
    names = [e.id for e in (expr.left, expr.right) if isinstance(e, ast.Name)]
    numbers = [e for e in (expr.left, expr.right) if isinstance(e, ast.Constant) and type(e.value) in (int, float)]
    return names[0] if len(set(names)) == 1 and len(names) + len(numbers) == 2 else None
