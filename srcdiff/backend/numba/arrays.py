"""numba versions of NumPy's array building calls numba lacks, for generated code
(backend/numba/array_calls.py spells the calls as these): ``np.tile``, ``np.repeat``,
``np.roll`` and ``np.diff`` along an axis, ``np.add.reduceat`` (its adjoint), ``np.squeeze`` of given axes, ``np.ndim``,
``np.ones_like``/``zeros_like``/``full_like`` with a dtype, a dtype test of a value, ``np.vstack``/
``np.hstack`` of a list whose items differ in type (more overloads of missing.py's), and
``real_part`` (np.real's adjoint).

As in missing.py, the repetitions and axes are constants in generated code, so each call's
code is written from the types alone; a case not written here is left to numba (``None``),
which refuses it at the user's line.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.np.numpy_support import as_dtype

from ...rules import runtime as python
from .missing import hstack_list, vstack_list
from .naming import made, overload
from .reductions import axes
from .runtime import add_at, stack_list


def _is_array(t) -> bool:
    return isinstance(t, types.Array)


def _is_number(t) -> bool:
    return isinstance(t, (types.Number, types.Boolean))


def _constants(t) -> tuple | None:
    """The integers a literal int or a tuple of literal ints stands for, else None."""
    items = t.types if isinstance(t, types.BaseTuple) else (t,)
    if not all(isinstance(i, types.IntegerLiteral) for i in items):
        return None
    return tuple(i.literal_value for i in items)


def _shape(names: list[str]) -> str:
    return "(" + "".join(f"{n}, " for n in names) + ")"


def tile_by(x, reps):
    return np.tile(x, reps)


@overload(tile_by, prefer_literal=True)
def _tile_by(x, reps):
    """``np.tile``: the array seen as (1, n0, 1, n1, ...), broadcast to (r0, n0, r1, n1, ...)."""
    found = _constants(reps)
    if not _is_array(x) or found is None:
        return None
    n = max(x.ndim, len(found))
    counts = (1,) * (n - len(found)) + found
    sizes = ["1"] * (n - x.ndim) + [f"x.shape[{d}]" for d in range(x.ndim)]
    spread = [item for d in range(n) for item in ("1", sizes[d])]
    wide = [item for d in range(n) for item in (str(counts[d]), sizes[d])]
    out = [f"{counts[d]} * {sizes[d]}" for d in range(n)]
    return made("def impl(x, reps):\n"
                f"    v = np.ascontiguousarray(x).reshape({_shape(spread)})\n"
                f"    return np.ascontiguousarray(np.broadcast_to(v, {_shape(wide)})).reshape({_shape(out)})\n")


def repeat_along(x, repeats, axis):
    return np.repeat(x, repeats, axis=axis)


@overload(repeat_along, prefer_literal=True)
def _repeat_along(x, repeats, axis):
    """``np.repeat(x, repeats, axis)``: one count for all (a broadcast), or one count per item
    along the axis (the items copied one by one)."""
    counts = _constants(repeats)
    if not _is_array(x) or counts is None or _constants(axis) is None:
        return None
    (along,) = axes(axis, x.ndim)
    sizes = [f"x.shape[{d}]" for d in range(x.ndim)]
    before = ":, " * along
    if not isinstance(repeats, types.BaseTuple) or len(counts) == 1:
        k = counts[0]
        spread = sizes[:along + 1] + ["1"] + sizes[along + 1:]
        wide = sizes[:along + 1] + [str(k)] + sizes[along + 1:]
        out = sizes[:along] + [f"{k} * x.shape[{along}]"] + sizes[along + 1:]
        return made("def impl(x, repeats, axis):\n"
                    f"    v = np.ascontiguousarray(x).reshape({_shape(spread)})\n"
                    f"    return np.ascontiguousarray(np.broadcast_to(v, {_shape(wide)})).reshape({_shape(out)})\n")
    out = sizes[:along] + [str(sum(counts))] + sizes[along + 1:]
    return made("def impl(x, repeats, axis):\n"
                f"    if x.shape[{along}] != {len(counts)}:\n"
                "        raise ValueError('repeat: one count per item along the axis')\n"
                f"    out = np.empty({_shape(out)}, x.dtype)\n"
                "    at = 0\n"
                f"    for i in range({len(counts)}):\n"
                "        for _ in range(COUNTS[i]):\n"
                f"            out[{before}at] = x[{before}i]\n"
                "            at += 1\n"
                "    return out\n", COUNTS=np.array(counts))


def add_reduceat(a, indices, axis):
    return np.add.reduceat(a, indices, axis=axis)


@overload(add_reduceat, prefer_literal=True)
def _add_reduceat(a, indices, axis):
    """``np.add.reduceat(a, indices, axis)``: the sums of the slices between the indices (an
    index not below the next one takes its item alone)."""
    starts = _constants(indices)
    if not _is_array(a) or starts is None or _constants(axis) is None:
        return None
    (along,) = axes(axis, a.ndim)
    before = ":, " * along
    sizes = [f"a.shape[{d}]" for d in range(a.ndim)]
    out = sizes[:along] + [str(len(starts))] + sizes[along + 1:]
    dtype = np.float64 if isinstance(a.dtype, types.Float) else np.int64
    lines = [f"    out = np.zeros({_shape(out)}, DTYPE)"]
    for i, start in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else None
        end = f"a.shape[{along}]" if stop is None else (str(stop) if stop > start else str(start + 1))
        lines.append(f"    for j in range({start}, {end}):")
        lines.append(f"        out[{before}{i}] += a[{before}j]")
    return made("def impl(a, indices, axis):\n" + "\n".join(lines) + "\n    return out\n", DTYPE=dtype)


def squeeze_axes(x, axis):
    return np.squeeze(x, axis=axis)


@overload(squeeze_axes, prefer_literal=True)
def _squeeze_axes(x, axis):
    """``np.squeeze(x, axis)`` of constant axes: a reshape, after checking those have length 1."""
    if not _is_array(x) or _constants(axis) is None:
        return None
    gone = axes(axis, x.ndim)
    checks = "".join(f"    if x.shape[{d}] != 1:\n        raise ValueError('cannot select an axis to squeeze "
                     "out which has size not equal to one')\n" for d in gone)
    kept = [f"x.shape[{d}]" for d in range(x.ndim) if d not in gone]
    return made(f"def impl(x, axis):\n{checks}    return np.ascontiguousarray(x).reshape({_shape(kept)})\n")


def roll_axis(x, shift, axis):
    return np.roll(x, shift, axis=axis)


@overload(roll_axis, prefer_literal=True)
def _roll_axis(x, shift, axis):
    """``np.roll(x, shift, axis)`` along one constant axis: the two slices moved past each other."""
    if not _is_array(x) or not isinstance(shift, types.Integer) or _constants(axis) is None \
            or len(_constants(axis)) != 1:
        return None
    (along,) = axes(axis, x.ndim)
    before = ":, " * along
    return made("def impl(x, shift, axis):\n"
                f"    n = x.shape[{along}]\n"
                "    out = np.empty_like(x)\n"
                "    if n == 0:\n"
                "        return out\n"
                "    s = shift % n\n"
                f"    out[{before}s:] = x[{before}:n - s]\n"
                f"    out[{before}:s] = x[{before}n - s:]\n"
                "    return out\n")


def diff_axis(x, n, axis):
    return np.diff(x, n=n, axis=axis)


@overload(diff_axis, prefer_literal=True)
def _diff_axis(x, n, axis):
    """``np.diff(x, n, axis)`` along a constant axis: n first differences of slices."""
    if not _is_array(x) or not isinstance(n, types.Integer) or _constants(axis) is None \
            or len(_constants(axis)) != 1:
        return None
    (along,) = axes(axis, x.ndim)
    before = ":, " * along
    return made("def impl(x, n, axis):\n"
                "    if n < 0:\n"
                "        raise ValueError('order must be non-negative')\n"
                "    out = np.ascontiguousarray(x).copy()\n"
                "    for _ in range(n):\n"
                f"        out = np.ascontiguousarray(out[{before}1:] - out[{before}:-1])\n"
                "    return out\n")


def item_of(x):
    return x[()]


@overload(item_of)
def _item_of(x):
    """``x[()]``: a number is itself (numba indexes no number); an array, numba's."""
    if _is_number(x):
        return lambda x: x
    if _is_array(x):
        return lambda x: x[()]
    return None


def ndim_of(x):
    return np.ndim(x)


@overload(ndim_of)
def _ndim_of(x):
    rank = x.ndim if _is_array(x) else 0 if _is_number(x) else None
    if rank is None:
        return None
    return lambda x: rank


def filled_like(x, value, dtype):
    return np.full_like(x, value, dtype=dtype)


@overload(filled_like)
def _filled_like(x, value, dtype):
    """``np.ones_like(x, dtype=...)`` and the like: a new array of x's shape (``float`` is
    float64)."""
    if not (_is_array(x) or _is_number(x)):
        return None
    if isinstance(dtype, types.Function) and dtype.typing_key is float:
        return lambda x, value, dtype: np.full(np.shape(x), value, np.float64)
    if isinstance(dtype, types.NumberClass):
        return lambda x, value, dtype: np.full(np.shape(x), value, dtype)
    return None


def floating_value(x):
    return np.issubdtype(np.result_type(x), np.floating)


@overload(floating_value)
def _floating_value(x):
    """``np.issubdtype(np.result_type(x), np.floating)``: known from the type, a constant."""
    kind = x.dtype if _is_array(x) else x if _is_number(x) else None
    if kind is None:
        return None
    answer = isinstance(kind, types.Float)
    return lambda x: answer


def result_dtype(x):
    return np.result_type(x)


@overload(result_dtype)
def _result_dtype(x):
    """``np.result_type(x)`` of one array or number: its dtype (numba's dtype of the type)."""
    if _is_array(x):
        return lambda x: x.dtype
    if not _is_number(x):
        return None
    kind = as_dtype(x).type
    return lambda x: np.empty(0, kind).dtype


def _mixed_items(items) -> tuple | None:
    """The item types of a list written in the call whose items differ in type (numba's
    literal list), or of a tuple of arrays (numba's own vstack wants one ndim), else None."""
    kinds = getattr(items, "types", None)
    if not isinstance(items, (types.LiteralList, types.BaseTuple)) or not kinds \
            or not all(_is_array(t) for t in kinds):
        return None
    return kinds


def _joined(kinds, along: int, widen: str):
    cast = ".astype(np.float64)" if len({t.dtype for t in kinds}) > 1 else ""
    parts = [f"np.ascontiguousarray({widen}(items[{i}])){cast}" for i in range(len(kinds))]
    return made(f"def impl(items):\n    return np.concatenate(({', '.join(parts)},), axis={along})\n")


@overload(vstack_list)
def _vstack_mixed(items):
    """``np.vstack([row, matrix])``: each item made 2-D (float64 where their dtypes differ)."""
    kinds = _mixed_items(items)
    return None if kinds is None else _joined(kinds, 0, "np.atleast_2d")


@overload(hstack_list)
def _hstack_mixed(items):
    """``np.hstack([a, b])`` of items of different types: along the first axis for vectors."""
    kinds = _mixed_items(items)
    if kinds is None:
        return None
    return _joined(kinds, 0, "") if all(t.ndim == 1 for t in kinds) else _joined(kinds, 1, "np.atleast_1d")


@overload(add_at)
def _add_at_mask(a, index, v):
    """``np.add.at(a, mask, v)`` for a boolean mask (of a's shape, or of its leading axes):
    each selected place gets its value in turn."""
    if not (_is_array(a) and _is_array(index) and isinstance(index.dtype, types.Boolean)) or index.ndim > a.ndim:
        return None
    item = "v[k]" if _is_array(v) and v.ndim == a.ndim - index.ndim + 1 else "v"
    return made("def impl(a, index, v):\n"
                "    if index.shape != a.shape[:index.ndim]:\n"
                "        raise IndexError('boolean index did not match indexed array')\n" + (
                    "    if v.shape[0] != index.sum():\n        raise ValueError('add.at: values do not fit')\n"
                    if item == "v[k]" else "") +
                "    k = 0\n"
                "    for place in np.ndindex(index.shape):\n"
                "        if index[place]:\n"
                f"            a[place] += {item}\n"
                "            k += 1\n")


@overload(add_at)
def _add_at_pairs(a, index, v):
    """``np.add.at(a, (rows, cols), v)``: a tuple of integer index arrays, one per axis of a,
    each place (repeats too) getting its value in turn."""
    parts = getattr(index, "types", None)
    if not (_is_array(a) and isinstance(index, types.BaseTuple) and parts and len(parts) == a.ndim
            and all(_is_array(p) and p.ndim == 1 and isinstance(p.dtype, types.Integer) for p in parts)):
        return None
    place = ", ".join(f"index[{d}][k]" for d in range(a.ndim))
    item = "v[k]" if _is_array(v) and v.ndim == 1 else "v"
    check = "    if v.shape[0] != index[0].shape[0]:\n        raise ValueError('add.at: values do not fit')\n" \
        if item == "v[k]" else ""  # (numba reads past an array's end unchecked)
    return made("def impl(a, index, v):\n" + check +
                "    for k in range(index[0].shape[0]):\n"
                f"        a[{place}] += {item}\n")


@overload(stack_list, prefer_literal=True)
def _stack_numbers(items, axis):
    """``np.stack(values)`` of a list of numbers (a list built by append): a vector."""
    if not (isinstance(items, types.List) and _is_number(items.dtype)) or _constants(axis) not in ((0,), (-1,)):
        return None
    return lambda items, axis: np.array(items)


def real_part(g, x):
    return python.real_part(g, x)


@overload(real_part)
def _real_part(g, x):
    """``np.real``'s adjoint: g itself for a real x (a complex x raises, and the Python
    gradient then refuses it in its words)."""
    kind = x.dtype if _is_array(x) else x
    if isinstance(kind, types.Complex):
        def refuse(g, x):
            raise ValueError("np.real of a complex value")
        return refuse
    return lambda g, x: g


def ufunc_outer(a, b, name):
    return getattr(np, name).outer(a, b)


@overload(ufunc_outer, prefer_literal=True)
def _ufunc_outer(a, b, name):
    """``np.multiply.outer(a, b)``: the ufunc of a, given b's number of axes more (as trailing
    axes of length 1), and b: NumPy's broadcast makes the outer table."""
    op = getattr(name, "literal_value", None)
    if not isinstance(op, str) or not (_is_array(a) or _is_number(a)) or not (_is_array(b) or _is_number(b)):
        return None
    more = b.ndim if _is_array(b) else 0
    if not _is_array(a) or more == 0:
        return made(f"def impl(a, b, name):\n    return np.{op}(a, b)\n")
    shape = "".join(f"a.shape[{d}], " for d in range(a.ndim)) + "1, " * more
    return made(f"def impl(a, b, name):\n    return np.{op}(np.ascontiguousarray(a).reshape(({shape})), b)\n")


def trace_adjoint(g, x, offset=0):
    return python.trace_adjoint(g, x, offset)


@overload(trace_adjoint)
def _trace_adjoint(g, x, offset=0):
    """The adjoint of ``np.trace`` where x's axes were not known: g on x's diagonal (an outer
    product with the identity, as the Python helper's ``np.multiply.outer``)."""
    if not _is_array(x) or x.ndim < 2:
        return None
    return lambda g, x, offset=0: ufunc_outer(np.eye(x.shape[0], x.shape[1], offset), g, "multiply")


HELPERS = ("trace_adjoint", "ufunc_outer", "tile_by", "repeat_along", "roll_axis", "diff_axis", "add_reduceat",
           "squeeze_axes", "ndim_of", "item_of", "filled_like", "floating_value", "result_dtype", "real_part")
