"""numba's version of the adjoint of ``np.take_along_axis(x, indices, axis)`` (rules'
``take_along_axis_adjoint``): `g` added back where each value was read from, for a constant
axis and `indices` of x's ndim broadcast against x along the other axes (a token picked per
position: ``np.take_along_axis(logp, tokens[:, :, None], axis=2)``; rows picked whole by an (n, 1)
index).  Other shapes raise, and the
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
    # the indices broadcast against x along the other axes (NumPy's rule): n{d} the result's length
    lines = ["def impl(g, x, indices, axis):", "    out = np.zeros(x.shape)"]
    for d in range(n):
        if d == along:
            lines.append(f"    n{d} = indices.shape[{d}]")
            continue
        lines += [f"    n{d} = max(indices.shape[{d}], x.shape[{d}])",
                  f"    if min(indices.shape[{d}], x.shape[{d}]) not in (1, n{d}):\n"
                  "        raise ValueError('take_along_axis: the indices do not broadcast against the array')"]
    lines.append(f"    gb = np.broadcast_to(g, ({''.join(f'n{d}, ' for d in range(n))}))")
    pad = "    "
    for d in range(n):
        lines.append(f"{pad}for i{d} in range(n{d}):")
        pad += "    "
    here = ", ".join(f"i{d}" for d in range(n))
    read = ", ".join(f"i{d} if indices.shape[{d}] != 1 else 0" for d in range(n))
    there = ", ".join("j" if d == along else f"i{d} if x.shape[{d}] != 1 else 0" for d in range(n))
    lines += [f"{pad}j = indices[{read}]",
              f"{pad}if j < -x.shape[{along}] or j >= x.shape[{along}]:",
              f"{pad}    raise IndexError('index out of bounds in take_along_axis')",
              f"{pad}if j < 0:", f"{pad}    j += x.shape[{along}]",
              f"{pad}out[{there}] += gb[{here}]",
              "    return out"]
    return made("\n".join(lines) + "\n", np=np)


HELPERS = ("take_along_axis_adjoint",)
