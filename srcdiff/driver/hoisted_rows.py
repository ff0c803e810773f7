"""Batched rows in chunks with the work no seed changes done once a call.

A Jacobian's or Hessian's rows are the batched code of a seeded gradient (driver/batched.py)
run over chunks of identity seeds, each chunk's temporaries kept in cache
(api/batched_rows.py).  Most of that code does not read the seeds: ``t1 = X @ W1``,
``h = np.tanh(t1 + b1)``, the gradient's own values.  Run whole, every chunk computes them
again (an MLP's Hessian of 500 rows: 16 chunks, each redoing the forward pass).  `HoistedRows`
splits the code the way numba's columns are split (backend/numba/hoisting.py):
``<name>_invariant(*params)`` runs once a call and returns those values,
``<name>_directed(*params, values, cotangent)`` runs per chunk.

It is an optimisation only: where nothing moves, the code runs whole; and the caller runs
the whole code again when the split code raises, so an error is the whole code's, located
at the user's line as before.
"""

from __future__ import annotations

from ..backend import loader
from ..backend.numba.hoisting import split_sweep
from ..ir import memo

#: a batched function -> its (invariant, directed) halves, or False where nothing moves: made
#: once per compiled function, however many calls (a call with trees takes the full path) ask
_SPLITS = memo.table(weak=True)


class HoistedRows:
    """The batched code of `made` (a batched `Variant` whose last parameter is the batch of
    seeds), called like its function; `split` gives its two halves."""

    __slots__ = ("made", "whole")

    def __init__(self, made):
        self.made, self.whole = made, made.function

    def __call__(self, *args):
        return self.whole(*args)

    def split(self) -> tuple | None:
        """``(invariant, directed)``: ``values = invariant(*params)``, then
        ``directed(*params, values, seeds)`` per chunk gives what ``whole(*params, seeds)``
        gives; None where nothing moves."""
        found = _SPLITS.get(self.whole)
        if found is None:
            found = _SPLITS[self.whole] = _split(self.made) or False
        return found or None


def _split(made) -> tuple | None:
    found = split_sweep(made.source, made.name, 1)
    if found is None:
        return None
    whole = made.function
    # the whole function's cells (template helpers, the user's closure): the halves read a part of them
    cells = dict(zip(whole.__code__.co_freevars, whole.__closure__ or ()))
    return tuple(loader.build_function(text, name, whole.__globals__, cells)
                 for name, text in zip((found.invariant, found.directed), found.texts))


__all__ = ["HoistedRows"]
