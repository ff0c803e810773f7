"""numba versions of the helpers srcdiff.vmap's batched code calls (rules/batching_helpers.py), each on
arrays whose axis 0 is the batch axis: ``broadcast_rows`` / ``copy_rows`` (a value the same for
every row, as rows: before a loop that makes it a row each), ``zero_rows``, ``unbroadcast_rows``,
``sum_rows`` (``sum(items)`` of a list of rows), ``list_repeat_rows`` (its adjoint), ``sum_last``
(a sum along the last axis), ``full_rows`` (the adjoint of a sum, as rows), and the writes through
an index, the same in every row: ``index_add_rows``, ``scatter_add_rows``, ``zero_rows_with`` (a
scatter-add) and ``set_item_rows`` (numba's ``index_add`` and ``set_item`` of each row, with their
refusals), and ``rows_index`` (each row's index of a read: the batch axis first).

numba gives a name one type: the rows made of a value shared by every row are a new array of their
own (NumPy's read-only view would be another type than the rows the loop computes), and a value
preset to None before a loop stays None.  A case not written here (a tuple of values, a list of
items of different shapes) is left to numba, which refuses it at the user's line.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.np.numpy_support import as_dtype

from ...rules.batching_helpers import (
    broadcast_rows,
    copy_rows,
    full_rows,
    index_add_rows,
    list_repeat_rows,
    rows_index,
    scatter_add_rows,
    set_item_rows,
    sum_last,
    sum_rows,
    unbroadcast_rows,
    zero_rows,
    zero_rows_with,
)
from .naming import made, overload
from .pads import index_add
from .runtime import set_item, unbroadcast


def _number(t) -> bool:
    return isinstance(t, (types.Number, types.Boolean))


def _rows_of(value):
    """The code of `value` as `size` rows of its own, for numba's type of `value`; None: not written."""
    if isinstance(value, types.NoneType):
        return lambda value, size: None
    if _number(value):
        return lambda value, size: np.full(size, value)
    if isinstance(value, types.Array):

        def rows(value, size):
            out = np.empty((size,) + value.shape, value.dtype)
            for i in range(size):
                out[i] = value
            return out

        return rows
    return None


@overload(broadcast_rows)
def _broadcast_rows(value, size):
    return _rows_of(value)


@overload(copy_rows)
def _copy_rows(value, size):
    return _rows_of(value)


@overload(zero_rows)
def _zero_rows(like, size):
    if _number(like):
        return lambda like, size: np.zeros(size)
    if isinstance(like, types.Array):
        return lambda like, size: np.zeros((size,) + like.shape)
    return None


@overload(unbroadcast_rows)
def _unbroadcast_rows(g, like):
    """Each row of `g` summed back to the shape of `like` (runtime.py's `unbroadcast` of each row)."""
    if not isinstance(g, types.Array) or g.ndim == 0:
        return None
    if _number(like) or (isinstance(like, types.Array) and like.ndim == 0):
        if g.ndim == 1:
            return lambda g, like: g
        return made(
            "def impl(g, like):\n"
            "    out = np.empty(g.shape[0], g.dtype)\n"
            "    for i in range(g.shape[0]):\n"
            "        out[i] = np.sum(g[i])\n"
            "    return out\n"
        )
    if not isinstance(like, types.Array) or g.ndim - 1 < like.ndim:
        return None
    same = "    if g.shape[1:] == like.shape:\n        return np.ascontiguousarray(g)\n"
    same = same if g.ndim - 1 == like.ndim else ""  # (rows of like's shape already: the common case)
    return made(
        "def impl(g, like):\n" + same + "    out = np.empty((g.shape[0],) + like.shape, g.dtype)\n"
        "    for i in range(g.shape[0]):\n"
        "        out[i] = unbroadcast(g[i], like)\n"
        "    return out\n",
        unbroadcast=unbroadcast,
    )


@overload(sum_rows)
def _sum_rows(xs, size):
    """``sum(items)`` of a list of rows of one shape (each an array with the batch axis first)."""
    if not (isinstance(xs, (types.List, types.UniTuple)) and isinstance(xs.dtype, types.Array)):
        return None

    def impl(xs, size):
        if len(xs) == 0:
            raise ValueError("sum of an empty list of rows")
        total = xs[0].copy()
        for k in range(1, len(xs)):
            total = total + xs[k]
        return total

    return impl


@overload(list_repeat_rows, prefer_literal=True)
def _list_repeat_rows(g, xs, xs_rows):
    """`g` once per item of `xs`, each row summed back to a row of the item's shape."""
    if not (isinstance(xs, (types.List, types.UniTuple)) and isinstance(g, types.Array)) or not isinstance(
        xs_rows, types.BooleanLiteral
    ):
        return None
    item = "xs[k][0]" if xs_rows.literal_value else "xs[k]"
    return made(
        f"def impl(g, xs, xs_rows):\n    return [unbroadcast_rows(g, {item}) for k in range(len(xs))]\n",
        unbroadcast_rows=unbroadcast_rows,
    )


@overload(full_rows)
def _full_rows(shape, fill):
    """An array of `shape` per row filled with that row's `fill` (the adjoint of a sum, as rows)."""
    if isinstance(shape, types.Integer):
        count, spelled = 1, "(shape,)"
    elif isinstance(shape, types.UniTuple) and isinstance(shape.dtype, types.Integer) or \
            isinstance(shape, types.Tuple) and len(shape) == 0:
        count, spelled = len(shape), "shape"
    else:
        return None
    if not isinstance(fill, types.Array) or fill.ndim == 0 or fill.ndim - 1 > count:
        return None
    ones = "(1,) * 0" if fill.ndim - 1 == count else "(" + "1, " * (count - fill.ndim + 1) + ")"
    dtype = "fill.dtype" if isinstance(fill.dtype, types.Float) else "np.float64"
    return made(
        "def impl(shape, fill):\n"
        f"    g = np.ascontiguousarray(fill).reshape(fill.shape[:1] + {ones} + fill.shape[1:])\n"
        f"    out = np.empty(fill.shape[:1] + {spelled}, {dtype})\n"
        "    out[...] = g\n"
        "    return out\n"
    )


@overload(sum_last, prefer_literal=True)
def _sum_last(x, keepdims=False):
    """``np.sum(x, axis=-1, keepdims=keepdims)`` (a softmax's normaliser, batched): keepdims a
    constant, as the generated code writes it."""
    keep = keepdims.literal_value if isinstance(keepdims, types.BooleanLiteral) else \
        keepdims.value if isinstance(keepdims, types.Omitted) else keepdims if isinstance(keepdims, bool) else None
    if not isinstance(x, types.Array) or x.ndim == 0 or keep is None:
        return None
    if x.ndim == 1:
        body = "    return np.array([np.sum(x)])\n" if keep else "    return np.sum(x)\n"
    else:
        shape = "x.shape[:-1] + (1,)" if keep else "x.shape[:-1]"
        body = ("    out = np.zeros(x.shape[:-1], x.dtype)\n    for k in range(x.shape[-1]):\n"
                f"        out += x[..., k]\n    return out.reshape({shape})\n")
    return made("def impl(x, keepdims=False):\n" + body)


def _flag(value):
    """The constant of a literal boolean argument (the generated code writes one), else None."""
    return value.literal_value if isinstance(value, types.BooleanLiteral) else None


def _dtype_of(t):
    return t.dtype if isinstance(t, types.Array) else t


def _added_rows(base, value, value_rows, head: str, rows_of: str = "base"):
    """The code of `head` (a def line) giving each row of `rows_of` (the rows `base`'s type gives) with
    its value added at ``[*index]``: numba's ``index_add`` of each row (a value with rows gives each
    row its own, broadcast as the plain version aligns it, after the batch axis); None: not written."""
    rows = _flag(value_rows)
    if not isinstance(base, types.Array) or base.ndim == 0 or rows is None \
            or not (_number(value) or isinstance(value, types.Array) and (value.ndim > 0 or not rows)):
        return None
    dtype = np.result_type(as_dtype(_dtype_of(base)), as_dtype(_dtype_of(value)), 0.0)
    row = "value[i]" if rows else "value"
    return made(
        head + f"    out = np.empty({rows_of}.shape, DTYPE)\n"
        f"    for i in range({rows_of}.shape[0]):\n"
        f"        out[i] = index_add({rows_of}[i], index, {row})\n"
        "    return out\n",
        index_add=index_add, DTYPE=dtype, zero_rows=zero_rows,
    )


@overload(index_add_rows, prefer_literal=True)
def _index_add_rows(base, index, value, value_rows):
    """A copy of `base`'s rows with the value added at ``[*index]`` of each."""
    return _added_rows(base, value, value_rows, "def impl(base, index, value, value_rows):\n")


@overload(scatter_add_rows, prefer_literal=True)
def _scatter_add_rows(out, index, value, value_rows):
    """`index_add_rows` (the Python version writes into `out`, which nothing else reads: a copy is the same)."""
    return _added_rows(out, value, value_rows, "def impl(out, index, value, value_rows):\n    base = out\n")


@overload(zero_rows_with, prefer_literal=True)
def _zero_rows_with(like, size, index, value, value_rows):
    """`index_add_rows` of `size` rows of zeros shaped like `like`."""
    if not (_number(like) or isinstance(like, types.Array)):
        return None
    rows = types.Array(types.float64, (like.ndim if isinstance(like, types.Array) else 0) + 1, "C")
    return _added_rows(rows, value, value_rows, "def impl(like, size, index, value, value_rows):\n"
                       "    base = zero_rows(like, size)\n")


@overload(rows_index)
def _rows_index(index):
    """Each row's index, the batch axis first: a tuple of numbers and slices, with at most one integer
    array (numba reads one array of an index; NumPy moves nothing then)."""
    parts = index.types if isinstance(index, types.BaseTuple) else ()
    arrays = [p for p in parts if isinstance(p, types.Array)]
    if not parts or len(arrays) > 1 or any(not isinstance(p, (types.Integer, types.SliceType)) and not (
            isinstance(p, types.Array) and p.ndim == 1 and isinstance(p.dtype, types.Integer)) for p in parts):
        return None
    return lambda index: (slice(None),) + index


@overload(set_item_rows, prefer_literal=True)
def _set_item_rows(x, index, value, x_rows, value_rows, size):
    """Each row's copy of `x` (the same `x` for every row when it has none) written at ``[*index]``:
    numba's ``set_item`` of each row, its refusals (a float written into integers) with it."""
    x_rows, rows = _flag(x_rows), _flag(value_rows)
    if not isinstance(x, types.Array) or x_rows is None or rows is None or x_rows and x.ndim == 0 \
            or not (_number(value) or isinstance(value, types.Array) and (value.ndim > 0 or not rows)):
        return None
    row, shape = ("x[i]", "x.shape[1:]") if x_rows else ("x", "x.shape")
    given = "value[i]" if rows else "value"
    return made(
        "def impl(x, index, value, x_rows, value_rows, size):\n"
        f"    out = np.empty((size,) + {shape}, x.dtype)\n"
        "    for i in range(size):\n"
        f"        out[i] = set_item({row}, index, {given})\n"
        "    return out\n",
        set_item=set_item,
    )


HELPERS = ("broadcast_rows", "copy_rows", "zero_rows", "unbroadcast_rows", "sum_rows", "list_repeat_rows", "sum_last",
           "full_rows", "index_add_rows", "scatter_add_rows", "zero_rows_with", "set_item_rows",
           "rows_index")

__all__ = ["HELPERS"]
