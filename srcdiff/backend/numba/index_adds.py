"""``np.add.at(a, (i, j), v)`` with a tuple of integers (the adjoint of reading ``g[n, e]``
with two numbers, say a row's chosen column): `v` added to that element, or row, once; and
with index arrays that broadcast together (``z[rows[:, None], top]``); and with slices and
integers (the adjoint of reading ``logB[:, o]`` in a loop: each place named once).  srcdiff's
``index_add(base, (mask,), v)`` with a boolean mask of base's shape (the adjoint of ``w[labels ==
k]`` in forward mode over a gradient) is written as a loop over the mask: numba has no index by a
tuple of one boolean array.  ``np.add.at(out, idx, v)`` of a tuple ``idx = (rows, cols)`` a name holds
comes as ``((rows, cols),)``: the tuple itself, as NumPy reads ``out[idx]``.

numba reads past an array's end unchecked, so each index is checked first, as NumPy's
``add.at`` does (an ``IndexError``, raised again by the Python gradient with its line)."""

from __future__ import annotations

import numpy as np
from numba import types

from .naming import made, overload
from .pads import index_add
from .runtime import add_at
from .tuple_parts import index_read


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




def _int_array(t) -> bool:
    return isinstance(t, types.Array) and isinstance(t.dtype, types.Integer)


@overload(add_at)
def _add_at_broadcast(a, index, v):
    """``np.add.at(a, (rows[:, None], top), v)``: integer index arrays (and integers), one per
    axis of `a`, that broadcast together (the adjoint of ``z[rows, top]`` with a column of rows
    and a matrix of columns), `v` broadcast to their shape; each place, repeats too, in turn."""
    parts = getattr(index, "types", None)
    if not (isinstance(a, types.Array) and isinstance(index, types.BaseTuple) and parts and len(parts) == a.ndim
            and all(_int_array(p) or isinstance(p, types.Integer) for p in parts)
            and any(_int_array(p) and p.ndim != 1 for p in parts)
            and (isinstance(v, types.Number) or isinstance(v, types.Array))):
        return None
    arrays = [d for d, p in enumerate(parts) if _int_array(p)]
    shape = "np.broadcast_shapes(" + ", ".join(f"index[{d}].shape" for d in arrays) + \
        (", v.shape" if isinstance(v, types.Array) else "") + ")"
    lines = ["def impl(a, index, v):", f"    s = {shape}"]
    lines += [f"    i{d} = np.ascontiguousarray(np.broadcast_to(index[{d}], s)).ravel()" for d in arrays]
    if isinstance(v, types.Array):
        lines.append("    w = np.ascontiguousarray(np.broadcast_to(v, s)).ravel()")
    lines.append(f"    for k in range(i{arrays[0]}.shape[0]):")
    for d in range(len(parts)):
        read = f"i{d}[k]" if d in arrays else f"index[{d}]"
        lines += [f"        p{d} = {read}",
                  f"        if p{d} < -a.shape[{d}] or p{d} >= a.shape[{d}]:",
                  "            raise IndexError('index out of bounds in np.add.at')"]
    place = ", ".join(f"p{d}" for d in range(len(parts)))
    lines.append(f"        a[{place}] += {'w[k]' if isinstance(v, types.Array) else 'v'}")
    return made("\n".join(lines) + "\n", np=np)


@overload(add_at)
def _add_at_basic(a, index, v):
    """``np.add.at(a, (slice(None), k), v)``: slices and integers name each place once, so this is
    ``a[index] += v``, each integer checked against its axis first."""
    parts = getattr(index, "types", None)
    if not (isinstance(a, types.Array) and isinstance(index, types.BaseTuple) and parts and len(parts) <= a.ndim
            and all(isinstance(p, (types.SliceType, types.Integer)) for p in parts)
            and any(isinstance(p, types.SliceType) for p in parts)
            and isinstance(v, (types.Number, types.Boolean, types.Array))):
        return None
    lines = ["def impl(a, index, v):"]
    for d, p in enumerate(parts):
        if isinstance(p, types.Integer):
            lines += [f"    if not -a.shape[{d}] <= index[{d}] < a.shape[{d}]:",
                      "        raise IndexError('index out of bounds in np.add.at')"]
    lines.append("    a[index] += v")
    return made("\n".join(lines) + "\n")


@overload(index_add)
def _index_add_leading(base, index, value):
    """``index_add(out, (rows, cols), v)`` with fewer index vectors than `out` has axes (``np.add.at(out,
    (rows, cols), v)`` of a 3-D `out`): each place of the leading axes the vectors name together gets its
    block of `v` (broadcast to ``(n,) + out.shape[len(index):]``), repeats adding again."""
    parts = getattr(index, "types", None)
    if not (isinstance(base, types.Array) and isinstance(base.dtype, types.Float) and isinstance(index, types.BaseTuple)
            and parts and 1 < len(parts) < base.ndim
            and all(isinstance(p, types.Array) and p.ndim == 1 and isinstance(p.dtype, types.Integer) for p in parts)
            and (isinstance(value, types.Number) or isinstance(value, types.Array)
                 and isinstance(value.dtype, (types.Float, types.Integer)))):
        return None
    count = len(parts)
    lines = ["def impl(base, index, value):",
             "    out = base.astype(np.float64)",
             f"    n = np.broadcast_shapes({', '.join(f'index[{d}].shape' for d in range(count))})[0]",
             f"    w = np.ascontiguousarray(np.broadcast_to(value, (n,) + out.shape[{count}:]))"]
    lines += _leading_positions(count, "out", "index out of bounds in index_add")
    place = ", ".join(f"p{d}" for d in range(count))
    lines += [f"        out[{place}] += w[k]", "    return out"]
    return made("\n".join(lines) + "\n")


@overload(index_read)
def _index_read_leading(a, index):
    """``index_read(g, (rows, cols))`` of a `g` of more axes: ``g[rows, cols]``, the blocks in turn."""
    parts = getattr(index, "types", None)
    if not (isinstance(a, types.Array) and isinstance(index, types.BaseTuple) and parts and 1 < len(parts) < a.ndim
            and all(isinstance(p, types.Array) and p.ndim == 1 and isinstance(p.dtype, types.Integer) for p in parts)):
        return None
    count = len(parts)
    lines = ["def impl(a, index):",
             f"    n = np.broadcast_shapes({', '.join(f'index[{d}].shape' for d in range(count))})[0]",
             f"    got = np.empty((n,) + a.shape[{count}:], a.dtype)"]
    lines += _leading_positions(count, "a", "index out of bounds")
    place = ", ".join(f"p{d}" for d in range(count))
    lines += [f"        got[k] = a[{place}]", "    return got"]
    return made("\n".join(lines) + "\n")


def _leading_positions(count: int, array: str, message: str) -> list[str]:
    """The lines of a loop over the `n` index tuples of `count` index arrays, each position ``p0, p1, ...``
    checked against `array`'s leading axes as NumPy checks it."""
    lines = [f"    i{d} = np.ascontiguousarray(np.broadcast_to(index[{d}], (n,)))" for d in range(count)]
    lines.append("    for k in range(n):")
    for d in range(count):
        lines += [f"        p{d} = i{d}[k]",
                  f"        if p{d} < -{array}.shape[{d}] or p{d} >= {array}.shape[{d}]:",
                  f"            raise IndexError('{message}')"]
    return lines


@overload(index_add)
def _index_add_mask(base, index, value):
    """A copy of `base` with `value` (one item per True of the mask, in order; or one for all)
    added where the mask is True: ``out[mask] += value``, the mask as NumPy reads it."""
    parts = getattr(index, "types", None)
    if not (isinstance(base, types.Array) and isinstance(base.dtype, types.Float) and isinstance(index, types.BaseTuple)
            and parts and len(parts) == 1 and isinstance(parts[0], types.Array)
            and isinstance(parts[0].dtype, types.Boolean) and parts[0].ndim == base.ndim
            and (isinstance(value, types.Number) or isinstance(value, types.Array) and value.ndim <= 1
                 and isinstance(value.dtype, (types.Float, types.Integer)))):
        return None
    kinds = [np.dtype(str(base.dtype)), np.dtype(str(value.dtype if isinstance(value, types.Array) else value))]
    dtype = np.result_type(*kinds, np.float16)  # (NumPy's: the two dtypes, a float at least)
    one = "value" if isinstance(value, types.Number) else "w[0 if w.shape[0] == 1 else j]"
    lines = ["def impl(base, index, value):",
             "    out = np.ascontiguousarray(base).astype(DTYPE)",
             "    mask = index[0]",
             "    if mask.shape != out.shape:",
             "        raise IndexError('boolean index did not match the indexed array')",
             "    flat = out.reshape(-1)",
             "    chosen = np.ascontiguousarray(mask).reshape(-1)",
             "    count = 0",
             "    for k in range(chosen.shape[0]):",
             "        count += chosen[k]"]
    if isinstance(value, types.Array):
        lines += ["    w = np.asarray(value).reshape(-1)",
                  "    if w.shape[0] != count and w.shape[0] != 1:",
                  "        raise ValueError('index_add: values do not fit the mask')"]
    lines += ["    j = 0",
              "    for k in range(chosen.shape[0]):",
              "        if chosen[k]:",
              f"            flat[k] += {one}",
              "            j += 1",
              "    return out"]
    return made("\n".join(lines) + "\n", DTYPE=dtype)


HELPERS = ()


def _wrapped_tuple(index) -> bool:
    """Whether `index` is ``(t,)`` of a tuple `t` of index arrays (``np.add.at(out, idx, v)`` of a tuple
    ``idx = (rows, cols)`` a name holds: the gradient's index is the 1-tuple of it)."""
    return isinstance(index, types.BaseTuple) and len(index.types) == 1 and isinstance(index.types[0], types.BaseTuple)


@overload(index_read)
def _index_read_wrapped(a, index):
    """``index_read(g, ((rows, cols),))``: ``g[rows, cols]``, as NumPy's ``g[idx]`` of the tuple idx."""
    if not (isinstance(a, types.Array) and _wrapped_tuple(index)):
        return None
    return lambda a, index: index_read(a, index[0])


@overload(index_add)
def _index_add_wrapped(base, index, value):
    """``index_add(out, ((rows, cols),), v)``: np.add.at(out, (rows, cols), v) into a copy."""
    if not (isinstance(base, types.Array) and _wrapped_tuple(index)):
        return None
    return lambda base, index, value: index_add(base, index[0], value)
