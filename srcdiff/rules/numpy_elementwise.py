"""NumPy's elementwise functions (ufuncs and friends).

Every rule broadcasts: the adjoint of an operand that was broadcast is summed back to its
shape by the reverse pass, exactly (``.sum(axis=..., keepdims=True)``) where the shapes are
known.  Templates use plain arithmetic and NumPy ufuncs only, so a Python float stays on the
fast scalar path (no helper call, no array allocation).

Every value is fresh (`unary` and `binary` say so): a ufunc makes a new array, or a number.
A rule's `sympy` counterpart computes one element; it is mapped over arrays.
"""

import numpy as np

from ..ir import shapes
from .operators import FACTORS, NUMERATOR, POW_X, POW_Y, PRODUCT
from .table import FORMS, binary, rule, unary

#: `Rule.singular`: x's slope is infinite where the value is finite (sqrt at 0, arcsin at 1)
SINGULAR = ("x",)

TIES = ("ties (x == y) give each operand half the gradient, as JAX and PyTorch do (relu'(0) = 0.5), so "
        "maximum(x, 0) + minimum(x, 0) = x is exact there; a second derivative at a tie is NaN")


def _scalar(operand_shapes) -> bool:
    """Whether every operand is a number (Python or NumPy): then the templates use `if`."""
    present = [s for s in operand_shapes.values() if not s.none]
    return bool(present) and all(s.known and s.scalar for s in present)


def halved(condition: str, value: str, scalar: bool) -> str:
    """`value` where `condition` fails, half of it where it holds (an operand's share at a
    tie), as plain arithmetic: ``g`` keeps its dtype (float32 stays float32)."""
    if scalar:
        return f"0.5 * {value} if {condition} else {value}"
    return f"np.where({condition}, 0.5 * {value}, {value})"


def _tie_templates(static, operand_shapes):
    """maximum/minimum/fmax/fmin: each side the whole g where it alone holds the value (its
    `selects`), half of it at a tie."""
    return {p: halved("x == y", "g", _scalar(operand_shapes)) for p in ("x", "y")}


LOG_ZERO_NOTE = ("where x == y (two log 0s: -inf - -inf is NaN) each operand's share is 0.5, the limit along "
                 "x == y, finite: g * 0.5 is an exact 0 where nothing downstream reads a log 0")

#: a log-sum-exp's value `ans` as the shift of its weights ``exp(x - ans)``: log 0 (a row all -inf) read as 0,
#: so each weight is exp(-inf) = 0, never exp(-inf + inf) = NaN (SciPy's logsumexp shifts by 0 where its max
#: is not finite): the share of a row of log 0s is 0, an exact 0 where nothing downstream reads it
LOG_ZERO_SHIFT = "np.where(ans == -np.inf, 0.0, ans)"


def log_shares(scale: str):
    """The templates of np.logaddexp (`scale` 0.5) and np.logaddexp2 (0.5 ln 2): each operand's share is
    the sigmoid of the difference, via tanh (no `ans`, no overflow); that difference is 0 where x == y,
    so two log 0s (-inf - -inf is NaN) share g in halves (a number's by `if`: it stays a float).  y's
    share is 0.5 - 0.5 tanh of x's difference (tanh is odd: bit for bit 0.5 + 0.5 tanh(y - x)'s), one
    expression the optimizer computes once for both."""
    def templates(static, operand_shapes):
        difference = "(0.0 if x == y else x - y)" if _scalar(operand_shapes) else "np.where(x == y, 0.0, x - y)"
        return {"x": f"g * (0.5 + 0.5 * np.tanh({scale} * {difference}))",
                "y": f"g * (0.5 - 0.5 * np.tanh({scale} * {difference}))"}
    return templates


#: the derivable form (a gradient srcdiff differentiates again): the share's derivative at a tie is NaN
TIE_DERIVABLE = {"x": "tie(x == y, g, x, y)", "y": "tie(x == y, g, x, y)"}


def _clip_selects(static, operand_shapes):
    """Each operand's gradient where it holds the value (selected, never multiplied by a
    mask: g may be inf or NaN where a bound holds the value)."""
    has_lo, has_hi = not operand_shapes["a_min"].none, not operand_shapes["a_max"].none
    inside = " & ".join(["(x >= a_min)"] * has_lo + ["(x <= a_max)"] * has_hi)
    selects = {"x": (inside, True)} if inside else {}
    # clip is minimum(maximum(x, a_min), a_max): where a_min > a_max, a_max wins everywhere
    if has_lo:
        selects["a_min"] = ("(x <= a_min) & (a_min <= a_max)" if has_hi else "x <= a_min", True)
    if has_hi:
        selects["a_max"] = ("(x >= a_max) | (a_min >= a_max)" if has_lo else "x >= a_max", True)
    return selects


def _clip_shares(has_lo: bool, has_hi: bool, share, frozen) -> dict:
    """clip as minimum(maximum(x, a_min), a_max), each tie halving: `share(condition, value,
    x, y)` spells a halved share (plain or derivable), `frozen(condition, value)` a share that
    is 0 where the condition holds: x's where the bounds are equal (clip is then the constant
    a_max whatever x: a parameter held fixed by equal bounds has the derivative 0, at the
    bound too)."""
    out = {"x": "g"}
    if has_hi:
        out["x"] = share("x == a_max", "g", "x", "a_max")
    if has_lo:
        out["x"] = share("x == a_min", out["x"], "x", "a_min")
        out["a_min"] = share("x == a_min", share("a_min == a_max", "g", "a_min", "a_max") if has_hi else "g",
                             "x", "a_min")
    if has_lo and has_hi:
        out["x"] = frozen("a_min == a_max", out["x"])
    if has_hi:
        held = "np.maximum(x, a_min)" if has_lo else "x"
        out["a_max"] = share(f"{held} == a_max", "g", held, "a_max")
    return out


def _clip_templates(static, operand_shapes):
    scalar = _scalar(operand_shapes)
    has_lo, has_hi = not operand_shapes["a_min"].none, not operand_shapes["a_max"].none
    return _clip_shares(has_lo, has_hi, lambda c, v, x, y: halved(c, f"({v})" if scalar else v, scalar),
                        lambda c, v: f"0.0 if {c} else ({v})" if scalar else f"np.where({c}, 0.0, {v})")


def _clip_derivable(static, operand_shapes):
    has_lo, has_hi = not operand_shapes["a_min"].none, not operand_shapes["a_max"].none
    return _clip_shares(has_lo, has_hi, lambda c, v, x, y: f"tie({c}, {v}, {x}, {y})",
                        lambda c, v: f"np.where({c}, 0.0, {v})")


def _clip_shape(static, *operands):
    return shapes.broadcast(*[s for s in operands if not s.none])


RULES = [
    # ---- arithmetic: NumPy's own ufuncs are exact on object arrays of sympy values ----
    binary(np.add,         x="g",                           y="g", sympy="numpy.add"),
    binary(np.subtract,    x="g",                           y="-g", sympy="numpy.subtract"),
    binary(np.multiply,    x="g * y",                       y="g * x", tangents=PRODUCT, sympy="numpy.multiply",
           zero_factors=FACTORS),
    binary(np.divide,      x="g / y",                       y="-g * ans / y", sympy="numpy.divide",
           zero_factors=NUMERATOR),
    binary(np.power,       x=POW_X,                         y=POW_Y, singular=SINGULAR, sympy="numpy.power"),
    unary(np.negative,     x="-g", sympy="numpy.negative"),
    unary(np.reciprocal,   x="-g * ans * ans",              sympy=FORMS + "reciprocal"),
    unary(np.square,       x="2.0 * g * x",                 sympy=FORMS + "square"),
    unary(np.sqrt,         x="g / (2.0 * ans)",             singular=SINGULAR, sympy="sympy.sqrt"),
    unary(np.cbrt,         x="g / (3.0 * ans * ans)",       singular=SINGULAR, sympy="sympy.cbrt"),
    # ---- exponentials and logarithms ----
    unary(np.exp,          x="g * ans",                     sympy="sympy.exp"),
    unary(np.exp2,         x="g * ans * np.log(2.0)",       sympy=FORMS + "exp2"),
    unary(np.expm1,        x="g * (ans + 1.0)",             sympy=FORMS + "expm1"),
    unary(np.log,          x="g / x",                       singular=SINGULAR, sympy="sympy.log"),
    unary(np.log2,         x="g / (x * np.log(2.0))",       singular=SINGULAR, sympy=FORMS + "log2"),
    unary(np.log10,        x="g / (x * np.log(10.0))",      singular=SINGULAR, sympy=FORMS + "log10"),
    unary(np.log1p,        x="g / (1.0 + x)",               singular=SINGULAR, sympy=FORMS + "log1p"),
    # logaddexp: sigmoid of the difference (0 where x == y: two log 0s share g in halves)
    rule(np.logaddexp, ("x", "y"), log_shares("0.5"), elementwise=True, fresh=True, note=LOG_ZERO_NOTE,
         sympy=FORMS + "logaddexp"),
    # ---- trigonometric and hyperbolic ----
    unary(np.sin,          x="g * np.cos(x)",               sympy="sympy.sin"),
    unary(np.cos,          x="-g * np.sin(x)",              sympy="sympy.cos"),
    unary(np.tan,          x="g * (1.0 + ans * ans)",       sympy="sympy.tan"),
    unary(np.arcsin,       x="g / np.sqrt(1.0 - x * x)",    singular=SINGULAR, sympy="sympy.asin"),
    unary(np.arccos,       x="-g / np.sqrt(1.0 - x * x)",   singular=SINGULAR, sympy="sympy.acos"),
    unary(np.arctan,       x="g / (1.0 + x * x)",           sympy="sympy.atan"),
    binary(np.arctan2,     x="g * y / (x * x + y * y)",     y="-g * x / (x * x + y * y)", sympy="sympy.atan2"),
    # at x = y = 0 the subgradient 0 (exact where both are identically 0), never 0 / 0
    binary(np.hypot,       x="g * x / np.where(ans == 0, 1.0, ans)", y="g * y / np.where(ans == 0, 1.0, ans)",
           derivable={"x": "kink(ans == 0, g * x / np.where(ans == 0, 1.0, ans), x, y)",
                      "y": "kink(ans == 0, g * y / np.where(ans == 0, 1.0, ans), x, y)"},
           sympy=FORMS + "hypot", note="at x = y = 0 the gradient is the subgradient 0"),
    unary(np.sinh,         x="g * np.cosh(x)",              sympy="sympy.sinh"),
    unary(np.cosh,         x="g * np.sinh(x)",              sympy="sympy.cosh"),
    unary(np.tanh,         x="g * (1.0 - ans * ans)",       sympy="sympy.tanh"),
    unary(np.arcsinh,      x="g / np.sqrt(x * x + 1.0)",    sympy="sympy.asinh"),
    unary(np.arccosh,      x="g / np.sqrt(x * x - 1.0)",    singular=SINGULAR, sympy="sympy.acosh"),
    unary(np.arctanh,      x="g / (1.0 - x * x)",           singular=SINGULAR, sympy="sympy.atanh"),
    # ---- piecewise: the conventions at the kinks are in each note ----
    # sign(0) = 0: with the half shares at ties, every linear combination of abs, maximum,
    # minimum and clip is exact where it is smooth; abs's second derivative at 0 is NaN
    unary(np.absolute,     x="g * np.sign(x)", derivable={"x": "kink(x == 0, g * np.sign(x), x)"},
          note="abs'(0) = 0; its second derivative at 0 is NaN (0 on an element the output does not use)",
          sympy="sympy.Abs"),
    unary(np.real,         x="real_part(g, x)", fresh=False, note="x itself for a real x; a complex x is refused",
          sympy="sympy.re"),
    # the side not taken gets an exact zero (selected: `Rule.selects`), never 0 * inf
    rule(np.maximum, ("x", "y"), _tie_templates, elementwise=True, fresh=True, derivable=TIE_DERIVABLE,
         selects={"x": ("x >= y", True), "y": ("x <= y", True)}, note=TIES, sympy="sympy.Max"),
    rule(np.minimum, ("x", "y"), _tie_templates, elementwise=True, fresh=True, derivable=TIE_DERIVABLE,
         selects={"x": ("x <= y", True), "y": ("x >= y", True)}, note=TIES, sympy="sympy.Min"),
    rule(np.fmax, ("x", "y"), _tie_templates, elementwise=True, fresh=True, derivable=TIE_DERIVABLE,
         selects={"x": ("(x >= y) | np.isnan(y)", True), "y": ("(x <= y) | np.isnan(x)", True)},
         note=TIES + "; a NaN operand is ignored, as fmax ignores it", sympy="sympy.Max"),
    rule(np.fmin, ("x", "y"), _tie_templates, elementwise=True, fresh=True, derivable=TIE_DERIVABLE,
         selects={"x": ("(x <= y) | np.isnan(y)", True), "y": ("(x >= y) | np.isnan(x)", True)},
         note=TIES + "; a NaN operand is ignored, as fmin ignores it", sympy="sympy.Min"),
    rule(np.clip, ("x", "a_min", "a_max"), _clip_templates, elementwise=True, shape=_clip_shape, selects=_clip_selects,
         derivable=_clip_derivable, defaults={"a_min": None, "a_max": None}, fresh=True, sympy=FORMS + "clip",
         note="clip is minimum(maximum(x, a_min), a_max): at a bound (x == a_min or x == a_max) x and the "
              "bound share the gradient half and half, as maximum and minimum do; where a_min == a_max x gets "
              "none (the result is that constant whatever x); where a_min > a_max the result is a_max, as in "
              "NumPy"),
    rule(np.where, ("condition", "x", "y"), {"x": "np.where(condition, g, 0.0)", "y": "np.where(condition, 0.0, g)"},
         elementwise=True, fresh=True, array_result=True,
         selects={"x": ("condition", True), "y": ("condition", False)},
         note="the condition carries no gradient; the branch not selected gets an exact zero, "
              "never 0 * inf (`np.where(x > 0, np.sqrt(x), 0.0)` at x < 0)", sympy=FORMS + "where"),
]
