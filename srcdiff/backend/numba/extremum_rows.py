"""numba versions of running extrema (``np.maximum.accumulate``, ``np.minimum.accumulate``,
spelled ``extremum_scan(x, axis, kind)`` by scans.py) and of their gradients' helpers,
rules/scan_helpers.py's ``extremum_scan_adjoint`` and ``extremum_scan_tangent``.

The arithmetic is the Python helpers', a row at a time with `axis` moved last (scans.py's
`by_rows`): ``ans[i]`` is held by the elements ``x[j]`` (j <= i) equal to it, a run of equal
``ans`` starts where ``ans`` changes, and k tied holders share a running extremum's gradient
equally.  The Python helpers build these runs from cumulative sums over whole arrays; here one
pass forward finds them and one pass backward sums each run's shares.  NaN propagates as
NumPy's ``maximum`` does (every later ``ans`` is NaN, so no element holds it).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ...rules import scan_helpers
from .naming import made, overload
from .scans import by_rows, result_dtype, rows


def extremum_scan(x, axis, kind):
    return (np.maximum if kind == "max" else np.minimum).accumulate(x, axis=axis)


def extremum_scan_adjoint(a, x, axis, kind):
    return scan_helpers.extremum_scan_adjoint(a, x, axis, kind)


def extremum_scan_tangent(a, x, axis, kind):  # (a: the tangent, named as the adjoint's for one typer)
    return scan_helpers.extremum_scan_tangent(a, x, axis, kind)


@njit(cache=True)
def _runs(x, is_max):
    """The running extremum of a row, the holders (1.0 where x equals it), each position's
    count of holders from its run's start, and whether each position ends its run."""
    n = x.shape[0]
    ans, held, count = np.empty(n), np.empty(n), np.empty(n)
    ends = np.ones(n, np.bool_)
    best, counted = 0.0, 0.0
    for i in range(n):
        v = x[i]
        if i == 0 or v != v:
            best = v  # (NaN: np.maximum's answer from here on)
        elif best == best and ((v > best) if is_max else (v < best)):
            best = v
        ans[i] = best
        if i > 0:
            same = ans[i] == ans[i - 1]
            ends[i - 1] = not same
            if not same:
                counted = 0.0  # a new run: its count starts again
        held[i] = 1.0 if v == best else 0.0
        counted += held[i]
        count[i] = counted
    return ans, held, count, ends


@njit(cache=True)
def _scan_row(x, is_max):
    return _runs(x, is_max)[0]


@njit(cache=True)
def _adjoint_row(a, x, is_max):
    """``out[j] = held[j] * sum over i >= j in j's run of a[i] / count[i]``."""
    _, held, count, ends = _runs(x, is_max)
    out = np.empty(x.shape[0])
    running = 0.0
    for j in range(x.shape[0] - 1, -1, -1):
        if ends[j]:
            running = 0.0
        running += a[j] / count[j]
        out[j] = held[j] * running
    return out


@njit(cache=True)
def _tangent_row(v, x, is_max):
    """``out[i]``: the mean of the tangents of the holders in i's run up to i."""
    _, held, count, ends = _runs(x, is_max)
    out = np.empty(x.shape[0])
    running = 0.0
    for i in range(x.shape[0]):
        if i > 0 and ends[i - 1]:
            running = 0.0
        running += held[i] * v[i]
        out[i] = running / count[i]
    return out


@njit(cache=True)
def _max_adjoint(a, x):
    return _adjoint_row(a, x, True)


@njit(cache=True)
def _min_adjoint(a, x):
    return _adjoint_row(a, x, False)


@njit(cache=True)
def _max_tangent(v, x):
    return _tangent_row(v, x, True)


@njit(cache=True)
def _min_tangent(v, x):
    return _tangent_row(v, x, False)


def _kind(kind):
    value = getattr(kind, "literal_value", None)
    return value if value in ("max", "min") else None


def _axis_fits(x, axis) -> bool:
    value = getattr(axis, "literal_value", None)
    return isinstance(x, types.Array) and x.ndim >= 1 and type(value) is int and -x.ndim <= value < x.ndim


@overload(extremum_scan, prefer_literal=True)
def _extremum_scan(x, axis, kind):
    if not _axis_fits(x, axis) or _kind(kind) is None or not isinstance(x.dtype, (types.Float, types.Integer)):
        return None
    perm, back = rows(x.ndim, axis)
    dtype = np.float64 if isinstance(x.dtype, types.Integer) else result_dtype(x)
    return made("def impl(x, axis, kind):\n"
                "    xs = x.astype(np.float64)\n"
                f"    xm = np.ascontiguousarray(xs.transpose({perm}))\n"
                "    shape = xm.shape\n"
                "    xr = xm.reshape((-1, shape[-1]))\n"
                "    out = np.empty(xr.shape)\n"
                "    for i in range(xr.shape[0]):\n"
                "        out[i] = row(xr[i], IS_MAX)\n"
                f"    return np.ascontiguousarray(out.reshape(shape).transpose({back})).astype(DTYPE)\n",
                row=_scan_row, IS_MAX=_kind(kind) == "max",
                DTYPE=x.dtype.type if isinstance(x.dtype, types.Integer) else dtype)


def _gradient_helper(helpers: dict):
    def typer(a, x, axis, kind):
        if not _axis_fits(x, axis) or _kind(kind) is None:
            return None
        return by_rows(helpers[_kind(kind)], "a", result_dtype(a, x), *rows(x.ndim, axis), more=", kind")
    return typer


overload(extremum_scan_adjoint, prefer_literal=True)(_gradient_helper({"max": _max_adjoint, "min": _min_adjoint}))
overload(extremum_scan_tangent, prefer_literal=True)(_gradient_helper({"max": _max_tangent, "min": _min_tangent}))

HELPERS = ("extremum_scan", "extremum_scan_adjoint", "extremum_scan_tangent")

__all__ = [*HELPERS]
