"""The helpers a derivable gradient calls at a kink: a first derivative's subgradient 0 at a
0 / 0 (the norm, hypot or std of zeros), whose own derivative is NaN there (the primitive has
no second derivative), never a silent 0; and a tie's half share (`tie`: maximum, minimum, clip
and abs at a tie), whose own derivative is NaN there too.  Their rules are in generated_code.py."""

from __future__ import annotations

import numpy as np


def kink(condition, value, x, y=0.0, axis=()):
    """`value` where `condition` is False, an exact 0.0 where it holds: a first derivative at
    the points where the primitive's is a 0 / 0 that srcdiff takes as the subgradient 0 (the
    norm, hypot or std of zeros).  `x` and `y` are the primitive's operands and `axis` the
    groups it reduces over (``()``: each element alone): the derivative of a kink along a
    direction that moves `x` or `y` inside a kinked group is NaN (`kink_nan`), because the
    primitive has no second derivative there, and 0 would be silently wrong."""
    picked = np.where(condition, 0.0, value)
    return picked if isinstance(value, np.ndarray) or np.ndim(picked) else picked[()]


def kink_nan(condition, direction, axis=()):
    """NaN in the groups (over `axis`) where `condition` holds and `direction` moves some
    element, 0.0 elsewhere, shaped like `direction` broadcast against `condition`."""
    moved = np.any(np.asarray(direction) != 0, axis=axis, keepdims=True)
    flags = np.asarray(condition) & moved
    shape = np.broadcast_shapes(np.shape(flags), np.shape(direction))
    dtype = np.asarray(direction).dtype  # the direction's floating dtype (float32 stays float32)
    dtype = dtype if np.issubdtype(dtype, np.floating) else np.dtype(np.float64)
    picked = np.where(np.broadcast_to(flags, shape), dtype.type(np.nan), dtype.type(0.0))
    return picked if shape else picked[()]


def tie(condition, value, x, y=0.0):
    """`value` where `condition` is False, half of it where it holds: an operand's share of a
    first derivative at a tie (``np.maximum(x, y)`` at x == y gives each side half, as JAX and
    PyTorch do, so ``maximum(x, 0) + minimum(x, 0)``, = x, has the derivative 1 there).  The
    derivative of a share along a direction that moves `x` or `y` at a tie is NaN (its rule:
    `kink_nan`): the share jumps there, and no value would be right for every program."""
    picked = np.where(condition, 0.5 * value, value)
    return picked if isinstance(value, np.ndarray) or np.ndim(picked) else picked[()]


def held_still(contribution, direction):
    """`contribution` where `direction` is not 0, an exact 0.0 where it is: an operand's
    tangent (`direction`) through a primitive whose slope can be infinite (``np.sqrt`` at 0,
    `Rule.singular`).  An operand a clamp or a mask holds still moves the result by nothing,
    not by 0 * inf = NaN.  Elsewhere `contribution` is direction * a finite slope, 0 where
    direction is, so when it is all finite (one sum tells) it is returned as it is: smooth
    code pays one reduction, not a comparison and a selection."""
    if np.isfinite(np.sum(contribution)):
        return contribution
    picked = np.where(np.asarray(direction) == 0, 0.0, contribution)
    return picked if isinstance(contribution, np.ndarray) or np.ndim(picked) else picked[()]
