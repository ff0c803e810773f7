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
    dtype = _floating(direction)
    picked = np.where(flags, dtype.type(np.nan), dtype.type(0.0))
    return picked if np.ndim(picked) else picked[()]


def measure_guard(value, bad, d, every):
    """`value` itself: a result of ``np.where(n > 0, a, b)`` (or ``if n > 0:``) where `n` measures
    several values `d` at once (``np.linalg.norm(d)``, ``np.hypot(dx, dy)``) and `bad` says where
    the guard holds and its own branch is not known to be the function there (lower/
    measure_guards.py).  Its rule makes the derivative NaN there for directions that move `d`
    (all of `d` when `every`, `n` measuring all of it; else element by element)."""
    return value


def _floating(direction) -> np.dtype:
    dtype = np.asarray(direction).dtype
    return dtype if np.issubdtype(dtype, np.floating) else np.dtype(np.float64)


def _fit(flags, shape) -> np.ndarray:
    """`flags` made `shape`: any() over what broadcasting added, repeated where it broadcasts."""
    flags = np.asarray(flags)
    while flags.ndim > len(shape):
        flags = flags.any(axis=0)
    axes = tuple(i for i, (f, s) in enumerate(zip(flags.shape, shape)) if s == 1 and f != 1)
    return np.broadcast_to(flags.any(axis=axes, keepdims=True) if axes else flags, shape)


def measure_nan(bad, d, every):
    """`d`'s share of `measure_guard`'s adjoint: NaN where `bad` holds (anywhere, when `every`),
    0.0 elsewhere, shaped like `d`.  Whatever the cotangent: one that is 0 at the point may be
    a factor the continuation makes up for (Rodrigues' ``sin(theta) * skew(w / theta)``)."""
    flags = np.asarray(bad)
    shape, dtype = np.shape(d), _floating(d)
    picked = np.full(shape, np.nan if flags.any() else 0.0, dtype) if every else \
        np.where(_fit(flags, shape), dtype.type(np.nan), dtype.type(0.0))
    return picked if np.ndim(picked) else picked[()]


def measure_nan_dot(bad, direction, like, every):
    """`measure_guard`'s tangent through `d`: NaN where `bad` holds and the tangent `direction`
    moves `d` (anywhere, when `every`), 0.0 elsewhere, shaped like `bad` and the guarded value
    `like` broadcast together."""
    moved = np.asarray(direction) != 0
    flags = np.asarray(bad) & (moved.any() if every else moved)
    dtype = _floating(direction)
    picked = np.where(np.broadcast_to(flags, np.broadcast_shapes(flags.shape, np.shape(like))),
                      dtype.type(np.nan), dtype.type(0.0))
    return picked if np.ndim(picked) else picked[()]


def computed_for_errors(value):
    """Nothing: `value` was computed only because f raises computing it where its operands do
    not fit (``np.linalg.solve(A, w)`` with an unused result): the derivative raises there
    too (ad/forward.py).  An effect, so the optimiser keeps the computation."""
    return None


GUARD_HELPERS = {"point_guard": point_guard, "guard_nan": guard_nan, "measure_guard": measure_guard,
                 "measure_nan": measure_nan, "measure_nan_dot": measure_nan_dot,
                 "computed_for_errors": computed_for_errors}
