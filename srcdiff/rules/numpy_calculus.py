"""NumPy's numerical calculus: finite differences (``diff``, ``ediff1d``, ``gradient``),
cumulative products, the trapezoid rule, polynomials, interpolation, evenly spaced values
from differentiated endpoints, and the values of ``sort`` and ``partition``.

Most of these are linear in the differentiated operand: the adjoint is the transpose, written
with NumPy calls that have rules themselves (so a gradient can be differentiated again), or
with a helper of rules/calculus_helpers.py that has its own rule.
"""

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from . import calculus_helpers as helpers
from . import table
from .index_shapes import take_along_shape
from .sort_ties import sort_derivable
from .table import LINEAR

rule, nograd = table.numerically_checked(table.rule), table.numerically_checked(table.nograd)

ONE_DIM = shapes.Shape((shapes.UNKNOWN_DIM,))


def _same(static, x, *rest):
    return shapes.array(x)


def _zeros_at(a: str, axis) -> str:
    """Zeros shaped like `a` with one element along `axis` (also when `a` is empty there)."""
    return f"np.zeros_like(np.sum({a}, axis={axis}, keepdims=True))"


# ---- differences: diff is D^n along an axis, its transpose (-1)^n D^n of g padded with n zeros ----

def _diff_transpose(static) -> str:
    n, axis = static["n"], static["axis"]
    zeros = [_zeros_at("g", axis)] * n
    padded = f"np.concatenate([{', '.join(zeros + ['g'] + zeros)}], axis={axis})"
    return f"{'-' if n % 2 else ''}np.diff({padded}, n={n}, axis={axis})"


def _length(operand: str, operand_shape: shapes.Shape, axis) -> str:
    """How many elements an optional prepend/append operand adds along `axis`."""
    if operand_shape.none:
        return "0"
    return "1" if operand_shape.scalar else f"np.shape({operand})[{axis}]"


def _diff_templates(static, operand_shapes):
    n, axis = static["n"], static["axis"]
    if not isinstance(n, int) or n < 0:
        raise SrcDiffError(f"numpy.diff with n={n!r}: n must be a whole number >= 0")
    if n == 0:
        return {"x": "g"}
    full = _diff_transpose(static)
    p = _length("prepend", operand_shapes["prepend"], axis)
    q = _length("append", operand_shapes["append"], axis)
    templates = {"x": full if p == q == "0" else
                 f"np.take({full}, np.arange({p}, {p} + np.shape(x)[{axis}]), axis={axis})"}
    for name, start, stop in (("prepend", "0", p), ("append", f"{p} + np.shape(x)[{axis}]",
                                                      f"{p} + np.shape(x)[{axis}] + {q}")):
        if not operand_shapes[name].none:
            part = f"np.take({full}, np.arange({start}, {stop}), axis={axis})"
            templates[name] = f"np.sum({part})" if operand_shapes[name].scalar else part
    return templates


def _diff_tangents(static, operand_shapes):
    n, axis = static["n"], static["axis"]
    given = [p for p in ("prepend", "append") if not operand_shapes[p].none]

    def call(x, **extra):
        ends = "".join(f", {p}={extra.get(p, f'np.zeros_like({p})')}" for p in given)
        return f"np.diff({x}, n={n}, axis={axis}{ends})"
    out = {"x": call("x_dot")}
    for p in given:
        out[p] = call("np.zeros_like(x)", **{p: f"{p}_dot"})
    return out


def _diff_shape(static, x, *rest):
    return shapes.UNKNOWN if not x.known else shapes.Shape((shapes.UNKNOWN_DIM,) * x.ndim)


def _ediff1d_templates(static, operand_shapes):
    begin, end = (0 if v is None else np.size(v) for v in (static["to_begin"], static["to_end"]))
    g = "g" if not (begin or end) else f"g[{begin}:np.size(g) - {end}]"
    return {"x": f"np.reshape(-np.diff(np.concatenate([{_zeros_at(g, 0)}, {g}, {_zeros_at(g, 0)}])), np.shape(x))"}


def _ediff1d_tangents(static, operand_shapes):
    # the constants to_begin / to_end have no tangent: zeros in their places
    begin, end = (0 if v is None else np.size(v) for v in (static["to_begin"], static["to_end"]))
    if not (begin or end):
        return {"x": "np.ediff1d(x_dot)"}
    zeros = "np.zeros({}, np.result_type(x_dot))"
    return {"x": f"np.concatenate([{zeros.format(begin)}, np.ediff1d(x_dot), {zeros.format(end)}])"}


# ---- np.gradient: one axis at a time (several axes make a list) ----

def _gradient_axis(static, operand_shapes) -> int:
    x, axis = operand_shapes["x"], static["axis"]
    if isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    if axis is None and x.known and x.ndim == 1:
        axis = 0
    if not isinstance(axis, int):
        raise SrcDiffError("numpy.gradient along several axes makes a list of arrays, which srcdiff has no "
                           "adjoint rule for", hint="give the operand a name (f = ...; np.gradient(f)), or call "
                                "np.gradient(f, axis=k) once for each axis k")
    if not isinstance(static["spacing"], (int, float)) or isinstance(static["spacing"], bool):
        raise SrcDiffError("numpy.gradient with coordinates or several spacings has no adjoint rule",
                           hint="pass one number as the spacing, and one axis")
    return axis


def _gradient_templates(static, operand_shapes):
    if not operand_shapes["x"].known:
        return {}  # refused: the rank decides between one array and a list of them
    axis = _gradient_axis(static, operand_shapes)
    return {"x": f"gradient_adjoint(g, spacing, {axis}, edge_order)"}


def _gradient_tangents(static, operand_shapes):
    if not _gradient_templates(static, operand_shapes):
        return {}
    axis = _gradient_axis(static, operand_shapes)
    return {"x": f"np.gradient(x_dot, spacing, axis={axis}, edge_order=edge_order)"}


# ---- evenly spaced values from differentiated endpoints ----

def _fractions(static) -> str:
    """Where each value lies between start (0) and stop (1)."""
    if static["retstep"] or (static["dtype"] is not None and not np.issubdtype(np.dtype(static["dtype"]), np.floating)):
        raise SrcDiffError("numpy.linspace/geomspace with retstep or an integer dtype has no adjoint rule",
                           hint="leave retstep and dtype out")
    return "np.linspace(0.0, 1.0, num, endpoint=endpoint)"


def _endpoints_scalar(operand_shapes):
    if not all(operand_shapes[p].scalar for p in ("start", "stop")):
        raise SrcDiffError("numpy.linspace/geomspace of array endpoints has no adjoint rule",
                           hint="write start + (stop - start) * np.linspace(0.0, 1.0, n) with broadcasting")


def _linspace_templates(static, operand_shapes):
    if not all(operand_shapes[p].known for p in ("start", "stop")):
        return {}
    _endpoints_scalar(operand_shapes)
    t = _fractions(static)
    return {"start": f"np.sum(g * (1.0 - {t}))", "stop": f"np.sum(g * {t})"}


def _linspace_tangents(static, operand_shapes):
    if not _linspace_templates(static, operand_shapes):
        return {}
    t = _fractions(static)
    return {"start": f"start_dot * (1.0 - {t})", "stop": f"stop_dot * {t}"}


def _geomspace_templates(static, operand_shapes):
    if not all(operand_shapes[p].known for p in ("start", "stop")):
        return {}
    _endpoints_scalar(operand_shapes)
    t = _fractions(static)
    return {"start": f"np.sum(g * ans * (1.0 - {t})) / start", "stop": f"np.sum(g * ans * {t}) / stop"}


def _geomspace_tangents(static, operand_shapes):
    if not _geomspace_templates(static, operand_shapes):
        return {}
    t = _fractions(static)
    return {"start": f"start_dot * ans * (1.0 - {t}) / start", "stop": f"stop_dot * ans * {t} / stop"}


# ---- cumulative product ----

def _cumprod_templates(static, operand_shapes):
    if static["axis"] is None:
        return {"x": "np.reshape(cumprod_adjoint(np.ravel(g), np.ravel(x), 0), np.shape(x))"}
    return {"x": "cumprod_adjoint(g, x, axis)"}


def _cumprod_tangents(static, operand_shapes):
    if static["axis"] is None:
        return {"x": "cumprod_tangent(np.ravel(x_dot), np.ravel(x), 0)"}
    return {"x": "cumprod_tangent(x_dot, x, axis)"}


def _scan_shape(static, x):
    if static.get("axis") is None:
        return shapes.UNKNOWN if not x.known else ONE_DIM
    return shapes.array(x)


# ---- the trapezoid rule: sum over segments of (y[i] + y[i+1]) / 2 * (x[i+1] - x[i]) ----

def _trapezoid_parts(static, operand_shapes):
    y, x, axis = operand_shapes["y"], operand_shapes["x"], static["axis"]
    if not y.known or not y.ndim:
        raise SrcDiffError("numpy.trapezoid of an operand of unknown rank has no adjoint rule")
    axis = axis % y.ndim
    along = tuple(-1 if a == axis else 1 for a in range(y.ndim))
    if x.none:
        widths = f"np.reshape(np.full(np.shape(y)[{axis}] - 1, dx * 1.0), {along})"
    elif x.known and x.ndim == 1 and y.ndim > 1:
        widths = f"np.reshape(np.diff(x), {along})"
    else:
        widths = f"np.diff(x, axis={axis})"
    spread = "g" if y.ndim == 1 else f"np.expand_dims(g, {axis})"
    middles = f"(np.diff(y, axis={axis}) + 2.0 * np.take(y, np.arange(np.shape(y)[{axis}] - 1), axis={axis})) / 2.0"
    return axis, widths, spread, middles


def _pad_ends(a: str, axis: int) -> str:
    zeros = _zeros_at(a, axis)
    return f"np.concatenate([{zeros}, {a}, {zeros}], axis={axis})"


def _trapezoid_templates(static, operand_shapes):
    if not operand_shapes["y"].known:
        return {}
    axis, widths, spread, middles = _trapezoid_parts(static, operand_shapes)
    zeros = _zeros_at(widths, axis)
    weights = (f"(np.concatenate([{widths}, {zeros}], axis={axis}) "
               f"+ np.concatenate([{zeros}, {widths}], axis={axis})) / 2.0")
    out = {"y": f"{spread} * {weights}"}
    x = operand_shapes["x"]
    if not x.none and x.known and x.ndim == operand_shapes["y"].ndim:
        out["x"] = f"-np.diff({_pad_ends(f'{spread} * {middles}', axis)}, axis={axis})"
    return out


def _trapezoid_tangents(static, operand_shapes):
    if not _trapezoid_templates(static, operand_shapes):
        return {}
    axis, widths, spread, middles = _trapezoid_parts(static, operand_shapes)
    out = {"y": f"np.trapezoid(y_dot, x=x, dx=dx, axis={axis})"}
    if "x" in _trapezoid_templates(static, operand_shapes):
        out["x"] = f"np.sum(x_dot * -np.diff({_pad_ends(middles, axis)}, axis={axis}), axis={axis})"
    return out


def _trapezoid_shape(static, y, x):
    return shapes.reduce(y, static["axis"], False)


# ---- polynomials: p[0] x**(n-1) + ... + p[n-1] ----

DERIVATIVE = "p[:-1] * np.arange(np.size(p) - 1, 0, -1)"  # np.polyder(p)
POWERS = ("np.sum(np.reshape(g * np.ones(np.shape(ans)), (-1, 1)) * np.reshape(x * np.ones(np.shape(ans)), (-1, 1)) "
          "** np.arange(np.size(p) - 1, -1, -1), axis=0)")

# ---- interpolation ----


def _interp_templates(static, operand_shapes):
    if any(static[k] is not None for k in ("left", "right", "period")):
        raise SrcDiffError("numpy.interp with left, right or period has no adjoint rule",
                           hint="leave them out (the ends then hold fp[0] and fp[-1])")
    return {"x": "g * interp_slope(x, xp, fp)", "fp": "interp_adjoint(g, x, xp, np.size(fp))", "xp": KNOTS}


def _interp_tangents(static, operand_shapes):
    _interp_templates(static, operand_shapes)
    return {"x": "x_dot * interp_slope(x, xp, fp)", "fp": "np.interp(x, xp, fp_dot)",
            "xp": "-interp_slope(x, xp, fp) * np.interp(x, xp, xp_dot)"}


#: The adjoint in the knots xp.  Between xp[i] and xp[i + 1] (t the fraction of the way, s the slope) the
#: value's derivatives in them are -s (1 - t) and -s t: the slope's adjoint sent back as fp's is, negated
#: (moving every knot with x leaves the value, so they add up to minus the derivative in x).  Outside the
#: knots the slope is 0, as the value is a constant there.
KNOTS = "-interp_adjoint(g * interp_slope(x, xp, fp), x, xp, np.size(xp))"


# ---- sort and partition: each value's adjoint goes back to the element it came from ----

def _permuted(order: str, static) -> dict:
    """The adjoint through a permutation `order` (indices along axis, as argsort gives)."""
    if static["axis"] is None:
        flat = order.replace("x, ", "np.ravel(x), ").replace("axis=axis", "axis=0")
        return {"x": f"np.reshape(np.ravel(g)[np.argsort({flat}, axis=0)], np.shape(x))"}
    return {"x": f"np.take_along_axis(g, np.argsort({order}, axis=axis), axis=axis)"}


def _sort_templates(static, operand_shapes):
    return _permuted("np.argsort(x, axis=axis, kind='stable')", static)


def _partition_templates(static, operand_shapes):
    return _permuted("np.argpartition(x, kth, axis=axis)", static)


def _sort_tangents(static, operand_shapes):
    if static["axis"] is None:
        return {"x": "np.ravel(x_dot)[np.argsort(np.ravel(x), kind='stable')]"}
    return {"x": "np.take_along_axis(x_dot, np.argsort(x, axis=axis, kind='stable'), axis=axis)"}


def _partition_tangents(static, operand_shapes):
    if static["axis"] is None:
        return {"x": "np.ravel(x_dot)[np.argpartition(np.ravel(x), kth)]"}
    return {"x": "np.take_along_axis(x_dot, np.argpartition(x, kth, axis=axis), axis=axis)"}


SORT_NOTE = "ties are not differentiable: each tied value's gradient goes to one of the tied elements"

RULES = [
    # ---- differences ----
    # NumPy's order: np.diff(x, 2) is n=2 (not a prepended 2)
    rule(np.diff, ("x", "prepend", "append"), _diff_templates, static={"n": 1, "axis": -1},
         order=("x", "n", "axis", "prepend", "append"),
         defaults={"prepend": None, "append": None}, fresh=True, array_result=True, shape=_diff_shape, batching="moved",
         tangents=_diff_tangents, note="any n; prepend and append get their part of the gradient", sympy="numpy.diff"),
    rule(np.ediff1d, ("x",), _ediff1d_templates, static={"to_end": None, "to_begin": None}, fresh=True,
         array_result=True, shape=lambda static, x: ONE_DIM, tangents=_ediff1d_tangents,
         note="to_begin / to_end constants", sympy="numpy.ediff1d"),
    rule(np.gradient, ("x",), _gradient_templates, static={"spacing": 1.0, "axis": None, "edge_order": 1},
         fresh=True, array_result=True, shape=_same, tangents=_gradient_tangents,
         note="one axis (a 1-D operand, or axis=k) and one uniform spacing; edge_order 1 or 2"),
    rule(helpers.gradient_adjoint, ("y",), {"y": "np.gradient(g, spacing, axis=axis, edge_order=edge_order)"},
         static={"spacing": 1.0, "axis": 0, "edge_order": 1}, fresh=True, shape=_same, tangents=LINEAR),
    # ---- evenly spaced values ----
    # num an operand (no gradient), not a static: ``np.linspace(0.0, stop, y.size)`` is known at run time only
    rule(np.linspace, ("start", "stop", "num"), _linspace_templates, defaults={"num": 50},
         static={"endpoint": True, "retstep": False, "dtype": None, "axis": 0}, fresh=True,
         array_result=True, shape=lambda static, *operands: ONE_DIM, tangents=_linspace_tangents,
         note="number endpoints (gradient to start and stop); num may be known at run time only"),
    rule(np.geomspace, ("start", "stop"), _geomspace_templates,
         static={"num": 50, "endpoint": True, "dtype": None, "axis": 0, "retstep": False}, fresh=True,
         array_result=True, shape=lambda static, *operands: ONE_DIM, tangents=_geomspace_tangents,
         note="number endpoints (gradient to start and stop)"),
    # ---- scans, integrals, polynomials, interpolation ----
    rule(np.cumprod, ("x",), _cumprod_templates, static={"axis": None, "dtype": None}, fresh=True, array_result=True,
         shape=_scan_shape, tangents=_cumprod_tangents, batching="reduce",
         note="exact where x has zeros (products of the other factors)", sympy="numpy.cumprod"),
    # its adjoint, linear in `a`, differentiated again (second order, exact at zeros): the
    # Hessian of sum(a * cumprod(x)) is symmetric, so x's adjoint and tangent are the same product
    rule(helpers.cumprod_adjoint, ("a", "x"),
         {"a": "cumprod_tangent(g, x, axis)", "x": "cumprod_curvature(a, x, g, axis)"},
         static={"axis": 0}, fresh=True, shape=_same,
         tangents={"a": "cumprod_adjoint(a_dot, x, axis)", "x": "cumprod_curvature(a, x, x_dot, axis)"}),
    *[rule(f, ("y", "x"), _trapezoid_templates, static={"dx": 1.0, "axis": -1}, defaults={"x": None}, fresh=True,
           shape=_trapezoid_shape, tangents=_trapezoid_tangents,
           note="gradient to y, and to the sample points x when they have y's shape", sympy=f"numpy.{f.__name__}")
      for f in dict.fromkeys(getattr(np, n) for n in ("trapezoid", "trapz") if hasattr(np, n))],
    rule(np.polyval, ("p", "x"), {"p": POWERS, "x": f"g * np.polyval({DERIVATIVE}, x)"}, fresh=True,
         shape=lambda static, p, x: shapes.array(x) if x.known and x.ndim else x,
         tangents={"p": "np.polyval(p_dot, x)", "x": f"x_dot * np.polyval({DERIVATIVE}, x)"},
         note="p a 1-D array of coefficients", sympy="numpy.polyval"),
    rule(np.interp, ("x", "xp", "fp"), _interp_templates, static={"left": None, "right": None, "period": None},
         fresh=True, shape=lambda static, x, xp, fp: x, tangents=_interp_tangents, batching="pointwise",
         note="gradient to fp, to x (the slope of its segment, the right one at a knot; 0 outside xp) and to "
              "the knots xp (the right segment's at a knot)"),
    # (in x: its weights move by -x_dot and x_dot over the segment's length; in the knots xp, as a gradient in them
    # needs them again: t moves by -np.interp(x, xp, xp_dot) / (xp[i + 1] -
    # xp[i]), so its weights by that times -y and y; the slope s by -s times the knots' own slope)
    rule(helpers.interp_adjoint, ("y", "x", "xp", "n"),
         {"y": "np.interp(x, xp, g)", "xp": "-interp_adjoint(y * interp_slope(x, xp, g), x, xp, np.size(xp))",
          "x": "y * interp_slope(x, xp, g)"},
         fresh=True, array_result=True, shape=lambda static, *operands: ONE_DIM,
         tangents={"y": "interp_adjoint(y_dot, x, xp, n)", "x": "interp_slope_adjoint(y * x_dot, x, xp, n)",
                   "xp": "interp_slope_adjoint(-y * np.interp(x, xp, xp_dot), x, xp, n)"}),
    rule(helpers.interp_slope, ("x", "xp", "fp"),
         {"x": "np.zeros(np.shape(x))", "fp": "interp_slope_adjoint(g, x, xp, np.size(fp))",
          "xp": "-interp_slope_adjoint(g * ans, x, xp, np.size(xp))"}, fresh=True,
         shape=lambda static, x, xp, fp: x, tangents={"x": "0.0 * x_dot", "fp": "interp_slope(x, xp, fp_dot)",
                                                      "xp": "-ans * interp_slope(x, xp, xp_dot)"},
         note="np.interp's slope: constant in x between the knots, linear in fp", batching="pointwise"),
    # ---- reading by index, as the adjoints above write (and user code may) ----
    rule(np.take, ("x", "indices"), {"x": "take_adjoint(g, x, indices, axis)"}, static={"axis": None},
         tangents={"x": "np.take(x_dot, indices, axis=axis)"}, fresh=True,
         note="a repeated index adds its gradients up", sympy="numpy.take"),
    rule(helpers.take_adjoint, ("y", "x", "indices"), {"y": "np.take(g, indices, axis=axis)"}, static={"axis": None},
         shape_only=("x",), fresh=True, shape=lambda static, y, x, indices: shapes.array(x),
         tangents={"y": "take_adjoint(y_dot, x, indices, axis)"}),
    rule(np.take_along_axis, ("x", "indices"), {"x": "take_along_axis_adjoint(g, x, indices, axis)"},
         static={"axis": -1}, batching="along", tangents={"x": "np.take_along_axis(x_dot, indices, axis=axis)"},
         fresh=True,
         array_result=True, shape=take_along_shape, note="a repeated index adds its gradients up",
         sympy="numpy.take_along_axis"),
    rule(helpers.take_along_axis_adjoint, ("y", "x", "indices"), {"y": "np.take_along_axis(g, indices, axis=axis)"},
         static={"axis": -1}, shape_only=("x",), fresh=True, shape=lambda static, y, x, indices: shapes.array(x),
         batching="along",
         tangents={"y": "take_along_axis_adjoint(y_dot, x, indices, axis)"}),
    # ---- values of sort and partition ----
    rule(np.sort, ("x",), _sort_templates, static={"axis": -1, "kind": None, "order": None}, fresh=True,
         batching="along",
         array_result=True, shape=lambda static, x: _scan_shape(static, x), tangents=_sort_tangents,
         derivable=sort_derivable, note=SORT_NOTE),
    # (kth an operand, no gradient: ``k = len(x) // 2`` is known only when the function runs)
    rule(np.partition, ("x", "kth"), _partition_templates, static={"axis": -1, "kind": "introselect", "order": None},
         fresh=True, array_result=True, shape=lambda static, x, kth: _scan_shape(static, x),
         tangents=_partition_tangents, note=SORT_NOTE),
    nograd(np.argpartition, ("args",), fresh=True, array_result=True),
]
