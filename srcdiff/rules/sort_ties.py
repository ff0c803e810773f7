"""A sort's tie in a gradient srcdiff differentiates again: ``sorted_tied(value, x, axis, own)``.

``np.sort(x)`` at a tie between two entries of x that move differently along a line has no derivative:
which of them comes first depends on the side, so the sorted value's tangent (the tangents of the
entries in the order of a stable argsort) is one side's, and so is a gradient's permutation of its
adjoint back to x's positions (``g[rank(i)]``, a jump where g differs between the tied positions).  A
derivable gradient writes both as `sorted_tied`'s operand (ad/tied_values.py, the derivable form of
np.sort's adjoint): the value itself, whose tangent is NaN in a group of equal sorted entries whose
tangents differ (the tie parts) where the value differs in the group (`own`: always, the sorted value
itself, whose group is equal but whose tangents are those of the parting entries).  Nothing moves, or
the tied entries move together: the derivative is exact, 0 added.
"""

from __future__ import annotations

import numpy as np


def sorted_tied(value, x, axis=-1, own=False):
    """`value` itself (in x's sorted order along `axis`; flattened where `axis` is None): a sort's
    value or an adjoint before its permutation back, whose derivative is NaN at a tie of x that
    parts (module docstring)."""
    return value


def _sorted(x, axis):
    """x sorted (stably) along `axis` moved last, and its order, both with the axis last."""
    x = np.ravel(x) if axis is None else np.moveaxis(np.asarray(x), axis, -1)
    order = np.argsort(x, axis=-1, kind="stable")
    return np.take_along_axis(x, order, axis=-1), order


def _last(a, x, axis):
    """`a` (shaped like x's sorted value, or broadcast to it) with the sorted axis last."""
    a = np.broadcast_to(np.asarray(a), (np.size(x),) if axis is None else np.shape(x))
    return a if axis is None else np.moveaxis(a, axis, -1)


def _parting(flags, equal):
    """`flags` (pairs of neighbours, ``[..., j]`` for j and j + 1) spread over each whole group of equal
    neighbours (`equal`): every entry of a group one of whose pairs parts."""
    n = equal.shape[-1] + 1
    out = np.zeros(equal.shape[:-1] + (n,), np.bool_)
    out[..., :-1] |= flags
    out[..., 1:] |= flags
    for j in range(1, n):  # (only run where some entries are equal: the rare case)
        out[..., j] |= out[..., j - 1] & equal[..., j - 1]
    for j in range(n - 2, -1, -1):
        out[..., j] |= out[..., j + 1] & equal[..., j]
    return out


def _flags(ordered, moving, value, x, axis, own):
    """Sorted space, axis last: the entries of groups of equal sorted x one of whose neighbour pairs is
    `moving` (a function of the pairs' two sides) and whose `value` differs too (or `own`); None where
    nothing is equal."""
    equal = ordered[..., 1:] == ordered[..., :-1]
    if not equal.any():
        return None
    parts = equal & moving
    if not own:
        v = _last(value, x, axis)
        parts = parts & (v[..., 1:] != v[..., :-1])
    return _parting(parts, equal)


def _floating(dtype):
    return dtype if np.issubdtype(dtype, np.floating) else np.dtype(np.float64)


def sort_tie_nan(x, direction, value, axis=-1, own=False):
    """The tangent `sorted_tied` adds for x's tangent `direction`: NaN in sorted space where a group of
    tied entries parts (module docstring), 0.0 elsewhere, in the direction's floating dtype."""
    dtype = _floating(np.asarray(direction).dtype)
    ordered, order = _sorted(x, axis)
    direction = np.broadcast_to(np.asarray(direction), np.shape(x))
    moves = np.take_along_axis(_last(np.ravel(direction) if axis is None else direction, x, axis), order, axis=-1)
    flags = _flags(ordered, moves[..., 1:] != moves[..., :-1], value, x, axis, own)
    if flags is None:
        return np.zeros((np.size(x),) if axis is None else np.shape(x), dtype)
    picked = np.where(flags, dtype.type(np.nan), dtype.type(0.0))
    return picked if axis is None else np.moveaxis(picked, -1, axis)


def sort_tie_back(x, g, value, axis=-1, own=False):
    """The adjoint `sorted_tied` sends to x for its cotangent `g` (sorted space): NaN at the positions of
    x in a group of tied entries whose value differs in the group (or `own`) and whose g is not all 0;
    0.0 elsewhere, shaped like x."""
    dtype = _floating(np.asarray(g).dtype)
    ordered, order = _sorted(x, axis)
    busy = _last(g, x, axis) != 0
    flags = _flags(ordered, busy[..., 1:] | busy[..., :-1], value, x, axis, own)
    if flags is None:
        return np.zeros(np.shape(x), dtype)
    back = np.empty(flags.shape, np.bool_)
    np.put_along_axis(back, order, flags, axis=-1)
    picked = np.where(back, dtype.type(np.nan), dtype.type(0.0))
    return np.reshape(picked, np.shape(x)) if axis is None else np.moveaxis(picked, -1, axis)


def sort_derivable(static, operand_shapes):
    """np.sort's adjoint in a gradient srcdiff differentiates again: g before its permutation back (the
    inverse of a stable argsort's) is `sorted_tied`'s, NaN beyond it where a tie of x parts."""
    tied = f"sorted_tied(g, x, axis={static['axis']!r})"
    if static["axis"] is None:
        back = "np.argsort(np.argsort(np.ravel(x), axis=0, kind='stable'), axis=0)"
        return {"x": f"np.reshape(np.ravel({tied})[{back}], np.shape(x))"}
    back = "np.argsort(np.argsort(x, axis=axis, kind='stable'), axis=axis)"
    return {"x": f"np.take_along_axis({tied}, {back}, axis=axis)"}


SORT_TIE_HELPERS = {f.__name__: f for f in (sorted_tied, sort_tie_nan, sort_tie_back)}

__all__ = ["SORT_TIE_HELPERS", "sort_derivable", "sort_tie_back", "sort_tie_nan", "sorted_tied"]
