"""``np.add.at(a, (i, j), v)`` with a tuple of integers (the adjoint of reading ``g[n, e]``
with two numbers, say a row's chosen column): `v` added to that element, or row, once.

numba reads past an array's end unchecked, so each index is checked first, as NumPy's
``add.at`` does (an ``IndexError``, raised again by the Python gradient with its line)."""

from __future__ import annotations

from numba import types

from .naming import overload
from .runtime import add_at


@overload(add_at)
def _add_at_integers(a, index, v):
    if not (isinstance(a, types.Array) and isinstance(index, types.UniTuple)
            and isinstance(index.dtype, types.Integer) and 0 < index.count <= a.ndim
            and (isinstance(v, (types.Number, types.Boolean)) or isinstance(v, types.Array)
                 and v.ndim <= a.ndim - index.count)):
        return None

    def add(a, index, v):
        for axis in range(len(index)):
            if not -a.shape[axis] <= index[axis] < a.shape[axis]:
                raise IndexError("index out of bounds in np.add.at")
        a[index] += v
    return add


HELPERS = ()
