"""``x.tolist()`` of a vector for generated code (array_calls.py spells the method ``as_list(x)``):
numba's arrays have no ``tolist``.  A vector becomes a list of its items, numbers of its own
dtype (NumPy's are Python numbers: the same values); a number stays itself, as NumPy's
``np.float64(0.5).tolist()`` is the number.  Arrays of other numbers of axes are left to numba,
which refuses them at the user's line (NumPy's list of lists has no numba type)."""

from __future__ import annotations

from numba import types

from .naming import overload


def as_list(x):
    return x.tolist()


@overload(as_list)
def _as_list(x):
    if isinstance(x, (types.Number, types.Boolean)):
        return lambda x: x
    if not (isinstance(x, types.Array) and x.ndim == 1):
        return None

    def items(x):
        return [x[k] for k in range(x.shape[0])]
    return items


HELPERS = ("as_list",)
