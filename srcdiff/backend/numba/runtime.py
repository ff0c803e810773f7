"""numba versions of srcdiff's run-time helpers (rules/runtime.py), and of NumPy reductions
numba lacks (along axes, with ``keepdims``).

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
from numba.core.errors import TypingError
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from ...rules import runtime as python


def _stub(name: str):
    """A Python function numba overloads: called outside numba, it is the Python helper."""
    def stub(*args):
        return getattr(python, name)(*args)
    stub.__name__ = stub.__qualname__ = name
    return stub


unbroadcast = _stub("unbroadcast")
zeros_like = _stub("zeros_like")
ensure_scalar = _stub("ensure_scalar")
copy_array = _stub("copy_array")
select = _stub("select")
select_whole = _stub("select_whole")
set_item = _stub("set_item")
zero_item = _stub("zero_item")
refused = _stub("refused")


def _is_array(t) -> bool:
    return isinstance(t, types.Array)


def _is_number(t) -> bool:
    return isinstance(t, (types.Number, types.Boolean))


@overload(unbroadcast)
def _unbroadcast(g, x):
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
    if _is_array(x):
        return lambda x: np.zeros(x.shape)
    if _is_number(x):
        return lambda x: 0.0
    if isinstance(x, types.UniTuple) and _is_number(x.dtype):
        return lambda x: np.zeros(len(x))
    if isinstance(x, types.UniTuple) and _is_array(x.dtype):
        return lambda x: [np.zeros(item.shape) for item in x]
    if isinstance(x, types.List) and _is_number(x.dtype):
        return lambda x: np.zeros(len(x))
    return None


@overload(ensure_scalar)
def _ensure_scalar(value, where):
    if _is_array(value) and value.ndim > 0:
        def refuse(value, where):
            raise ValueError("the function returns an array, but a gradient needs a scalar output")
        return refuse
    return lambda value, where: value


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
    if not _is_array(g):
        return None
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
    (new,) = _axes(axis, ndim)
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
    (along,) = _axes(axis, ndim)
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


# ---- reductions along axes ----------------------------------------------------------


def reduce_sum(a, axis, keepdims):
    return np.sum(a, axis=axis, keepdims=keepdims)


def reduce_mean(a, axis, keepdims):
    return np.mean(a, axis=axis, keepdims=keepdims)


def reduce_max(a, axis, keepdims):
    return np.max(a, axis=axis, keepdims=keepdims)


def reduce_min(a, axis, keepdims):
    return np.min(a, axis=axis, keepdims=keepdims)


def reduce_prod(a, axis, keepdims):
    return np.prod(a, axis=axis, keepdims=keepdims)


def reduce_any(a, axis, keepdims):
    return np.any(a, axis=axis, keepdims=keepdims)


def reduce_all(a, axis, keepdims):
    return np.all(a, axis=axis, keepdims=keepdims)


def _axes(axis, ndim: int):
    """The reduced axes, from numba's type of a literal `axis` (None for all)."""
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        return tuple(range(ndim))
    items = axis.types if isinstance(axis, types.BaseTuple) else (axis,)
    if not all(isinstance(t, types.IntegerLiteral) for t in items):
        raise TypingError("srcdiff's numba reductions take the axis as a constant")
    found = []
    for t in items:
        value = t.literal_value
        if not -ndim <= value < ndim:
            raise TypingError(f"axis {value} is out of bounds for an array of dimension {ndim}")
        found.append(value % ndim)
    return tuple(sorted(set(found)))


def _result_dtype(kind: str, dtype):
    if kind in ("any", "all"):
        return np.bool_
    np_dtype = as_dtype(dtype)
    if kind in ("sum", "prod") and np_dtype.kind in "biu":
        return np.int64
    if kind == "mean" and np_dtype.kind in "biu":
        return np.float64
    return np_dtype.type


def _reduction(kind: str):
    op = {"sum": "np.sum", "mean": "np.mean", "max": "np.max", "min": "np.min", "prod": "np.prod",
          "any": "np.any", "all": "np.all"}[kind]

    def typer(a, axis, keepdims):
        if not _is_array(a):
            return None
        keep = getattr(keepdims, "literal_value", False if isinstance(keepdims, (types.NoneType, types.Omitted))
                       else None)
        if keep is None:
            raise TypingError("srcdiff's numba reductions take keepdims as a constant")
        axes = _axes(axis, a.ndim)
        kept = [d for d in range(a.ndim) if d not in axes]
        perm = tuple(kept + list(axes))
        outer = " * ".join(f"a.shape[{d}]" for d in kept) or "1"
        inner = " * ".join(f"a.shape[{d}]" for d in axes) or "1"
        if keep:
            shape = ", ".join("1" if d in axes else f"a.shape[{d}]" for d in range(a.ndim))
        else:
            shape = ", ".join(f"a.shape[{d}]" for d in kept)
        moved = "a" if perm == tuple(range(a.ndim)) else f"a.transpose({perm})"
        result = f"out.reshape(({shape},))" if shape else "out[0]"
        text = (f"def impl(a, axis, keepdims):\n"
                f"    m = np.ascontiguousarray({moved}).reshape(({outer}, {inner}))\n"
                f"    out = np.empty({outer}, DTYPE)\n"
                f"    for i in range({outer}):\n"
                f"        out[i] = {op}(m[i])\n"
                f"    return {result}\n")
        scope = {"np": np, "DTYPE": _result_dtype(kind, a.dtype)}
        exec(text, scope)  # noqa: S102  text made above from the types alone
        return scope["impl"]
    return typer


for _kind, _stub_function in {"sum": reduce_sum, "mean": reduce_mean, "max": reduce_max, "min": reduce_min,
                              "prod": reduce_prod, "any": reduce_any, "all": reduce_all}.items():
    overload(_stub_function, prefer_literal=True)(_reduction(_kind))

#: the helpers generated code may call under numba, by name
HELPERS = ("unbroadcast", "zeros_like", "ensure_scalar", "copy_array", "select", "select_whole", "set_item",
           "zero_item", "refused", "stack_rows", "full", "stack_list", "concat_list", "reduce_sum",
           "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all")
