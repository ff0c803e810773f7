"""numba versions of the helpers of a guarded point (rules/guard_helpers.py):
``point_guard`` is the identity, ``guard_nan(condition, direction)`` NaN where the condition
holds and the direction is not zero, 0.0 elsewhere, in the direction's dtype; ``measure_guard``
is the identity and ``measure_nan``/``measure_nan_dot`` its NaN (lower/measure_guards.py), for
a guard and a direction of the same shape or one of them a number."""

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


def measure_guard(value, bad, d, every):
    return guard_helpers.measure_guard(value, bad, d, every)


def measure_nan(bad, d, every):
    return guard_helpers.measure_nan(bad, d, every)


def measure_nan_dot(bad, direction, like, every):
    return guard_helpers.measure_nan_dot(bad, direction, like, every)


@overload(measure_guard)
def _measure_guard(value, bad, d, every):
    return lambda value, bad, d, every: value


def _flat(x):
    return x


@overload(_flat)
def _flat_impl(x):
    if _array(x):
        return lambda x: np.ascontiguousarray(x).reshape(-1)
    return lambda x: np.full(1, x)


@overload(measure_nan)
def _measure_nan(bad, d, every):
    def nan_like_d(bad, d, every):
        held = _flat(bad)
        out = np.zeros(d.shape, d.dtype)
        flat = out.reshape(-1)
        if every or flat.size != held.size:
            if held.any():
                flat[:] = np.nan
        else:
            for i in range(held.size):
                if held[i]:
                    flat[i] = np.nan
        return out
    if _array(d):
        return nan_like_d
    if _array(bad):  # (d a number)
        return lambda bad, d, every: np.nan if bad.any() else 0.0
    return lambda bad, d, every: np.nan if bad else 0.0


@overload(measure_nan_dot)
def _measure_nan_dot(bad, direction, like, every):
    def nan_like(bad, direction, like, every):
        held, moved = _flat(bad), _flat(direction)
        anywhere = (moved != 0).any()
        out = np.zeros(max(held.size, _flat(like).size), np.float64)
        for i in range(out.size):
            j = i if held.size == out.size else 0
            step = anywhere if every or moved.size != held.size else moved[j] != 0
            if held[j] and step:
                out[i] = np.nan
        return out
    if _array(like):
        return lambda bad, direction, like, every: nan_like(bad, direction, like, every).reshape(like.shape)
    if _array(bad):
        return lambda bad, direction, like, every: nan_like(bad, direction, like, every).reshape(bad.shape)
    return lambda bad, direction, like, every: nan_like(bad, direction, like, every)[0]


HELPERS = ("point_guard", "guard_nan", "measure_guard", "measure_nan", "measure_nan_dot")
