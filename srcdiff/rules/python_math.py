"""The `math` module: Python floats in, Python floats out, so adjoints stay on `math` too."""

import math

from ..ir import shapes
from .table import FORMS, nograd, rule

#: remainders' sympy counterparts (sympy only: they import no SciPy), shared with np.fmod's
REMAINDERS = "srcdiff.rules.scipy_forms."


def _float(static, *operands):
    return shapes.SCALAR


def scalar(func, x: str, sympy: str | None = None, note: str = "", derivable: dict | None = None,
           singular: bool = False):
    """A `math` function of one float: no broadcasting, and the result is a (fresh) float
    (`singular`: its slope can be infinite where its value is finite, `Rule.singular`)."""
    return rule(func, ("x",), {"x": x}, shape=_float, float_result=True, fresh=True, sympy=sympy, note=note,
                derivable=derivable, singular=("x",) if singular else ())


def scalar2(func, params: tuple, templates: dict, sympy: str | None = None):
    """A `math` function of two floats (``math.atan2(y, x)``), a float."""
    return rule(func, params, templates, shape=_float, float_result=True, fresh=True, sympy=sympy)


RULES = [
    scalar(math.sin,  x="g * math.cos(x)",        sympy="sympy.sin"),
    scalar(math.cos,  x="-g * math.sin(x)",       sympy="sympy.cos"),
    scalar(math.tan,  x="g * (1.0 + ans * ans)",  sympy="sympy.tan"),
    scalar(math.exp,  x="g * ans",                sympy="sympy.exp"),
    scalar(math.log,  x="g / x",                  sympy="sympy.log", singular=True),
    scalar(math.sqrt, x="g / (2.0 * ans)",        sympy="sympy.sqrt", singular=True),
    scalar(math.tanh, x="g * (1.0 - ans * ans)",  sympy="sympy.tanh"),
    scalar(math.sinh, x="g * math.cosh(x)",       sympy="sympy.sinh"),
    scalar(math.cosh, x="g * math.sinh(x)",       sympy="sympy.cosh"),
    scalar(math.asin, x="g / math.sqrt(1.0 - x * x)", sympy="sympy.asin", singular=True),
    scalar(math.acos, x="-g / math.sqrt(1.0 - x * x)", sympy="sympy.acos", singular=True),
    scalar(math.atan, x="g / (1.0 + x * x)",      sympy="sympy.atan"),
    scalar(math.asinh, x="g / math.sqrt(x * x + 1.0)", sympy="sympy.asinh"),
    scalar(math.acosh, x="g / math.sqrt(x * x - 1.0)", sympy="sympy.acosh", singular=True),
    scalar(math.atanh, x="g / (1.0 - x * x)",     sympy="sympy.atanh", singular=True),
    scalar(math.log1p, x="g / (1.0 + x)", sympy=FORMS + "log1p", singular=True),
    scalar(math.expm1, x="g * (ans + 1.0)", sympy=FORMS + "expm1"),
    scalar(math.log2, x="g / (x * math.log(2.0))", sympy=FORMS + "log2", singular=True),
    scalar(math.log10, x="g / (x * math.log(10.0))", sympy=FORMS + "log10", singular=True),
    scalar(math.erf, x="g * (2.0 / math.sqrt(math.pi)) * math.exp(-x * x)", sympy="sympy.erf"),
    scalar(math.erfc, x="-g * (2.0 / math.sqrt(math.pi)) * math.exp(-x * x)", sympy="sympy.erfc"),
    scalar(math.fabs, x="g * ((x > 0.0) * 1.0 - (x < 0.0) * 1.0)", sympy="sympy.Abs",
           note="fabs'(0) = 0; its second derivative at 0 is NaN (0 on an element the output does not use)",
           derivable={"x": "kink(x == 0.0, g * ((x > 0.0) * 1.0 - (x < 0.0) * 1.0), x)"}),
    scalar(math.degrees, x="g * (180.0 / math.pi)", sympy=FORMS + "degrees"),
    scalar(math.radians, x="g * (math.pi / 180.0)", sympy=FORMS + "radians"),
    scalar2(math.atan2, ("y", "x"), {"y": "g * x / (x * x + y * y)", "x": "-g * y / (x * x + y * y)"},
            sympy="sympy.atan2"),
    # at x = y = 0 the subgradient 0, never 0 / 0
    rule(math.hypot, ("x", "y"), {"x": "g * x / (ans + (ans == 0.0))", "y": "g * y / (ans + (ans == 0.0))"},
         shape=_float, float_result=True, fresh=True,
         derivable={"x": "kink(ans == 0.0, g * x / (ans + (ans == 0.0)), x, y)",
                    "y": "kink(ans == 0.0, g * y / (ans + (ans == 0.0)), x, y)"}, sympy=FORMS + "hypot"),
    scalar(math.lgamma, x="g * scipy_special.digamma(x)", sympy="sympy.loggamma",
           note="log|Gamma(x)|: the gradient is digamma(x) for negative x too"),
    scalar(math.gamma, x="g * ans * scipy_special.digamma(x)", sympy="sympy.gamma"),
    # |x| with y's sign: abs's convention at x = 0, zero in y (it only jumps)
    rule(math.copysign, ("x", "y"), {"x": "g * ((x > 0.0) * 1.0 - (x < 0.0) * 1.0) * math.copysign(1.0, y)",
                                     "y": "0.0 * g"},
         shape=_float, float_result=True, fresh=True,
         derivable={"x": "kink(x == 0.0, g * ((x > 0.0) * 1.0 - (x < 0.0) * 1.0) * math.copysign(1.0, y), x)",
                    "y": "0.0 * g"},
         note="d/dx = sign(x) * (y's sign): 0 at x = 0, as abs'(0); zero in y",
         not_symbolic="sympy has no sign bit (copysign(x, -0.0) is -|x|)"),
    # ---- whole parts (ints: no gradient, 0 at the jumps as np.floor's) and remainders ----
    *[nograd(f, ("x",), shape=_float, fresh=True, note="an int: zero gradient (piecewise constant)",
             not_symbolic="sympy leaves the derivative of a whole part unevaluated")
      for f in (math.floor, math.ceil, math.trunc)],
    scalar2(math.fmod, ("x", "y"), {"x": "g", "y": "-g * math.trunc(x / y)"}, sympy=REMAINDERS + "fmod"),
]
