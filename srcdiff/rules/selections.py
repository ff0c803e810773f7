"""Selections of an adjoint against an exact zero without a branch per element.

``np.where(c, g, 0.0)`` keeps `g` where `c` holds and gives an exact ``+0.0`` elsewhere, the
adjoint of a side of ``np.maximum``, ``np.abs`` or ``np.where`` that does not hold the value.
NumPy's loop branches on each element: on a condition that follows no pattern (the sign of a
residual) the branch is mispredicted half the time, and the selection costs five to ten times a
product.  The same bits come from an and of `g`'s bits with a mask of all ones where `c` holds:
passes that do not branch (backend/optimize/selections.py writes these calls)."""

from __future__ import annotations

import numpy as np


def keep_where(condition, value):
    """``np.where(condition, value, 0.0)``, bit for bit (NaN, -0.0 and inf kept where `condition`
    holds, +0.0 elsewhere), by a bit mask where both are arrays of one shape."""
    bits = _bits(condition, value)
    if bits is None:
        return np.where(condition, value, 0.0)
    # -1 (every bit set) where the condition holds, 0 elsewhere: negated as bytes, then widened (a
    # sign extension), one pass over the wide mask fewer than negating it widened
    mask = np.negative(condition.view(np.int8)).astype(bits)
    return np.bitwise_and(mask, value.view(bits), out=mask).view(value.dtype)


def zero_where(condition, value):
    """``np.where(condition, 0.0, value)``, bit for bit, by a bit mask where both are arrays of one shape."""
    bits = _bits(condition, value)
    if bits is None:
        return np.where(condition, 0.0, value)
    mask = np.subtract(condition.view(np.int8), np.int8(1)).astype(bits)  # -1 where the condition fails
    return np.bitwise_and(mask, value.view(bits), out=mask).view(value.dtype)


def _bits(condition, value):
    """The integer type of `value`'s width where the mask applies: a bool array and a float64 or
    float32 array of one shape, of 4096 elements at least (below, np.where's own loop, even
    mispredicted half the time, is faster than the mask's three passes and their calls: 1.4 µs
    against 2.7 µs on a gated cell's 16 x 48 state); else None (np.where itself).  (No module constants: srcdiff.export
    copies these functions into a module of their own.)"""
    if type(condition) is np.ndarray and type(value) is np.ndarray and condition.dtype == np.bool_ \
            and condition.shape == value.shape and value.size >= 4096:
        return np.int64 if value.dtype == np.float64 else np.int32 if value.dtype == np.float32 else None
    return None


SELECTION_HELPERS = {f.__name__: f for f in (keep_where, zero_where)}
