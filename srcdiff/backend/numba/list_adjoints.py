"""numba versions of the list helpers of rules/list_helpers.py: ``list_rows(a)`` (``sorted(x)``,
``list(a)``: an array's rows as a list) and its adjoint ``rows_adjoint(g, a)``, and the new
lists a derivable gradient builds (``list_add``, ``lists_add``, ``list_repeat``,
``list_total``, ``list_drop``, ``list_grow``).

numba's lists hold one type: the rows of a vector are numbers, those of a matrix arrays, and
a list's adjoint holds items of its list's kind (runtime.py's ``zeros_list``).  A case these
do not cover (``list_grow`` of a list of arrays: Python appends the number 0.0) is left to
numba, which refuses it at the user's line.
"""

from __future__ import annotations

import numpy as np
from numba import types

from ...rules import list_helpers as python
from .missing import float_array
from .naming import made, overload
from .runtime import unbroadcast


def _listed(t) -> bool:
    return isinstance(t, (types.List, types.UniTuple))


def list_rows(a):
    return python.list_rows(a)


@overload(list_rows)
def _list_rows(a):
    if isinstance(a, types.List):  # a carried list's adjoint that came as a list already (ad/regions.py)
        return lambda a: [a[i] for i in range(len(a))]
    if not isinstance(a, types.Array) or a.ndim == 0:
        return None
    return lambda a: [a[i] for i in range(a.shape[0])]


def rows_adjoint(g, a):
    return python.rows_adjoint(g, a)


@overload(rows_adjoint)
def _rows_adjoint(g, a):
    """The list `g` (numbers for a vector's rows, arrays for a matrix's) as an array shaped like `a`."""
    if not (_listed(g) and isinstance(a, types.Array)):
        return None

    def impl(g, a):
        out = np.zeros(a.shape)
        for i in range(len(g)):
            out[i] = g[i]
        return out
    return impl


def list_repeat(g, xs):
    return python.list_repeat(g, xs)


def of_kinds(items) -> bool:
    """A literal list or a tuple whose items numba types one by one (``[np.sum(v), v]``)."""
    return isinstance(items, (types.LiteralList, types.Tuple)) and len(items.types) > 0


@overload(list_repeat)
def _list_repeat(g, xs):
    if of_kinds(xs):  # `g` for each item, summed back to the item's shape (a number's: the sum of g)
        parts = "".join(f"unbroadcast(g, xs[{k}]), " for k in range(len(xs.types)))
        return made(f"def impl(g, xs):\n    return ({parts})\n", unbroadcast=unbroadcast)
    if isinstance(g, types.Array) and isinstance(getattr(xs, "dtype", None), types.Array):
        def checked(g, xs):  # an item broadcast in the sum would need g summed back: not silently the whole g
            for x in xs:
                if x.shape != g.shape:
                    raise ValueError("sum of a list of arrays of different shapes: not supported with numba")
            return [g.copy() for _ in range(len(xs))]  # (each its own: items are added into in place)
        return checked
    if isinstance(g, types.Array):
        return lambda g, xs: [g.copy() for _ in range(len(xs))]
    return lambda g, xs: [g for _ in range(len(xs))]


def list_total(h, like):
    return python.list_total(h, like)


@overload(list_total)
def _list_total(h, like):
    """The sum of `h`'s items (0.0 for none), shaped like `like`."""
    if not _listed(h):
        return None
    if isinstance(like, types.Array) and like.ndim > 0:
        def impl(h, like):
            total = np.zeros(like.shape)
            for item in h:
                total = total + item
            return total
        return impl
    if isinstance(h.dtype, types.Number):
        def impl(h, like):
            total = 0.0
            for item in h:
                total += item
            return total
        return impl
    return None


def list_add(xs, i, v):
    return python.list_add(xs, i, v)


@overload(list_add, prefer_literal=True)
def _list_add(xs, i, v):
    if isinstance(xs, types.BaseTuple) and not _listed(xs) and isinstance(i, types.IntegerLiteral) \
            and 0 <= i.literal_value < len(xs):  # a list of arrays and numbers kept as a tuple (list_tuples.py)
        parts = "".join("xs[i] + v, " if j == i.literal_value else f"xs[{j}], " for j in range(len(xs)))
        return made(f"def impl(xs, i, v):\n    return ({parts})\n")
    if not _listed(xs):
        return None
    if isinstance(i, types.SliceType):  # each item of `v` to an item of the slice (python.list_add)
        def impl_slice(xs, i, v):
            out = list(xs)
            positions = list(range(len(out)))[i]
            if len(v) != len(positions):
                raise ValueError("the adjoint of a list's slice has another number of items")
            for k in range(len(positions)):
                out[positions[k]] = out[positions[k]] + v[k]
            return out
        return impl_slice

    def impl(xs, i, v):
        out = list(xs)
        out[i] = out[i] + v
        return out
    return impl


def slice_add(base, index, value):
    return python.slice_add(base, index, value)


@overload(slice_add)
def _slice_add(base, index, value):
    if not isinstance(index, types.SliceType):
        return None
    if _listed(base):
        return lambda base, index, value: list_add(base, index, value)
    if not isinstance(base, types.Array):
        return None

    def impl(base, index, value):
        base[index] += value
        return base
    return impl


def lists_add(a, b):
    return python.lists_add(a, b)


@overload(lists_add)
def _lists_add(a, b):
    if not (_listed(a) and _listed(b)):
        return None

    def impl(a, b):
        if len(a) != len(b):
            raise ValueError("two adjoints of one list have different lengths")
        return [a[k] + b[k] for k in range(len(a))]
    return impl


def add_adjoints(a, b):
    return python.add_adjoints(a, b)


@overload(add_adjoints)
def _add_adjoints(a, b):
    """Two contributions to an adjoint srcdiff could not tell a list from an array (list_helpers.add_adjoints)."""
    if _listed(a) and _listed(b):
        return lambda a, b: lists_add(a, b)
    if _listed(a) and isinstance(b, types.Array) and isinstance(a.dtype, types.Number):
        return lambda a, b: _same_shape(float_array(a, False), b) + b
    if _listed(b) and isinstance(a, types.Array) and isinstance(b.dtype, types.Number):
        return lambda a, b: a + _same_shape(float_array(b, False), a)
    if _listed(a) or _listed(b):
        return None  # (a list of arrays and an array: left to numba, which refuses it at the user's line)
    return lambda a, b: a + b


def _same_shape(items, like):
    """`items` (a list's adjoint as an array), checked to have the shape of the array `like` it is added to."""
    if items.shape != like.shape:
        raise ValueError("two adjoints of one list have different shapes")
    return items


@overload(_same_shape)
def _same_shape_impl(items, like):
    def impl(items, like):
        if items.shape != like.shape:
            raise ValueError("two adjoints of one list have different shapes")
        return items
    return impl


def list_drop(xs):
    return python.list_drop(xs)


@overload(list_drop)
def _list_drop(xs):
    if not _listed(xs):
        return None
    return lambda xs: [xs[k] for k in range(len(xs) - 1)]


def list_grow(h):
    return python.list_grow(h)


@overload(list_grow)
def _list_grow(h):
    if not (_listed(h) and isinstance(h.dtype, types.Number)):
        return None
    return lambda h: [h[k] for k in range(len(h))] + [0.0]


HELPERS = ("list_rows", "rows_adjoint", "list_repeat", "list_total", "list_add", "slice_add", "lists_add", "list_drop",
           "list_grow", "add_adjoints")
