"""NumPy's reductions that skip NaN: ``np.nansum`` and ``np.nanmean``, with ``axis`` and ``keepdims``.

A NaN element drops out of the value, so its gradient is 0 (selected, never ``0 * NaN``);
every other element's is that of ``np.sum`` / ``np.mean`` over the elements that are not NaN.
Their sympy counterparts skip the elements that NaN in the data made sympy's ``nan``.
"""

import numpy as np

from .numpy_reductions import REDUCE, reduce_shape, spread
from .table import FORMS, rule

#: the elements counted per reduced group (kept as axes of length one, for the adjoint)
_KEPT = "np.sum(x == x, axis=axis, keepdims=True)"


def _nansum_templates(static, operand_shapes):
    if operand_shapes["x"].scalar:
        return {"x": "g * (x == x)"}  # (x == x) is False only for NaN
    return {"x": f"np.where(np.isnan(x), 0.0, {spread('g', static, operand_shapes['x'])})"}


def _nanmean_templates(static, operand_shapes):
    if operand_shapes["x"].scalar:
        return {"x": "g * (x == x)"}
    # a group of NaN only has the value NaN and no element with a gradient: its count is never read
    return {"x": f"np.where(np.isnan(x), 0.0, {spread('g', static, operand_shapes['x'])} / {_KEPT})"}


def _nansum_tangents(static, operand_shapes):
    if operand_shapes["x"].scalar:
        return {"x": "x_dot * (x == x)"}
    return {"x": "np.sum(np.where(np.isnan(x), 0.0, x_dot), axis=axis, keepdims=keepdims)"}


def _nanmean_tangents(static, operand_shapes):
    if operand_shapes["x"].scalar:
        return {"x": "x_dot * (x == x)"}
    return {"x": "np.sum(np.where(np.isnan(x), 0.0, x_dot), axis=axis, keepdims=keepdims) "
                 "/ np.sum(x == x, axis=axis, keepdims=keepdims)"}


NOTE = "NaN elements have gradient 0; the others that of sum / mean over the elements that are not NaN"

RULES = [
    rule(func, ("x",), templates, static=dict(REDUCE), shape=reduce_shape, note=NOTE, fresh=True,
         tangents=tangents, batching="reduce", keeps={"x": "x == x"}, sympy=FORMS + symbolic)
    for func, templates, tangents, symbolic in (
        (np.nansum, _nansum_templates, _nansum_tangents, "nan_total"),
        (np.nanmean, _nanmean_templates, _nanmean_tangents, "nan_mean"))
]
