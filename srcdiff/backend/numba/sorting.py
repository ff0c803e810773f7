"""``np.argsort(a, axis=k)`` and ``np.sort(a, axis=k)`` of an array of several axes: numba sorts
along the last axis only and takes no ``axis``.  The axis is moved last, each row sorted (a
stable sort: NumPy's default quicksort of floats may order ties another way, but the rows'
values are the same, and the ties' gradient is the subgradient either order gives), moved
back."""

from __future__ import annotations

import numpy as np
from numba import types

from .naming import made, overload
from .reductions import axes


def argsort_axis(a, axis):
    return np.argsort(a, axis=axis)


def sort_axis(a, axis):
    return np.sort(a, axis=axis)


def _moved(a, axis, body: str, dtype: str):
    (along,) = axes(axis, a.ndim)
    perm = tuple(d for d in range(a.ndim) if d != along) + (along,)
    back = tuple(perm.index(d) for d in range(a.ndim))
    text = ("def impl(a, axis):\n"
            f"    moved = np.ascontiguousarray(a.transpose({perm}))\n"
            "    m = moved.reshape((-1, moved.shape[-1]))\n"
            f"    out = np.empty(m.shape, {dtype})\n"
            "    for i in range(m.shape[0]):\n"
            f"        out[i] = {body}\n"
            f"    return np.ascontiguousarray(out.reshape(moved.shape).transpose({back}))\n")
    return made(text)


@overload(argsort_axis, prefer_literal=True)
def _argsort_axis(a, axis):
    if not isinstance(a, types.Array) or a.ndim < 1 or isinstance(axis, (types.NoneType, types.Omitted)):
        return None
    if a.ndim == 1:
        return lambda a, axis: np.argsort(a, kind="mergesort")
    return _moved(a, axis, "np.argsort(m[i], kind='mergesort')", "np.int64")


@overload(sort_axis, prefer_literal=True)
def _sort_axis(a, axis):
    if not isinstance(a, types.Array) or a.ndim < 1 or isinstance(axis, (types.NoneType, types.Omitted)):
        return None
    if a.ndim == 1:
        return lambda a, axis: np.sort(a)
    return _moved(a, axis, "np.sort(m[i])", "m.dtype")


HELPERS = ("argsort_axis", "sort_axis")
