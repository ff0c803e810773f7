"""Conversions that keep the values: the gradient passes through unchanged.

Only conversions to a floating dtype (or none) qualify; lowering refuses ``x.astype(int)``
and the like, whose gradient would be silently truncated.
"""

import numpy as np

from ..ir import shapes
from .table import FORMS, LINEAR, rule


def astype(x, dtype):
    """Stands for the method ``x.astype(dtype)``, which has no NumPy function of its own."""
    return x.astype(dtype)


def _array(static, x):
    return shapes.array(x)


def conversion(func, name=None, fresh=False, array_result=True, sympy=None):
    return rule(func, ("x",), {"x": "g"}, static={"dtype": None}, shape=_array, name=name, fresh=fresh,
                array_result=array_result, note="dtype must be floating (or left out)", tangents=LINEAR,
                batching="like", sympy=sympy)


RULES = [
    # ---- conversions: asarray and kin may return x itself; array and astype copy it ----
    # (fresh as called by default: whoever reads the fact checks for a ``copy=False``)
    conversion(np.asarray, sympy=FORMS + "asarray"),
    conversion(np.array, fresh=True, sympy=FORMS + "array"),
    conversion(np.asanyarray, sympy=FORMS + "asanyarray"),
    conversion(np.ascontiguousarray, sympy=FORMS + "ascontiguousarray"),
    conversion(astype, name="ndarray.astype", fresh=True, array_result=False,
               sympy=FORMS + "astype"),  # a NumPy number's is one
    rule(np.copy, ("x",), {"x": "g"}, shape=_array, fresh=True, array_result=True, tangents=LINEAR, batching="like",
         sympy="numpy.copy"),
] + ([conversion(np.astype, fresh=True, array_result=False, sympy=FORMS + "astype")]  # the array API's (NumPy 2.1)
      if hasattr(np, "astype") else [])

#: The functions whose ``dtype`` argument lowering checks before it accepts the call.
CONVERSIONS = {r.func for r in RULES if "dtype" in r.static}
