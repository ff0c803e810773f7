"""numba's versions of rules/kinks.py's helpers: ``held_still``, the tangent forward mode
gives an operand of a primitive whose slope can be infinite (``np.sqrt``, ``np.log`` at 0), an
exact 0 where the operand's tangent is 0 (a clamped or masked operand), not 0 * inf = NaN; and
the helpers a derivable gradient calls at a kink or a tie (``kink``, ``tie``, ``kink_nan``,
``tie_nan``: the norm of zeros, ``np.abs``/``np.maximum`` at a tie), which a Hessian, a
``jvp`` of a gradient or a Jacobian of one runs.  ``kink_nan`` over groups (``axis``) has no
version: numba refuses it at its line.

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


def _one_number(t) -> bool:
    """A number, or a 0-d array (an adjoint of a number the gradient's code keeps as an array)."""
    return _number(t) or isinstance(t, types.Array) and t.ndim == 0


@overload(held_still)
def _held_still(contribution, direction):
    if _number(contribution) and _one_number(direction):
        return lambda contribution, direction: \
            contribution if np.isfinite(contribution) or np.sum(direction) != 0 else 0.0
    if not isinstance(contribution, types.Array):
        return None
    if _one_number(direction):
        def by_number(contribution, direction):
            if np.sum(direction) != 0 or np.isfinite(np.sum(contribution)):
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


def kink(condition, value, x, y=0.0, axis=()):
    return python.kink(condition, value, x, y, axis)


def tie(condition, value, x, y=0.0, persist=False):
    return python.tie(condition, value, x, y, persist)


def kink_nan(condition, direction, axis=()):
    return python.kink_nan(condition, direction, axis)


def tie_nan(condition, persist, direction, value=1.0):
    return python.tie_nan(condition, persist, direction, value)


def tie_still_nan(condition, persist, direction, value):
    return python.tie_still_nan(condition, persist, direction, value)


def tied(value, condition, x, y=0.0, persist=False):
    return value


@overload(tied)
def _tied(value, condition, x, y=0.0, persist=False):
    return lambda value, condition, x, y=0.0, persist=False: value


@overload(kink)
def _kink(condition, value, x, y=0.0, axis=()):
    if _number(condition) and _number(value):
        return lambda condition, value, x, y=0.0, axis=(): 0.0 if condition else value
    return lambda condition, value, x, y=0.0, axis=(): np.where(condition, 0.0, value)


@overload(tie)
def _tie(condition, value, x, y=0.0, persist=False):
    if _number(condition) and _number(value):
        return lambda condition, value, x, y=0.0, persist=False: 0.5 * value if condition else value
    return lambda condition, value, x, y=0.0, persist=False: np.where(condition, 0.5 * value, value)


def _no_groups(axis) -> bool:
    return axis is None or axis == () or isinstance(axis, (types.Omitted, types.NoneType)) or \
        (isinstance(axis, types.BaseTuple) and len(axis) == 0)


@overload(kink_nan)
def _kink_nan(condition, direction, axis=()):
    if not _no_groups(axis):
        return None
    if _number(condition) and _number(direction):
        return lambda condition, direction, axis=(): np.nan if condition else 0.0
    if isinstance(direction, types.Array):
        return lambda condition, direction, axis=(): np.where(condition, np.nan, np.zeros(direction.shape))
    return lambda condition, direction, axis=(): np.where(condition, np.nan, 0.0)


@overload(tie_nan)
def _tie_nan(condition, persist, direction, value=1.0):
    # NaN where the tie holds, does not persist and its share is not 0 (rules/kinks.py)
    if _number(condition) and _number(persist) and _number(value):
        return lambda condition, persist, direction, value=1.0: \
            kink_nan(condition and not persist and value != 0, direction)
    if _number(persist):
        return lambda condition, persist, direction, value=1.0: \
            kink_nan(np.logical_and(np.logical_and(condition, not persist), value != 0), direction)
    return lambda condition, persist, direction, value=1.0: \
        kink_nan(np.logical_and(np.logical_and(condition, np.logical_not(persist)), value != 0), direction)


@overload(tie_still_nan)
def _tie_still_nan(condition, persist, direction, value):
    # NaN where the tie holds, does not persist, its share is 0 and moves (rules/kinks.py)
    if _number(condition) and _number(persist) and _number(value) and _number(direction):
        return lambda condition, persist, direction, value: \
            kink_nan(condition and not persist and value == 0 and direction != 0, direction)
    if _number(persist):
        return lambda condition, persist, direction, value: kink_nan(np.logical_and(
            np.logical_and(np.logical_and(condition, not persist), value == 0), direction != 0), direction)
    return lambda condition, persist, direction, value: kink_nan(np.logical_and(np.logical_and(
        np.logical_and(condition, np.logical_not(persist)), value == 0), direction != 0), direction)


HELPERS = ("held_still", "kink", "tie", "tied", "kink_nan", "tie_nan", "tie_still_nan")

__all__ = [*HELPERS]
