"""``np.bincount(idx, weights=w)``: sums of weights by bin, differentiated in the weights.

The indices are whole numbers (no gradient); bin ``k`` sums the weights whose index is ``k``, so
each weight's gradient is its bin's: ``g[idx]``.  Without weights the counts carry no gradient.
"""

import numpy as np

from ..ir import shapes
from .table import rule

ONE_DIM = shapes.Shape((shapes.UNKNOWN_DIM,))

RULES = [
    rule(np.bincount, ("x", "weights"), {"weights": "np.take(g, x)"},
         static={"minlength": 0}, defaults={"weights": None}, fresh=True, array_result=True,
         shape=lambda static, x, weights: ONE_DIM,
         tangents={"weights": "np.bincount(x, weights=weights_dot, minlength=minlength)"},
         note="gradient to the weights (each its bin's); the indices are whole numbers",
         not_symbolic="sums by whole-number bins: sympy has no counterpart (checked against central differences)"),
]
