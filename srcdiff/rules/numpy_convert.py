"""Conversions that keep the values: the gradient passes through unchanged.

Only conversions to a floating dtype (or none) qualify; lowering refuses ``x.astype(int)``
and the like, whose gradient would be silently truncated.
"""

import numpy as np

from ..ir import shapes
from .table import rule


def astype(x, dtype):
    """Stands for the method ``x.astype(dtype)``, which has no NumPy function of its own."""
    return x.astype(dtype)


def _array(static, x):
    return shapes.array(x)


def conversion(func, name=None):
    return rule(func, ("x",), {"x": "g"}, static={"dtype": None}, shape=_array, name=name,
                note="dtype must be floating (or left out)")


RULES = [
    # ---- conversions ----
    conversion(np.asarray),
    conversion(np.array),
    conversion(np.asanyarray),
    conversion(np.ascontiguousarray),
    conversion(astype, name="ndarray.astype"),
    rule(np.copy, ("x",), {"x": "g"}, shape=_array),
]

#: The functions whose ``dtype`` argument lowering checks before it accepts the call.
CONVERSIONS = {r.func for r in RULES if "dtype" in r.static}
