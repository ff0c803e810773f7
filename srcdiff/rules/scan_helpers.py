"""Helpers the adjoints of running extrema call: ``np.maximum.accumulate`` and
``np.minimum.accumulate`` (rules/numpy_piecewise.py); and of ``np.logaddexp.accumulate`` of an array
whose number of axes is not known when the gradient is built (at the end).

``ans[i] = max(x[0], ..., x[i])`` along `axis`.  Each ``ans[i]`` is held by the elements
``x[j]`` (j <= i) equal to it; as for ``np.max``, k tied elements share its gradient equally
(docs/guarantees.md).  The elements holding one value form a run of equal ``ans``: it starts
where ``ans`` changes (an element that is a new extremum, so ``x[s] == ans[s]``) and the tied
elements of ``ans[i]`` are those of the run up to i with ``x[j] == ans[j]``.  So the share
count is a cumulative count within the run, and ``x[j]`` receives the sum over the rest of
its run of ``g[i] / count[i]``: cumulative sums, no loop.

Both helpers are linear in their first operand and each is the other's transpose, so their
rules (numpy_piecewise.py) make a gradient that calls them differentiable again; which
elements hold the extremum is piecewise constant in `x`, so `x` carries no derivative
through them (as ``np.max``'s ties).
"""

from __future__ import annotations

import numpy as np

_SCANS = {"max": np.maximum, "min": np.minimum}


def _runs(x, axis, kind):
    """x (moved so `axis` is last), the mask of elements that hold their extremum, the
    count of tied holders up to each position, and each position's run start and end."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    ans = _SCANS[kind].accumulate(x, axis=-1)
    n = x.shape[-1]
    held = (x == ans).astype(np.float64)
    positions = np.broadcast_to(np.arange(n), x.shape)
    changes = np.ones(x.shape, dtype=bool)
    changes[..., 1:] = ans[..., 1:] != ans[..., :-1]
    start = np.maximum.accumulate(np.where(changes, positions, 0), axis=-1)
    ends = np.ones(x.shape, dtype=bool)  # the last position of each run
    ends[..., :-1] = changes[..., 1:]
    end = np.flip(np.minimum.accumulate(np.flip(np.where(ends, positions, n - 1), -1), axis=-1), -1)
    counted = np.cumsum(held, axis=-1)
    before = np.take_along_axis(counted - held, start, axis=-1)  # holders before the run
    count = counted - before  # >= 1: a run starts at a holder
    return x, held, count, start, end


def _run_sums_after(values, end):
    """Each position's sum of `values` from it to the end of its run (last axis)."""
    suffix = np.flip(np.cumsum(np.flip(values, -1), axis=-1), -1)
    past = np.concatenate([suffix[..., 1:], np.zeros(suffix.shape[:-1] + (1,))], axis=-1)
    return suffix - np.take_along_axis(past, end, axis=-1)


def extremum_scan_adjoint(a, x, axis, kind):
    """The adjoint of ``np.maximum.accumulate(x, axis)`` (`kind` "max"; "min": of
    ``np.minimum.accumulate``) for the adjoint `a` of its value: each element receives the
    shares, g / (tied holders), of the running extrema it holds."""
    x, held, count, start, end = _runs(x, axis, kind)
    a = np.moveaxis(np.broadcast_to(a, np.moveaxis(x, -1, axis).shape), axis, -1)
    out = held * _run_sums_after(a / count, end)
    return np.moveaxis(out, -1, axis).astype(np.result_type(a, x), copy=False)


def extremum_scan_tangent(v, x, axis, kind):
    """The tangent of ``np.maximum.accumulate(x, axis)`` (`kind` "max"; "min" likewise) along
    `v`: at each position the mean of the tangents of the tied elements holding the extremum."""
    x, held, count, start, end = _runs(x, axis, kind)
    v = np.moveaxis(np.broadcast_to(v, np.moveaxis(x, -1, axis).shape), axis, -1)
    counted = np.cumsum(held * v, axis=-1)
    before = np.take_along_axis(counted - held * v, start, axis=-1)
    out = (counted - before) / count
    return np.moveaxis(out, -1, axis).astype(np.result_type(v, x), copy=False)


def _running_weights(x, ans, axis):
    """``exp(x[j] - ans[i])`` for j <= i (0 above), i and j the last two axes, `axis` moved there."""
    x, ans = np.moveaxis(np.asarray(x), axis, -1), np.moveaxis(np.asarray(ans), axis, -1)
    n = x.shape[-1]
    below = np.arange(n)[:, None] >= np.arange(n)[None, :]
    with np.errstate(invalid="ignore"):
        return np.exp(np.where(below, x[..., None, :] - np.where(ans == -np.inf, 0.0, ans)[..., :, None], -np.inf))


def logaddexp_scan_adjoint(g, x, ans, axis):
    """The adjoint of ``ans = np.logaddexp.accumulate(x, axis)`` for the adjoint `g` of its value, of an
    `x` whose number of axes lowering did not know (rules/numpy_piecewise.py spells the known ones)."""
    g = np.moveaxis(np.broadcast_to(g, np.shape(ans)), axis, -1)
    return np.moveaxis(np.sum(g[..., :, None] * _running_weights(x, ans, axis), axis=-2), -1, axis)


def logaddexp_scan_tangent(v, x, ans, axis):
    """The tangent of ``np.logaddexp.accumulate(x, axis)`` along `v` (as logaddexp_scan_adjoint)."""
    v = np.moveaxis(np.broadcast_to(v, np.shape(x)), axis, -1)
    return np.moveaxis(np.sum(v[..., None, :] * _running_weights(x, ans, axis), axis=-1), -1, axis)


SCAN_HELPERS = {f.__name__: f for f in (extremum_scan_adjoint, extremum_scan_tangent, logaddexp_scan_adjoint,
                                        logaddexp_scan_tangent)}
