"""numba versions of the helpers of a guarded point (rules/guard_helpers.py):
``point_guard`` is the identity, ``guard_nan(condition, direction)`` NaN where the condition
holds and the direction is not zero, 0.0 elsewhere, in the direction's dtype."""

from __future__ import annotations

import numpy as np
from numba import types

from ...rules import guard_helpers
from .naming import overload


def point_guard(value, u, c):
    return guard_helpers.point_guard(value, u, c)


def guard_nan(condition, direction):
    return guard_helpers.guard_nan(condition, direction)


@overload(point_guard)
def _point_guard(value, u, c):
    return lambda value, u, c: value


def _array(t) -> bool:
    return isinstance(t, types.Array) and t.ndim > 0


@overload(guard_nan)
def _guard_nan(condition, direction):
    if not _array(condition) and not _array(direction):
        return lambda condition, direction: np.nan if condition and direction != 0 else 0.0
    if _array(direction) and not _array(condition):
        def along(condition, direction):
            out = np.zeros(direction.shape, direction.dtype)
            if condition:
                flat, moved = out.reshape(-1), np.ascontiguousarray(direction).reshape(-1)
                for i in range(flat.size):
                    if moved[i] != 0:
                        flat[i] = np.nan
            return out
        return along
    if _array(condition) and not _array(direction):
        def at(condition, direction):
            out = np.zeros(condition.shape, np.float64)
            if direction != 0:
                flat, held = out.reshape(-1), np.ascontiguousarray(condition).reshape(-1)
                for i in range(flat.size):
                    if held[i]:
                        flat[i] = np.nan
            return out
        return at
    if condition.ndim == direction.ndim:
        def both(condition, direction):
            if condition.shape != direction.shape:
                raise ValueError("guard_nan: the condition and the direction differ in shape")
            out = np.zeros(direction.shape, direction.dtype)
            flat = out.reshape(-1)
            held = np.ascontiguousarray(condition).reshape(-1)
            moved = np.ascontiguousarray(direction).reshape(-1)
            for i in range(flat.size):
                if held[i] and moved[i] != 0:
                    flat[i] = np.nan
            return out
        return both
    return None


HELPERS = ("point_guard", "guard_nan")
