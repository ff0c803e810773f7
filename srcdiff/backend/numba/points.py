"""numba's version of a write through integer index arrays (``target[np.arange(n), labels] =
v`` as generated code's ``set_item(target, (rows, labels), v)``), another overload of
runtime.py's ``set_item``, which leaves these to it.

numba writes through one index array at most, and neither checks bounds nor says when a
position repeats; NumPy raises IndexError out of bounds, and the Python gradient refuses a
repeated position (NumPy keeps one of the values written there, and the others would get a
gradient they do not have).  So the write is a loop over the points, which checks both and
raises; the Python gradient, run then, says what went wrong at the user's line.
"""

from __future__ import annotations

import numpy as np
from numba import types

from .naming import made, overload
from .runtime import set_item


def _int_vector(t) -> bool:
    return isinstance(t, types.Array) and t.ndim == 1 and isinstance(t.dtype, types.Integer)


@overload(set_item)
def _set_points(x, index, v):
    """Every axis of `x` indexed by an integer (a number, or a 1-D array: one per point);
    `v` a number or a 1-D array of one value or one per point."""
    parts = index.types if isinstance(index, types.BaseTuple) else (index,)
    if not isinstance(x, types.Array) or len(parts) != x.ndim or not any(_int_vector(p) for p in parts) \
            or not all(_int_vector(p) or isinstance(p, types.Integer) for p in parts):
        return None
    if isinstance(x.dtype, (types.Integer, types.Boolean)) and (
            isinstance(v, types.Float) or isinstance(v, types.Array) and isinstance(v.dtype, types.Float)):
        return None  # refused in Python: truncation
    if isinstance(v, types.Array) and v.ndim != 1 or not isinstance(v, (types.Array, types.Number)):
        return None
    whole = isinstance(index, types.BaseTuple)
    item = [f"index[{k}]" if whole else "index" for k in range(len(parts))]
    vectors = [k for k, p in enumerate(parts) if _int_vector(p)]
    lines = ["def impl(x, index, v):",
             f"    m = len({item[vectors[0]]})"]
    lines += [f"    if len({item[k]}) != m:\n        raise IndexError('shape mismatch: indexing arrays could not "
              "be broadcast together')" for k in vectors[1:]]
    if isinstance(v, types.Array):
        lines.append("    if len(v) != m and len(v) != 1:\n        raise ValueError('the values do not fit the "
                     "positions written')")
    lines += ["    y = x.copy()", "    seen = np.zeros(x.shape, np.bool_)", "    for i in range(m):"]
    for k in range(len(parts)):
        read = f"{item[k]}[i]" if k in vectors else item[k]
        lines += [f"        p{k} = {read}",
                  f"        if p{k} < -x.shape[{k}] or p{k} >= x.shape[{k}]:\n"
                  f"            raise IndexError('index out of bounds')",
                  f"        if p{k} < 0:\n            p{k} += x.shape[{k}]"]
    point = ", ".join(f"p{k}" for k in range(len(parts)))
    value = "(v[i] if len(v) == m else v[0])" if isinstance(v, types.Array) else "v"
    lines += [f"        if seen[{point}]:\n            raise ValueError('a position written twice')",
              f"        seen[{point}] = True",
              f"        y[{point}] = {value}",
              "    return y"]
    return made("\n".join(lines) + "\n", np=np)


@overload(set_item)
def _set_grid_points(x, index, v):
    """Every axis of `x` indexed by an integer array of one shape of several axes (what
    ``np.put_along_axis`` writes through, its indices broadcast); `v` a number or an array of
    that shape: the points in C order, each written once."""
    parts = index.types if isinstance(index, types.BaseTuple) else ()
    if not (isinstance(x, types.Array) and isinstance(x.dtype, types.Float) and len(parts) == x.ndim
            and all(isinstance(p, types.Array) and isinstance(p.dtype, types.Integer) for p in parts)
            and len({p.ndim for p in parts}) == 1 and parts[0].ndim > 1
            and (isinstance(v, types.Number) or isinstance(v, types.Array) and v.ndim == parts[0].ndim)):
        return None
    lines = ["def impl(x, index, v):",
             "    shape = index[0].shape"]
    lines += [f"    if index[{k}].shape != shape:\n        raise IndexError('shape mismatch: indexing arrays could "
              "not be broadcast together')" for k in range(1, len(parts))]
    lines += [f"    i{k} = np.ascontiguousarray(index[{k}]).ravel()" for k in range(len(parts))]
    if isinstance(v, types.Array):
        lines += ["    if v.shape != shape:\n        raise ValueError('the values do not fit the positions written')",
                  "    values = np.ascontiguousarray(v).ravel()"]
    lines += ["    y = x.copy()", "    seen = np.zeros(x.shape, np.bool_)", "    for i in range(i0.shape[0]):"]
    for k in range(len(parts)):
        lines += [f"        p{k} = i{k}[i]",
                  f"        if p{k} < -x.shape[{k}] or p{k} >= x.shape[{k}]:\n"
                  "            raise IndexError('index out of bounds')",
                  f"        if p{k} < 0:\n            p{k} += x.shape[{k}]"]
    point = ", ".join(f"p{k}" for k in range(len(parts)))
    lines += [f"        if seen[{point}]:\n            raise ValueError('a position written twice')",
              f"        seen[{point}] = True",
              f"        y[{point}] = {'values[i]' if isinstance(v, types.Array) else 'v'}",
              "    return y"]
    return made("\n".join(lines) + "\n", np=np)


HELPERS = ()
