"""Helpers of the writes lowering makes of NumPy's in-place calls (lower/in_place_calls.py)."""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError


def diagonal_range(a, wrap=False):
    """The positions ``np.fill_diagonal(a, v, wrap)`` writes in the matrix `a`: ``k`` of
    ``a[k, k]`` (``np.arange(min(rows, columns))``), or with `wrap` the flat positions
    ``0, m + 1, 2 (m + 1), ...`` (of ``a[p // m, p % m]``, m columns) to the end of a tall
    matrix, as NumPy writes them.  Any other number of axes is refused: NumPy writes
    ``a[i, i, i]`` of a cube, which the write srcdiff lowers does not say."""
    ndim = np.ndim(a)
    if ndim != 2:
        raise SrcDiffError(f"np.fill_diagonal of a {ndim}-D array: srcdiff writes the diagonal of a matrix",
                           hint="write the diagonal by index: k = np.arange(n); a[k, k, k] = v")
    rows, columns = np.shape(a)
    if wrap:
        return np.arange(0, rows * columns, columns + 1)
    return np.arange(min(rows, columns))


def along_axis_indices(indices, a):
    """`indices` of ``np.put_along_axis(a, indices, values, axis)``, checked as NumPy checks them
    (as many axes as `a`): srcdiff writes ``a[i0, ..., indices, ...]`` with one index per axis
    of `indices` where it could not tell the number before the function runs."""
    if np.ndim(indices) != np.ndim(a):
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    return indices


WRITE_HELPERS = {f.__name__: f for f in (diagonal_range, along_axis_indices)}
