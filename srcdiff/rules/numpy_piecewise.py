"""Piecewise functions of NumPy: steps, sign transfers, splits of a number into parts, the
peak-to-peak range and running extrema.

Where a function is constant between jumps, its derivative is 0, and at a jump (a delta) the
rule gives 0 too, as ``np.sign``'s and ``np.floor``'s do (rules/numpy_nograd.py).  Ties of
extrema share the gradient equally, as ``np.max``'s ties do (docs/guarantees.md).
"""

import numpy as np

from ..ir import shapes
from .numpy_elementwise import LOG_ZERO_SHIFT, SINGULAR
from .numpy_reductions import reduce_shape, spread
from .operators import POW_Y
from .table import FORMS, LINEAR, binary, rule

DELTA = "a jump: its derivative is a delta, taken as 0 as np.sign's"


def _ties(x: str, value: str, scalar: bool) -> str:
    """The elements of `x` equal to the extremum `value`, as numbers of x's dtype."""
    return f"({x} == {value})" if scalar else f"np.asarray({x} == {value}, dtype=x.dtype)"


def _ptp_templates(static, operand_shapes):
    x = operand_shapes["x"]
    if x.known and x.scalar:
        return {"x": "0.0 * g"}  # the range of one number is 0
    hi, lo = "np.max(x, axis=axis, keepdims=True)", "np.min(x, axis=axis, keepdims=True)"
    top, bottom = _ties("x", hi, False), _ties("x", lo, False)
    shares = f"{top} / np.sum({top}, axis=axis, keepdims=True) - {bottom} / np.sum({bottom}, axis=axis, keepdims=True)"
    return {"x": f"{spread('g', static, x)} * ({shares})"}


def _ptp_tangents(static, operand_shapes):
    x = operand_shapes["x"]
    if x.known and x.scalar:
        return {"x": "0.0 * x_dot"}
    over = "np.sum({}, axis=axis, keepdims=keepdims)"
    parts = []
    for pick in ("np.max", "np.min"):
        ties = _ties("x", f"{pick}(x, axis=axis, keepdims=True)", False)
        parts.append(f"{over.format(f'x_dot * {ties}')} / {over.format(ties)}")
    return {"x": f"{parts[0]} - {parts[1]}"}


def _scan(ufunc, kind: str):
    """``np.maximum.accumulate`` / ``np.minimum.accumulate``: the running extremum."""
    return rule(ufunc.accumulate, ("x",), {"x": f"extremum_scan_adjoint(g, x, axis, {kind!r})"},
                name=f"numpy.{ufunc.__name__}.accumulate", static={"axis": 0}, fresh=True, array_result=True,
                shape=lambda static, x: shapes.array(x),
                tangents={"x": f"extremum_scan_tangent(x_dot, x, axis, {kind!r})"},
                note="ties share the gradient equally (k tied elements holding the running extremum get g / k "
                     "each), as np.max's", sympy=FORMS + f"{kind}imum_accumulate")


def _logaddexp_reduce_templates(static, operand_shapes):
    x = operand_shapes["x"]
    return {"x": f"{spread('g', static, x)} * np.exp(x - {spread(LOG_ZERO_SHIFT, static, x)})"}


def _logaddexp_reduce_tangents(static, operand_shapes):
    x = operand_shapes["x"]
    return {"x": f"np.sum(x_dot * np.exp(x - {spread(LOG_ZERO_SHIFT, static, x)}), axis=axis, keepdims=keepdims)"}


def _running_weights(static, x) -> tuple[str, int]:
    """``exp(x[j] - ans[i])`` for j <= i (0 above it: no overflow there), d ans[i] / d x[j] of
    ``np.logaddexp.accumulate(x, axis)``, i on `axis` and j on the one after it, and that axis (a
    running log-sum of -inf, ans -inf, is shifted by 0 as np.logaddexp.reduce's)."""
    a = static["axis"] % max(x.ndim, 1)

    def at(name, new):  # `name` with a new axis at position `new`
        return f"{name}[{', '.join([':'] * new + ['None'] + [':'] * (x.ndim - new))}]"
    n = f"x.shape[{a}]"
    trailing = ", ".join([":", ":"] + ["None"] * (x.ndim - a - 1))
    mask = f"(np.arange({n})[:, None] >= np.arange({n})[None, :])[{trailing}]"
    return f"np.exp(np.where({mask}, {at('x', a)} - {at(LOG_ZERO_SHIFT, a + 1)}, -np.inf))", a


def _logaddexp_scan_templates(static, operand_shapes):
    if not operand_shapes["x"].known:  # (its axes not known: a helper moving the axis, scan_helpers.py)
        return {"x": "logaddexp_scan_adjoint(g, x, ans, axis)"}
    weights, a = _running_weights(static, operand_shapes["x"])
    return {"x": f"np.sum({_at_next('g', a, operand_shapes['x'].ndim)} * {weights}, axis={a})"}


def _logaddexp_scan_tangents(static, operand_shapes):
    if not operand_shapes["x"].known:
        return {"x": "logaddexp_scan_tangent(x_dot, x, ans, axis)"}
    weights, a = _running_weights(static, operand_shapes["x"])
    return {"x": f"np.sum({_at_next('x_dot', a - 1, operand_shapes['x'].ndim)} * {weights}, axis={a + 1})"}


def _at_next(name, a, ndim):
    """`name` with a new axis after axis `a` (at ``a + 1``)."""
    return f"{name}[{', '.join([':'] * (a + 1) + ['None'] + [':'] * (ndim - a - 1))}]"


def _scan_rule(helper, other, kind_text="kind"):
    """The rule of a running-extremum helper, linear in its first operand `a`: its transpose
    is `other` (the adjoint's is the tangent's and back), and `x` only picks the holders."""
    return rule(helper, ("a", "x"), {"a": f"{other}(g, x, axis, kind)", "x": "zeros_like(x)"},
                static={"axis": 0, "kind": "max"}, fresh=True, array_result=True,
                shape=lambda static, a, x: shapes.array(x),
                tangents={"a": f"{helper.__name__}(a_dot, x, axis, kind)", "x": "zeros_like(x_dot)"},
                not_symbolic="srcdiff's own helper: checked against central differences")


def _helpers():
    from . import scan_helpers
    return [_scan_rule(scan_helpers.extremum_scan_adjoint, "extremum_scan_tangent"),
            _scan_rule(scan_helpers.extremum_scan_tangent, "extremum_scan_adjoint")]


RULES = [
    # ---- steps and sign transfers ----
    # heaviside(x, h0) is h0 where x == 0: h0's derivative is 1 there, 0 elsewhere (selected)
    binary(np.heaviside, x="zeros_like(g)", y="np.where(x == 0, g, 0.0)", selects={"y": ("x == 0", True)},
           note="zero in x (" + DELTA + "); the value at 0 (y) has derivative 1 where x == 0",
           not_symbolic="sympy's Heaviside has a DiracDelta derivative, srcdiff's 0 (as np.sign's)"),
    # |x| with y's sign bit: abs's convention at x = 0
    binary(np.copysign, x="g * np.sign(x) * np.copysign(1.0, y)", y="zeros_like(g)",
           derivable={"x": "kink(x == 0, g * np.sign(x) * np.copysign(1.0, y), x)", "y": "zeros_like(g)"},
           note="d/dx = sign(x) * (y's sign): 0 at x = 0, as abs'(0); zero in y (" + DELTA + ")",
           not_symbolic="sympy has no sign bit (copysign(x, -0.0) is -|x|)"),
    binary(np.float_power, x="g * y * np.float_power(x, y - 1 + (y == 0))", y=POW_Y, singular=SINGULAR,
           note="as np.power, in float64", sympy="numpy.power"),
    # ---- a number's parts: the fractional part moves with x, the whole part and exponent jump ----
    rule(np.modf, ("x",), {"x": "g[0]"}, fresh=True, tuple_result=True, tangents={"x": "(x_dot, 0.0 * x_dot)"},
         note="(fractional part, whole part): derivatives 1 and 0 (" + DELTA + ")",
         not_symbolic="a pair of parts sympy splits differently (its frac is x - floor(x))"),
    rule(np.frexp, ("x",), {"x": "g[0] / np.exp2(ans[1])"}, fresh=True, tuple_result=True,
         tangents={"x": "(x_dot / np.exp2(ans[1]), 0.0 * x_dot)"},
         note="(mantissa, exponent): the mantissa's derivative is 2 ** -exponent (1 at 0), the exponent's 0",
         not_symbolic="sympy has no binary exponent of a symbol"),
    # ---- ranges and running extrema: ties share the gradient equally, as np.max's ----
    rule(np.ptp, ("x",), _ptp_templates, static={"axis": None, "keepdims": False}, shape=reduce_shape, fresh=True,
         tangents=_ptp_tangents, batching="reduce", sympy=FORMS + "ptp",
         note="np.max - np.min: ties share the gradient equally, as theirs"),
    _scan(np.maximum, "max"),
    _scan(np.minimum, "min"),
    *_helpers(),
    rule(np.logaddexp.reduce, ("x",), _logaddexp_reduce_templates, name="numpy.logaddexp.reduce",
         static={"axis": 0, "keepdims": False}, shape=reduce_shape, fresh=True,
         tangents=_logaddexp_reduce_tangents, sympy=FORMS + "logaddexp_reduce"),
    rule(np.logaddexp.accumulate, ("x",), _logaddexp_scan_templates, name="numpy.logaddexp.accumulate",
         static={"axis": 0}, shape=lambda static, x: shapes.array(x), fresh=True, array_result=True,
         tangents=_logaddexp_scan_tangents,
         not_symbolic="a running log-sum-exp: checked against central differences",
         note="its weights exp(x[j] - ans[i]) for j <= i along the axis: an n-by-n array"),
]


# ---- parts of the Fourier transform of a real array (lower/fft_parts.py): real linear maps ----

def _fft_part_templates(static, operand_shapes):
    if static.get("kind") == "rfft":
        return {"x": "rfft_part_adjoint(g, np.shape(x)[axis], part, axis)"}
    return {"x": "fft_part(g, 'fft', part, axis)"}  # the parts of fft are symmetric


#: Why the Fourier transforms' rules have no sympy counterpart.
FFT_NUMERIC = "a fast Fourier transform: checked against central differences only"


def _irfft_templates(static, operand_shapes):
    return {"x": "irfft_adjoint(g, np.shape(x)[axis], n, axis, norm)"}


def _irfft_adjoint_templates(static, operand_shapes):
    if static["part"] == "imag":
        return {"a": "irfft_imag(g, n, axis, norm)"}
    return {"a": "np.fft.irfft(g, n=n, axis=axis, norm=norm)"}


#: ``np.fft.hfft(a, n, norm)`` of a real a is ``np.fft.irfft(a, n)`` with the other direction's scale
SWAPPED = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _hfft_templates(static, operand_shapes):
    return {"x": f"irfft_adjoint(g, np.shape(x)[axis], n, axis, {SWAPPED[static['norm']]!r})"}


def _resized(static, x, *rest):
    """x's number of axes, none of their lengths known (the one the transform runs along changes)."""
    return shapes.Shape((shapes.UNKNOWN_DIM,) * x.ndim) if x.known and x.ndim else shapes.UNKNOWN


def _fft_rules():
    from . import fft_helpers
    why = "sympy's transform is the complex one; srcdiff's parts are checked against central differences"
    return [rule(np.fft.irfft, ("x", "n"), _irfft_templates, static={"axis": -1, "norm": None}, defaults={"n": None},
                 fresh=True, array_result=True, tangents=LINEAR, shape=_resized, not_symbolic=FFT_NUMERIC,
                 note="of a real spectrum x (n: zero padding or cutting; it may be computed), its real linear map"),
            rule(np.fft.hfft, ("x", "n"), _hfft_templates, static={"axis": -1, "norm": None}, defaults={"n": None},
                 fresh=True, array_result=True, tangents=LINEAR, shape=_resized, not_symbolic=FFT_NUMERIC,
                 note="of a real x: np.fft.irfft(x, n) with the other direction's scale"),
            rule(fft_helpers.irfft_imag, ("x", "n"),
                 {"x": "irfft_adjoint(g, np.shape(x)[axis], n, axis, norm, 'imag')"},
                 static={"axis": -1, "norm": None}, defaults={"n": None}, fresh=True, array_result=True,
                 tangents=LINEAR, shape=_resized, not_symbolic=FFT_NUMERIC,
                 note="np.fft.irfft of a complex spectrum's imaginary parts (lower/fft_parts.py)"),
            rule(fft_helpers.irfft_adjoint, ("a", "m", "n"), _irfft_adjoint_templates,
                 static={"axis": -1, "norm": None, "part": "real"}, fresh=True, array_result=True,
                 tangents={"a": "irfft_adjoint(a_dot, m, n, axis, norm, part)"}, shape=_resized,
                 not_symbolic=FFT_NUMERIC),
            rule(fft_helpers.fft_part, ("x",), _fft_part_templates, static={"kind": "fft", "part": "real", "axis": -1},
                 fresh=True, array_result=True, tangents=LINEAR, not_symbolic=why,
                 note="np.fft.fft(x).real / .imag, np.abs(np.fft.rfft(x)) and the like of a real x"),
            rule(fft_helpers.rfft_part_adjoint, ("a", "n"), {"a": "fft_part(g, 'rfft', part, axis)"},
                 static={"part": "real", "axis": -1}, fresh=True, array_result=True,
                 tangents={"a": "rfft_part_adjoint(a_dot, n, part, axis)"},
                 not_symbolic=why)]


RULES += _fft_rules()
