"""SciPy's special functions (``scipy.special``): gamma family, error functions, logistic
functions, Bessel functions, and the reductions ``logsumexp``, ``softmax``, ``log_softmax``.

This module imports SciPy: the rule table loads it only once a program has imported SciPy
itself (`rules.builtin.LAZY_SECTIONS`), so ``import srcdiff`` never does.  Templates name
SciPy as ``scipy_special`` (`lazy_modules`), so a gradient of a gradient finds these rules
again.  An order or degree argument (``polygamma(n, x)``, ``jv(v, x)``) has no template: it
is refused if it carries a gradient, never given a silent zero.
"""

import scipy.special as sc

from ..ir import shapes
from . import table
from .numpy_elementwise import LOG_ZERO_SHIFT

FORMS = "srcdiff.rules.scipy_forms."
S = "scipy_special."
SQRT_2PI = "2.5066282746310002"  # sqrt(2 pi)


#: Why SciPy's reductions here have no sympy counterpart.
REDUCTION = "a SciPy reduction, checked against central differences only"


def unary(func, x: str, **options):
    name = "digamma" if func is sc.digamma else func.__name__  # NumPy's ufunc calls itself psi
    return table.unary(func, x, name=f"scipy.special.{name}", **options)


def binary(func, x: str, y: str, **options):
    return table.binary(func, x, y, name=f"scipy.special.{func.__name__}", **options)


def rule(func, params, templates, **options):
    return table.rule(func, params, templates, name=f"scipy.special.{func.__name__}", **options)


def _reduce_shape(static, a):
    return shapes.reduce(a, static.get("axis"), static.get("keepdims", False))


def _same(static, x):
    return shapes.array(x)


def _spread(value: str, static) -> str:
    """`value` (reduced over `axis`) shaped to broadcast against the operand."""
    if static.get("axis") is None or static.get("keepdims"):
        return value
    return f"np.expand_dims({value}, axis)"


def _logsumexp_shape(static, a, b=shapes.NONE):
    return _reduce_shape(static, a if b.none else shapes.broadcast(a, b))


def _logsumexp_templates(static, operand_shapes):
    """With weights b, ``log(sum(b * exp(a)))``: a's adjoint is g * b * exp(a - ans), b's
    g * exp(a - ans), each summed back over what it was broadcast along (a row of log 0s: 0,
    LOG_ZERO_SHIFT; b's slope where b = 0 makes the value log 0 is infinite: shifted by ans)."""
    weights = f"np.exp(a - {_spread(LOG_ZERO_SHIFT, static)})"
    if operand_shapes.get("b", shapes.NONE).none:
        return {"a": f"{_spread('g', static)} * {weights}"}
    return {"a": f"unbroadcast({_spread('g', static)} * b * {weights}, a)",
            "b": f"unbroadcast({_spread('g', static)} * np.exp(a - {_spread('ans', static)}), b)"}


def _logsumexp_tangents(static, operand_shapes):
    weights = f"np.exp(a - {_spread(LOG_ZERO_SHIFT, static)})"
    if operand_shapes.get("b", shapes.NONE).none:
        return {"a": f"np.sum({weights} * a_dot, axis=axis, keepdims=keepdims)"}
    return {"a": f"np.sum(b * {weights} * a_dot, axis=axis, keepdims=keepdims)",
            "b": f"np.sum(np.exp(a - {_spread('ans', static)}) * b_dot, axis=axis, keepdims=keepdims)"}


def order(func, x: str, sympy: str, param: str = "n", **options):
    """``f(n, x)``: an order `n` (no gradient: refused if it carries one) and the argument x."""
    return rule(func, (param, "x"), {"x": x}, elementwise=True, fresh=True, sympy=sympy,
                note=f"no gradient to the order {param}", **options)


RULES = [
    # ---- the gamma family ----
    unary(sc.gammaln,  x=f"g * {S}digamma(x)",                      sympy="sympy.loggamma",
          note="log|Gamma(x)|: the gradient is digamma(x) for negative x too"),
    unary(sc.digamma,  x=f"g * {S}polygamma(1, x)",                  sympy="sympy.digamma",
          note="also spelled scipy.special.psi"),
    order(sc.polygamma, x=f"g * {S}polygamma(n + 1, x)",             sympy="sympy.polygamma"),
    unary(sc.gamma,    x=f"g * ans * {S}digamma(x)",                 sympy="sympy.gamma"),
    # the sign of Gamma(x): piecewise constant (jumps at 0, -1, -2, ...)
    table.nograd(sc.gammasgn, ("x",), shape=lambda static, x: x, fresh=True, batching="elementwise",
                 note="the sign of Gamma(x): zero gradient (it jumps at x = 0, -1, -2, ...)",
                 not_symbolic="a sign: no gradient to check"),
    unary(sc.rgamma,   x=f"-g * ans * {S}digamma(x)",                sympy=FORMS + "rgamma"),
    binary(sc.beta,    x=f"g * ans * ({S}digamma(x) - {S}digamma(x + y))",
                       y=f"g * ans * ({S}digamma(y) - {S}digamma(x + y))", sympy="sympy.beta"),
    binary(sc.betaln,  x=f"g * ({S}digamma(x) - {S}digamma(x + y))",
                       y=f"g * ({S}digamma(y) - {S}digamma(x + y))", sympy=FORMS + "betaln"),
    rule(sc.gammainc,  ("a", "x"), {"x": f"g * np.exp((a - 1.0) * np.log(x) - x - {S}gammaln(a))"},
         elementwise=True, fresh=True, sympy=FORMS + "gammainc", note="no gradient to the shape a"),
    rule(sc.gammaincc, ("a", "x"), {"x": f"-g * np.exp((a - 1.0) * np.log(x) - x - {S}gammaln(a))"},
         elementwise=True, fresh=True, sympy=FORMS + "gammaincc", note="no gradient to the shape a"),
    # ---- error functions and the normal distribution ----
    # (0 where exp(-x * x) underflows to 0 anyway: at x = ±inf its second derivative is 0, not 0 * inf)
    unary(sc.erf,      x="g * 1.1283791670955126 * np.where(np.abs(x) > 30.0, 0.0, np.exp(-x * x))",
          sympy="sympy.erf"),
    unary(sc.erfc,     x="-g * 1.1283791670955126 * np.where(np.abs(x) > 30.0, 0.0, np.exp(-x * x))",
          sympy="sympy.erfc"),
    # erfcx(x) = exp(x * x) erfc(x): finite where exp(-x * x) alone underflows
    unary(sc.erfcx,    x="g * (2.0 * x * ans - 1.1283791670955126)", sympy=FORMS + "erfcx"),
    unary(sc.erfinv,   x="g * 0.886226925452758 * np.exp(ans * ans)", sympy="sympy.erfinv"),
    unary(sc.erfcinv,  x="-g * 0.886226925452758 * np.exp(ans * ans)", sympy=FORMS + "erfcinv"),
    unary(sc.ndtr,     x=f"g * np.where(np.abs(x) > 40.0, 0.0, np.exp(-0.5 * x * x)) / {SQRT_2PI}",
          sympy=FORMS + "ndtr"),
    unary(sc.log_ndtr, x=f"g * np.exp(-0.5 * x * x - ans) / {SQRT_2PI}", sympy=FORMS + "log_ndtr"),
    unary(sc.ndtri,    x=f"g * {SQRT_2PI} * np.exp(0.5 * ans * ans)", sympy=FORMS + "ndtri"),
    # ---- logistic ----
    unary(sc.expit,    x="g * ans * (1.0 - ans)",                    sympy=FORMS + "expit"),
    unary(sc.logit,    x="g / (x * (1.0 - x))",                      sympy=FORMS + "logit"),
    unary(sc.log_expit, x=f"g * {S}expit(-x)",                       sympy=FORMS + "log_expit"),
    # ---- x log y and entropies ----
    binary(sc.xlogy,   x="g * np.log(y)",    y="g * x / y",          sympy=FORMS + "xlogy"),
    binary(sc.xlog1py, x="g * np.log1p(y)",  y="g * x / (1.0 + y)",  sympy=FORMS + "xlog1py"),
    unary(sc.entr,     x="-g * (np.log(x) + 1.0)",                   sympy=FORMS + "entr"),
    binary(sc.rel_entr, x="g * (np.log(x / y) + 1.0)", y="-g * x / y", sympy=FORMS + "rel_entr"),
    # ---- Bessel functions: I' and J' from the neighbouring orders (exact at x = 0) ----
    unary(sc.i0,       x=f"g * {S}i1(x)",                            sympy=FORMS + "i0"),
    unary(sc.i1,       x=f"g * 0.5 * ({S}i0(x) + {S}iv(2, x))",      sympy=FORMS + "i1"),
    # e^-|x| has a kink at 0: i0e' (there the convention 0) and i1e'' do not exist at 0, so the
    # derivable form's sign is a kink, whose derivative is NaN there (never the sign's 0)
    unary(sc.i0e,      x=f"g * ({S}i1e(x) - np.sign(x) * ans)",      sympy=FORMS + "i0e",
          derivable={"x": f"g * ({S}i1e(x) - kink(x == 0, np.sign(x), x) * ans)"}),
    unary(sc.i1e,      x=f"g * (0.5 * ({S}i0e(x) + {S}ive(2, x)) - np.sign(x) * ans)", sympy=FORMS + "i1e",
          derivable={"x": f"g * (0.5 * ({S}i0e(x) + {S}ive(2, x)) - kink(x == 0, np.sign(x), x) * ans)"}),
    unary(sc.j0,       x=f"-g * {S}j1(x)",                           sympy=FORMS + "j0"),
    unary(sc.j1,       x=f"g * 0.5 * ({S}j0(x) - {S}jv(2, x))",      sympy=FORMS + "j1"),
    unary(sc.y0,       x=f"-g * {S}y1(x)",                           sympy=FORMS + "y0"),
    unary(sc.y1,       x=f"g * 0.5 * ({S}y0(x) - {S}yv(2, x))",      sympy=FORMS + "y1"),
    order(sc.iv,  x=f"g * 0.5 * ({S}iv(v - 1.0, x) + {S}iv(v + 1.0, x))", sympy="sympy.besseli", param="v"),
    order(sc.ive, x=f"g * (0.5 * ({S}ive(v - 1.0, x) + {S}ive(v + 1.0, x)) - np.sign(x) * ans)",
          sympy=FORMS + "ive", param="v",
          derivable={"x": f"g * (0.5 * ({S}ive(v - 1.0, x) + {S}ive(v + 1.0, x)) "
                          "- kink(x == 0, np.sign(x), x) * ans)"}),
    order(sc.jv,  x=f"g * 0.5 * ({S}jv(v - 1.0, x) - {S}jv(v + 1.0, x))", sympy="sympy.besselj", param="v"),
    order(sc.yv,  x=f"g * 0.5 * ({S}yv(v - 1.0, x) - {S}yv(v + 1.0, x))", sympy="sympy.bessely", param="v"),
    order(sc.yn,  x=f"g * 0.5 * ({S}yn(n - 1, x) - {S}yn(n + 1, x))", sympy="sympy.bessely"),
    # ---- reductions: exact and overflow-free through `ans` ----
    rule(sc.logsumexp, ("a", "b"), _logsumexp_templates, static={"axis": None, "keepdims": False},
         defaults={"b": None}, order=("a", "axis", "b", "keepdims"), shape=_logsumexp_shape, fresh=True,
         tangents=_logsumexp_tangents, note="with weights b; return_sign=True reads SciPy's source",
         batching="reduce", not_symbolic=REDUCTION),
    rule(sc.softmax, ("x",), {"x": "ans * (g - np.sum(g * ans, axis=axis, keepdims=True))"}, static={"axis": None},
         shape=_same, fresh=True,
         tangents={"x": "ans * (x_dot - np.sum(ans * x_dot, axis=axis, keepdims=True))"}, batching="reduce",
         not_symbolic=REDUCTION),
    rule(sc.log_softmax, ("x",), {"x": "g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True)"},
         static={"axis": None}, shape=_same, fresh=True,
         tangents={"x": "x_dot - np.sum(np.exp(ans) * x_dot, axis=axis, keepdims=True)"}, batching="reduce",
         not_symbolic=REDUCTION),
]
