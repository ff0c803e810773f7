"""The helpers a derivable gradient calls at a kink: a first derivative's subgradient 0 at a
0 / 0 (the norm, hypot or std of zeros), whose own derivative is NaN there (the primitive has
no second derivative), never a silent 0; and a tie's half share (`tie`: maximum, minimum, clip
and abs at a tie), whose own derivative is NaN there too (0 where srcdiff proves that the tie
persists near the point: ad/ties.py).  Their rules are in generated_code.py."""

from __future__ import annotations

import numpy as np


def kink(condition, value, x, y=0.0, axis=()):
    """`value` where `condition` is False, an exact 0.0 where it holds: a first derivative at
    the points where the primitive's is a 0 / 0 that srcdiff takes as the subgradient 0 (the
    norm, hypot or std of zeros).  `x` and `y` are the primitive's operands and `axis` the
    groups it reduces over (``()``: each element alone): the derivative of a kink is NaN in
    every kinked group (`kink_nan`), because the primitive has no second derivative there, and
    0 would be silently wrong."""
    picked = np.where(condition, 0.0, value)
    return picked if isinstance(value, np.ndarray) or np.ndim(picked) else picked[()]


_FLAGS = (bool, np.bool_)
_NUMBERS = (float, np.float64, np.float32)
_NAN = float("nan")


def kink_nan(condition, direction, axis=()):
    """NaN in the groups (over `axis`) where `condition` holds, 0.0 elsewhere, shaped like
    `direction` broadcast against `condition`, in its floating dtype.  `direction` (the
    tangent or cotangent of the kinked operand) is read for its shape and dtype only: a
    direction that is 0 at the kink does not make the derivative there 0, because an operand
    can be stationary at the kink and still curved (``np.maximum(x * x, 0)`` at x = 0: the
    tangent of ``x * x`` is 0, the share still jumps, and the Hessian 2 is not the shares' 1)."""
    if type(condition) in _FLAGS and type(direction) in _NUMBERS:  # (a number's: no array made, same dtype)
        return type(direction)(_NAN if condition else 0.0)
    direction = np.asarray(direction)
    flags = np.asarray(condition)
    if axis != ():
        flags = np.any(flags, axis=axis, keepdims=True)
    shape = np.broadcast_shapes(np.shape(flags), np.shape(direction))
    dtype = direction.dtype  # the direction's floating dtype (float32 stays float32)
    dtype = dtype if np.issubdtype(dtype, np.floating) else np.dtype(np.float64)
    picked = np.where(np.broadcast_to(flags, shape), dtype.type(np.nan), dtype.type(0.0))
    return picked if shape else picked[()]


def any_equal(x, y, like=None) -> bool:
    """Whether some element of `x` equals `y`'s: the test of a tie's rare case
    (backend/optimize/tie_shares.py), whose branch keeps the half shares and is exact
    everywhere; the other branch is that one simplified where nothing is tied.  (The ufunc
    gives an array or a NumPy bool even of two Python numbers; its method skips np.any's
    dispatch.)  With `like` (the gradient the share halves), also where `x` and `y` broadcast
    past its shape (the share would be of theirs).  On symbols the test is true: srcdiff.check
    reads the branch exact everywhere."""
    if like is not None and not _within(x, y, like):
        return True
    equal = np.equal(x, y)
    # (a count of a bool array's Trues reads it at memory speed; ``any`` stops early only where
    # something ties, which is the rare case)
    return np.count_nonzero(equal) != 0 if type(equal) is np.ndarray and equal.dtype == np.bool_ else equal.any()


def _within(x, y, like) -> bool:
    """Whether `x` and `y` broadcast together to no more than `like`'s shape.  (The usual guard,
    an array of `like`'s shape against a number, is answered without np.broadcast_shapes, which
    costs as much as the test of the tie itself on ten thousand elements.)"""
    shape = np.shape(like)
    x_shape = x.shape if type(x) is np.ndarray else np.shape(x)
    y_shape = () if type(y) is float else np.shape(y)
    if x_shape in ((), shape) and y_shape in ((), shape):
        return True
    return np.broadcast_shapes(x_shape, y_shape, shape) == shape


def tie(condition, value, x, y=0.0, persist=False):
    """`value` where `condition` is False, half of it where it holds: an operand's share of a
    first derivative at a tie (``np.maximum(x, y)`` at x == y gives each side half, as JAX and
    PyTorch do, so ``maximum(x, 0) + minimum(x, 0)``, = x, has the derivative 1 there).  The
    derivative of a share at a tie is NaN (its rule: `tie_nan`): the share jumps there, and no
    value would be right for every program; except where `persist` holds, where srcdiff has
    proved that `x` and `y` are the same function near the point (ad/ties.py: PPO's
    ``np.minimum(r * adv, np.clip(r, lo, hi) * adv)`` with r strictly inside the band), so the
    share is constant nearby and its derivative 0."""
    if type(value) is np.ndarray and type(condition) is np.ndarray and condition.shape == value.shape \
            and not condition.any():  # no element tied (the common case): `value`, a new array as np.where's
        return value.copy()  # (one pass where the halves and the selection made two: batched code keeps ties)
    picked = np.where(condition, 0.5 * value, value)
    return picked if isinstance(value, np.ndarray) or np.ndim(picked) else picked[()]


def tie_nan(condition, persist, direction, value=1.0):
    """The derivative of a tie's share: NaN where the tie `condition` holds and does not
    `persist` (`tie`), 0.0 elsewhere, shaped like `direction` broadcast against both, in its
    floating dtype (read for its shape and dtype only, as in `kink_nan`).  Where the share's
    `value` is 0 at the tie, nothing jumps (``tie(c, value, x, y)`` equals `value` on both sides
    of the tie and at it): the derivative there is 0, not NaN (a Hessian through
    ``np.clip(u @ u.T, -1, 1)`` whose diagonal sits on the bound, unused)."""
    flags = np.logical_and(np.logical_and(condition, np.logical_not(persist)), np.not_equal(value, 0))
    return kink_nan(flags, direction)


def tie_still_nan(condition, persist, direction, value):
    """The other half of `tie_nan`: where a tie holds (and does not `persist`) and its share's
    `value` is 0 there, the share is continuous (`tie_nan` is 0), but it is 0 on one side of the
    tie and `value` on the other, so it has no derivative unless `value` stands still: NaN where
    `direction` (the tangent or cotangent of `value`) is not 0, 0.0 elsewhere (``x *
    np.maximum(x, 0)`` at 0 has no second derivative; a share an unused ``np.triu`` entry
    leaves 0 has the derivative 0).  Shaped and typed as in `kink_nan`."""
    if type(direction) in _NUMBERS and type(value) in _NUMBERS and type(condition) in _FLAGS \
            and type(persist) in _FLAGS:
        # (numbers, as a scalar loop's tangents are: no array made and read back)
        return type(direction)(_NAN if condition and not persist and value == 0.0 and direction != 0.0 else 0.0)
    flags = np.logical_and(np.logical_and(condition, np.logical_not(persist)), np.equal(value, 0))
    return kink_nan(np.logical_and(flags, np.not_equal(direction, 0)), direction)


def tied(value, condition, x, y=0.0, persist=False):
    """`value` itself: the result of a kink or a tie (``np.maximum(x, y)``, ``np.clip``, ``np.abs``) in a
    gradient srcdiff differentiates again, whose own derivative does not exist where the tie
    `condition` holds (and does not `persist`) and an operand moves: its rule gives NaN there
    (`tie_still_nan` of each operand's tangent), so a gradient that reads the value (the ``x[1]``
    component of ``np.maximum(x[0], 0) * x[1]``, a hidden value carried through relu) has no silent
    one-sided or averaged derivative at the tie (ad/tied_values.py)."""
    return value


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
