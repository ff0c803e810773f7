"""What batched code calls to join the two sides of a branch whose test differs between rows
(ad/batching_selects.py)."""

from __future__ import annotations

import numpy as np

from ..errors import SelectedSideError


def branch_rows(test, then, orelse, then_rows: bool, orelse_rows: bool):
    """Each row's value of the side its own `test` took: `then` where it holds, else `orelse`.  The
    sides' values must have one shape a row and one kind of number (else the loop over the examples
    would not give these numbers: `SelectedSideError`, and vmap runs the call one example at a time)."""
    test, then, orelse = np.asarray(test), np.asarray(then), np.asarray(orelse)
    then_row = then.shape[1:] if then_rows else then.shape
    orelse_row = orelse.shape[1:] if orelse_rows else orelse.shape
    if test.ndim != 1 or then_row != orelse_row or then.dtype.kind != orelse.dtype.kind \
            or then.dtype.kind not in "biufc":
        raise SelectedSideError(
            "the two sides of a branch whose test differs between examples give values of other shapes or "
            f"kinds ({then.dtype}{list(then_row)}, {orelse.dtype}{list(orelse_row)})",
            hint="give a value of one shape on both sides, or call the function once per example")
    if not then_rows:
        then = then[None]
    if not orelse_rows:
        orelse = orelse[None]
    return np.where(test.astype(bool).reshape(test.shape + (1,) * len(then_row)), then, orelse)


__all__ = ["branch_rows"]
