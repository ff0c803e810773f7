"""The shape of ``np.take_along_axis``: its indices broadcast against the array.

NumPy broadcasts the indices against the array along every axis but the one taken along: an
(n, 1) index of an (n, m) array reads n x m values.  Taking the indices' shape for the result's
made the adjoint's seed the wrong shape.
"""

from __future__ import annotations

from ..ir import shapes


def take_along_shape(static, x, indices):
    """The result's shape: `indices` broadcast against `x` with `x`'s axis replaced by theirs."""
    axis = static["axis"]
    if axis is None:
        return indices
    if not (x.known and indices.known) or len(x.dims) != len(indices.dims) or not x.dims:
        return shapes.UNKNOWN
    axis %= len(x.dims)
    return shapes.broadcast(shapes.Shape(x.dims[:axis] + (indices.dims[axis],) + x.dims[axis + 1 :]), indices)
