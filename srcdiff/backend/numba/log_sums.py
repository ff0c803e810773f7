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
from numba.np.numpy_support import as_dtype

from .naming import made, overload
from .reductions import row_reduction

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
    text = row_reduction(a, axis, keepdims, "log_sum_exp", "np.logaddexp.reduce: srcdiff's numba version takes")
    dtype = as_dtype(a.dtype) if isinstance(a.dtype, types.Float) else np.dtype(np.float64)
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
