"""Python's arithmetic operators.  In every rule, ``g`` is the adjoint of ``ans = x op y``.

Python's operators work on sympy values (and object arrays of them) as they are, so each is
its own sympy counterpart.
"""

import operator

from ..ir import shapes
from .table import FORMS, LINEAR, binary, rule, unary


def matmul_templates(static, operand_shapes):
    """``x @ y``'s adjoints, by the operands' ndim (``np.dot`` of matrices shares them)."""
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


def matmul_shape(static, x, y):
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

#: The product rule, in the order it is written: ``x_dot * y + x * y_dot``.
PRODUCT = {"x": "x_dot * y", "y": "x * y_dot"}

POW_X = "g * y * x ** (y - 1 + (y == 0))"
#: `Rule.zero_factors`: x * y is 0 whatever x where y is 0 (and the other way round); x / y is
#: 0 whatever y where x is 0
FACTORS = {"x": "y", "y": "x"}
NUMERATOR = {"y": "x"}
POW_Y = "g * ans * np.log(x + (ans == 0))"

RULES = [
    # ---- arithmetic ----
    binary(operator.add,     x="g",                     y="g",                     sympy="operator.add"),
    binary(operator.sub,     x="g",                     y="-g",                    sympy="operator.sub"),
    binary(operator.mul,     x="g * y",                 y="g * x",                 sympy="operator.mul",
           tangents=PRODUCT, zero_factors=FACTORS),
    binary(operator.truediv, x="g / y",                 y="-g * ans / y",          sympy="operator.truediv",
           zero_factors=NUMERATOR),
    # exact at special points: (y == 0) keeps x ** 0's derivative 0 at x = 0 (never 0 * inf),
    # (ans == 0) keeps 0 ** y's derivative in y 0 (never 0 * log 0)
    binary(operator.pow,     x=POW_X,                   y=POW_Y,                   sympy="operator.pow",
           singular=("x",)),
    unary(operator.neg,      x="-g",                                               sympy="operator.neg"),
    unary(operator.pos,      x="g",                                                sympy="operator.pos"),
    # ---- linear algebra ----
    rule(operator.matmul, ("x", "y"), matmul_templates, shape=matmul_shape, fresh=True, sympy="operator.matmul",
         tangents={"x": "x_dot @ y", "y": "x @ y_dot"}, batching="matmul"),
    # a view of x
    rule(TRANSPOSE_ATTRIBUTE, ("x",), _transpose_attribute_templates, name="ndarray.T", shape=_transpose_shape,
         tangents=LINEAR, batching="transpose", sympy=FORMS + "transpose"),
]
