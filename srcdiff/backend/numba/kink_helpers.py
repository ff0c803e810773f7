"""numba's version of rules/kinks.py's ``held_still``: the tangent forward mode gives an
operand of a primitive whose slope can be infinite (``np.sqrt``, ``np.log`` at 0), an exact 0
where the operand's tangent is 0 (a clamped or masked operand), not 0 * inf = NaN.

As in Python, all-finite contributions (one sum tells) are returned as they are.  Where some
are not, the selection is made element by element when the contribution and the tangent
have one shape, or the tangent is one number; a tangent that broadcasts otherwise raises, and
the Python code then runs to compute it (backend/jit.py).  A number's contribution with an
array's tangent (a value whose kind depends on the values) has no version: numba refuses it
at its line.
"""

from __future__ import annotations

import numpy as np
from numba import types

from ...rules import kinks as python
from .naming import overload


def held_still(contribution, direction):
    return python.held_still(contribution, direction)


def _number(t) -> bool:
    return isinstance(t, (types.Number, types.Boolean))


@overload(held_still)
def _held_still(contribution, direction):
    if _number(contribution) and _number(direction):
        return lambda contribution, direction: contribution if np.isfinite(contribution) or direction != 0 else 0.0
    if not isinstance(contribution, types.Array):
        return None
    if _number(direction):
        def by_number(contribution, direction):
            if direction != 0 or np.isfinite(np.sum(contribution)):
                return contribution
            return np.zeros(contribution.shape, contribution.dtype)
        return by_number
    if not isinstance(direction, types.Array):
        return None

    def by_element(contribution, direction):
        if np.isfinite(np.sum(contribution)):
            return contribution
        if direction.shape != contribution.shape:
            raise ValueError("held_still: a tangent that broadcasts against the contribution")
        return np.where(direction == 0, np.zeros(contribution.shape, contribution.dtype), contribution)
    return by_element


HELPERS = ("held_still",)

__all__ = [*HELPERS]
