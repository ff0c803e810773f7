"""Functions of `math` of a batched number (ad/batching_rules.py `elementwise`): ``math.sin(x)`` is
``np.sin(x)`` over the batch; a function NumPy has no ufunc of (``math.erf``, ``math.erfc``,
``math.gamma``, ``math.lgamma``) is ``math_rows(math.erf, x)`` (rules/batching_each_row.py), called on
each element as one example calls it, the rest of the code batched (it ran one example at a time).
With jit="numba" (no helpers) it is refused at the line, as before."""

from __future__ import annotations

import ast
import math

import numpy as np


def math_to_numpy(expr: ast.expr, node, state) -> ast.expr:
    """`expr` (a node's call of a `math` function, its batched operands already rows) over the batch."""
    kept = set()  # (the functions passed to math_rows, left as they are)
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Call) and _no_ufunc(sub.func) and not sub.keywords and state.select:
            kept.add(id(sub.func))
            sub.args, sub.func = [sub.func, *sub.args], ast.Name("math_rows", ast.Load())
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "math" \
                and id(sub) not in kept:
            if _no_ufunc(sub):
                state.refuse(node, f"math.{sub.attr} of a batched number has no NumPy counterpart")
            sub.value.id = "np"
    return expr


def _no_ufunc(func: ast.expr) -> bool:
    """Whether `func` is ``math.<name>`` where NumPy has no ufunc of that name (or math no function)."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math" and (
        not isinstance(getattr(np, func.attr, None), np.ufunc) or not callable(getattr(math, func.attr, None)))


__all__ = ["math_to_numpy"]
