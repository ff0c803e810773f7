"""numba versions of the run-time helpers of ``np.interp``'s derivatives and of the order
statistics' weights (rules/calculus_helpers.py): ``order_weights``, ``interp_slope`` (the
derivative in the query points), ``interp_adjoint`` and ``interp_slope_adjoint`` (the adjoints for the knots' values).

Each query point is found in its segment by ``np.searchsorted``, as the Python helpers find
it: the segment clamped to the first and last, 0 slope outside ``[xp[0], xp[-1]]`` and at
its right end, the weights of the two knots of a segment sent back to them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ...rules import calculus_helpers as python
from .naming import made, overload
from .reductions import axes


def _is_array(t) -> bool:
    return isinstance(t, types.Array)


def _is_number(t) -> bool:
    return isinstance(t, (types.Number, types.Boolean))


@njit(cache=True)
def segment(v, xp):
    """The segment of xp the point v falls in, clamped to the first and the last."""
    i = np.searchsorted(xp, v, side="right") - 1
    return min(max(i, 0), max(xp.shape[0] - 2, 0))


def interp_slope(x, xp, fp):
    return python.interp_slope(x, xp, fp)


@njit(cache=True)
def one_slope(v, xp, fp):
    if xp.shape[0] == 1 or not (xp[0] <= v < xp[-1]):
        return 0.0
    i = segment(v, xp)
    return (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i])


@overload(interp_slope)
def _interp_slope(x, xp, fp):
    if not (_is_array(xp) and _is_array(fp) and xp.ndim == 1 and fp.ndim == 1):
        return None
    if _is_number(x):
        return lambda x, xp, fp: one_slope(x, xp, fp)
    if not _is_array(x):
        return None

    def each(x, xp, fp):
        out = np.empty(x.shape)
        flat = out.reshape(-1)
        for k, v in enumerate(x.flat):
            flat[k] = one_slope(v, xp, fp)
        return out
    return each


def interp_adjoint(g, x, xp, n):
    return python.interp_adjoint(g, x, xp, n)


def interp_slope_adjoint(g, x, xp, n):
    return python.interp_slope_adjoint(g, x, xp, n)


def _operands(g, x, xp) -> str | None:
    """The loop header over the query points, for the types at hand (None: not handled)."""
    if not (_is_array(xp) and xp.ndim == 1):
        return None
    if _is_number(x) and _is_number(g):
        return "    points = np.array([x], dtype=np.float64)\n    weights = np.array([g], dtype=np.float64)\n"
    if _is_array(x) and _is_number(g):
        return "    points = np.ascontiguousarray(x).reshape(-1)\n    weights = np.full(points.size, g)\n"
    if _is_array(x) and _is_array(g):
        return ("    points = np.ascontiguousarray(x).reshape(-1)\n"
                "    if g.size != points.size:\n"
                "        raise ValueError('interp: the adjoint does not fit the query points')\n"
                "    weights = np.ascontiguousarray(g).reshape(-1)\n")
    return None


def _made(text: str):
    return made(text, segment=segment)


@overload(interp_adjoint)
def _interp_adjoint(g, x, xp, n):
    """Each value's two weights (1 - t and t along its segment) sent back to the knots."""
    head = _operands(g, x, xp)
    if head is None:
        return None
    return _made("def impl(g, x, xp, n):\n" + head +
                 "    out = np.zeros(n)\n"
                 "    if xp.shape[0] == 1:\n"
                 "        out[:] = weights.sum()\n"
                 "        return out\n"
                 "    for k in range(points.size):\n"
                 "        v = points[k]\n"
                 "        i = segment(v, xp)\n"
                 "        if xp[0] <= v <= xp[-1]:\n"
                 "            t = (v - xp[i]) / (xp[i + 1] - xp[i])\n"
                 "        else:\n"
                 "            t = 1.0 if v > xp[-1] else 0.0\n"
                 "        out[i] += weights[k] * (1.0 - t)\n"
                 "        out[i + 1] += weights[k] * t\n"
                 "    return out\n")


@overload(interp_slope_adjoint)
def _interp_slope_adjoint(g, x, xp, n):
    """Each slope reads (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i]): g over the segment's width
    to its right knot, minus that to its left one."""
    head = _operands(g, x, xp)
    if head is None:
        return None
    return _made("def impl(g, x, xp, n):\n" + head +
                 "    out = np.zeros(n)\n"
                 "    if xp.shape[0] == 1:\n"
                 "        return out\n"
                 "    for k in range(points.size):\n"
                 "        v = points[k]\n"
                 "        if xp[0] <= v < xp[-1]:\n"
                 "            i = segment(v, xp)\n"
                 "            w = weights[k] / (xp[i + 1] - xp[i])\n"
                 "            out[i + 1] += w\n"
                 "            out[i] -= w\n"
                 "    return out\n")


def order_weights(x, q, axis=None):
    return python.order_weights(x, q, axis)


@njit(cache=True)
def _share(row, value, share, out):
    """`share` split equally among the elements of `row` equal to `value` (ties)."""
    count = 0
    for v in row:
        count += v == value
    for k in range(row.shape[0]):
        if row[k] == value:
            out[k] += share / max(count, 1)


@njit(cache=True)
def row_weights(row, q, out):
    """One row's weights, as ``order_weights`` gives them (rules/calculus_helpers.py)."""
    n = row.shape[0]
    if n == 0:
        return
    ordered = np.sort(row)
    position = q / 100.0 * (n - 1)
    low = min(int(np.floor(position)), n - 1)
    high = min(low + 1, n - 1)
    frac = position - low
    if frac != 1.0:
        _share(row, ordered[low], 1.0 - frac, out)
    if frac != 0.0:
        _share(row, ordered[high], frac, out)


def nan_order_weights(x, q, axis=None):
    return python.nan_order_weights(x, q, axis)


@njit(cache=True)
def nan_row_weights(row, q, out):
    """One row's weights among its numbers, NaN skipped, as ``nan_order_weights`` gives them."""
    kept = np.flatnonzero(~np.isnan(row))
    if kept.size == 0:
        return
    part = np.zeros(kept.size)
    row_weights(row[kept], q, part)
    for k in range(kept.size):
        out[kept[k]] += part[k]


@overload(order_weights, prefer_literal=True)
def _order_weights(x, q, axis=None):
    return _rows_weighted(x, q, axis, row_weights)


@overload(nan_order_weights, prefer_literal=True)
def _nan_order_weights(x, q, axis=None):
    return _rows_weighted(x, q, axis, nan_row_weights)


def _rows_weighted(x, q, axis, row_weights):
    """The rows along `axis` (a constant, or None: all of x) moved last, weighted one by one."""
    if not _is_array(x) or not _is_number(q):
        return None
    reduced = axes(axis, x.ndim)
    if len(reduced) == x.ndim:
        return made("def impl(x, q, axis=None):\n"
                    "    out = np.zeros(x.size)\n"
                    "    row_weights(np.ascontiguousarray(x).reshape(-1), q, out)\n"
                    "    return out.reshape(x.shape)\n", row_weights=row_weights)
    kept = [d for d in range(x.ndim) if d not in reduced]
    perm = tuple(kept + list(reduced))
    back = tuple(perm.index(d) for d in range(x.ndim))
    outer = " * ".join(f"x.shape[{d}]" for d in kept)
    return made("def impl(x, q, axis=None):\n"
                f"    moved = np.ascontiguousarray(x.transpose({perm}))\n"
                f"    rows = moved.reshape(({outer}, -1))\n"
                "    out = np.zeros(rows.shape)\n"
                "    for i in range(rows.shape[0]):\n"
                "        row_weights(rows[i], q, out[i])\n"
                f"    return np.ascontiguousarray(out.reshape(moved.shape).transpose({back}))\n",
                row_weights=row_weights)


HELPERS = ("interp_slope", "interp_adjoint", "interp_slope_adjoint", "order_weights", "nan_order_weights")
