"""``np.bincount(idx, weights=w)``: sums of weights by bin, differentiated in the weights.

The indices are whole numbers (no gradient); bin ``k`` sums the weights whose index is ``k``, so
each weight's gradient is its bin's: ``g[idx]``.  Without weights the counts carry no gradient.
``minlength`` is an operand with no gradient (a whole number), so it may be computed in the function
(``minlength=H.shape[0]``).
"""

import numpy as np

from ..ir import shapes
from .table import rule

ONE_DIM = shapes.Shape((shapes.UNKNOWN_DIM,))

RULES = [
    rule(np.bincount, ("x", "weights", "minlength"), {"weights": "np.take(g, x)"},
         defaults={"weights": None, "minlength": 0}, fresh=True, array_result=True,
         shape=lambda static, x, weights, minlength: ONE_DIM,
         tangents={"weights": "np.bincount(x, weights=weights_dot, minlength=minlength)"},
         note="gradient to the weights (each its bin's); the indices are whole numbers; minlength may be computed",
         not_symbolic="sums by whole-number bins: sympy has no counterpart (checked against central differences)"),
]
