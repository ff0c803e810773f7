"""More of NumPy as autograd covers it: remainders, cross products, Kronecker products,
angle conversions, ``logaddexp2``, ``sinc``, triangles, differences and axis moves.

Each rule is a template like the others; static arguments (axes, offsets) are known when the
gradient is generated.
"""

import math
import operator

import numpy as np

from ..ir import shapes
from .numpy_elementwise import LOG_ZERO_NOTE, log_shares
from .table import LINEAR, binary, rule, unary

FORMS = "srcdiff.rules.scipy_forms."  # sympy counterparts: imports sympy, not SciPy
NUMERIC_ONLY = "not yet run on sympy values (checked against central differences)"
FLOOR_NOTE = "the jumps (where x / y is a whole number) get the one-sided derivative"


def _cross_templates(static, operand_shapes):
    return {"x": "unbroadcast(np.cross(y, g, axisb, axisc, axisa, axis), x)",
            "y": "unbroadcast(np.cross(g, x, axisc, axisa, axisb, axis), y)"}


def _diagonal_templates(static, operand_shapes):
    x = operand_shapes["x"]
    if not (x.known and x.ndim == 2) or (static.get("axis1", 0), static.get("axis2", 1)) not in ((0, 1), (-2, -1)):
        return {}  # refused: the diagonal of a stack, or along other axes
    offset, steps = static.get("offset", 0), "np.arange(np.size(g))"  # g[i] is x[i + rows, i + columns]
    if not isinstance(offset, int):
        return {}
    return {"x": f"index_add(np.zeros(np.shape(x)), ({steps} + {max(-offset, 0)}, {steps} + {max(offset, 0)}), g)"}


def _kron_templates(static, operand_shapes):
    x, y = operand_shapes["x"], operand_shapes["y"]
    if not (x.known and y.known):
        return {}  # refused: the interleaving of axes needs the ranks
    n = max(x.ndim, y.ndim, 1)
    dims_x = ["1"] * (n - x.ndim) + [f"np.shape(x)[{i}]" for i in range(x.ndim)]
    dims_y = ["1"] * (n - y.ndim) + [f"np.shape(y)[{i}]" for i in range(y.ndim)]
    xs, ys = f"({', '.join(dims_x)},)", f"({', '.join(dims_y)},)"
    letters = "abcdefghijklmnopqrstuvwxyz"
    a, b = letters[:n], letters[n:2 * n]
    inter = "".join(i + j for i, j in zip(a, b))
    blocks = f"np.reshape(g, ({', '.join(v for pair in zip(dims_x, dims_y) for v in pair)},))"
    return {"x": f"np.reshape(np.einsum('{inter},{b}->{a}', {blocks}, np.reshape(y, {ys})), np.shape(x))",
            "y": f"np.reshape(np.einsum('{inter},{a}->{b}', {blocks}, np.reshape(x, {xs})), np.shape(y))"}


def _triangle(func, **options):
    name = func.__name__
    return rule(func, ("x",), {"x": f"np.{name}(g, k)"}, static={"k": 0}, fresh=True, array_result=True,
                shape=lambda static, x: shapes.array(x), tangents=LINEAR, batching="triangle", **options)


def _rollaxis_templates(static, operand_shapes):
    ndim = operand_shapes["x"].ndim
    if ndim is None:
        return {}
    order = list(range(ndim))
    axis, start = static["axis"] % ndim, static["start"]
    start = start % (ndim + 1) if start < 0 else start
    moved = _rolled(order, axis, start)
    return {"x": f"np.transpose(g, {tuple(int(i) for i in np.argsort(moved))})"}


def _rolled(order, axis, start):
    rest = [a for a in order if a != axis]
    position = start if start <= axis else start - 1
    return rest[:position] + [axis] + rest[position:]


#: where np.sinc's derivative is its series: |pi x| < 0.1 pi, where the formula's cancellation
#: would cost digits (about eps / (pi x) ** (k + 1) at order k) and the series' next term is below eps
SINC_NEAR = "np.abs(x) < 0.1"


def _sinc_series() -> str:
    """sinc'(x) = pi * sum_n (-1) ** n 2n t ** (2n - 1) / (2n + 1)!, t = pi x, to n = 6 (Horner in t ** 2)."""
    coefficients = [f"{'-' if n % 2 else ''}1.0 / {math.factorial(2 * n + 1) // (2 * n)}.0" for n in range(1, 7)]
    body = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        body = f"{c} + (np.pi * x) ** 2 * ({body})"
    return f"np.pi * np.pi * x * ({body})"


SINC_SERIES = _sinc_series()

RULES = [
    # ---- remainders: x - y * floor(x / y) ----
    binary(np.remainder,   x="g", y="-g * np.floor(x / y)", note=FLOOR_NOTE, sympy=FORMS + "remainder"),
    binary(np.fmod,        x="g", y="-g * np.trunc(x / y)", note=FLOOR_NOTE, sympy=FORMS + "fmod"),
    binary(operator.mod,   x="g", y="-g * np.floor(x / y)", note=FLOOR_NOTE, sympy=FORMS + "remainder"),
    # ---- angles and other elementwise functions ----
    unary(np.deg2rad,      x="g * (np.pi / 180.0)",        sympy=FORMS + "deg2rad"),
    unary(np.rad2deg,      x="g * (180.0 / np.pi)",        sympy=FORMS + "rad2deg"),
    *[unary(f, x="g * (np.pi / 180.0)", sympy=FORMS + "deg2rad") for f in (np.radians,) if f is not np.deg2rad],
    *[unary(f, x="g * (180.0 / np.pi)", sympy=FORMS + "rad2deg") for f in (np.degrees,) if f is not np.rad2deg],
    unary(np.fabs,         x="g * np.sign(x)", derivable={"x": "kink(x == 0, g * np.sign(x), x)"},
          note="fabs'(0) = 0; its second derivative at 0 is NaN (0 on an element the output does not use)",
          sympy="sympy.Abs"),
    rule(np.logaddexp2, ("x", "y"), log_shares("0.34657359027997264"), elementwise=True, fresh=True,
         note=LOG_ZERO_NOTE, sympy=FORMS + "logaddexp2"),  # (0.5 ln 2: the difference in base e)
    # sinc'(x) = (cos(pi x) - sinc(x)) / x, a 0 / 0 at 0: near 0 (|pi x| < 0.1) its series,
    # selected, so the derivative of the derivative is the series' at every order (exact at 0),
    # and the formula, whose denominator is kept nonzero there, leaks no NaN into it
    unary(np.sinc,         x=f"g * np.where({SINC_NEAR}, {SINC_SERIES}, "
                             f"(np.cos(np.pi * x) - ans) / np.where({SINC_NEAR}, 1.0, x))",
          note="exact at every order, at 0 too (a series near 0)", sympy=FORMS + "sinc"),
    # ---- products ----
    rule(np.cross, ("x", "y"), _cross_templates, static={"axisa": -1, "axisb": -1, "axisc": -1, "axis": None},
         fresh=True, array_result=True,
         tangents={"x": "np.cross(x_dot, y, axisa, axisb, axisc, axis)",
                   "y": "np.cross(x, y_dot, axisa, axisb, axisc, axis)"}, batching="cross", not_symbolic=NUMERIC_ONLY),
    rule(np.kron, ("x", "y"), _kron_templates, fresh=True,
         tangents=lambda static, operand_shapes: {"x": "np.kron(x_dot, y)", "y": "np.kron(x, y_dot)"}
         if _kron_templates(static, operand_shapes) else {}, not_symbolic=NUMERIC_ONLY),
    # ---- triangles, differences, axes ----
    _triangle(np.tril, not_symbolic=NUMERIC_ONLY),
    _triangle(np.triu, not_symbolic=NUMERIC_ONLY),
    rule(np.diagonal, ("x",), _diagonal_templates, static={"offset": 0, "axis1": 0, "axis2": 1}, tangents=LINEAR,
         batching="diagonal", note="of a matrix (axis1=0, axis2=1), any offset", sympy="numpy.diagonal"),
    rule(np.rollaxis, ("x",), _rollaxis_templates, static={"axis": None, "start": 0}, tangents=LINEAR,
         not_symbolic=NUMERIC_ONLY),
    rule(np.fliplr, ("x",), {"x": "np.fliplr(g)"}, tangents=LINEAR, shape=lambda static, x: shapes.array(x),
         not_symbolic=NUMERIC_ONLY),
    rule(np.flipud, ("x",), {"x": "np.flipud(g)"}, tangents=LINEAR, shape=lambda static, x: shapes.array(x),
         not_symbolic=NUMERIC_ONLY),
]
