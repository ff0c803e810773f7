"""Helpers the adjoints of NumPy's numerical-calculus functions call (rules/numpy_calculus.py).

Each is plain NumPy, small enough to read in the generated source's stead, and exists only
where a template expression cannot say it: the transpose of ``np.gradient``'s stencil, the
exact adjoint of ``np.cumprod`` where the operand has zeros, ``np.interp``'s transpose and
slope.  The linear ones have rules of their own (their transposes), so a gradient that calls
them can be differentiated again.
"""

from __future__ import annotations

import numpy as np

from .bin_helpers import BIN_HELPERS


def _along(a, axis, index):
    """``a[..., index, ...]`` with `index` on `axis` (a slice or an int)."""
    where = [slice(None)] * np.ndim(a)
    where[axis] = index
    return tuple(where)


def gradient_adjoint(g, spacing, axis, edge_order):
    """The transpose of ``np.gradient(x, spacing, axis=axis, edge_order=edge_order)`` (one
    axis, uniform `spacing`) applied to `g`: the stencil's weights sent back to the elements
    they read."""
    if np.ndim(g) == 0:  # the zero adjoint of a list item nothing used
        return g
    g = np.asarray(g)
    n = g.shape[axis]
    out = np.zeros_like(g)
    h = spacing
    interior = g[_along(g, axis, slice(1, n - 1))] / (2.0 * h)
    out[_along(out, axis, slice(2, n))] += interior       # + f[i+1] / 2h
    out[_along(out, axis, slice(0, n - 2))] -= interior   # - f[i-1] / 2h
    first, last = g[_along(g, axis, 0)] / h, g[_along(g, axis, n - 1)] / h
    if edge_order == 1:  # (f1 - f0) / h and (f[n-1] - f[n-2]) / h
        out[_along(out, axis, 0)] -= first
        out[_along(out, axis, 1)] += first
        out[_along(out, axis, n - 1)] += last
        out[_along(out, axis, n - 2)] -= last
    else:  # (-3 f0 + 4 f1 - f2) / 2h and (3 f[n-1] - 4 f[n-2] + f[n-3]) / 2h
        for k, weight in ((0, -1.5), (1, 2.0), (2, -0.5)):
            out[_along(out, axis, k)] += weight * first
            out[_along(out, axis, n - 1 - k)] -= weight * last
    return out


def cumprod_adjoint(g, x, axis):
    """Adjoint of ``np.cumprod(x, axis)`` (axis an int): ``x_bar[i] = sum_{j >= i} g[j] *
    prod_{k <= j, k != i} x[k]``; where x has no zeros, the reversed cumulative sum of
    ``g * ans`` divided by x, else the products of the others, one element at a time."""
    x = np.asarray(x)
    g = np.broadcast_to(g, x.shape)
    ans = np.cumprod(x, axis=axis)
    if np.all(x != 0):
        return np.flip(np.cumsum(np.flip(g * ans, axis), axis), axis) / x
    out = np.zeros(x.shape, dtype=np.result_type(x, g))
    n = x.shape[axis]
    positions = np.arange(n).reshape([-1 if a == axis % x.ndim else 1 for a in range(x.ndim)])
    for i in range(n):
        others = np.cumprod(np.where(positions == i, 1.0, x), axis=axis)
        out[_along(out, axis, i)] = np.sum(np.where(positions >= i, g * others, 0.0), axis=axis)
    return out


def cumprod_tangent(x_dot, x, axis):
    """Tangent of ``np.cumprod(x, axis)``: ``sum_{i <= j} x_dot[i] * prod_{k <= j, k != i}
    x[k]``, exact where x has zeros."""
    x = np.asarray(x)
    x_dot = np.broadcast_to(x_dot, x.shape)
    n = x.shape[axis]
    positions = np.arange(n).reshape([-1 if a == axis % x.ndim else 1 for a in range(x.ndim)])
    out = np.zeros(x.shape, dtype=np.result_type(x, x_dot))
    for i in range(n):
        replaced = np.cumprod(np.where(positions == i, x_dot, x), axis=axis)
        out = out + np.where(positions >= i, replaced, 0.0)
    return out


def cumprod_curvature(a, x, v, axis):
    """The derivative of ``cumprod_adjoint(a, x, axis)`` along `v` (the Hessian of
    ``sum(a * np.cumprod(x, axis))`` times `v`): ``out[i] = sum_{m != i} v[m] sum_{j >= max(i, m)}
    a[j] prod_{k <= j, k not in (i, m)} x[k]``, exact where x has zeros."""
    x = np.asarray(x)
    a, v = np.broadcast_to(a, x.shape), np.broadcast_to(v, x.shape)
    n = x.shape[axis]
    positions = np.arange(n).reshape([-1 if d == axis % x.ndim else 1 for d in range(x.ndim)])
    out = np.zeros(x.shape, dtype=np.result_type(x, a, v))
    if np.all(x != 0):  # with R[m] = sum_{j >= m} a[j] ans[j] and w = v / x: the pairs i, m of the sum
        reversed_sum = np.flip(np.cumsum(np.flip(a * np.cumprod(x, axis=axis), axis), axis), axis)
        w = v / x
        before = np.cumsum(w, axis=axis) - w  # sum_{m < i} w[m]
        after = np.flip(np.cumsum(np.flip(w * reversed_sum, axis), axis), axis) - w * reversed_sum  # m > i
        return (reversed_sum * before + after) / x
    for i in range(n):  # x[i] set to 1 and held still: the others' product moves along v
        others = np.where(positions == i, 1.0, x)
        moved = cumprod_tangent(np.where(positions == i, 0.0, v), others, axis)
        out[_along(out, axis, i)] = np.sum(np.where(positions >= i, a * moved, 0.0), axis=axis)
    return out


def _segments(x, xp):
    """The segment of `xp` each of `x` falls in (clamped to the first and last), and whether
    it lies inside ``[xp[0], xp[-1]]``."""
    i = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, max(len(xp) - 2, 0))
    inside = (x >= xp[0]) & (x <= xp[-1])
    return i, inside


def interp_adjoint(g, x, xp, n):
    """Adjoint of ``np.interp(x, xp, fp)`` with respect to fp (of length `n`): each value's
    two weights sent back to the knots it was interpolated between."""
    x, xp, g = np.asarray(x, dtype=float), np.asarray(xp), np.broadcast_to(g, np.shape(x))
    if len(xp) == 1:
        return np.full(n, np.sum(g))
    i, inside = _segments(x, xp)
    t = np.where(inside, (x - xp[i]) / (xp[i + 1] - xp[i]), np.where(x > xp[-1], 1.0, 0.0))
    return np.bincount(np.ravel(i), np.ravel(g * (1.0 - t)), n) + \
        np.bincount(np.ravel(i + 1), np.ravel(g * t), n)


def interp_slope(x, xp, fp):
    """The derivative of ``np.interp(x, xp, fp)`` in x: the slope of x's segment (the right
    one at a knot), 0 outside ``[xp[0], xp[-1]]`` where the value is constant."""
    x, xp, fp = np.asarray(x), np.asarray(xp), np.asarray(fp)
    if len(xp) == 1:
        return np.zeros(np.shape(x))
    i, inside = _segments(x, xp)
    slope = (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i])
    return np.where(inside & (x < xp[-1]), slope, 0.0)


def interp_slope_adjoint(g, x, xp, n):
    """Adjoint of `interp_slope` with respect to fp (of length `n`): each slope reads
    ``(fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i])``."""
    x, xp = np.asarray(x), np.asarray(xp)
    if len(xp) == 1:
        return np.zeros(n)
    i, inside = _segments(x, xp)
    w = np.ravel(np.where(inside & (x < xp[-1]), np.broadcast_to(g, np.shape(x)) / (xp[i + 1] - xp[i]), 0.0))
    return np.bincount(np.ravel(i + 1), w, n) - np.bincount(np.ravel(i), w, n)


def take_adjoint(g, x, indices, axis):
    """Adjoint of ``np.take(x, indices, axis)``: `g` added back at the indices it was read
    from (a repeated index adds up)."""
    out = np.zeros(np.shape(x), dtype=np.result_type(g, x))
    if axis is None:
        flat = out.reshape(-1)
        np.add.at(flat, indices, g)
        return flat.reshape(np.shape(x))
    np.add.at(out, (slice(None),) * (axis % out.ndim) + (indices,), g)
    return out


def take_along_axis_adjoint(g, x, indices, axis):
    """Adjoint of ``np.take_along_axis(x, indices, axis)``: `g` added back where each value
    was read from."""
    out = np.zeros(np.shape(x), dtype=np.result_type(g, x))
    if axis is None:
        flat = out.reshape(-1)
        np.add.at(flat, indices, g)
        return flat.reshape(np.shape(x))
    # NumPy broadcasts the indices against x along the other axes ((n, 1) indices of an (n, m)
    # array read n x m values): the read positions have the result's shape, not the indices'
    # (and an axis of length 1 of x, against longer indices, is read again and again)
    axis %= out.ndim
    shape = np.broadcast_shapes(np.shape(indices), out.shape[:axis] + (np.shape(indices)[axis],) + out.shape[axis + 1:])
    where = [np.arange(n).reshape((1,) * d + (-1,) + (1,) * (out.ndim - d - 1)) for d, n in enumerate(out.shape)]
    where[axis] = indices
    np.add.at(out, tuple(where), np.broadcast_to(g, shape))
    return out


def order_weights(x, q, axis=None):
    """Weights `w` shaped like `x` with ``np.percentile(x, q, axis) == np.sum(w * x, axis)``
    (the default linear method): ``1 - frac`` on the order statistic below the position
    ``q / 100 * (n - 1)``, ``frac`` on the one above, each shared equally by the elements tied
    with it.  The derivative of the percentile (and of the median, q = 50) where no element
    ties; at a tie, the tied elements share it, as ties of ``np.max`` do."""
    x = np.asarray(x)
    moved = x.reshape(1, -1) if axis is None else np.moveaxis(x, axis, -1)
    n = moved.shape[-1]
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    if n == 0:
        return np.zeros(x.shape, dtype=dtype)
    ordered = np.sort(moved, axis=-1)
    position = float(q) / 100.0 * (n - 1)
    low = min(int(np.floor(position)), n - 1)
    high = min(low + 1, n - 1)
    frac = position - low
    weights = np.zeros(moved.shape, dtype=dtype)
    for k, share in ((low, 1.0 - frac), (high, frac)):
        if share == 0.0:
            continue
        tied = moved == ordered[..., k:k + 1]
        weights = weights + share * tied / np.maximum(np.sum(tied, axis=-1, keepdims=True), 1)
    weights = weights.astype(dtype, copy=False)
    return weights.reshape(x.shape) if axis is None else np.moveaxis(weights, -1, axis)


def nan_order_weights(x, q, axis=None):
    """`order_weights` of the elements that are not NaN (``np.nanpercentile``): each row's
    position ``q / 100 * (m - 1)`` among its own m numbers, NaN elements weighted 0 (NumPy sorts
    them last).  A row of NaN only has the weights 0 (its percentile is NaN)."""
    x = np.asarray(x)
    moved = x.reshape(1, -1) if axis is None else np.moveaxis(x, axis, -1)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    if moved.shape[-1] == 0:
        return np.zeros(x.shape, dtype=dtype)
    ordered = np.sort(moved, axis=-1)  # NaN last
    count = np.sum(~np.isnan(moved), axis=-1, keepdims=True)
    position = float(q) / 100.0 * np.maximum(count - 1, 0)
    low = np.minimum(np.floor(position).astype(np.intp), np.maximum(count - 1, 0))
    high = np.minimum(low + 1, np.maximum(count - 1, 0))
    frac = position - low
    weights = np.zeros(moved.shape, dtype=np.float64)
    for k, share in ((low, 1.0 - frac), (high, frac)):
        tied = moved == np.take_along_axis(ordered, k, axis=-1)
        weights = weights + np.where(count > 0, share, 0.0) * tied / np.maximum(np.sum(tied, axis=-1, keepdims=True), 1)
    weights = weights.astype(dtype, copy=False)
    return weights.reshape(x.shape) if axis is None else np.moveaxis(weights, -1, axis)


HELPERS = {**{f.__name__: f for f in (order_weights, nan_order_weights,
                                      gradient_adjoint, cumprod_adjoint, cumprod_tangent, cumprod_curvature,
                                      interp_adjoint, interp_slope, interp_slope_adjoint, take_adjoint,
                                      take_along_axis_adjoint)},
           **BIN_HELPERS}  # np.histogram's and np.unique's (rules/bin_helpers.py)
