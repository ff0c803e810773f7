"""numba's ``index_add`` through slices: what a derivable gradient writes for the adjoint of
``x[::-1]`` or ``x[1:]`` (``index_add(zeros, (slice(None, None, -1),), g)``), which forward
mode over that gradient (``hvp``, ``hessian(f, jit="numba")``) runs.

pads.py gives ``index_add`` through an integer array; this adds the index of slices and
integers to the same helper (numba picks the implementation whose types fit).  A slice
reaches each position once, so adding into a copy at the slice is ``np.add.at``.
"""

from __future__ import annotations

import numpy as np
from numba import types

from .naming import overload
from .pads import index_add


@overload(index_add)
def _index_add_slices(base, index, value):
    if not (isinstance(base, types.Array) and isinstance(base.dtype, types.Float) and base.ndim >= 1
            and isinstance(index, types.BaseTuple) and 0 < len(index.types) <= base.ndim
            and all(isinstance(p, (types.SliceType, types.Integer)) for p in index.types)
            and (isinstance(value, (types.Float, types.Integer))
                 or isinstance(value, types.Array) and isinstance(value.dtype, types.Float))):
        return None

    def add(base, index, value):
        out = base.astype(np.float64)  # (a new array: the base is not written)
        out[index] += value
        return out
    return add


HELPERS = ()

__all__ = ["HELPERS"]
