"""numba versions of srcdiff's run-time helpers (rules/runtime.py), and of NumPy reductions
numba lacks (along axes, with ``keepdims``: reductions.py).

Each helper is an `overload`: numba picks its code from the types of the arguments, so a
helper written in Python for "any shape" (``unbroadcast(g, x)``) becomes, for two floats,
``g`` itself.  A helper whose Python version raises `SrcDiffError` raises a plain error
here; the compiled gradient's caller then runs the Python gradient, which raises it with
its words and the user's line (backend/jit.py).

Imported only when ``jit="numba"`` is used: importing it imports numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ...rules import runtime as python
from .naming import made, overload
from .reductions import axes


def _stub(name: str):
    """A Python function numba overloads: called outside numba, it is the Python helper."""
    def stub(*args):
        return getattr(python, name)(*args)
    stub.__name__ = stub.__qualname__ = name
    return stub


unbroadcast = _stub("unbroadcast")
zeros_like = _stub("zeros_like")
ensure_scalar = _stub("ensure_scalar")
computed_for_errors = _stub("computed_for_errors")
copy_array = _stub("copy_array")
select = _stub("select")
select_whole = _stub("select_whole")
set_item = _stub("set_item")
zero_item = _stub("zero_item")
refused = _stub("refused")
real_part = _stub("real_part")


def _is_array(t) -> bool:
    return isinstance(t, types.Array)


def _is_number(t) -> bool:
    return isinstance(t, (types.Number, types.Boolean))


@overload(unbroadcast)
def _unbroadcast(g, x):
    if isinstance(x, types.Optional):
        x = x.type
    if _is_number(x) or (_is_array(x) and x.ndim == 0):
        if _is_number(g):
            return lambda g, x: g
        return lambda g, x: np.sum(g)
    if not (_is_array(x) and _is_array(g)) or g.ndim < x.ndim:
        return None
    if g.ndim == x.ndim:
        def same_ndim(g, x):
            if g.shape == x.shape:
                return g
            return _sum_to(g, x)
        return same_ndim
    return lambda g, x: _sum_to(g, x)


@njit(cache=True)
def _sum_to(g, x):
    """`g` summed over its leading axes and over the axes where `x` has length one."""
    flat = np.ascontiguousarray(g).ravel()
    out = np.zeros(x.size, flat.dtype)
    lead = g.ndim - x.ndim
    for i in range(flat.size):
        rest, j, stride = i, 0, 1
        for d in range(g.ndim - 1, -1, -1):
            index = rest % g.shape[d]
            rest //= g.shape[d]
            if d >= lead:
                n = x.shape[d - lead]
                if n != 1:
                    j += index * stride
                stride *= n
        out[j] += flat[i]
    return out.reshape(x.shape)


@overload(zeros_like)
def _zeros_like(x):
    if isinstance(x, types.Optional) and _is_array(x.type):  # a name preset to None before a loop: its value's
        return made("def impl(x):\n    if x is None:\n"  # zeros; None's only added (as 0.0 is): ones' shape
                    f"        return np.zeros(({'1, ' * x.type.ndim}))\n    return np.zeros(x.shape)\n")
    x = x.type if isinstance(x, types.Optional) else x
    if _is_number(x) or isinstance(x, (types.NoneType, types.UnicodeType, types.StringLiteral, types.UnicodeCharSeq)):
        return lambda x: 0.0  # (None, a string leaf of a tree: as rules/runtime.py's, 0.0)
    if _is_array(x):
        return lambda x: np.zeros(x.shape)
    if isinstance(x, types.UniTuple) and _is_number(x.dtype):
        return lambda x: np.zeros(len(x))
    if isinstance(x, types.UniTuple) and _is_array(x.dtype):
        return lambda x: [np.zeros(item.shape) for item in x]
    if isinstance(x, types.List):
        return lambda x: zeros_list(x)
    if isinstance(x, types.BaseTuple) and len(x) > 0:  # items of two kinds: a tuple of their zeros
        return _zeros_of_items(len(x), "x")             # (written through tuple_parts.py's set_part)
    return None


def _zeros_of_items(n: int, name: str):
    parts = "".join(f"zeros_like({name}[{i}]), " for i in range(n))
    return made(f"def impl({name}):\n    return ({parts})\n", zeros_like=zeros_like)


def zeros_list(items):
    return python.zeros_like(list(items))


@overload(zeros_list)
def _zeros_list(items):
    """A list's adjoint: a list of zeros, each shaped like its item (``[0.0] * len(items)``)."""
    if isinstance(items, (types.List, types.UniTuple)) and _is_array(items.dtype):  # (a tuple: *args, slogdet)
        return lambda items: [np.zeros(item.shape) for item in items]
    if isinstance(items, (types.List, types.UniTuple)) and _is_number(items.dtype):
        return lambda items: [0.0 for _ in range(len(items))]
    if isinstance(items, types.BaseTuple) and not isinstance(items, types.UniTuple) and len(items) > 0:
        return _zeros_of_items(len(items), "items")  # (zeros of each item's kind: the same values as 0.0 each)
    return None


def array_of(items, copy):
    return np.array(items) if copy else np.asarray(items)


@overload(array_of, prefer_literal=True)
def _array_of(items, copy):
    """``np.array(items)`` (`copy`) or ``np.asarray(items)``: numba's, except for a list of
    arrays, stacked."""
    if isinstance(items, types.List) and _is_array(items.dtype):
        return lambda items, copy: stack_rows(items)
    if _is_array(items) and getattr(copy, "literal_value", True):
        return lambda items, copy: items.copy()
    return lambda items, copy: np.asarray(items)


@overload(computed_for_errors)
def _computed_for_errors(value):
    return lambda value: None


@overload(ensure_scalar)
def _ensure_scalar(value, where):
    if _is_array(value) and value.ndim > 0:
        def refuse(value, where):
            raise ValueError("the function returns an array, but a gradient needs a scalar output")
        return refuse
    return lambda value, where: value


@overload(real_part)
def _real_part(a, x):
    if isinstance(getattr(x, "dtype", x), types.Complex):  # refused: the Python gradient says why
        def refuse(a, x):
            raise ValueError("np.real, np.imag or np.angle of a complex value")
        return refuse
    return lambda a, x: a


@overload(copy_array)
def _copy_array(x):
    if _is_array(x):
        return lambda x: x.copy()
    return lambda x: x


@overload(select_whole)
def _select_whole(condition, value):
    if _is_array(condition) and condition.ndim > 0:
        return lambda condition, value: value
    if _is_array(value):
        def whole(condition, value):
            if condition:
                return value
            return np.zeros_like(value)
        return whole
    return lambda condition, value: value if condition else 0.0


@overload(select)
def _select(condition, value):
    if not (_is_array(condition) and condition.ndim > 0):
        return lambda condition, value: select_whole(condition, value)
    if _is_array(value) and value.ndim == condition.ndim:
        def masked(condition, value):
            if condition.shape != value.shape:
                return np.ascontiguousarray(value)
            return np.where(condition, value, 0.0)
        return masked
    return lambda condition, value: value


@overload(set_item)
def _set_item(x, index, v):
    if not _is_array(x):
        return None
    if _is_array(index) and isinstance(index.dtype, types.Boolean) and index.ndim > 1:
        return None  # a mask of several axes: masks.py's
    parts = index.types if isinstance(index, types.BaseTuple) else (index,)
    if any(_is_array(p) and isinstance(p.dtype, types.Integer) for p in parts):
        return None  # refused in Python: a write through an integer index array
    if isinstance(x.dtype, (types.Integer, types.Boolean)) and (
            isinstance(v, types.Float) or _is_array(v) and isinstance(v.dtype, types.Float)):
        return None  # refused in Python: truncation
    def write(x, index, v):
        y = x.copy()
        y[index] = v
        return y
    return write


@overload(zero_item)
def _zero_item(g, index):
    if not _is_array(g) or _is_array(index) and isinstance(index.dtype, types.Boolean) and index.ndim > 1:
        return None  # (a mask of several axes: masks.py's)
    def zero(g, index):
        out = g.astype(np.float64)
        out[index] = 0.0
        return out
    return zero


@overload(refused)
def _refused(reason, filename, line, code, hint=""):
    def raise_it(reason, filename, line, code, hint=""):
        raise ValueError("srcdiff refused this branch side")
    return raise_it


@njit(cache=True)
def stack_rows(rows):
    """The arrays `rows` stacked along a new first axis (``np.array(rows)``)."""
    first = rows[0]
    out = np.empty((len(rows),) + first.shape, first.dtype)
    for i in range(len(rows)):
        out[i] = rows[i]
    return out


def full(shape, value):
    return np.full(shape, value)


@overload(full)
def _full(shape, value):
    if _is_array(value):
        return lambda shape, value: np.zeros(shape) + value
    return lambda shape, value: np.full(shape, value)


def stack_list(items, axis):
    return np.stack(items, axis)


@overload(stack_list, prefer_literal=True)
def _stack_list(items, axis):
    """``np.stack`` of a list (numba stacks tuples): the rows stacked, the new axis moved."""
    if not isinstance(items, types.List) or not _is_array(items.dtype):
        return lambda items, axis: np.stack(items, axis)
    ndim = items.dtype.ndim + 1
    (new,) = axes(axis, ndim)
    if new == 0:
        return lambda items, axis: stack_rows(items)
    perm = tuple(range(1, new + 1)) + (0,) + tuple(range(new + 1, ndim))
    return lambda items, axis: np.ascontiguousarray(stack_rows(items).transpose(perm))


def concat_list(items, axis):
    return np.concatenate(items, axis)


@overload(concat_list, prefer_literal=True)
def _concat_list(items, axis):
    """``np.concatenate`` of a list (numba concatenates tuples), along a constant axis."""
    if not isinstance(items, types.List) or not _is_array(items.dtype):
        return lambda items, axis: np.concatenate(items, axis)
    ndim = items.dtype.ndim
    (along,) = axes(axis, ndim)
    perm = (along,) + tuple(d for d in range(ndim) if d != along)
    back = tuple(perm.index(d) for d in range(ndim))

    def concat(items, axis):
        total = 0
        for item in items:
            total += item.shape[along]
        first = np.ascontiguousarray(items[0].transpose(perm))
        out = np.empty((total,) + first.shape[1:], first.dtype)
        start = 0
        for item in items:
            n = item.shape[along]
            out[start:start + n] = item.transpose(perm)
            start += n
        return np.ascontiguousarray(out.transpose(back))
    return concat


matmul_adjoint_x = _stub("matmul_adjoint_x")
matmul_adjoint_y = _stub("matmul_adjoint_y")
dot_adjoint_x = _stub("dot_adjoint_x")
dot_adjoint_y = _stub("dot_adjoint_y")


def _two_d(g, x, y) -> bool:
    """1-D and 2-D operands of one dtype (a float32 matrix and a float64 adjoint: missing.py's casts)."""
    return all(_is_array(a) and 1 <= a.ndim <= 2 for a in (x, y)) \
        and len({getattr(a, "dtype", a) for a in (g, x, y)}) == 1


@overload(matmul_adjoint_x)
def _matmul_adjoint_x(g, x, y):
    """``x @ y``'s adjoint for `x`, for the ndims at hand (1-D and 2-D operands, or stacks)."""
    if not _two_d(g, x, y):
        return None  # stacks of matrices, or two dtypes: missing.py's overload
    if y.ndim == 1:
        if x.ndim == 2:
            return lambda g, x, y: np.outer(g, y)
        return lambda g, x, y: g * y
    if x.ndim == 1:
        return lambda g, x, y: np.ascontiguousarray(y) @ np.ascontiguousarray(g)
    return lambda g, x, y: np.ascontiguousarray(g) @ np.ascontiguousarray(y.T)


@overload(matmul_adjoint_y)
def _matmul_adjoint_y(g, x, y):
    if not _two_d(g, x, y):
        return None
    if x.ndim == 1:
        if y.ndim == 2:
            return lambda g, x, y: np.outer(x, g)
        return lambda g, x, y: g * x
    return lambda g, x, y: np.ascontiguousarray(x.T) @ np.ascontiguousarray(g)


@overload(dot_adjoint_x)
def _dot_adjoint_x(g, x, y):
    if _is_number(x):
        return lambda g, x, y: np.sum(g * y)
    if _is_number(y):
        return lambda g, x, y: g * y
    return lambda g, x, y: matmul_adjoint_x(g, x, y)


@overload(dot_adjoint_y)
def _dot_adjoint_y(g, x, y):
    if _is_number(y):
        return lambda g, x, y: np.sum(g * x)
    if _is_number(x):
        return lambda g, x, y: g * x
    return lambda g, x, y: matmul_adjoint_y(g, x, y)


def add_at(a, index, v):
    np.add.at(a, index, v)


@overload(add_at)
def _add_at(a, index, v):
    """``np.add.at(a, index, v)`` for one integer index (array): each value added in turn."""
    if _is_array(a) and isinstance(index, types.Integer):
        def add_one(a, index, v):
            a[index] += v
        return add_one
    if not (_is_array(a) and _is_array(index) and index.ndim == 1 and isinstance(index.dtype, types.Integer)):
        return None
    if _is_array(v):
        def add_rows(a, index, v):
            for k in range(index.shape[0]):
                a[index[k]] += v[k]
        return add_rows

    def add_value(a, index, v):
        for k in range(index.shape[0]):
            a[index[k]] += v
    return add_value


@njit(cache=True)
def stop_gradient(x):
    """The identity (srcdiff.stop_gradient): its zero derivative is the rule's, not the code's."""
    return x


#: the helpers generated code may call under numba, by name (reductions.py and missing.py hold more)
HELPERS = ("stop_gradient", "unbroadcast", "zeros_like", "ensure_scalar", "computed_for_errors", "copy_array",
           "select", "select_whole", "set_item", "zero_item", "refused", "stack_rows", "full", "stack_list",
           "concat_list", "zeros_list", "array_of", "matmul_adjoint_x", "matmul_adjoint_y", "dot_adjoint_x",
           "dot_adjoint_y", "add_at", "real_part")

__all__ = [*HELPERS]
