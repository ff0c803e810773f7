"""NumPy's elementwise functions (ufuncs and friends).

Every rule broadcasts: the adjoint of an operand that was broadcast is summed back to its
shape by the reverse pass, exactly (``.sum(axis=..., keepdims=True)``) where the shapes are
known.  Templates use plain arithmetic and NumPy ufuncs only, so a Python float stays on the
fast scalar path (no helper call, no array allocation).
"""

import numpy as np

from ..ir import shapes
from .table import binary, rule, unary

TIES_Y = "ties (x == y) send the whole gradient to y, so relu'(0) = 0"


def _clip_templates(static, operand_shapes):
    has_lo, has_hi = not operand_shapes["a_min"].none, not operand_shapes["a_max"].none
    inside = " & ".join(["(x >= a_min)"] * has_lo + ["(x <= a_max)"] * has_hi)
    templates = {"x": f"g * ({inside})" if inside else "g"}
    # clip is minimum(maximum(x, a_min), a_max): where a_min > a_max, a_max wins everywhere
    if has_lo:
        templates["a_min"] = "g * ((x < a_min) & (a_min <= a_max))" if has_hi else "g * (x < a_min)"
    if has_hi:
        templates["a_max"] = "g * ((x > a_max) | (a_min > a_max))" if has_lo else "g * (x > a_max)"
    return templates


def _clip_shape(static, *operands):
    return shapes.broadcast(*[s for s in operands if not s.none])


RULES = [
    # ---- arithmetic ----
    binary(np.add,         x="g",                           y="g"),
    binary(np.subtract,    x="g",                           y="-g"),
    binary(np.multiply,    x="g * y",                       y="g * x"),
    binary(np.divide,      x="g / y",                       y="-g * ans / y"),
    binary(np.power,       x="g * y * x ** (y - 1)",        y="g * ans * np.log(x)"),
    unary(np.negative,     x="-g"),
    unary(np.reciprocal,   x="-g * ans * ans"),
    unary(np.square,       x="2.0 * g * x"),
    unary(np.sqrt,         x="g / (2.0 * ans)"),
    unary(np.cbrt,         x="g / (3.0 * ans * ans)"),
    # ---- exponentials and logarithms ----
    unary(np.exp,          x="g * ans"),
    unary(np.exp2,         x="g * ans * np.log(2.0)"),
    unary(np.expm1,        x="g * (ans + 1.0)"),
    unary(np.log,          x="g / x"),
    unary(np.log2,         x="g / (x * np.log(2.0))"),
    unary(np.log10,        x="g / (x * np.log(10.0))"),
    unary(np.log1p,        x="g / (1.0 + x)"),
    # logaddexp: sigmoid of the difference, via tanh: needs no `ans` and cannot overflow
    binary(np.logaddexp,   x="g * (0.5 + 0.5 * np.tanh(0.5 * (x - y)))",
                           y="g * (0.5 + 0.5 * np.tanh(0.5 * (y - x)))"),
    # ---- trigonometric and hyperbolic ----
    unary(np.sin,          x="g * np.cos(x)"),
    unary(np.cos,          x="-g * np.sin(x)"),
    unary(np.tan,          x="g * (1.0 + ans * ans)"),
    unary(np.arcsin,       x="g / np.sqrt(1.0 - x * x)"),
    unary(np.arccos,       x="-g / np.sqrt(1.0 - x * x)"),
    unary(np.arctan,       x="g / (1.0 + x * x)"),
    binary(np.arctan2,     x="g * y / (x * x + y * y)",     y="-g * x / (x * x + y * y)"),
    binary(np.hypot,       x="g * x / ans",                 y="g * y / ans"),
    unary(np.sinh,         x="g * np.cosh(x)"),
    unary(np.cosh,         x="g * np.sinh(x)"),
    unary(np.tanh,         x="g * (1.0 - ans * ans)"),
    unary(np.arcsinh,      x="g / np.sqrt(x * x + 1.0)"),
    unary(np.arccosh,      x="g / np.sqrt(x * x - 1.0)"),
    unary(np.arctanh,      x="g / (1.0 - x * x)"),
    # ---- piecewise: the conventions at the kinks are in each note ----
    unary(np.absolute,     x="g * np.sign(x)", note="abs'(0) = 0"),
    binary(np.maximum,     x="g * (x > y)",  y="g * (x <= y)", note=TIES_Y),
    binary(np.minimum,     x="g * (x < y)",  y="g * (x >= y)", note=TIES_Y),
    binary(np.fmax,        x="g * ((x > y) | np.isnan(y))",  y="g * ((x <= y) | np.isnan(x))",
           note=TIES_Y + "; a NaN operand is ignored, as fmax ignores it"),
    binary(np.fmin,        x="g * ((x < y) | np.isnan(y))",  y="g * ((x >= y) | np.isnan(x))",
           note=TIES_Y + "; a NaN operand is ignored, as fmin ignores it"),
    rule(np.clip, ("x", "a_min", "a_max"), _clip_templates, elementwise=True, shape=_clip_shape,
         defaults={"a_min": None, "a_max": None},
         note="x on a bound (x == a_min or x == a_max) gets the gradient; the bound gets none; "
              "where a_min > a_max the result is a_max, as in NumPy"),
    rule(np.where, ("condition", "x", "y"), {"x": "np.where(condition, g, 0.0)", "y": "np.where(condition, 0.0, g)"},
         elementwise=True, selects={"x": ("condition", True), "y": ("condition", False)},
         note="the condition carries no gradient; the branch not selected gets an exact zero, "
              "never 0 * inf (`np.where(x > 0, np.sqrt(x), 0.0)` at x < 0)"),
]
