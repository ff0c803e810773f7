"""Complex-number functions of REAL values, conversions to a number, and ``math.pow``.

srcdiff differentiates real values only.  On a real x, ``np.conjugate(x)`` and
``np.real_if_close(x)`` are x itself (their adjoints go through `real_part`, which refuses a
complex operand when the gradient runs), and ``np.imag(x)`` and ``np.angle(x)`` are constants.
``np.float64(x)``, ``x.item()`` and ``.tolist()`` of one number keep the value, so the
gradient passes through.
"""

import math

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from . import table
from .operators import POW_X
from .table import LINEAR

rule, nograd, unary = (table.numerically_checked(make) for make in (table.rule, table.nograd, table.unary))

REAL_NOTE = "real operands only (a complex one is refused when the gradient runs)"
CONSTANT_NOTE = "derivative 0: {} on real values (a complex operand that depends on x is refused)"
#: the derivative of np.imag / np.angle on a real x: zeros, once `real_part` has refused a complex x
ZERO_OF_REAL = "zeros_like(real_part(g, x))"
ZERO_TANGENT_OF_REAL = "zeros_like(real_part(x_dot, x))"


def item(x):
    """Stands for the method ``x.item()`` (one number of a size-1 array, as a Python number)."""
    return x.item()


def tolist(x):
    """Stands for the method ``x.tolist()``; only a 0-d value's (a Python number) has a rule."""
    return x.tolist()


def _number_templates(static, operand_shapes):
    x = operand_shapes["x"]
    if x.known and not x.scalar and any(d != shapes.ONE for d in x.dims):
        raise SrcDiffError(".tolist() / .item() of an array with more than one element has no adjoint rule",
                           hint="index the array (x[i]) or use np.sum instead")
    return {"x": "np.full(np.shape(x), g)"}


def _number_tangents(static, operand_shapes):
    """The tangent of one number taken out of an array: refused where the adjoint is (an array of
    more than one element: ``.tolist()`` gives a list, not a number), and where the shape is not
    known, a tangent that fails at run time for more than one element rather than summing them.
    A Python float, as the value is: a float32 x's NumPy float32 tangent would round each float64
    tangent it meets to float32 (a Python float meeting a NumPy float32 number is float32)."""
    _number_templates(static, operand_shapes)
    return {"x": "np.sum(x_dot).item()" if operand_shapes["x"].known else "np.reshape(x_dot, ()).item()"}


def _number_shape(static, x):
    return shapes.SCALAR


def _float_templates(static, operand_shapes):
    return {"x": "g"}


def number_conversion(func):
    """``np.float64(x)``: x's values as that type (a number, or an array of them)."""
    # batched: the type of every row's values (a generated gradient's ``np.float32(c_bar)`` of a float32 number)
    return rule(func, ("x",), _float_templates, shape=lambda static, x: shapes.array(x) if x.known and x.ndim else x,
                tangents=LINEAR, batching="conversion", note="x's value as this type; the gradient passes through")


RULES = [
    unary(np.conjugate, x="real_part(g, x)", fresh=False, note=REAL_NOTE, sympy="sympy.conjugate"),
    # on the real values srcdiff differentiates, the imaginary part is 0 and the angle 0 or pi:
    # their derivative is 0.  Not rules without a gradient: a complex value before them must
    # stay visible, so that where it depends on a differentiated one it is refused (at its line
    # when srcdiff sees it is complex, ``1j * x``; when the gradient runs, by `real_part`,
    # for a complex argument), never given a silent zero gradient
    rule(np.imag, ("x",), {"x": ZERO_OF_REAL}, elementwise=True, tangents={"x": ZERO_TANGENT_OF_REAL},
         shape=lambda static, x: x, note=CONSTANT_NOTE.format("0"), sympy="sympy.im"),
    rule(np.angle, ("x",), {"x": ZERO_OF_REAL}, static={"deg": False}, elementwise=True, fresh=True,
         tangents={"x": ZERO_TANGENT_OF_REAL}, shape=lambda static, x: x, note=CONSTANT_NOTE.format("0 or pi")),
    rule(np.real_if_close, ("x",), {"x": "real_part(g, x)"}, static={"tol": 100}, elementwise=True,
         note=REAL_NOTE, shape=lambda static, x: x),
    rule(np.nan_to_num, ("x",), {"x": "np.where(np.isfinite(x), g, 0.0)"},
         static={"copy": True, "nan": 0.0, "posinf": None, "neginf": None}, elementwise=True, fresh=True,
         shape=lambda static, x: x, note="no gradient where x is NaN or infinite (replaced by constants)"),
    *[number_conversion(f) for f in (np.float64, np.float32)],
    rule(item, ("x",), _number_templates, name="ndarray.item", shape=_number_shape, fresh=True,
         tangents=_number_tangents, note="one element (no index argument)"),
    rule(tolist, ("x",), _number_templates, name="ndarray.tolist", shape=_number_shape, fresh=True,
         tangents=_number_tangents, note="of a 0-d value (a number)"),
    rule(math.pow, ("x", "y"), {"x": POW_X, "y": "g * ans * np.log(x + (ans == 0))"},
         shape=lambda static, *operands: shapes.SCALAR, float_result=True, fresh=True, sympy="sympy.Pow",
         singular=("x",), tangents={"x": POW_X.replace("g *", "x_dot *"), "y": "y_dot * ans * np.log(x + (ans == 0))"}),
]

#: The array methods these rules stand for.
METHODS = {"conj": np.conjugate, "conjugate": np.conjugate, "item": item, "tolist": tolist}
#: The array attributes these rules stand for (``x.real`` is ``np.real(x)``).
ATTRIBUTES = {"real": np.real, "imag": np.imag}
