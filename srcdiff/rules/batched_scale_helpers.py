"""What batched rows whose elementwise chains were folded into row-sized factors call
(ad/batched_scales.py)."""

from __future__ import annotations

import numpy as np


def scales_hold(bases, ties) -> bool:
    """Whether the folded statements give the rows the statements as they were give: every
    base is finite (a NaN or inf in one would meet a factor 0 where a mask gave 0: one sum
    tells, and a sum that overflows takes the other branch, which is exact too), and no element
    of a tie whose share's derivative reads its direction (``tie_still_nan``) is tied."""
    for base in bases:
        if not np.isfinite(np.sum(base)):
            return False
    for tied in ties:
        if np.any(tied):
            return False
    return True


def select_scale(condition, scale, base, whole=False):
    """The factor of ``select_rows(condition, base * scale, False, True, n, whole)``: its
    selection read on one row, whose shape is a row of `base` broadcast with `scale`'s."""
    condition = np.asarray(condition)
    if condition.ndim == 0:
        return np.where(condition, scale, 0.0)
    if whole or condition.shape != np.broadcast_shapes(np.shape(base)[1:], np.shape(scale)):
        return scale
    return np.where(condition, scale, 0.0)


HELPERS = {f.__name__: f for f in (scales_hold, select_scale)}

__all__ = ["HELPERS", "scales_hold", "select_scale"]
