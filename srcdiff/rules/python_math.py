"""The `math` module: Python floats in, Python floats out, so adjoints stay on `math` too."""

import math

from ..ir import shapes
from .table import rule


def _float(static, *operands):
    return shapes.SCALAR


def scalar(func, x: str):
    """A `math` function of one float: no broadcasting, and the result is a float."""
    return rule(func, ("x",), {"x": x}, shape=_float)


RULES = [
    scalar(math.sin,  x="g * math.cos(x)"),
    scalar(math.cos,  x="-g * math.sin(x)"),
    scalar(math.tan,  x="g * (1.0 + ans * ans)"),
    scalar(math.exp,  x="g * ans"),
    scalar(math.log,  x="g / x"),
    scalar(math.sqrt, x="g / (2.0 * ans)"),
    scalar(math.tanh, x="g * (1.0 - ans * ans)"),
]
