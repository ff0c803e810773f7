"""NumPy reductions along axes and with ``keepdims`` (``np.max(z, axis=1, keepdims=True)``),
which numba's NumPy lacks, for numba (backend/numba/spelling.py spells them as these).

The axes and ``keepdims`` are constants in generated code, so each call's code is made from
the types alone: the kept axes moved first, the array seen as (kept, reduced), one
reduction per row, the result shaped as NumPy shapes it.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.np.numpy_support import as_dtype

from .naming import made, overload


def _is_array(t) -> bool:
    return isinstance(t, types.Array)


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


def reduce_var(a, axis, keepdims):
    return np.var(a, axis=axis, keepdims=keepdims)


def reduce_std(a, axis, keepdims):
    return np.std(a, axis=axis, keepdims=keepdims)


#: NumPy's reductions that skip NaN, along axes: numba's own of 1-D rows (``np.nanmean(X, axis=0)``
#: fills a column's gaps with the mean of the values it has)
NAN_KINDS = ("nansum", "nanmean", "nanmax", "nanmin", "nanprod", "nanvar", "nanstd")


def _nan_stub(kind: str):
    def stub(a, axis, keepdims):
        return getattr(np, kind)(a, axis=axis, keepdims=keepdims)
    stub.__name__ = stub.__qualname__ = f"reduce_{kind}"
    return stub


reduce_nansum, reduce_nanmean, reduce_nanmax, reduce_nanmin, reduce_nanprod, reduce_nanvar, reduce_nanstd = (
    _nan_stub(kind) for kind in NAN_KINDS)


def reduce_norm(a, axis, keepdims):
    return np.linalg.norm(a, axis=axis, keepdims=keepdims)


def axes(axis, ndim: int):
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
    kind = kind.removeprefix("nan")
    if kind in ("sum", "prod") and np_dtype.kind in "biu":
        return np.int64
    if kind in ("mean", "var", "std", "norm") and np_dtype.kind in "biu":
        return np.float64
    return np_dtype.type


def _reduction(kind: str):
    op = {"sum": "np.sum", "mean": "np.mean", "max": "np.max", "min": "np.min", "prod": "np.prod",
          "any": "np.any", "all": "np.all", "var": "np.var", "std": "np.std", "norm": "np.linalg.norm",
          **{k: f"np.{k}" for k in NAN_KINDS}}[kind]

    def typer(a, axis, keepdims):
        if not _is_array(a):
            return None
        text = row_reduction(a, axis, keepdims, op, "srcdiff's numba reductions take")
        return made(text, DTYPE=_result_dtype(kind, a.dtype))
    return typer


def row_reduction(a, axis, keepdims, op: str, who: str) -> str:
    """The text of ``impl(a, axis, keepdims)``: `op` (a function of a 1-D array, written as
    text) of each row of `a` with the reduced axes moved last and flattened, the results
    shaped as NumPy's reduction shapes them (``DTYPE``: the caller's); `who` ... keepdims as a
    constant is the refusal of a keepdims numba cannot see."""
    keep = getattr(keepdims, "literal_value", False if isinstance(keepdims, (types.NoneType, types.Omitted))
                   else None)
    if keep is None:
        raise TypingError(f"{who} keepdims as a constant")
    reduced = axes(axis, a.ndim)
    kept = [d for d in range(a.ndim) if d not in reduced]
    perm = tuple(kept + list(reduced))
    outer = " * ".join(f"a.shape[{d}]" for d in kept) or "1"
    inner = " * ".join(f"a.shape[{d}]" for d in reduced) or "1"
    if keep:
        shape = ", ".join("1" if d in reduced else f"a.shape[{d}]" for d in range(a.ndim))
    else:
        shape = ", ".join(f"a.shape[{d}]" for d in kept)
    moved = "a" if perm == tuple(range(a.ndim)) else f"a.transpose({perm})"
    result = f"out.reshape(({shape},))" if shape else "out[0]"
    return (f"def impl(a, axis, keepdims):\n"
            f"    m = np.ascontiguousarray({moved}).reshape(({outer}, {inner}))\n"
            f"    out = np.empty({outer}, DTYPE)\n"
            f"    for i in range({outer}):\n"
            f"        out[i] = {op}(m[i])\n"
            f"    return {result}\n")


for _kind, _stub_function in {"sum": reduce_sum, "mean": reduce_mean, "max": reduce_max, "min": reduce_min,
                              "prod": reduce_prod, "any": reduce_any, "all": reduce_all, "var": reduce_var,
                              "std": reduce_std, "norm": reduce_norm, "nansum": reduce_nansum,
                              "nanmean": reduce_nanmean, "nanmax": reduce_nanmax, "nanmin": reduce_nanmin,
                              "nanprod": reduce_nanprod, "nanvar": reduce_nanvar, "nanstd": reduce_nanstd}.items():
    overload(_stub_function, prefer_literal=True)(_reduction(_kind))


def reduce_var_ddof(a, axis, keepdims, ddof):
    return np.var(a, axis=axis, keepdims=keepdims, ddof=ddof)


def reduce_std_ddof(a, axis, keepdims, ddof):
    return np.std(a, axis=axis, keepdims=keepdims, ddof=ddof)


@overload(reduce_var_ddof, prefer_literal=True)
def _reduce_var_ddof(a, axis, keepdims, ddof):
    """``np.var(a, axis, ddof=k)``: the variance above, times n / (n - k)."""
    if not _is_array(a):
        return None

    def var(a, axis, keepdims, ddof):
        v = reduce_var(a, axis, keepdims)
        n = a.size // max(np.asarray(v).size, 1)
        return v * (n / (n - ddof))
    return var


@overload(reduce_std_ddof, prefer_literal=True)
def _reduce_std_ddof(a, axis, keepdims, ddof):
    if not _is_array(a):
        return None
    return lambda a, axis, keepdims, ddof: np.sqrt(reduce_var_ddof(a, axis, keepdims, ddof))


HELPERS = ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all",
           "reduce_var", "reduce_std", "reduce_norm", "reduce_var_ddof", "reduce_std_ddof",
           *(f"reduce_{kind}" for kind in NAN_KINDS))
