"""``np.atleast_1d`` / ``atleast_2d`` / ``atleast_3d`` of one value, for generated code (array_calls.py
spells the call ``at_least(x, k)``): numba's own takes arrays only, and ``np.r_[x[:2], 0.5, ...]``
makes ``np.atleast_1d(0.5)`` of a number.  A number becomes an array of one element with k axes, of
its own dtype (NumPy's ``np.atleast_1d(0.5)`` is float64, of a float32 number float32); an array
with fewer axes gains them where NumPy puts them (a vector is a row ``(1, n)``, and ``(1, n, 1)``
for three axes; a matrix ``(m, n, 1)``)."""

from __future__ import annotations

import numpy as np
from numba import types

from .naming import made, overload


def at_least(x, k):
    return (np.atleast_1d, np.atleast_2d, np.atleast_3d)[k - 1](x)


@overload(at_least, prefer_literal=True)
def _at_least(x, k):
    if not isinstance(k, types.IntegerLiteral) or k.literal_value not in (1, 2, 3):
        return None
    rank = k.literal_value
    if isinstance(x, (types.Number, types.Boolean)):
        return made(f"def impl(x, k):\n    return np.full(({'1, ' * rank}), x)\n")
    if not isinstance(x, types.Array):
        return None
    if x.ndim >= rank:
        return lambda x, k: x
    # NumPy's placement of the new axes: 0-d -> (1,)*k; 1-d -> (1, n) / (1, n, 1); 2-d -> (m, n, 1)
    shape = {(0, 1): "1,", (0, 2): "1, 1", (0, 3): "1, 1, 1", (1, 2): "1, x.shape[0]",
             (1, 3): "1, x.shape[0], 1", (2, 3): "x.shape[0], x.shape[1], 1"}[(x.ndim, rank)]
    return made(f"def impl(x, k):\n    return np.ascontiguousarray(x).reshape(({shape}))\n")


HELPERS = ("at_least",)
