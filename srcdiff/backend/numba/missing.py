"""numba versions of NumPy calls and srcdiff helpers numba's NumPy lacks, for generated code
(backend/numba/spelling.py spells the calls as these): ``np.flip``/``np.cumsum``/
``np.expand_dims`` along constant axes, batched ``np.matmul``, ``np.inner``, ``np.linalg.solve``'s
and ``np.prod``'s adjoints, ``np.split``'s adjoint, ``np.array(x, dtype=float)``
(``math.factorial`` and ``math.comb``: integers.py).

Axes are constants in generated code, so the code of each call is written from the types
alone, as in reductions.py.  A case not written here is left to numba (``None``), which then
refuses it at the user's line.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.np.numpy_support import as_dtype

from ...rules import runtime as python
from .naming import made, overload
from .reductions import axes
from .runtime import concat_list, matmul_adjoint_x, matmul_adjoint_y, stack_rows


def _is_array(t) -> bool:
    return isinstance(t, types.Array)


def _is_number(t) -> bool:
    return isinstance(t, (types.Number, types.Boolean))


def flip_axis(a, axis):
    return np.flip(a, axis)


@overload(flip_axis, prefer_literal=True)
def _flip_axis(a, axis):
    if not _is_array(a):
        return None
    index = ", ".join("::-1" if d in axes(axis, a.ndim) else ":" for d in range(a.ndim))
    return made(f"def impl(a, axis):\n    return a[{index}]\n")


def cumsum_axis(a, axis):
    return np.cumsum(a, axis)


@overload(cumsum_axis, prefer_literal=True)
def _cumsum_axis(a, axis):
    """``np.cumsum(a, axis)``: the axis moved last, a running sum per row, moved back."""
    if not _is_array(a) or isinstance(axis, (types.NoneType, types.Omitted)):
        return None
    (along,) = axes(axis, a.ndim)
    perm = tuple(d for d in range(a.ndim) if d != along) + (along,)
    back = tuple(perm.index(d) for d in range(a.ndim))
    dtype = as_dtype(a.dtype) if isinstance(a.dtype, types.Float) else np.int64
    text = ("def impl(a, axis):\n"
            f"    moved = np.ascontiguousarray(a.transpose({perm}))\n"
            "    m = moved.reshape((-1, moved.shape[-1]))\n"
            "    out = np.empty(m.shape, DTYPE)\n"
            "    for i in range(m.shape[0]):\n"
            "        out[i] = np.cumsum(m[i])\n"
            f"    return np.ascontiguousarray(out.reshape(moved.shape).transpose({back}))\n")
    return made(text, DTYPE=dtype)


def expand_axes(a, axis):
    return np.expand_dims(a, axis)


@overload(expand_axes, prefer_literal=True)
def _expand_axes(a, axis):
    """``np.expand_dims(a, axis)`` for a tuple of constant axes (numba takes one), or of a
    number (a 0-d value, such as a mean along the only axis: numba takes arrays only)."""
    ndim = getattr(a, "ndim", 0) + (len(axis.types) if isinstance(axis, types.BaseTuple) else 1)
    new = axes(axis, ndim)
    if _is_number(a):
        return made(f"def impl(a, axis):\n    return np.full(({'1, ' * ndim}), a)\n")
    if not _is_array(a):
        return None
    if not isinstance(axis, types.BaseTuple):
        return lambda a, axis: np.expand_dims(a, axis)
    sizes, k = [], 0
    for d in range(ndim):
        if d in new:
            sizes.append("1")
        else:
            sizes.append(f"a.shape[{k}]")
            k += 1
    return made(f"def impl(a, axis):\n    return np.ascontiguousarray(a).reshape(({', '.join(sizes)},))\n")


def matmul_stacks(a, b):
    return np.matmul(a, b)


@overload(matmul_stacks)
def _matmul(a, b):
    """``np.matmul``: numba's ``@`` for 1-D and 2-D operands; a stack of matrices (3-D, the
    other 2-D or 3-D) one product per matrix."""
    if not (_is_array(a) and _is_array(b)):
        return None
    dtype = np.promote_types(as_dtype(a.dtype), as_dtype(b.dtype))
    # numba's @ takes one dtype: a float32 operand and a float64 adjoint meet in float64, as in NumPy
    cast_a = "" if as_dtype(a.dtype) == dtype else ".astype(DTYPE)"
    cast_b = "" if as_dtype(b.dtype) == dtype else ".astype(DTYPE)"
    if a.ndim <= 2 and b.ndim <= 2:
        if not (cast_a or cast_b) and a.layout in "CF" and b.layout in "CF":  # BLAS reads either order: no copy
            return lambda a, b: a @ b
        return made(f"def impl(a, b):\n    return np.ascontiguousarray(a{cast_a}) @ np.ascontiguousarray(b{cast_b})\n",
                     DTYPE=dtype)
    if a.ndim > 3 or b.ndim > 3 or min(a.ndim, b.ndim) < 2:
        return None
    first = ("a[i % a.shape[0]]" if a.ndim == 3 else "a") + cast_a
    second = ("b[i % b.shape[0]]" if b.ndim == 3 else "b") + cast_b
    count = "max(a.shape[0], b.shape[0])" if a.ndim == b.ndim == 3 else "a.shape[0]" if a.ndim == 3 else "b.shape[0]"
    text = ("def impl(a, b):\n"
            f"    n = {count}\n"
            f"    if {a.ndim == b.ndim == 3} and a.shape[0] != b.shape[0] and min(a.shape[0], b.shape[0]) != 1:\n"
            "        raise ValueError('matmul: stacks of matrices that do not broadcast')\n"
            "    out = np.empty((n, a.shape[-2], b.shape[-1]), DTYPE)\n"
            "    for i in range(n):\n"
            f"        out[i] = np.ascontiguousarray({first}) @ np.ascontiguousarray({second})\n"
            "    return out\n")
    return made(text, DTYPE=dtype)


def swap_last(a):
    return np.swapaxes(a, -1, -2)


@overload(swap_last)
def _swap_last(a):
    if not _is_array(a) or a.ndim < 2:
        return None
    perm = tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)
    return made(f"def impl(a):\n    return np.ascontiguousarray(a.transpose({perm}))\n")


@njit(cache=True)
def summed_to(r, x):
    """A stack `r` of adjoints summed over the stack where `x` is a stack of one (broadcast)."""
    if r.shape[0] == x.shape[0]:
        return r
    return np.sum(r, axis=0).reshape(x.shape)


def _mixed(g, x, y) -> bool:
    """1-D or 2-D operands of two dtypes (a float32 matrix, a float64 adjoint): runtime.py's
    overloads take one, these compute in the wider, as NumPy does."""
    return _is_array(x) and _is_array(y) and max(x.ndim, y.ndim) <= 2 \
        and len({getattr(a, "dtype", a) for a in (g, x, y)}) > 1


@overload(matmul_adjoint_x)
def _batched_adjoint_x(g, x, y):
    """runtime.py's ``matmul_adjoint_x`` for stacks of matrices (``g @ yᵀ``, summed over the
    stack when `x` is one matrix), and for operands of two dtypes."""
    if _mixed(g, x, y):
        if y.ndim == 1:
            return (lambda g, x, y: np.outer(g.astype(np.float64), y.astype(np.float64))) if x.ndim == 2 \
                else (lambda g, x, y: g * y)
        return (lambda g, x, y: matmul_stacks(y, g)) if x.ndim == 1 else \
            (lambda g, x, y: matmul_stacks(g, np.ascontiguousarray(y.T)))
    if not (_is_array(x) and _is_array(y) and _is_array(g)) or min(x.ndim, y.ndim) < 2:
        return None
    if x.ndim == 3:
        return lambda g, x, y: summed_to(matmul_stacks(g, swap_last(y)), x)
    return lambda g, x, y: np.sum(matmul_stacks(g, swap_last(y)), axis=0)


@overload(matmul_adjoint_y)
def _batched_adjoint_y(g, x, y):
    """runtime.py's ``matmul_adjoint_y`` for stacks of matrices, and for operands of two dtypes."""
    if _mixed(g, x, y):
        if x.ndim == 1:
            return (lambda g, x, y: np.outer(x.astype(np.float64), g.astype(np.float64))) if y.ndim == 2 \
                else (lambda g, x, y: g * x)
        return lambda g, x, y: matmul_stacks(np.ascontiguousarray(x.T), g)
    if not (_is_array(x) and _is_array(y) and _is_array(g)) or min(x.ndim, y.ndim) < 2:
        return None
    if y.ndim == 3:
        return lambda g, x, y: summed_to(matmul_stacks(swap_last(x), g), y)
    return lambda g, x, y: np.sum(matmul_stacks(swap_last(x), g), axis=0)


def inner_product(a, b):
    return np.inner(a, b)


@overload(inner_product)
def _inner(a, b):
    """``np.inner`` of a number and anything (a product) or of two 1-D arrays (a dot)."""
    if _is_number(a) or _is_number(b):
        return lambda a, b: a * b
    if _is_array(a) and _is_array(b) and a.ndim == 1 and b.ndim == 1:
        return lambda a, b: np.dot(np.ascontiguousarray(a), np.ascontiguousarray(b))
    if _is_array(a) and _is_array(b) and b.ndim == 1:
        return lambda a, b: np.ascontiguousarray(a) @ np.ascontiguousarray(b)
    return None


def solve_adjoint_y(g, x, y):
    return python.solve_adjoint_y(g, x, y)


def solve_adjoint_x(g, x, y, ans):
    return python.solve_adjoint_x(g, x, y, ans)


def _two_d_solve(x, y) -> bool:
    return _is_array(x) and x.ndim == 2 and _is_array(y) and y.ndim in (1, 2)


@overload(solve_adjoint_y)
def _solve_adjoint_y(g, x, y):
    if not _two_d_solve(x, y):
        return None
    if _is_array(g) and g.dtype != x.dtype:  # a float32 matrix, a float64 adjoint: solved in float64, as NumPy does
        common = np.result_type(as_dtype(g.dtype), as_dtype(x.dtype))
        return lambda g, x, y: np.linalg.solve(np.ascontiguousarray(x.T).astype(common),
                                               np.ascontiguousarray(g).astype(common))
    return lambda g, x, y: np.linalg.solve(np.ascontiguousarray(x.T), np.ascontiguousarray(g))


@overload(solve_adjoint_x)
def _solve_adjoint_x(g, x, y, ans):
    if not _two_d_solve(x, y):
        return None
    if y.ndim == 1:
        return lambda g, x, y, ans: -np.outer(solve_adjoint_y(g, x, y), ans)
    return lambda g, x, y, ans: -(solve_adjoint_y(g, x, y) @ np.ascontiguousarray(ans.T))


def prod_adjoint(g, x, axis, keepdims):
    return python.prod_adjoint(g, x, axis, keepdims)


@overload(prod_adjoint, prefer_literal=True)
def _prod_adjoint(g, x, axis, keepdims):
    """Each element gets `g` times the product of the others in its product (exclusive
    products from both ends: exact where there are zeros), per row of the (kept, reduced)
    view, as reductions.py views it."""
    if not _is_array(x):
        return None
    keep = getattr(keepdims, "literal_value", None)
    if keep is None and not isinstance(keepdims, types.Boolean):
        return None
    reduced = axes(axis, x.ndim)
    kept = [d for d in range(x.ndim) if d not in reduced]
    perm = tuple(kept + list(reduced))
    back = tuple(perm.index(d) for d in range(x.ndim))
    outer = " * ".join(f"x.shape[{d}]" for d in kept) or "1"
    spread = "np.full(outer, g)" if _is_number(g) else "np.ascontiguousarray(g).reshape(outer)"
    text = ("def impl(g, x, axis, keepdims):\n"
            f"    moved = np.ascontiguousarray(x.transpose({perm})).astype(np.float64)\n"
            f"    outer = {outer}\n"
            "    m = moved.reshape((outer, -1))\n"
            f"    rows = {spread}\n"
            "    out = np.empty(m.shape)\n"
            "    for i in range(outer):\n"
            "        before = 1.0\n"
            "        for j in range(m.shape[1]):\n"
            "            out[i, j] = before\n"
            "            before *= m[i, j]\n"
            "        after = 1.0\n"
            "        for j in range(m.shape[1] - 1, -1, -1):\n"
            "            out[i, j] *= after * rows[i]\n"
            "            after *= m[i, j]\n"
            f"    return np.ascontiguousarray(out.reshape(moved.shape).transpose({back}))\n")
    return made(text)


def split_adjoint(g, pieces, axis):
    return python.split_adjoint(g, pieces, axis)


@overload(split_adjoint, prefer_literal=True)
def _split_adjoint(g, pieces, axis):
    """The pieces' adjoints (a list, each shaped like its piece) put back together."""
    if not (isinstance(g, types.List) and isinstance(pieces, types.List) and _is_array(pieces.dtype)):
        return None

    def join(g, pieces, axis):
        parts = [np.zeros(pieces[i].shape) + g[i] for i in range(len(pieces))]
        return concat_list(parts, axis)
    return join


def reshaped(a, shape):
    return np.reshape(a, shape)


@overload(reshaped)
def _reshaped(a, shape):
    """``np.reshape``: numba reshapes contiguous arrays only; another is copied first."""
    if _is_array(a) and a.layout != "C":
        return lambda a, shape: np.ascontiguousarray(a).reshape(shape)
    if isinstance(a, (types.Float, types.Integer)):  # a number: the array of its one value
        return lambda a, shape: np.array([a]).reshape(shape)
    return lambda a, shape: np.reshape(a, shape)


def hstack_list(items):
    return np.hstack(items)


def vstack_list(items):
    return np.vstack(items)


def _list_of_arrays(items) -> bool:
    return isinstance(items, types.List) and _is_array(items.dtype)


@overload(hstack_list)
def _hstack_list(items):
    """``np.hstack`` of a list of arrays (numba stacks tuples)."""
    if not _list_of_arrays(items):
        return None
    along = 0 if items.dtype.ndim == 1 else 1
    return lambda items: concat_list(items, along)


@overload(vstack_list)
def _vstack_list(items):
    if not _list_of_arrays(items):
        return None
    if items.dtype.ndim == 1:
        return lambda items: stack_rows(items)
    return lambda items: concat_list(items, 0)


def float_array(x, copy):
    return np.array(x, dtype=float, copy=True) if copy else np.asarray(x, dtype=float)


@overload(float_array, prefer_literal=True)
def _float_array(x, copy):
    """``np.array(x, dtype=float)`` / ``np.asarray(x, dtype=float)`` of an array or a number."""
    if _is_number(x):
        return lambda x, copy: np.float64(x)
    if isinstance(x, types.BaseTuple) and len(x) and all(_is_number(t) for t in x.types):
        # a tuple of numbers (a cached function's value, numba/cached_calls.py), item by item: its
        # items may be typed each by its value
        items = ", ".join(f"float(x[{k}])" for k in range(len(x)))
        return made(f"def impl(x, copy):\n    return np.array([{items}])\n")
    if not _is_array(x):
        return None
    same = isinstance(x.dtype, types.Float) and x.dtype.bitwidth == 64
    if same and not getattr(copy, "literal_value", True):
        return lambda x, copy: x
    return lambda x, copy: x.astype(np.float64)


def is_floating(dtype):
    return np.issubdtype(np.dtype(dtype), np.floating)


@overload(is_floating)
def _is_floating(dtype):
    """Whether a dtype (an array's ``.dtype``, ``float``, ``np.float32``...) is floating: known
    from the type, so a constant."""
    kind = getattr(dtype, "dtype", None) if isinstance(dtype, types.DType) else getattr(dtype, "instance_type", None)
    if kind is None and isinstance(dtype, types.Function) and dtype.typing_key is float:
        return lambda dtype: True
    if kind is None:
        return None
    answer = isinstance(kind, types.Float)
    return lambda dtype: answer


def astype_to(a, dtype):
    return np.astype(a, dtype)


@overload(astype_to)
def _astype_to(a, dtype):
    """``np.astype(a, dtype)``: numba's ``a.astype``, with ``float`` as float64."""
    if not _is_array(a):
        return None
    if isinstance(dtype, types.Function) and dtype.typing_key is float:
        return lambda a, dtype: a.astype(np.float64)
    return lambda a, dtype: a.astype(dtype)


HELPERS = ("flip_axis", "cumsum_axis", "expand_axes", "matmul_stacks", "inner_product",
           "solve_adjoint_x", "solve_adjoint_y", "prod_adjoint", "split_adjoint", "float_array",
           "hstack_list", "vstack_list", "reshaped",
           "is_floating", "astype_to")
