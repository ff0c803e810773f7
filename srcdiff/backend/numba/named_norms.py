"""``np.linalg.norm(M, "fro")`` and ``np.linalg.norm(M, "nuc")``: numba's norm takes no
string order (it raises "Invalid norm order for matrices" when it runs).  `norm_named` is the
Frobenius norm (the square root of the sum of squares) or the nuclear norm (the sum of the
singular values) of a matrix, compiled for the order written in the code."""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .naming import overload


def norm_named(x, order):
    return np.linalg.norm(x, order)


@overload(norm_named, prefer_literal=True)
def _norm_named(x, order):
    if not (isinstance(x, types.Array) and isinstance(x.dtype, types.Float) and isinstance(order, types.StringLiteral)):
        return None
    if order.literal_value == "fro" and x.ndim == 2:  # (of a vector NumPy raises)
        return lambda x, order: np.sqrt(np.sum(x * x))
    if order.literal_value == "nuc" and x.ndim == 2:
        return lambda x, order: np.sum(np.linalg.svd(np.ascontiguousarray(x))[1])
    return None


def spell(node: ast.Call):
    """``np.linalg.norm(x, "fro")`` (the order by position or as ``ord=``): the helper and its
    arguments, or None."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "norm" and isinstance(func.value, ast.Attribute)
            and func.value.attr == "linalg" and isinstance(func.value.value, ast.Name)
            and func.value.value.id == "np" and node.args):
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    order = node.args[1] if len(node.args) == 2 and not keywords else \
        keywords.get("ord") if len(node.args) == 1 and set(keywords) == {"ord"} else None
    if isinstance(order, ast.Constant) and order.value in ("fro", "nuc"):
        return "norm_named", [node.args[0], order]
    return None


HELPERS = ("norm_named",)
