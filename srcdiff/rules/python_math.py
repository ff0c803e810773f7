"""The `math` module: Python floats in, Python floats out, so adjoints stay on `math` too."""

import math

from ..ir import shapes
from .table import rule


def _float(static, *operands):
    return shapes.SCALAR


def scalar(func, x: str, sympy: str | None = None):
    """A `math` function of one float: no broadcasting, and the result is a (fresh) float."""
    return rule(func, ("x",), {"x": x}, shape=_float, float_result=True, fresh=True, sympy=sympy)


RULES = [
    scalar(math.sin,  x="g * math.cos(x)",        sympy="sympy.sin"),
    scalar(math.cos,  x="-g * math.sin(x)",       sympy="sympy.cos"),
    scalar(math.tan,  x="g * (1.0 + ans * ans)",  sympy="sympy.tan"),
    scalar(math.exp,  x="g * ans",                sympy="sympy.exp"),
    scalar(math.log,  x="g / x",                  sympy="sympy.log"),
    scalar(math.sqrt, x="g / (2.0 * ans)",        sympy="sympy.sqrt"),
    scalar(math.tanh, x="g * (1.0 - ans * ans)",  sympy="sympy.tanh"),
]
