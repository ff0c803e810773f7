"""The helper a gradient calls where ``np.where`` singles out a point by an equality with a
number (``np.where(x == 0.0, 1.0, np.sin(s) / s)``); its rule is in point_guards.py."""

from __future__ import annotations

import numpy as np


def point_guard(value, u, c):
    """`value` itself: the result of a ``np.where`` whose condition is ``u == c`` (or ``u != c``)
    for a number `c` written in the code.  Its rule makes the derivative NaN where ``u == c``
    and a direction moves `u`: there the program defines its value separately, at one point,
    and the derivative depends on the continuation srcdiff cannot see (``np.sin(x) / x`` and
    ``np.expm1(x) / x`` guarded at 0 have the derivatives 0 and 1/2, the guard's constant 0)."""
    return value


def guard_nan(condition, direction):
    """NaN where `condition` holds and `direction` (the cotangent or tangent through the guard)
    is not 0, 0.0 elsewhere, shaped like both broadcast together, in `direction`'s floating
    dtype.  A direction that is 0 there keeps the point on its guarded set, whose own branch
    is then the exact derivative: unlike a kink (rules/kinks.py), a guard has no curvature."""
    direction = np.asarray(direction)
    flags = np.asarray(condition) & (direction != 0)
    dtype = direction.dtype if np.issubdtype(direction.dtype, np.floating) else np.dtype(np.float64)
    picked = np.where(flags, dtype.type(np.nan), dtype.type(0.0))
    return picked if np.ndim(picked) else picked[()]


def computed_for_errors(value):
    """Nothing: `value` was computed only because f raises computing it where its operands do
    not fit (``np.linalg.solve(A, w)`` with an unused result): the derivative raises there
    too (ad/forward.py).  An effect, so the optimiser keeps the computation."""
    return None


GUARD_HELPERS = {"point_guard": point_guard, "guard_nan": guard_nan, "computed_for_errors": computed_for_errors}
