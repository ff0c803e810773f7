"""The run-time half of batching a call row by row (ad/batching_each_row.py): a function with no batching
rule of its own (``np.convolve``, ``np.pad``, ``np.kron``, ``np.interp`` of each example's own table, their
adjoints) called once per row of the batch inside the batched code, the rows stacked.  Each row's numbers
are exactly one example's call; only that call runs per row, the rest of the code stays batched."""

from __future__ import annotations

import numpy as np

from ..errors import SelectedSideError


def each_row(compute, size: int, where: str):
    """``np.stack([compute(row) for row in range(size)])``, where every row's value is an array (or a
    number) of one shape and dtype; otherwise (a row of its own shape, a tuple) `SelectedSideError`,
    which sends the call to vmap's loop over the examples (api/vmap.py), the same numbers."""
    rows = [compute(row) for row in range(size)]
    first = rows[0] if rows else None
    arrays = all(isinstance(r, (np.ndarray, np.generic, float, int)) and not isinstance(r, bool) for r in rows)
    if not rows or not arrays or len({(np.shape(r), np.asarray(r).dtype) for r in rows}) != 1:
        raise SelectedSideError(f"{where}: this call's value, computed row by row, is not an array of one shape "
                                "and dtype for every example", hint="call the function once per example")
    if isinstance(first, (float, int)):
        return np.array(rows)
    return np.stack(rows)


def each_row_parts(compute, size: int, where: str) -> tuple:
    """The tuple `compute` gives each row (``np.linalg.lstsq``'s solution, residuals, rank and singular
    values), each part stacked over the rows as `each_row` stacks a value; parts that differ in shape
    between rows (lstsq's residuals, empty where a row's matrix is rank deficient) raise
    `SelectedSideError`: vmap's loop over the examples, the same numbers."""
    rows = [compute(row) for row in range(size)]
    if not rows or not all(isinstance(r, tuple) and len(r) == len(rows[0]) for r in rows):
        raise SelectedSideError(f"{where}: this call's value, computed row by row, is not a tuple of one length "
                                "for every example", hint="call the function once per example")
    return tuple(each_row(lambda row, k=k: rows[row][k], size, where) for k in range(len(rows[0])))


def math_rows(func, *args):
    """``func(*args)`` of a `math` function NumPy has no ufunc of (``math.erf``), each element of the
    batched operands as one example passes it, in the dtype NumPy's ufuncs give (float32 rows stay
    float32, as ``np.sin`` keeps them).  A domain error (``math.lgamma(0.0)``, on a side of a branch
    some rows do not take) raises `SelectedSideError`: vmap's loop over the examples, the same numbers."""
    arrays = [np.asarray(a) for a in args]
    dtype = np.result_type(*[a.dtype if a.dtype.kind == "f" else np.float64 for a in arrays])
    try:
        out = np.vectorize(func, otypes=[np.float64])(*arrays)
    except (ValueError, OverflowError) as exc:
        raise SelectedSideError(f"math.{func.__name__} of a batched number: {exc}",
                                hint="call the function once per example") from None
    return out.astype(dtype, copy=False)


HELPERS = {"each_row": each_row, "each_row_parts": each_row_parts, "math_rows": math_rows}

__all__ = ["HELPERS", "each_row", "each_row_parts", "math_rows"]
