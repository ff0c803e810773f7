"""``np.bincount(idx, weights=w)``: sums of weights by bin, differentiated in the weights; the
same for ``np.histogram(x, bins, weights=w)``, and ``np.unique(x)``'s values (bin_helpers.py).

The indices are whole numbers (no gradient); bin ``k`` sums the weights whose index is ``k``, so
each weight's gradient is its bin's: ``g[idx]``.  Without weights the counts carry no gradient.
``minlength`` is an operand with no gradient (a whole number), so it may be computed in the function
(``minlength=H.shape[0]``).
"""

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from . import bin_helpers
from .table import rule

ONE_DIM = shapes.Shape((shapes.UNKNOWN_DIM,))

BINS = "sums by bins: sympy has no counterpart (checked against central differences)"


def _histogram_templates(static, operand_shapes):
    if static["density"]:
        raise SrcDiffError("numpy.histogram with density=True has no adjoint rule",
                           hint="divide the counts yourself: counts / (counts.sum() * np.diff(edges))")
    out = {"weights": "histogram_weights_adjoint(g[0], x, bins, range)"}
    bins = operand_shapes["bins"]
    if static["range"] is not None or (bins.known and bins.ndim == 1):  # edges that do not move with x
        out["x"] = "np.zeros(np.shape(x))"
    return out


def _histogram_tangents(static, operand_shapes):
    out = {"weights": "(np.histogram(x, bins=bins, range=range, weights=weights_dot)[0], np.zeros(np.shape(ans[1])))"}
    if "x" in _histogram_templates(static, operand_shapes):
        out["x"] = "(np.zeros(np.shape(ans[0])), np.zeros(np.shape(ans[1])))"
    return out


def _unique_templates(static, operand_shapes):
    asked = [k for k in ("return_index", "return_inverse", "return_counts") if static[k]]
    if asked or static["axis"] is not None:
        raise SrcDiffError(f"numpy.unique with {', '.join(asked) or 'axis'} has no adjoint rule",
                           hint="differentiate np.unique(x) alone (its indices carry no gradient)")
    return {"x": "unique_adjoint(g, x)"}


def _unique_tangents(static, operand_shapes):
    _unique_templates(static, operand_shapes)
    return {"x": "unique_gather(x_dot, x)"}


UNIQUE_STATIC = {"return_index": False, "return_inverse": False, "return_counts": False, "axis": None,
                 "equal_nan": True}

RULES = [
    # the counts are piecewise constant in x: 0 where the edges are fixed; edges made from x's range (an
    # int bins, no range) move with it, so x is refused there rather than given a partial derivative
    rule(np.histogram, ("x", "bins", "weights"), _histogram_templates, static={"range": None, "density": None},
         order=("x", "bins", "range", "density", "weights"),  # NumPy's: np.histogram(x, 5, (0, 1)) has a range
         defaults={"bins": 10, "weights": None}, tuple_result=True, tangents=_histogram_tangents,
         note="gradient to the weights (each its bin's, 0 outside the edges); none to x (piecewise constant) "
              "with edges given or a range", not_symbolic=BINS),
    rule(bin_helpers.histogram_weights_adjoint, ("y", "x", "bins"),
         {"y": "np.histogram(x, bins=bins, range=range, weights=g)[0]", "x": "np.zeros(np.shape(x))"},
         static={"range": None}, fresh=True, array_result=True, shape=lambda static, y, x, bins: shapes.array(x),
         tangents={"y": "histogram_weights_adjoint(y_dot, x, bins, range)", "x": "0.0 * x_dot"}, not_symbolic=BINS),
    rule(np.unique, ("x",), _unique_templates, static=UNIQUE_STATIC, fresh=True, array_result=True,
         shape=lambda static, x: ONE_DIM, tangents=_unique_tangents,
         note="the sorted distinct values: each one's gradient to its element; NaN at equal elements (no derivative: "
              "the number of values jumps there)", not_symbolic=BINS),
    rule(bin_helpers.unique_adjoint, ("y", "x"), {"y": "unique_gather(g, x)", "x": "np.zeros(np.shape(x))"},
         fresh=True, array_result=True, shape=lambda static, y, x: shapes.array(x),
         tangents={"y": "unique_adjoint(y_dot, x)", "x": "0.0 * x_dot"}, not_symbolic=BINS),
    rule(bin_helpers.unique_gather, ("v", "x"), {"v": "unique_adjoint(g, x)", "x": "np.zeros(np.shape(x))"},
         fresh=True, array_result=True, shape=lambda static, v, x: ONE_DIM,
         tangents={"v": "unique_gather(v_dot, x)", "x": "0.0 * x_dot"}, not_symbolic=BINS),
    rule(np.bincount, ("x", "weights", "minlength"), {"weights": "np.take(g, x)"},
         defaults={"weights": None, "minlength": 0}, fresh=True, array_result=True,
         shape=lambda static, x, weights, minlength: ONE_DIM,
         tangents={"weights": "np.bincount(x, weights=weights_dot, minlength=minlength)"},
         note="gradient to the weights (each its bin's); the indices are whole numbers; minlength may be computed",
         not_symbolic="sums by whole-number bins: sympy has no counterpart (checked against central differences)"),
]
