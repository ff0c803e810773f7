"""``np.zeros(np.shape(t))``, the zero adjoint the reverse pass writes for a value of a known
number of axes, as numba types `t`: a number's adjoint is the number ``0.0``.

srcdiff's shapes know that ``np.sum(x)`` has no axes, not that it is a number rather than a
0-d array, so the adjoint of a full reduction starts as ``np.zeros(np.shape(t))``.  numba
types ``np.sum`` of an array as a number and ``np.zeros(())`` as a 0-d array, and cannot join
the two where a branch adds a number to one (``Cannot unify array(float64, 0d, C) and
float64``: an early ``return`` of the reduction in one branch, of something else in another).
The values are the same: NumPy's 0-d array plus a number is a number.
"""

from __future__ import annotations

import numpy as np
from numba import types

from .naming import overload


def zeros_shaped(like):
    """Outside numba: NumPy's ``np.zeros(np.shape(like))``."""
    return np.zeros(np.shape(like))


@overload(zeros_shaped)
def _zeros_shaped(like):
    if isinstance(like, types.Optional):
        like = like.type
    if isinstance(like, (types.Number, types.Boolean)):
        return lambda like: 0.0
    if isinstance(like, types.Array):
        return lambda like: np.zeros(like.shape)
    return lambda like: np.zeros(np.shape(like))


def zeros_of_shape(shape):
    """Outside numba: NumPy's ``np.zeros(shape)``."""
    return np.zeros(shape)


@overload(zeros_of_shape)
def _zeros_of_shape(shape):
    """``t13 = np.shape(lam); lam_bar = np.zeros(t13)`` (forward mode over a gradient's code keeps the
    shape in a name of its own): the shape ``()`` is a number's, whose zero is ``0.0``, as zeros_shaped's."""
    if isinstance(shape, types.BaseTuple) and len(shape) == 0:
        return lambda shape: 0.0
    return lambda shape: np.zeros(shape)


HELPERS = ("zeros_shaped", "zeros_of_shape")
