"""Batched code that runs both sides of a branch whose test differs between examples
(ad/batching_selects.py), run so that a side a row does not take cannot change what vmap returns."""

from __future__ import annotations

import functools

import numpy as np

from ..errors import SelectedSideError, SrcDiffError


def selects(made) -> bool:
    """Whether the batched code `made` joins the sides of such a branch."""
    return "branch_rows(" in made.source


def guarded(run):
    """`run` without NumPy's warnings of values a row's untaken side makes (a log of a negative number,
    a division by zero: never returned) and with any error raised as `SelectedSideError` (the side
    that raised may be one a row does not take: vmap then runs the call one example at a time, which
    raises the error again where it is the user's)."""
    @functools.wraps(run)
    def run_selected(*args):
        with np.errstate(all="ignore"):
            try:
                return run(*args)
            except SelectedSideError:
                raise
            except SrcDiffError as exc:  # (an error of generated code, raised again at the user's line)
                raise SelectedSideError(exc.reason, exc.location, exc.hint) from exc
            except Exception as exc:  # noqa: BLE001 - every error: the loop over the examples decides
                raise SelectedSideError(
                    f"the batched code runs both sides of a branch whose test differs between examples, and "
                    f"raised {type(exc).__name__}: {exc}", hint="call the function once per example") from exc
    return run_selected


__all__ = ["guarded", "selects"]
