"""numba's versions of rules/sort_ties.py's helpers, which a Hessian, a ``jvp`` of a gradient or a Jacobian
of one runs through ``np.sort``: `sorted_tied` (the value itself) of any operand, and its derivatives'
NaN at a tie of a vector's sort or of a flattened array's (`sort_tie_nan`, `sort_tie_back`).  A sort along one axis
of several has no version: numba refuses it at its line."""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ...rules import sort_ties as python
from .naming import overload


def sorted_tied(value, x, axis=-1, own=False):
    return value


def sort_tie_nan(x, direction, value, axis=-1, own=False):
    return python.sort_tie_nan(x, direction, value, axis, own)


def sort_tie_back(x, g, value, axis=-1, own=False):
    return python.sort_tie_back(x, g, value, axis, own)


@overload(sorted_tied)
def _sorted_tied(value, x, axis=-1, own=False):
    return lambda value, x, axis=-1, own=False: value


def _vectors(*operands) -> bool:
    return all(isinstance(t, types.Array) and t.ndim == 1 for t in operands)


def _flat(axis, x, *sorted_space) -> bool:
    """A sort of a vector or of the flattened array (``axis=None``): its sorted values a vector."""
    arrays = isinstance(x, types.Array) and _vectors(*sorted_space)
    return arrays and (isinstance(axis, types.NoneType) or x.ndim == 1)


@njit(cache=False)
def _flags(ordered, moving, value, own):
    """The entries of each group of equal neighbours in `ordered` one of whose pairs is `moving` and
    whose `value` differs in the pair (or `own`), spread over the group (rules/sort_ties.py)."""
    n = ordered.size
    flags = np.zeros(n, np.bool_)
    for j in range(n - 1):
        if ordered[j] == ordered[j + 1] and moving[j] and (own or value[j] != value[j + 1]):
            flags[j] = True
            flags[j + 1] = True
    for j in range(1, n):
        if flags[j - 1] and ordered[j - 1] == ordered[j]:
            flags[j] = True
    for j in range(n - 2, -1, -1):
        if flags[j + 1] and ordered[j] == ordered[j + 1]:
            flags[j] = True
    return flags


@overload(sort_tie_nan)
def _sort_tie_nan(x, direction, value, axis=-1, own=False):
    if not (isinstance(direction, types.Array) and _flat(axis, x, value) and direction.ndim == x.ndim):
        return None

    def impl(x, direction, value, axis=-1, own=False):
        x = np.ravel(x)
        order = np.argsort(x, kind="mergesort")
        moves = np.ravel(direction)[order]
        moving = moves[1:] != moves[:-1]
        flags = _flags(x[order], moving, value, own)
        return np.where(flags, np.nan, 0.0).astype(direction.dtype)
    return impl


@overload(sort_tie_back)
def _sort_tie_back(x, g, value, axis=-1, own=False):
    if not _flat(axis, x, g, value):
        return None

    def impl(x, g, value, axis=-1, own=False):
        flat = np.ravel(x)
        order = np.argsort(flat, kind="mergesort")
        busy = g != 0
        flags = _flags(flat[order], busy[1:] | busy[:-1], value, own)
        back = np.empty(flat.size, np.bool_)
        back[order] = flags
        return np.where(back, np.nan, 0.0).astype(g.dtype).reshape(x.shape)
    return impl


HELPERS = ("sorted_tied", "sort_tie_nan", "sort_tie_back")

__all__ = [*HELPERS]
