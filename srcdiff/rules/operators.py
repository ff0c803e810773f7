"""Python's arithmetic operators.  In every rule, ``g`` is the adjoint of ``ans = x op y``."""

import operator

from ..ir import shapes
from .table import binary, rule, unary


def _matmul_templates(static, operand_shapes):
    nx, ny = operand_shapes["x"].ndim, operand_shapes["y"].ndim
    if nx == 2 and ny == 2:
        return {"x": "g @ y.T", "y": "x.T @ g"}
    if nx == 2 and ny == 1:
        return {"x": "np.outer(g, y)", "y": "x.T @ g"}
    if nx == 1 and ny == 2:
        return {"x": "y @ g", "y": "np.outer(x, g)"}
    if nx == 1 and ny == 1:
        return {"x": "g * y", "y": "g * x"}
    return {"x": "matmul_adjoint_x(g, x, y)", "y": "matmul_adjoint_y(g, x, y)"}


def _matmul_shape(static, x, y):
    return shapes.matmul(x, y)


def _transpose_attribute_templates(static, operand_shapes):
    ndim = operand_shapes["x"].ndim
    if ndim is not None and ndim <= 1:  # .T of a 0-d or 1-d array is the array itself
        return {"x": "g"}
    return {"x": "g.T" if ndim == 2 else "np.transpose(g)"}


def _transpose_shape(static, x):
    return shapes.transpose(x)


#: Stands for the `.T` attribute of arrays, which has no function object of its own.
TRANSPOSE_ATTRIBUTE = operator.attrgetter("T")

RULES = [
    # ---- arithmetic ----
    binary(operator.add,     x="g",                     y="g"),
    binary(operator.sub,     x="g",                     y="-g"),
    binary(operator.mul,     x="g * y",                 y="g * x"),
    binary(operator.truediv, x="g / y",                 y="-g * ans / y"),
    binary(operator.pow,     x="g * y * x ** (y - 1)",  y="g * ans * np.log(x)"),
    unary(operator.neg,      x="-g"),
    unary(operator.pos,      x="g"),
    # ---- linear algebra ----
    rule(operator.matmul, ("x", "y"), _matmul_templates, shape=_matmul_shape),
    rule(TRANSPOSE_ATTRIBUTE, ("x",), _transpose_attribute_templates, name="ndarray.T", shape=_transpose_shape),
]
