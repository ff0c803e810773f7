"""``np.average(a, axis=k, weights=w, keepdims=b)`` for numba, whose own takes no axis (nor
keepdims): spelled ``average_of(a, axis, weights, keepdims)`` (spelling.py calls `spell`).

Written from the types, as NumPy computes it: without weights (``None``, a parameter left at
its default too) the mean; with weights of a's shape ``sum(a * w) / sum(w)`` over the axes;
with 1-D weights and one axis, the weights laid along that axis.  Weights summing to zero
raise NumPy's ``ZeroDivisionError``, and weights of another shape its ``ValueError`` (the
Python gradient then raises the user's error at the user's line).
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types
from numba.core.errors import TypingError

from .naming import made, overload
from .reductions import axes, reduce_mean, reduce_sum

KEYWORDS = {"axis", "weights", "keepdims"}


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``np.average(a[, axis][, weights]...)``; ``returned=True`` is left for numba to refuse."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "average" and isinstance(func.value, ast.Name)
            and func.value.id in ("np", "numpy")):
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    positional = dict(zip(("a", "axis", "weights"), node.args))
    if len(node.args) > 3 or not set(keywords) <= KEYWORDS or set(keywords) & set(positional):
        return None
    found = {**positional, **keywords}
    return "average_of", [found["a"], found.get("axis", ast.Constant(None)), found.get("weights", ast.Constant(None)),
                          found.get("keepdims", ast.Constant(False))]


def average_of(a, axis, weights, keepdims):
    return np.average(a, axis=axis, weights=weights, keepdims=keepdims)


def _is_none(t) -> bool:
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


@overload(average_of, prefer_literal=True)
def _average_of(a, axis, weights, keepdims):
    if not isinstance(a, types.Array) or a.ndim == 0:
        return None
    keep = getattr(keepdims, "literal_value", False if _is_none(keepdims) else None)
    if keep is None:
        raise TypingError("np.average: srcdiff's numba version takes keepdims as a constant")
    scope = {"reduce_sum": reduce_sum, "reduce_mean": reduce_mean}
    if _is_none(weights):
        return made("def impl(a, axis, weights, keepdims):\n    return reduce_mean(a, axis, keepdims)\n", **scope)
    if not isinstance(weights, types.Array):
        return None
    reduced = axes(None if _is_none(axis) else axis, a.ndim)
    whole = "reduce_sum(a * w, axis, keepdims) / total"
    if weights.ndim == a.ndim:
        text = ("def impl(a, axis, weights, keepdims):\n"
                "    if a.shape != weights.shape:\n"
                "        raise ValueError('np.average: weights of another shape than the array')\n"
                "    w = weights\n"
                "    total = reduce_sum(w, axis, keepdims)\n")
    elif weights.ndim == 1 and len(reduced) == 1 and not _is_none(axis):
        (along,) = reduced
        shape = ", ".join("weights.shape[0]" if d == along else "1" for d in range(a.ndim))
        text = ("def impl(a, axis, weights, keepdims):\n"
                f"    if weights.shape[0] != a.shape[{along}]:\n"
                "        raise ValueError('np.average: 1-D weights of another length than the axis')\n"
                f"    w = np.ascontiguousarray(weights).reshape(({shape},))\n"
                "    total = np.sum(weights)\n")
    else:
        return None  # NumPy's own error (an axis is needed, or the shapes differ): the Python gradient raises it
    zero = "np.any(total == 0.0)" if keep or len(reduced) < a.ndim else "total == 0.0"
    text += (f"    if {zero}:\n"
             "        raise ZeroDivisionError(\"Weights sum to zero, can't be normalized\")\n"
             f"    return {whole}\n")
    return made(text, **scope)


HELPERS = ("average_of",)
