"""A shape tuple in arithmetic with an array (``x * np.shape(x)``: NumPy makes the tuple an
array), for generated code: numba has no arithmetic of a tuple and an array.

`rewrite` wraps each operand of an arithmetic operator that is a shape (``x.shape``,
``np.shape(x)``, or a name bound to one) in ``shape_operand(t, other)``, which numba
compiles, from the types, to ``np.array(t)`` when the other operand is an array and to `t`
unchanged otherwise (``s * 2`` of a tuple repeats it, in NumPy's code as in numba's).
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .naming import overload

ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def rewrite(func: ast.FunctionDef) -> bool:
    """Rewrite `func` in place; whether it now calls ``shape_operand``."""
    shapes = {t.id for node in ast.walk(func) if isinstance(node, ast.Assign) and _is_shape(node.value, set())
              for t in node.targets if isinstance(t, ast.Name)}
    shapes -= {t.id for node in ast.walk(func) if isinstance(node, ast.Assign) and not _is_shape(node.value, set())
               for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    used = False
    for node in ast.walk(func):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
            left, right = node.left, node.right
            if _is_shape(left, shapes) and not _is_shape(right, shapes):
                node.left, used = _wrapped(left, right), True
            elif _is_shape(right, shapes) and not _is_shape(left, shapes):
                node.right, used = _wrapped(right, left), True
    return used


def _is_shape(node: ast.expr, names: set) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "shape" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" and len(node.args) == 1


def _wrapped(shape: ast.expr, other: ast.expr) -> ast.expr:
    return ast.Call(ast.Name("shape_operand", ast.Load()), [shape, other], [])


def shape_operand(shape, other):
    return np.asarray(shape) if isinstance(other, np.ndarray) else shape


@overload(shape_operand)
def _shape_operand(shape, other):
    if isinstance(shape, types.UniTuple) and isinstance(shape.dtype, types.Integer) \
            and isinstance(other, types.Array):
        return lambda shape, other: np.array(shape)
    return lambda shape, other: shape


def broadcast_to_shape(value, shape):
    return np.broadcast_to(value, shape)


@overload(broadcast_to_shape)
def _broadcast_to_shape(value, shape):
    """``np.broadcast_to(t, np.shape(y))`` of a number y (a tangent's broadcast, forward mode): to the shape
    ``()`` numba's broadcast_to fails in its compiler; the number is its own broadcast there."""
    if isinstance(shape, types.BaseTuple) and len(shape) == 0:
        if isinstance(value, (types.Number, types.Boolean)):
            return lambda value, shape: value
        if isinstance(value, types.Array) and value.ndim == 0:
            return lambda value, shape: value[()]
    return lambda value, shape: np.broadcast_to(value, shape)


HELPERS = ("shape_operand", "broadcast_to_shape")
