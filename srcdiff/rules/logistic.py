"""The logistic function (the sigmoid), as srcdiff lowers a sigmoid written out.

``1.0 / (1.0 + np.exp(-z))``, ``np.exp(z) / (1.0 + np.exp(z))`` and their spellings
(lower/logistic_forms.py) are lowered as one node of this function, whose value is the user's first
spelling (generated code prints it so: no helper call, and read back it is this node again) and whose
rule reads the derivative from the value, ``g * ans * (1.0 - ans)``, as SciPy's ``expit``'s does.

Lowered as written, the three operations ``e = np.exp(-z)``, ``d = 1.0 + e``, ``1.0 / d`` chain to
``s / d * e``, which is ``0 * inf = NaN`` where the sigmoid saturates (``z < -709``, -88 in float32,
and ``z = -inf``); the backward sweep's pass (backend/optimize/logistic.py) mends the first
derivative, not the derivatives of a derivative (a Hessian differentiates the gradient's ``(1.0 -
1.0 / d) / d``: ``inf / inf``).  Through `logistic` every transformation, at every order,
differentiates ``s * (1.0 - s)``: finite everywhere, 0 at saturation.  The function is NumPy only,
keeps float32 as float32 and a number a number; its rule is in generated_code.py.
"""

from __future__ import annotations

import numpy as np


def logistic(x):
    """The logistic function ``1 / (1 + e^-x)``, computed as written that way."""
    return 1.0 / (1.0 + np.exp(-x))
