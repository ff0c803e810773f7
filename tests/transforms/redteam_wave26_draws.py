"""The argument makers of the red team's twenty-sixth wave's programs (each takes a Generator and a shape)."""

from __future__ import annotations

import numpy as np


def M(r, *shape):
    """Standard normal float64 numbers."""
    return r.standard_normal(shape)


def F(r, *shape):
    """Standard normal float32 numbers."""
    return r.standard_normal(shape).astype(np.float32)


def P(r, *shape):
    """Positive float64 numbers in [0.5, 1.5)."""
    return r.uniform(0.5, 1.5, shape)
