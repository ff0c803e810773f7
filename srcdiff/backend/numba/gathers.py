"""numba versions of gathers and scatters through index arrays of several axes, which numba's
NumPy indexing does not take:

* ``np.add.at(a, idx, v)`` with `idx` an integer array of two axes or more (the adjoint of a
  gather ``bias[idx]``, ``q[nxt]`` with ``nxt`` a matrix): each index in C order adds its
  row of `v` (broadcast to ``idx.shape + a.shape[1:]``), repeats adding again;
* ``index_add(K, [rows[:, None], cols[None, :]], ke)`` (``np.add.at`` with a pair of index
  arrays that broadcast together, as a derivable gradient writes it: the index's parts come
  as a list) and its adjoint ``index_read(g, [rows[:, None], cols[None, :]])``;
* ``v[..., None, None]`` of a value that is a number where the code runs (the adjoint of
  ``np.linalg.det`` of a matrix whose ndim the gradient did not know): ``trailing_axes``.

numba reads past an array's end unchecked, so every index is checked first, as NumPy does (an
``IndexError``, raised again by the Python gradient with its line).
"""

from __future__ import annotations

import numpy as np
from numba import types

from .list_writes import index_add
from .naming import made, overload
from .runtime import add_at
from .tuple_parts import index_read


def _int_array(t, ndim: int = 1) -> bool:
    return isinstance(t, types.Array) and isinstance(t.dtype, types.Integer) and t.ndim >= ndim


@overload(add_at)
def _add_at_index_array(a, index, v):
    """``np.add.at(a, idx, v)``, `idx` an integer array of two axes or more."""
    if not (isinstance(a, types.Array) and _int_array(index, 2)
            and (isinstance(v, (types.Number, types.Boolean)) or isinstance(v, types.Array))):
        return None
    one = not isinstance(v, types.Array)

    def add(a, index, v):
        flat = np.ascontiguousarray(index).reshape(-1)
        n, rows = flat.shape[0], a.shape[0]
        if one:
            for k in range(n):
                p = flat[k]
                if p < -rows or p >= rows:
                    raise IndexError("index out of bounds in np.add.at")
                a[p] += v
            return
        w = np.ascontiguousarray(np.broadcast_to(v, index.shape + a.shape[1:])).reshape((n,) + a.shape[1:])
        for k in range(n):
            p = flat[k]
            if p < -rows or p >= rows:
                raise IndexError("index out of bounds in np.add.at")
            a[p] += w[k]
    return add


def _index_list(base, index) -> bool:
    """A list of integer index arrays, at least one of two axes (pairs of vectors are
    list_writes.py's and masks.py's), for an array `base`; or a tuple of them, one per axis of
    `base` (forward mode over a gradient writes the index as a tuple)."""
    if not isinstance(base, types.Array):
        return False
    if isinstance(index, types.BaseTuple):
        return len(index.types) == base.ndim and all(_int_array(t) for t in index.types) \
            and (base.ndim >= 2 or _int_array(index.types[0], 2))
    return base.ndim >= 2 and isinstance(index, types.List) and _int_array(index.dtype, 2)


def _flat_places(ndim: int, value: str = "") -> list[str]:
    """Lines that check the list has `ndim` parts and make ``i0``, ``i1``... their broadcast
    flattened (and ``w``, `value` broadcast to their shape)."""
    parts = ", ".join(f"index[{d}].shape" for d in range(ndim))
    lines = [f"    if len(index) != {ndim}:",
             "        raise ValueError('one index array per axis expected')",
             f"    s = np.broadcast_shapes({parts}{',' if ndim == 1 else ''})"]
    lines += [f"    i{d} = np.ascontiguousarray(np.broadcast_to(index[{d}], s)).ravel()" for d in range(ndim)]
    if value:
        lines.append(f"    w = np.ascontiguousarray(np.broadcast_to({value}, s)).ravel()")
    return lines


def _checked(ndim: int, indent: str) -> list[str]:
    lines = []
    for d in range(ndim):
        lines += [f"{indent}p{d} = i{d}[k]",
                  f"{indent}if p{d} < -out.shape[{d}] or p{d} >= out.shape[{d}]:",
                  f"{indent}    raise IndexError('index out of bounds')"]
    return lines


@overload(index_add)
def _index_add_broadcast(base, index, value):
    """``index_add(K, [rows[:, None], cols[None, :]], ke)``: a copy of `K` with `ke` added at
    each place the index arrays give together, repeats adding again."""
    if not (_index_list(base, index) and isinstance(base.dtype, types.Float)
            and (isinstance(value, types.Number) or isinstance(value, types.Array)
                 and isinstance(value.dtype, types.Float))):
        return None
    ndim = base.ndim
    array = isinstance(value, types.Array)
    places = ", ".join(f"p{d}" for d in range(ndim))
    lines = ["def impl(base, index, value):", "    out = base.astype(np.float64)"]
    lines += _flat_places(ndim, "value" if array else "")
    lines.append("    for k in range(i0.shape[0]):")
    lines += _checked(ndim, "        ")
    lines.append(f"        out[{places}] += {'w[k]' if array else 'value'}")
    lines.append("    return out")
    return made("\n".join(lines) + "\n")


@overload(index_read)
def _index_read_broadcast(a, index):
    """``index_read(g, [rows[:, None], cols[None, :]])``: ``g[rows[:, None], cols[None, :]]``,
    the array of the index arrays' broadcast shape."""
    if not _index_list(a, index):
        return None
    ndim = a.ndim
    places = ", ".join(f"p{d}" for d in range(ndim))
    lines = ["def impl(a, index):", "    out = a"]
    lines += _flat_places(ndim)
    lines.append("    got = np.empty(i0.shape[0], a.dtype)")
    lines.append("    for k in range(i0.shape[0]):")
    lines += _checked(ndim, "        ")
    lines.append(f"        got[k] = a[{places}]")
    lines.append("    return got.reshape(s)")
    return made("\n".join(lines) + "\n")


@overload(index_add)
def _index_add_new_axes(base, index, value):
    """``index_add(zeros, (None, slice(...)), g)``: the adjoint of ``locs[None, :]`` as forward mode
    over a gradient writes it: `g` (of the read's shape, its new axes of length one) added at the
    slices and integers, the new axes dropped."""
    parts = getattr(index, "types", None)
    if not (isinstance(base, types.Array) and isinstance(base.dtype, types.Float) and parts
            and any(isinstance(p, types.NoneType) for p in parts)
            and all(isinstance(p, (types.NoneType, types.SliceType, types.Integer)) for p in parts)
            and len([p for p in parts if not isinstance(p, types.NoneType)]) <= base.ndim
            and len([p for p in parts if isinstance(p, types.Integer)]) < base.ndim  # (a view, not a number)
            and (isinstance(value, types.Number) or isinstance(value, types.Array))):
        return None
    kept = [k for k, p in enumerate(parts) if not isinstance(p, types.NoneType)]
    sub = "(" + "".join(f"index[{k}], " for k in kept) + ")"
    shape, axis = [], 0
    for p in parts:
        if isinstance(p, types.NoneType):
            shape.append("1")
        elif isinstance(p, types.SliceType):
            shape.append(f"view.shape[{axis}]")
            axis += 1
    rest = base.ndim - len(kept)
    shape += [f"view.shape[{axis + j}]" for j in range(rest)]
    full = "(" + "".join(f"{d}, " for d in shape) + ")"
    return made("def impl(base, index, value):\n"
                "    out = base.astype(np.float64)\n"
                f"    view = out[{sub}]\n"
                f"    view += np.ascontiguousarray(np.broadcast_to(value, {full})).reshape(view.shape)\n"
                "    return out\n")


def trailing_axes(x, count):
    return np.asarray(x)[(Ellipsis,) + (None,) * count]


@overload(trailing_axes, prefer_literal=True)
def _trailing_axes(x, count):
    """``x[..., None, None]``: `count` axes of length one after x's; a number (numba indexes
    none) becomes the array of that many axes NumPy's ``np.float64`` gives."""
    if not isinstance(count, types.IntegerLiteral):
        return None
    ones = "(" + "1, " * count.literal_value + ")"
    if isinstance(x, (types.Number, types.Boolean)):
        return made(f"def impl(x, count):\n    return np.full({ones}, x)\n")
    if isinstance(x, types.Array):
        return made(f"def impl(x, count):\n    return np.ascontiguousarray(x).reshape(x.shape + {ones})\n")
    return None


HELPERS = ("trailing_axes",)

__all__ = ["HELPERS", "trailing_axes"]
