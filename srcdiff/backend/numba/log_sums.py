"""``np.logaddexp.reduce(x, axis=k, keepdims=b)`` for numba, which has no ufunc methods:
spelled ``logaddexp_reduce(x, axis, keepdims)`` (spelling.py calls `spell`).

The axis and ``keepdims`` are constants in generated code, so the code is written from the
types, as reductions.py's: the kept axes first, one row per result, each row's
``log(sum(exp(row - max)))`` around its largest element.  NumPy folds ``logaddexp`` pairwise
along the axis; the two agree to rounding, and at the ends as NumPy's does: an empty row
is ``-inf`` (logaddexp's identity), a row holding ``inf`` is ``inf``, a NaN is NaN.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.np.numpy_support import as_dtype

from .naming import made, overload
from .reductions import axes

KEYWORDS = {"axis", "keepdims"}


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``np.logaddexp.reduce(x[, axis][, keepdims=])``: its axis defaults to 0, as NumPy's
    ufunc reductions' (not None, as np.sum's).  Other keywords (``dtype``, ``out``,
    ``initial``, ``where``) are left for numba to refuse at the line."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "reduce" and isinstance(func.value, ast.Attribute)
            and func.value.attr == "logaddexp" and isinstance(func.value.value, ast.Name)
            and func.value.value.id in ("np", "numpy")):
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    if not 1 <= len(node.args) <= 2 or not set(keywords) <= KEYWORDS or len(node.args) == 2 and "axis" in keywords:
        return None
    axis = node.args[1] if len(node.args) == 2 else keywords.get("axis", ast.Constant(0))
    return "logaddexp_reduce", [node.args[0], axis, keywords.get("keepdims", ast.Constant(False))]


def logaddexp_reduce(a, axis, keepdims):
    return np.logaddexp.reduce(a, axis=axis, keepdims=keepdims)


@overload(logaddexp_reduce, prefer_literal=True)
def _logaddexp_reduce(a, axis, keepdims):
    if not isinstance(a, types.Array) or a.ndim == 0:
        return None
    keep = getattr(keepdims, "literal_value", False if isinstance(keepdims, (types.NoneType, types.Omitted))
                   else None)
    if keep is None:
        raise TypingError("np.logaddexp.reduce: srcdiff's numba version takes keepdims as a constant")
    reduced = axes(axis, a.ndim)
    kept = [d for d in range(a.ndim) if d not in reduced]
    perm = tuple(kept + list(reduced))
    outer = " * ".join(f"a.shape[{d}]" for d in kept) or "1"
    inner = " * ".join(f"a.shape[{d}]" for d in reduced) or "1"
    if keep:
        shape = ", ".join("1" if d in reduced else f"a.shape[{d}]" for d in range(a.ndim))
    else:
        shape = ", ".join(f"a.shape[{d}]" for d in kept)
    moved = "a" if perm == tuple(range(a.ndim)) else f"a.transpose({perm})"
    result = f"out.reshape(({shape},))" if shape else "out[0]"
    dtype = as_dtype(a.dtype) if isinstance(a.dtype, types.Float) else np.dtype(np.float64)
    text = ("def impl(a, axis, keepdims):\n"
            f"    m = np.ascontiguousarray({moved}).reshape(({outer}, {inner}))\n"
            f"    out = np.empty({outer}, DTYPE)\n"
            f"    for i in range({outer}):\n"
            "        out[i] = log_sum_exp(m[i])\n"
            f"    return {result}\n")
    return made(text, DTYPE=dtype.type, log_sum_exp=log_sum_exp)


def log_sum_exp(row):
    """``log(sum(exp(row)))`` of a 1-D array, around its largest element (no overflow)."""
    return np.logaddexp.reduce(row)


@overload(log_sum_exp)
def _log_sum_exp(row):
    def impl(row):
        if row.size == 0:
            return -np.inf
        top = np.max(row)  # NaN if any is NaN
        if not np.isfinite(top):
            return top  # inf, -inf (every element -inf) or NaN: as the pairwise fold gives
        total = 0.0
        for v in row:
            total += np.exp(v - top)
        return top + np.log(total)
    return impl


HELPERS = ("logaddexp_reduce",)
