"""NumPy's elementwise functions, reductions and products."""

import numpy as np

from .. import shapes
from .operators import _matmul_shape, _matmul_templates
from .table import binary, rule, unary


def _reduce_shape(static, x):
    return shapes.reduce(x, static.get("axis"), static.get("keepdims", False))


def _spread(g: str, static) -> str:
    """`g`, reshaped so it broadcasts against the reduced operand `x`."""
    if static.get("axis") is None or static.get("keepdims"):
        return g
    return f"np.expand_dims({g}, axis)"


def _sum_templates(static, operand_shapes):
    return {"x": f"np.full(np.shape(x), {_spread('g', static)})"}


def _mean_templates(static, operand_shapes):
    if static.get("axis") is None:
        return {"x": "np.full(np.shape(x), g / np.size(x))"}
    return {"x": f"np.full(np.shape(x), {_spread('g', static)} * (np.size(ans) / np.size(x)))"}


REDUCE = {"axis": None, "keepdims": False}

RULES = [
    # ---- elementwise, one argument ----
    unary(np.sin,      x="g * np.cos(x)"),
    unary(np.cos,      x="-g * np.sin(x)"),
    unary(np.tan,      x="g * (1.0 + ans * ans)"),
    unary(np.exp,      x="g * ans"),
    unary(np.log,      x="g / x"),
    unary(np.sqrt,     x="g / (2.0 * ans)"),
    unary(np.tanh,     x="g * (1.0 - ans * ans)"),
    unary(np.absolute, x="g * np.sign(x)"),
    # ---- elementwise, two arguments (ties send the gradient to y: relu'(0) = 0) ----
    binary(np.maximum, x="g * (x > y)", y="g * (x <= y)"),
    # ---- reductions ----
    rule(np.sum,  ("x",), _sum_templates,  static=REDUCE, shape=_reduce_shape),
    rule(np.mean, ("x",), _mean_templates, static=REDUCE, shape=_reduce_shape),
    # ---- products ----
    rule(np.dot, ("x", "y"), _matmul_templates, shape=_matmul_shape),
]
