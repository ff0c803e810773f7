"""NumPy's reductions that skip NaN: ``np.nansum``, ``np.nanmean``, ``np.nanmax`` and ``np.nanmin``,
with ``axis`` and ``keepdims``.

A NaN element drops out of the value, so its gradient is 0 (selected, never ``0 * NaN``);
every other element's is that of ``np.sum`` / ``np.mean`` over the elements that are not NaN.
The extrema's is np.max's: tied extrema share it equally (NaN equals no value, so is no tie).
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


def _nan_extremum_templates(static, operand_shapes):
    if operand_shapes["x"].scalar:
        return {"x": "g * (x == x)"}
    # x == ans: False for NaN; a group of NaN only (its value NaN) counts one, never 0 / 0
    ties = f"np.asarray(x == {spread('ans', static)}, dtype=x.dtype)"
    return {"x": f"{spread('g', static, operand_shapes['x'])} * {ties} / "
                 f"np.maximum(np.sum({ties}, axis=axis, keepdims=True), 1)"}


def _nan_extremum_tangents(static, operand_shapes):
    if operand_shapes["x"].scalar:
        return {"x": "x_dot * (x == x)"}
    ties = f"np.asarray(x == {spread('ans', static)}, dtype=x.dtype)"
    return {"x": f"np.sum(np.where(np.isnan(x), 0.0, x_dot) * {ties}, axis=axis, keepdims=keepdims) / "
                 f"np.maximum(np.sum({ties}, axis=axis, keepdims=keepdims), 1)"}


#: the deviations from the mean of the elements that are not NaN (0 at a NaN), and their count less ddof
_DEVIATION = "np.where(np.isnan(x), 0.0, x - np.sum(np.where(np.isnan(x), 0.0, x), axis=axis, keepdims=True) / {kept})"


def _nan_spread_templates(static, operand_shapes, root):
    if operand_shapes["x"].scalar:
        return {"x": "g * 0.0 * (x == x)"}  # one element: no spread whatever it is
    deviation = _DEVIATION.format(kept=_KEPT)
    scale = "(np.sum(x == x, axis=axis, keepdims=True) - ddof)"
    if root:  # d std = d var / (2 std); where std is 0 every deviation is 0: the subgradient 0
        return {"x": f"{spread('g', static, operand_shapes['x'])} * {deviation} / "
                     f"({scale} * np.where({spread('ans', static)} == 0, 1.0, {spread('ans', static)}))"}
    return {"x": f"{spread('g', static, operand_shapes['x'])} * 2.0 * {deviation} / {scale}"}


def _nan_spread_tangents(static, operand_shapes, root):
    if operand_shapes["x"].scalar:
        return {"x": "x_dot * 0.0"}
    deviation = _DEVIATION.format(kept=_KEPT)
    total = f"np.sum({deviation} * np.where(np.isnan(x), 0.0, x_dot), axis=axis, keepdims=keepdims) " \
            f"/ (np.sum(x == x, axis=axis, keepdims=keepdims) - ddof)"
    return {"x": f"{total} / np.where(ans == 0, 1.0, ans)" if root else f"2.0 * {total}"}


NOTE = "NaN elements have gradient 0; the others that of sum / mean over the elements that are not NaN"

RULES = [
    rule(func, ("x",), templates, static=dict(REDUCE), shape=reduce_shape, note=NOTE, fresh=True,
         tangents=tangents, batching="reduce", keeps={"x": "x == x"}, sympy=FORMS + symbolic)
    for func, templates, tangents, symbolic in (
        (np.nansum, _nansum_templates, _nansum_tangents, "nan_total"),
        (np.nanmean, _nanmean_templates, _nanmean_tangents, "nan_mean"))
] + [
    rule(func, ("x",), _nan_extremum_templates, static=dict(REDUCE), shape=reduce_shape, fresh=True,
         note="NaN elements have gradient 0; tied extrema share it equally, as np.max's",
         tangents=_nan_extremum_tangents, batching="reduce", sympy=FORMS + symbolic)
    for func, symbolic in ((np.nanmax, "nan_amax"), (np.nanmin, "nan_amin"))
] + [
    rule(func, ("x",), lambda static, shapes, root=root: _nan_spread_templates(static, shapes, root),
         static={**REDUCE, "ddof": 0}, shape=reduce_shape, fresh=True,
         note="NaN elements have gradient 0; the others that of var / std over the elements that are not NaN",
         tangents=lambda static, shapes, root=root: _nan_spread_tangents(static, shapes, root), batching="reduce",
         sympy=FORMS + symbolic)
    for func, root, symbolic in ((np.nanvar, False, "nan_var"), (np.nanstd, True, "nan_std"))
]
