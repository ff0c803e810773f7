"""Helpers of the adjoints of ``np.histogram`` (in its weights) and ``np.unique`` (its values).

``np.histogram(x, bins, weights=w)[0]`` sums each weight into the bin its value falls in (the
last bin closed on the right, values outside the edges dropped): a weight's gradient is its
bin's, 0 outside.  The counts are piecewise constant in x (and in the edges): no gradient there.

``np.unique(x)`` is ``np.sort`` of x with equal values kept once.  Where x's values are distinct
it is a permutation of them, and each value's gradient goes back to the element it came from.
Where two elements are equal the result has one value fewer than at any point nearby: the
function of x jumps there (its length changes), so it has no derivative.  Their gradient is NaN,
never one of the one-sided values (`unique_adjoint`, `unique_gather`).
"""

import numpy as np


def histogram_bins(x, bins, range=None):  # noqa: A002  (NumPy's name)
    """The bin of each of x's values (flattened) as ``np.histogram(x, bins, range)`` counts it,
    and whether it is counted at all (inside the edges)."""
    x = np.ravel(x)
    edges = np.histogram_bin_edges(x, bins, range)
    i = np.searchsorted(edges, x, side="right") - 1
    i = np.where(x == edges[-1], len(edges) - 2, i)  # the last bin holds its right edge
    inside = (i >= 0) & (i < len(edges) - 1)
    return np.clip(i, 0, len(edges) - 2), inside


def histogram_weights_adjoint(g, x, bins, range=None):  # noqa: A002
    """Adjoint of ``np.histogram(x, bins, range, weights=w)[0]`` with respect to w (x's shape):
    each weight's bin's adjoint, 0 for a value outside the edges."""
    i, inside = histogram_bins(x, bins, range)
    g = np.broadcast_to(g, (len(np.histogram_bin_edges(np.ravel(x), bins, range)) - 1,))
    return np.reshape(np.where(inside, g[i], 0.0).astype(np.result_type(g, 0.0), copy=False), np.shape(x))


def _firsts(x):
    """The first position of each of `x`'s unique values (flattened), each value's position among
    them, and whether each unique value occurs once."""
    _, first, inverse, counts = np.unique(np.ravel(x), return_index=True, return_inverse=True, return_counts=True)
    return first, np.ravel(inverse), counts == 1


def unique_adjoint(g, x):
    """Adjoint of ``np.unique(x)`` (x's shape): each element gets its value's adjoint, NaN where the
    value occurs more than once (no derivative: see the module's note)."""
    first, inverse, single = _firsts(x)
    g = np.broadcast_to(g, np.shape(first))
    out = np.where(single[inverse], g[inverse], np.nan)
    return np.reshape(out.astype(np.result_type(g, 0.0), copy=False), np.shape(x))


def unique_gather(v, x):
    """Tangent of ``np.unique(x)`` along `v` (x's shape): each unique value's element's tangent, NaN
    where the value occurs more than once.  The transpose of `unique_adjoint`."""
    first, _, single = _firsts(x)
    v = np.broadcast_to(v, np.shape(x))
    out = np.where(single, np.ravel(v)[first], np.nan)
    return out.astype(np.result_type(v, 0.0), copy=False)


BIN_HELPERS = {f.__name__: f for f in (histogram_weights_adjoint, unique_adjoint, unique_gather)}
