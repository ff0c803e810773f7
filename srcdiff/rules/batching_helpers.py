"""What batched code (ad/batching.py) calls where a row's shape is known only when it runs.

Each helper works on arrays whose axis 0 is the batch axis, and does for every row what
the helper of the same name without ``_rows`` (rules/runtime.py) does for one value.
"""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError
from .batched_scale_helpers import HELPERS as SCALES
from .batching_branch_helpers import branch_rows
from .batching_each_row import HELPERS as EACH_ROW
from .batching_gather_helpers import HELPERS as GATHER_SLICES
from .batching_gather_helpers import gather_slices_add_rows, gather_slices_rows
from .batching_linalg_helpers import HELPERS as LINALG
from .list_helpers import owned
from .runtime import index_parts, set_item


def broadcast_rows(value, size: int):
    """`value`, the same for every row, as `size` rows (a read-only view)."""
    return np.broadcast_to(value, (size,) + np.shape(value))


def copy_rows(value, size: int):
    """`value` as `size` rows of its own (a returned result never is a view); a tuple of
    values (several gradients, none batched) part by part."""
    if isinstance(value, tuple):
        return tuple(copy_rows(part, size) for part in value)
    return np.array(broadcast_rows(value, size))


def expand_rows(x, rank: int):
    """`x` with axes of length one after its batch axis, so that a row has `rank` axes."""
    x = np.asarray(x)
    return np.reshape(x, x.shape[:1] + (1,) * (rank - x.ndim + 1) + x.shape[1:])


def reshape_rows(x, shape):
    """Each row of `x` reshaped to `shape`."""
    if type(x) is np.ndarray and type(shape) is tuple:  # (an array's method: np.ndim and np.reshape dispatch)
        return x.reshape(x.shape[:1] + shape)
    x = np.asarray(x)
    return np.reshape(x, x.shape[:1] + ((shape,) if np.ndim(shape) == 0 else tuple(shape)))


def full_rows(shape, fill):
    """An array of `shape` per row, filled with that row's `fill` (a number or an array that
    broadcasts to `shape`)."""
    if type(shape) is not tuple:
        shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    fill = np.asarray(fill)
    fill = fill.reshape(fill.shape[:1] + (1,) * (len(shape) - fill.ndim + 1) + fill.shape[1:])
    out = np.empty(fill.shape[:1] + shape, dtype=np.result_type(fill, 0.0))
    out[...] = fill  # (broadcast as it is written: no read-only view made and copied)
    return out


def unbroadcast_rows(g, like):
    """Each row of `g` summed back to the shape of `like`, one row's value (what
    ``unbroadcast(g, like)`` does to one row)."""
    shape = like.shape if type(like) is np.ndarray else np.shape(like)  # (np.shape: a microsecond a call)
    if type(g) is np.ndarray and g.shape[1:] == shape:  # rows of that shape already: the common case
        return g
    g = np.asarray(g)
    lead = g.ndim - 1 - len(shape)
    if lead > 0:
        g = np.sum(g, axis=tuple(range(1, 1 + lead)))
    axes = tuple(i + 1 for i, n in enumerate(shape) if n == 1 and g.shape[i + 1] != 1)
    if axes:
        g = np.sum(g, axis=axes, keepdims=True)
    return g


def rows_index(index) -> tuple:
    """The index `index` (a tuple or list of its parts) of every row: the batch axis kept first.

    NumPy moves the axes of advanced indices that are not next to each other to the front;
    with the batch axis before them they would move before it.  Refused (`apart`: the callers
    gather those with the row numbers, rules/batching_gather_helpers.py)."""
    parts = index_parts(index)
    if all(type(p) is slice for p in parts):  # basic slices (the common case): nothing moves
        return (slice(None),) + parts
    if apart(parts):
        raise SrcDiffError("an index of several arrays apart from each other cannot be batched",
                           hint="index one axis at a time")
    return (slice(None),) + parts


def apart(parts) -> bool:
    """Whether the advanced parts of a row's index `parts` (arrays, and numbers beside them) are not
    next to each other: NumPy puts their axes in front of a row's result."""
    advanced = [i for i, p in enumerate(parts)
                if not isinstance(p, slice) and p is not None and p is not Ellipsis]
    return len(advanced) > 1 and advanced[-1] - advanced[0] != len(advanced) - 1 \
        and any(np.ndim(parts[i]) > 0 for i in advanced)


def index_read_rows(a, index):
    """``a[*index]`` of every row."""
    parts = index_parts(index)
    if type(parts) is tuple and apart(parts):
        return gather_slices_rows(a, parts, (False,) * len(parts), True)
    return a[rows_index(index)]


def index_add_rows(base, index, value, value_rows: bool):
    """A copy of the rows of `base` with `value` added at ``[*index]`` of each; `value_rows`
    says whether `value` has a batch axis (then its rows are aligned with base's)."""
    return scatter_add_rows(np.array(base, dtype=np.result_type(base, value, 0.0), copy=True), index, value,
                            value_rows)


def zero_rows(like, size: int):
    """`size` rows of float zeros shaped like `like` (a new, writable array)."""
    return np.zeros((size,) + np.shape(like))


def _sliced(index, value, dtype) -> bool:
    """Whether ``rows[:, *index] (+)= value`` is the whole of a write: `index` a tuple of slices
    (each position reached once, no axis dropped), `value` an array of the rows' dtype (the
    common case of a gradient's scatters, taken before the general path's checks)."""
    return type(index) is tuple and type(value) is np.ndarray and value.dtype == dtype \
        and all(type(p) is slice for p in index)


def _with_axes(value, rank: int, value_rows: bool):
    """`_aligned` for an index of slices (which keeps every axis of rows of `rank` axes)."""
    if value_rows and value.ndim != rank:
        return np.reshape(value, value.shape[:1] + (1,) * (rank - value.ndim) + value.shape[1:])
    return value


def scatter_add_rows(out, index, value, value_rows: bool):
    """`index_add_rows` into `out` itself: a float array of rows that nothing else reads
    (driver/batched.py proves it), of the dtype the sum has."""
    if _sliced(index, value, out.dtype):
        out[(slice(None),) + index] += _with_axes(value, out.ndim, value_rows)
        return out
    parts = index_parts(index)
    if type(parts) is tuple and apart(parts):  # each row's positions, the row numbers in front
        return gather_slices_add_rows(out, parts, (False,) * len(parts), value, value_rows)
    where = rows_index(index)
    value = np.asarray(value)
    if value.dtype != out.dtype and np.result_type(out, value, 0.0) != out.dtype:  # float32 rows, float64 value
        out = out.astype(np.result_type(out, value, 0.0))
    basic = all(type(p) is slice or type(p) is int for p in where)  # (the common case, checked first: fast)
    value = _aligned(out, where, value, value_rows)
    if basic or not any(np.ndim(p) > 0 or isinstance(p, (list, np.ndarray)) for p in where):
        out[where] += value  # slices and numbers reach every position once
    else:
        np.add.at(out, where, value)  # an array index may repeat a position: each adds again
    return out


def zero_rows_with(like, size: int, index, value, value_rows: bool):
    """``scatter_add_rows(zero_rows(like, size), index, value, value_rows)``: where slices and
    numbers reach each position once, the value is written, not added to zeros read back."""
    out = zero_rows(like, size)
    if _sliced(index, value, out.dtype):
        out[(slice(None),) + index] = _with_axes(value, out.ndim, value_rows)
        return out
    if type(index_parts(index)) is tuple and apart(index_parts(index)):
        return scatter_add_rows(out, index, value, value_rows)
    where = rows_index(index)
    value = np.asarray(value)
    if not (all(type(p) is slice or type(p) is int for p in where) and np.result_type(out, value, 0.0) == out.dtype):
        return scatter_add_rows(out, index, value, value_rows)
    out[where] = _aligned(out, where, value, value_rows)
    return out


def _aligned(out, where, value, value_rows: bool):
    """`value`'s rows with axes of length one after the batch axis, as many as ``out[where]`` has."""
    if value_rows:
        target = out[where].ndim
        if target != value.ndim:
            return np.reshape(value, value.shape[:1] + (1,) * (target - value.ndim) + value.shape[1:])
    return value


def set_item_rows(x, index, value, x_rows: bool, value_rows: bool, size: int):
    """`set_item(x, index, value)` of each row: a copy of x's rows (x the same for every row
    when it has none) with the value written at ``[*index]`` of each; set_item's refusals (a
    float written into integers, an index array repeating a position) asked of the first row."""
    if isinstance(x, list):
        raise SrcDiffError("a write into a list cannot be batched", hint="build an array with np.stack instead")
    base, value = np.asarray(x), np.asarray(value)
    set_item(base[0] if x_rows else base, index, value[0] if value_rows else value)
    out = np.array(base if x_rows else broadcast_rows(base, size), copy=True)
    where = rows_index(index)
    out[where] = _aligned(out, where, value, value_rows)
    return out


def sum_last(x, keepdims: bool = False):
    """``np.sum(x, axis=-1, keepdims=keepdims)``.  NumPy reduces a last axis of a few elements one
    inner loop per row, about 20 ns a row: over a Hessian's rows of a softmax's 5 classes (a
    (100, 200, 5) array) that is 460 us, where adding the 5 slices takes 40 us.  NumPy adds fewer
    than 8 elements in order, so the slices give the same bits."""
    x = np.asarray(x)
    n = x.shape[-1] if x.ndim else 0
    if not (2 <= n <= 7 and x.dtype.kind == "f" and x.size >= 64 * n):
        return np.sum(x, axis=-1, keepdims=keepdims)
    out = x[..., 0] + x[..., 1]
    for k in range(2, n):
        out += x[..., k]
    return out[..., None] if keepdims else out


def float_rows(x):
    """``float(x)`` of each row of one number: float64 rows, of rows that are float64, integers or truth
    values (of float32 rows, a Python float meets float32 arrays as a float32 number, rows of float64 would
    not: refused when run, and vmap runs one example at a time)."""
    x = np.asarray(x)
    if x.dtype.kind not in "biu" and x.dtype != np.float64:
        raise SrcDiffError(f"float() of {x.dtype} rows is batched only for float64 rows",
                           hint="call the function once per example")
    return x.astype(np.float64)


def select_rows(condition, value, condition_rows: bool, value_rows: bool, size: int, whole: bool = False):
    """`select(condition, value)` (`select_whole` when `whole`) of each row, as rows: a row's
    condition of one value decides for its whole row; one shaped like the value's row selects
    elementwise (`select` only); any other leaves the value as it is."""
    condition, value = np.asarray(condition), np.asarray(value)
    c_row = condition.shape[1:] if condition_rows else condition.shape
    v_row = value.shape[1:] if value_rows else value.shape
    if not value_rows:
        value = broadcast_rows(value, size)
    if len(c_row) == 0:
        if condition_rows:
            condition = np.reshape(condition, condition.shape[:1] + (1,) * len(v_row))
        return np.where(condition, value, np.zeros((), value.dtype if value.dtype.kind == "f" else float))
    if whole or c_row != v_row:
        return np.array(value)
    return np.where(condition, value, np.zeros((), value.dtype if value.dtype.kind == "f" else float))


def measure_nan_rows(bad, d, every: bool, d_rows: bool, size: int):
    """`measure_nan(bad, d, every)` of each row (`bad` has rows): a row's NaN where its own guard
    holds, never another row's."""
    bad = np.asarray(bad)
    d = np.asarray(d) if d_rows else broadcast_rows(d, size)
    dtype = d.dtype if np.issubdtype(d.dtype, np.floating) else np.dtype(np.float64)
    if every:
        held = bad.reshape(bad.shape[0], -1).any(axis=1).reshape((-1,) + (1,) * (d.ndim - 1))
    else:
        held = np.reshape(bad, bad.shape + (1,) * (d.ndim - bad.ndim))
    return np.where(np.broadcast_to(held, d.shape), dtype.type(np.nan), dtype.type(0.0))


def _lined_up(a, b):
    """Two rows (batch axis first) with axes of length one after the batch axis of the one with
    fewer, so that NumPy lines each row up with its own as it does without the batch axis."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim < b.ndim:
        a = a.reshape(a.shape[:1] + (1,) * (b.ndim - a.ndim) + a.shape[1:])
    elif b.ndim < a.ndim:
        b = b.reshape(b.shape[:1] + (1,) * (a.ndim - b.ndim) + b.shape[1:])
    return a, b


def zeros_list_rows(xs, xs_rows: bool, size: int):
    """`zeros_list(xs)` of a list with a batch axis: zero rows shaped like each item's (never the
    0.0 a list without rows holds, which would line up with a row's items wrongly); None for None (`zeros_list`)."""
    return None if xs is None else [np.zeros(np.shape(x), dtype=float) if xs_rows else zero_rows(x, size) for x in xs]


def list_add_rows(xs, i, v):
    """`list_add(xs, i, v)` of a row list and rows `v` (for a slice `i`, a list of rows)."""
    out = list(xs)
    for k, vk in (zip(range(len(out))[i], v) if isinstance(i, slice) else [(i, v)]):
        a, b = _lined_up(out[k], vk)
        out[k] = a + b
    return out


def lists_add_rows(a, b):
    """`lists_add(a, b)` of two row lists."""
    return [x + y for x, y in (_lined_up(p, q) for p, q in zip(a, b))]


def list_repeat_rows(g, xs, xs_rows: bool):
    """`list_repeat(g, xs)` of rows `g`: g once per item, each row summed back to a row of the
    item's shape (``sum([np.sum(v), v])``: the number's rows get the sums of g's rows)."""
    return [owned(unbroadcast_rows(g, x[0] if xs_rows else x)) for x in xs]  # (owned: items added into in place)


def list_of_rows(a):
    """`list_rows(a)` of rows `a`: a list of its items along a row's first axis, each rows."""
    return [a[:, j] for j in range(np.shape(a)[1])]


def stack_rows(xs, size: int):
    """``np.stack(xs)`` of a row list: the list's axis after the batch axis.  An item that is a row
    list itself (``np.array([[c, -s], [s, c]])`` of batched numbers) is stacked so first: NumPy
    would put its list's axis before the batch axis, silently where the two have one length."""
    if not len(xs):
        return np.zeros((size, 0))
    return np.stack([stack_rows(x, size) if isinstance(x, (list, tuple)) else x for x in xs], axis=1)


def sum_rows(xs, size: int):
    """``sum(xs)`` of a row list."""
    if not len(xs):
        return np.zeros(size, dtype=int)
    if any(isinstance(x, (list, tuple)) for x in xs):  # (Python would join the lists: no sum of rows)
        raise SrcDiffError("sum() of a list of lists cannot be batched", hint="sum arrays (np.stack each list)")
    total = xs[0]
    for item in xs[1:]:
        total, item = _lined_up(total, item)
        total = total + item
    return total


def diag_rows(x, k: int):
    """``np.diag(x, k)`` of each row of `x`: a row's vector as a matrix with it on diagonal k, or a
    row's matrix's diagonal k."""
    x = np.asarray(x)
    if x.ndim == 3:
        return np.diagonal(x, k, axis1=1, axis2=2).copy()
    n = x.shape[1] + abs(k)
    out = np.zeros((x.shape[0], n, n), dtype=np.result_type(x, 0.0) if x.dtype.kind != "f" else x.dtype)
    rows, cols = (np.arange(x.shape[1]), np.arange(x.shape[1]) + k) if k >= 0 else \
        (np.arange(x.shape[1]) - k, np.arange(x.shape[1]))
    out[:, rows, cols] = x
    return out


def solve_rows(a, b, b_ndim: int):
    """``np.linalg.solve(a, b)`` of each row, `a` a matrix and `b` a vector (`b_ndim` 1) or a
    matrix per row, either of them the same for every row: a vector as a one-column matrix,
    since NumPy reads a stack of vectors as one matrix."""
    if b_ndim == 1:
        return np.linalg.solve(a, np.asarray(b)[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _positions(parts, size: int) -> tuple:
    """Each row's own positions of an index with a batch axis: the row numbers, then the parts
    (integer arrays, the batch axis first).  A mask, a slice or a part without rows is refused:
    each row's mask picks its own number of items."""
    if not parts or any(not isinstance(p, np.ndarray) or p.dtype.kind not in "iu" or p.ndim == 0
                        or p.shape[0] != size for p in parts):
        raise SrcDiffError("an index with a batch axis that is not integer positions of each row (a mask, a slice) "
                           "cannot be batched", hint="index with integer positions (np.argsort, np.argmax), or "
                                                     "call the function once per example")
    rank = max(p.ndim for p in parts)
    # each part's own axes lined up from the right after the batch axis (NumPy would line a row's number up
    # with the other parts' last axis: the wrong positions, silently, where that axis is as long as the batch)
    parts = tuple(p.reshape(p.shape[:1] + (1,) * (rank - p.ndim) + p.shape[1:]) for p in parts)
    return (np.arange(size).reshape((size,) + (1,) * (rank - 1)), *parts)


def gather_rows(x, index, x_rows: bool):
    """``x[index]`` of each row, `index` integer positions with a batch axis (an order or an argmax
    computed from a batched value): each row indexed by its own positions."""
    index = np.asarray(index)
    if not x_rows:  # the same array for every row: NumPy's own indexing keeps the index's batch axis first
        _positions((index,), index.shape[0] if index.ndim else -1)
        return np.asarray(x)[index]
    return x[_positions((index,), np.shape(x)[0])]


def gather_read_rows(a, index, a_rows: bool):
    """``index_read(a, index)`` of each row, the index's parts with a batch axis."""
    parts = tuple(np.asarray(p) for p in index_parts(index))
    if len(parts) == 1:
        return gather_rows(a, parts[0], a_rows)
    size = parts[0].shape[0] if parts[0].ndim else -1
    return (a if a_rows else broadcast_rows(a, size))[_positions(parts, size)]


def gather_add_rows(base, index, value):
    """``index_add(base, index, value)`` of each row, the index's parts with a batch axis: a copy of
    base's rows (`base` rows already) with value added at each row's own positions, repeats adding
    again (``np.add.at``)."""
    out = np.array(base, dtype=np.result_type(base, value, 0.0), copy=True)
    np.add.at(out, _positions(tuple(np.asarray(p) for p in index_parts(index)), out.shape[0]), value)
    return out


HELPERS = {**{f.__name__: f for f in (gather_rows, gather_read_rows, gather_add_rows,
                                   diag_rows, list_repeat_rows, solve_rows, zeros_list_rows, list_add_rows,
                                   lists_add_rows, list_of_rows, stack_rows, sum_rows, broadcast_rows, copy_rows,
                                   full_rows, expand_rows, reshape_rows, unbroadcast_rows, rows_index, index_read_rows,
                                   index_add_rows, scatter_add_rows, zero_rows, zero_rows_with, sum_last, set_item_rows,
                                   select_rows, measure_nan_rows, branch_rows, float_rows)},
           **GATHER_SLICES, **LINALG, **SCALES, **EACH_ROW}

__all__ = ["HELPERS", "broadcast_rows", "gather_add_rows", "gather_read_rows", "gather_rows",
           "copy_rows", "diag_rows", "expand_rows", "full_rows", "index_add_rows",
           "index_read_rows", "list_add_rows", "list_of_rows", "list_repeat_rows", "lists_add_rows", "measure_nan_rows",
           "reshape_rows", "rows_index", "scatter_add_rows", "select_rows", "set_item_rows", "solve_rows", "stack_rows",
           "sum_last", "sum_rows", "unbroadcast_rows", "zero_rows", "zero_rows_with", "zeros_list_rows"]
