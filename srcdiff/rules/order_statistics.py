"""``np.median``, ``np.percentile`` and ``np.quantile`` (linear interpolation, the default):
a weighted sum of the one or two order statistics the position selects.

The weights (`calculus_helpers.order_weights`) are constant between ties, so the gradient is
``g`` times them and the tangent their sum with ``x_dot``; elements tied with a selected one
share its weight equally (as ties of ``np.max`` share the gradient).  ``q`` is one number or a
sequence of them (the levels, a constant): a sequence's value stacks one result per level, so its
adjoint is the sum of each level's weights times its slice of ``g``, and its tangent the stack of
each level's weighted sum.  The ``nan`` forms weigh the elements that are not NaN
(`calculus_helpers.nan_order_weights`), as NumPy orders them.
"""

import numbers

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from .calculus_helpers import nan_order_weights, order_weights
from .numpy_reductions import REDUCE, reduce_shape, spread
from .table import nograd, rule

_ORDER = "order statistics are chosen by comparing values, which symbols are not"
_TIES = "ties share the selected order statistic's weight equally"
_NAN = "NaN elements skipped (their gradient 0); " + _TIES


def _number(q) -> bool:
    return isinstance(q, (numbers.Real, np.floating, np.integer)) and not isinstance(q, (bool, np.bool_))


def _q(static, scale: float) -> str | list[str]:
    """The level as a percentage (a literal), or the list of them for a sequence of levels."""
    q = static.get("q")
    if q is None:  # (validation of the table, with the defaults: a call always passes q)
        return "50.0"
    if static.get("method", "linear") != "linear":
        raise SrcDiffError(f"method={static.get('method')!r}: srcdiff differentiates the linear method only",
                           hint="leave method out (linear interpolation)")
    if _number(q):
        return repr(float(q) * scale)
    levels = np.asarray(q) if isinstance(q, (list, tuple, np.ndarray)) else None
    if levels is None or levels.ndim != 1 or not levels.size or not all(_number(v) for v in levels.tolist()) \
            or isinstance(static.get("axis"), tuple):
        raise SrcDiffError(f"a gradient of a percentile needs q one number or a flat sequence of numbers "
                           f"(with one axis or none), not {q!r}",
                           hint="call it once per q: [np.percentile(x, q) for q in (10, 90)]")
    return [repr(float(v) * scale) for v in levels.tolist()]


def _weights(q: str, skip_nan: bool) -> str:
    return f"{'nan_order_weights' if skip_nan else 'order_weights'}(x, {q}, axis)"


def _templates(q_of, skip_nan=False):
    def templates(static, operand_shapes):
        q = q_of(static)
        if isinstance(q, str):
            return {"x": f"{spread('g', static, operand_shapes['x'])} * {_weights(q, skip_nan)}"}
        # g's first axis runs over the levels: each level's slice spread over x, times its weights
        terms = [f"{spread(f'g[{k}]', static, operand_shapes['x'])} * {_weights(level, skip_nan)}"
                 for k, level in enumerate(q)]
        return {"x": " + ".join(terms)}
    return templates


def _tangents(q_of, skip_nan=False):
    def tangents(static, operand_shapes):
        q = q_of(static)
        sums = [f"np.sum(x_dot * {_weights(level, skip_nan)}, axis=axis, keepdims=keepdims)"
                for level in ([q] if isinstance(q, str) else q)]
        return {"x": sums[0] if isinstance(q, str) else f"np.stack([{', '.join(sums)}])"}
    return tangents


def _median(static):
    return "50.0"


def _percentile(static):
    return _q(static, 1.0)


def _quantile(static):
    return _q(static, 100.0)


def _levels_shape(static, x, *rest):
    """One reduced shape per level, stacked first when q is a sequence."""
    reduced = reduce_shape(static, x)
    q = static.get("q")
    if q is None or _number(q) or not reduced.known:
        return reduced
    return shapes.Shape((len(q),) + tuple(reduced.dims))


def _weights_shape(static, x, *rest):
    return shapes.array(x)


RULES = [
    rule(np.median, ("x",), _templates(_median), static=dict(REDUCE), shape=reduce_shape, note=_TIES, fresh=True,
         tangents=_tangents(_median), batching="reduce", not_symbolic=_ORDER),
    rule(np.nanmedian, ("x",), _templates(_median, True), static=dict(REDUCE), shape=reduce_shape, note=_NAN,
         fresh=True, tangents=_tangents(_median, True), batching="reduce", not_symbolic=_ORDER),
    *[rule(f, ("x",), _templates(q_of, skip), static={"q": None, **REDUCE, "method": "linear"},
           shape=_levels_shape, note=(_NAN if skip else _TIES) + "; q a number or a sequence, the linear method",
           fresh=True, tangents=_tangents(q_of, skip), batching=None if skip else "reduce", not_symbolic=_ORDER)
      for f, q_of, skip in ((np.percentile, _percentile, False), (np.quantile, _quantile, False),
                            (np.nanpercentile, _percentile, True), (np.nanquantile, _quantile, True))],
    *[nograd(f, ("x",), static={"q": 50.0, "axis": None}, shape=_weights_shape, fresh=True, not_symbolic=_ORDER)
      for f in (order_weights, nan_order_weights)],
]
