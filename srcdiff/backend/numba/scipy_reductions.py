"""SciPy's reductions ``logsumexp``, ``softmax`` and ``log_softmax`` for numba.

srcdiff differentiates them by their rules (rules/scipy_special.py), so the gradient calls
them for their values only; scipy_calls.py spells such a call with every argument by
position (``scipy_logsumexp(a, axis, b, keepdims)``).  The axis and ``keepdims`` are
constants in generated code, so each call's code is made from the types alone, as
reductions.py makes its reductions: the reduced axes moved last, the array seen as (kept,
reduced), one shifted sum per row, ``max + log(sum(b * exp(a - max)))``, where a row whose
maximum is infinite is not shifted (its sum is then 0 or inf, as SciPy's).  ``softmax`` and
``log_softmax`` shift by the maximum along the axis the same way, as SciPy does:
``exp(x - max) / sum`` and ``(x - max) - log(sum)``.
float32 stays float32, as SciPy keeps it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.core.errors import TypingError

from .naming import compiled, made, overload
from .reductions import axes, reduce_max, reduce_sum


def scipy_logsumexp(a, axis, b, keepdims):
    import scipy.special
    return scipy.special.logsumexp(a, axis=axis, b=b, keepdims=keepdims)


def scipy_softmax(x, axis):
    import scipy.special
    return scipy.special.softmax(x, axis=axis)


def scipy_log_softmax(x, axis):
    import scipy.special
    return scipy.special.log_softmax(x, axis=axis)


def _none(t) -> bool:
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


def _float32(*operands) -> bool:
    arrays = [t.dtype for t in operands if isinstance(t, types.Array)]
    return bool(arrays) and all(d == types.float32 for d in arrays)


def _number(t) -> bool:
    return isinstance(t, (types.Float, types.Integer))


def _lse_text(ndim: int, reduced: tuple, keep: bool, weighted: bool) -> str:
    """The function computing logsumexp of an `ndim`-dimensional array over `reduced`."""
    kept = [d for d in range(ndim) if d not in reduced]
    perm = tuple(kept + list(reduced))
    outer = " * ".join(f"x.shape[{d}]" for d in kept) or "1"
    inner = " * ".join(f"x.shape[{d}]" for d in reduced) or "1"
    if keep:
        shape = ", ".join("1" if d in reduced else f"x.shape[{d}]" for d in range(ndim))
    else:
        shape = ", ".join(f"x.shape[{d}]" for d in kept)
    moved = "x" if perm == tuple(range(ndim)) else f"x.transpose({perm})"
    moved_w = "w" if perm == tuple(range(ndim)) else f"w.transpose({perm})"
    result = f"out.astype(DTYPE).reshape(({shape},))" if shape else "DTYPE(out[0])"
    lines = ["def lse(x, w):",
             f"    m = np.ascontiguousarray({moved}).reshape(({outer}, {inner}))"]
    if weighted:
        lines.append(f"    v = np.ascontiguousarray({moved_w}).reshape(({outer}, {inner}))")
    term = "v[i, j] * math.exp(m[i, j] - top)" if weighted else "math.exp(m[i, j] - top)"
    lines += [f"    out = np.empty({outer}, np.float64)",
              f"    for i in range({outer}):",
              "        top = -math.inf",
              f"        for j in range({inner}):",
              "            if m[i, j] > top:",
              "                top = m[i, j]",
              "        if math.isinf(top) or math.isnan(top):",
              "            top = 0.0",
              "        total = 0.0",
              f"        for j in range({inner}):",
              f"            total += {term}",
              "        out[i] = np.log(total) + top",
              f"    return {result}"]
    return "\n".join(lines) + "\n"


def _lse_function(ndim: int, axis, keep: bool, weighted: bool, dtype):
    reduced = axes(axis, ndim)
    return compiled(made(_lse_text(ndim, reduced, keep, weighted), "lse", math=math, DTYPE=dtype))


def _keep(keepdims) -> bool:
    if _none(keepdims):
        return False
    keep = getattr(keepdims, "literal_value", None)
    if keep is None and isinstance(keepdims, types.Boolean):
        raise TypingError("srcdiff's numba logsumexp takes keepdims as a constant")
    return bool(keep)


@overload(scipy_logsumexp, prefer_literal=True)
def _logsumexp(a, axis, b, keepdims):
    if not (isinstance(a, types.Array) or _number(a)) or not (_none(b) or isinstance(b, types.Array) or _number(b)):
        return None
    keep = _keep(keepdims)
    weighted = not _none(b)
    dtype = np.float32 if _float32(a, *((b,) if weighted else ())) else np.float64
    ndim = max(getattr(a, "ndim", 0), getattr(b, "ndim", 0) if weighted else 0)
    if ndim == 0:  # numbers: the sum of one term
        if weighted:
            return lambda a, axis, b, keepdims: dtype(np.log(np.float64(np.asarray(b).item())) +
                                                     np.float64(np.asarray(a).item()))
        return lambda a, axis, b, keepdims: dtype(np.float64(np.asarray(a).item()))
    lse = _lse_function(ndim, None if _none(axis) else axis, keep, weighted, dtype)
    if weighted:
        def weights(a, axis, b, keepdims):
            x, w = np.broadcast_arrays(np.asarray(a).astype(np.float64), np.asarray(b).astype(np.float64))
            return lse(x, w)
        return weights
    unit = np.empty((1,) * ndim)  # no weights: never read
    return lambda a, axis, b, keepdims: lse(np.asarray(a).astype(np.float64), unit)


def _shifted(x, axis):
    """x less its maximum along the axis (where that is finite) and the sum of the
    exponentials of that, kept along the axis: as SciPy computes them."""
    top = reduce_max(x.astype(np.float64), axis, True)
    shifted = x - np.where(np.isfinite(top), top, 0.0)
    return shifted, reduce_sum(np.exp(shifted), axis, True)


@overload(_shifted, prefer_literal=True)
def _shifted_impl(x, axis):
    def impl(x, axis):
        top = reduce_max(x.astype(np.float64), axis, True)
        shifted = x - np.where(np.isfinite(top), top, 0.0)
        return shifted, reduce_sum(np.exp(shifted), axis, True)
    return impl


@overload(scipy_softmax, prefer_literal=True)
def _softmax(x, axis):
    if not isinstance(x, types.Array):
        return None
    dtype = np.float32 if _float32(x) else np.float64

    def impl(x, axis):
        shifted, total = _shifted(x, axis)
        return (np.exp(shifted) / total).astype(dtype)
    return impl


@overload(scipy_log_softmax, prefer_literal=True)
def _log_softmax(x, axis):
    if not isinstance(x, types.Array):
        return None
    dtype = np.float32 if _float32(x) else np.float64

    def impl(x, axis):
        shifted, total = _shifted(x, axis)
        return (shifted - np.log(total)).astype(dtype)
    return impl


HELPERS = ("scipy_logsumexp", "scipy_softmax", "scipy_log_softmax")
