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


HELPERS = {"each_row": each_row}

__all__ = ["HELPERS", "each_row"]
