"""What numba takes of arrays only, or spelled NumPy's way only, for generated code:

* ``np.clip(a, lo, hi)`` of numbers (``np.clip(c, -1.0, 1.0)`` of a cosine) becomes
  ``clip_any(a, lo, hi)``, which is numba's ``np.clip`` for an array and the comparison of
  the numbers otherwise (a NaN stays NaN, as in NumPy);
* ``dtype=bool`` / ``int`` / ``float`` of an allocation (``np.ones((n, n), dtype=bool)``)
  becomes NumPy's type (``np.bool_``...), which numba reads.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types
from numba.extending import overload

from .arrays import made

ALLOCATIONS = ("ones", "zeros", "empty", "full", "ones_like", "zeros_like", "empty_like", "full_like", "eye",
               "identity", "arange")
BUILTIN_TYPES = {"bool": "bool_", "int": "int64", "float": "float64"}


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``np.clip(a, lo, hi)`` as ``clip_any``; an allocation's builtin dtype rewritten in place."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"):
        return None
    if func.attr in ALLOCATIONS:
        for keyword in node.keywords:
            if keyword.arg == "dtype" and isinstance(keyword.value, ast.Name) and keyword.value.id in BUILTIN_TYPES:
                keyword.value = ast.Attribute(ast.Name("np", ast.Load()), BUILTIN_TYPES[keyword.value.id], ast.Load())
        return None
    if func.attr == "clip" and len(node.args) == 3 and not node.keywords:
        return "clip_any", list(node.args)
    return None


def clip_any(a, lo, hi):
    return np.clip(a, lo, hi)


def _number(t) -> bool:
    return isinstance(t, (types.Number, types.Boolean))


@overload(clip_any)
def _clip_any(a, lo, hi):
    if not (_number(a) and _number(lo) and _number(hi)):
        return lambda a, lo, hi: np.clip(a, lo, hi)
    dtype = np.result_type(*(np.dtype(str(t)) for t in (a, lo, hi)))
    return made("def impl(a, lo, hi):\n    if a < lo:\n        return CAST(lo)\n    if a > hi:\n"
                "        return CAST(hi)\n    return CAST(a)\n", CAST=dtype.type)


HELPERS = ("clip_any",)
