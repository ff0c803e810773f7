"""numba versions of ``np.partition`` and ``np.argpartition`` with ``axis=`` (numba's take
none): ``np.argpartition(sq, 4, axis=-1)``, which the adjoint of ``np.partition`` reads, is
spelled ``argpartition_axis(sq, 4, -1)``.  A vector (or ``axis=None``: the flattened array)
is numba's own partition; along an axis of an N-D array, each row with that axis last.

Where values tie at the partition's boundary, which of the equal elements lands where is
numba's choice, as it is NumPy's: the gradient sends each tied element's share to the one
the compiled code placed there (the Python gradient may place another: a subgradient too).
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .naming import made, overload
from .reductions import axes

CALLS = {"partition": "partition_axis", "argpartition": "argpartition_axis"}


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``np.partition(a, kth, axis)`` / ``np.argpartition(a, kth, axis=k)``: the helper."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in CALLS and isinstance(func.value, ast.Name)
            and func.value.id == "np" and len(node.args) in (2, 3)):
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    axis = node.args[2] if len(node.args) == 3 else keywords.get("axis")
    if axis is None or len(node.args) + len(keywords) != 3:
        return None
    return CALLS[func.attr], [node.args[0], node.args[1], axis]


def partition_axis(a, kth, axis):
    return np.partition(a, kth, axis=axis)


def argpartition_axis(a, kth, axis):
    return np.argpartition(a, kth, axis=axis)


def _along(a, kth, axis, call: str, dtype: str):
    if not isinstance(a, types.Array) or not isinstance(kth, (types.Integer, types.Array, types.BaseTuple)):
        return None
    if isinstance(axis, (types.NoneType, types.Omitted)) or a.ndim == 1:
        flat = "np.ascontiguousarray(a).ravel()" if a.ndim > 1 else "a"
        return made(f"def impl(a, kth, axis):\n    return np.{call}({flat}, kth)\n")
    (along,) = axes(axis, a.ndim)
    perm = tuple(d for d in range(a.ndim) if d != along) + (along,)
    back = tuple(perm.index(d) for d in range(a.ndim))
    return made("def impl(a, kth, axis):\n"
                f"    moved = np.ascontiguousarray(a.transpose({perm}))\n"
                "    m = moved.reshape((-1, moved.shape[-1]))\n"
                f"    out = np.empty(m.shape, {dtype})\n"
                "    for i in range(m.shape[0]):\n"
                f"        out[i] = np.{call}(m[i], kth)\n"
                f"    return np.ascontiguousarray(out.reshape(moved.shape).transpose({back}))\n")


@overload(partition_axis, prefer_literal=True)
def _partition_axis(a, kth, axis):
    return _along(a, kth, axis, "partition", "m.dtype")


@overload(argpartition_axis, prefer_literal=True)
def _argpartition_axis(a, kth, axis):
    return _along(a, kth, axis, "argpartition", "np.int64")


HELPERS = ("partition_axis", "argpartition_axis")

__all__ = ["HELPERS", "argpartition_axis", "partition_axis", "spell"]
