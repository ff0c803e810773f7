"""numba's version of the adjoint of ``np.take_along_axis(x, indices, axis)`` (rules'
``take_along_axis_adjoint``): `g` added back where each value was read from, for a constant
axis and `indices` of x's ndim whose other axes are x's (a token picked per position:
``np.take_along_axis(logp, tokens[:, :, None], axis=2)``).  Other shapes raise, and the
Python gradient, run then, computes or refuses them with its own words."""

from __future__ import annotations

import numpy as np
from numba import types

from ...rules import calculus_helpers
from .naming import made, overload


def take_along_axis_adjoint(g, x, indices, axis):
    return calculus_helpers.take_along_axis_adjoint(g, x, indices, axis)


@overload(take_along_axis_adjoint, prefer_literal=True)
def _take_along_axis_adjoint(g, x, indices, axis):
    if not (isinstance(x, types.Array) and isinstance(indices, types.Array) and isinstance(indices.dtype, types.Integer)
            and indices.ndim == x.ndim and isinstance(axis, types.IntegerLiteral)
            and isinstance(x.dtype, types.Float) and (isinstance(g, types.Float) or isinstance(g, types.Array)
                                                      and isinstance(g.dtype, types.Float))):
        return None
    n, along = x.ndim, axis.literal_value % x.ndim
    if not -n <= axis.literal_value < n:
        return None
    lines = ["def impl(g, x, indices, axis):", "    out = np.zeros(x.shape)",
             "    gb = np.broadcast_to(g, indices.shape)"]
    lines += [f"    if indices.shape[{d}] != x.shape[{d}]:\n"
              "        raise ValueError('take_along_axis: the indices do not match the array')"
              for d in range(n) if d != along]
    pad = "    "
    for d in range(n):
        lines.append(f"{pad}for i{d} in range(indices.shape[{d}]):")
        pad += "    "
    here = ", ".join(f"i{d}" for d in range(n))
    there = ", ".join("j" if d == along else f"i{d}" for d in range(n))
    lines += [f"{pad}j = indices[{here}]",
              f"{pad}if j < -x.shape[{along}] or j >= x.shape[{along}]:",
              f"{pad}    raise IndexError('index out of bounds in take_along_axis')",
              f"{pad}if j < 0:", f"{pad}    j += x.shape[{along}]",
              f"{pad}out[{there}] += gb[{here}]",
              "    return out"]
    return made("\n".join(lines) + "\n", np=np)


HELPERS = ("take_along_axis_adjoint",)
