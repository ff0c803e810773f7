"""``np.median``, ``np.percentile`` and ``np.quantile`` (linear interpolation, the default):
a weighted sum of the one or two order statistics the position selects.

The weights (`calculus_helpers.order_weights`) are constant between ties, so the gradient is
``g`` times them and the tangent their sum with ``x_dot``; elements tied with a selected one
share its weight equally (as ties of ``np.max`` share the gradient).  ``q`` must be one number.
"""

import numbers

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from .calculus_helpers import order_weights
from .numpy_reductions import REDUCE, reduce_shape, spread
from .table import nograd, rule

_ORDER = "order statistics are chosen by comparing values, which symbols are not"
_TIES = "ties share the selected order statistic's weight equally"


def _q(static, scale: float) -> str:
    q = static.get("q")
    if q is None:  # (validation of the table, with the defaults: a call always passes q)
        return "50.0"
    if not isinstance(q, numbers.Real) or isinstance(q, bool):
        raise SrcDiffError(f"a gradient of a percentile needs one number q, not {q!r}",
                           hint="call it once per q: [np.percentile(x, q) for q in (10, 90)]")
    if static.get("method", "linear") != "linear":
        raise SrcDiffError(f"method={static.get('method')!r}: srcdiff differentiates the linear method only",
                           hint="leave method out (linear interpolation)")
    return repr(float(q) * scale)


def _weights(q: str) -> str:
    return f"order_weights(x, {q}, axis)"


def _templates(q_of):
    def templates(static, operand_shapes):
        return {"x": f"{spread('g', static, operand_shapes['x'])} * {_weights(q_of(static))}"}
    return templates


def _tangents(q_of):
    def tangents(static, operand_shapes):
        return {"x": f"np.sum(x_dot * {_weights(q_of(static))}, axis=axis, keepdims=keepdims)"}
    return tangents


def _median(static):
    return "50.0"


def _percentile(static):
    return _q(static, 1.0)


def _quantile(static):
    return _q(static, 100.0)


def _weights_shape(static, x, *rest):
    return shapes.array(x)


RULES = [
    rule(np.median, ("x",), _templates(_median), static=dict(REDUCE), shape=reduce_shape, note=_TIES, fresh=True,
         tangents=_tangents(_median), batching="reduce", not_symbolic=_ORDER),
    *[rule(f, ("x",), _templates(q_of), static={"q": None, **REDUCE, "method": "linear"}, shape=reduce_shape,
           note=_TIES + "; q one number, the linear method", fresh=True, tangents=_tangents(q_of),
           batching="reduce", not_symbolic=_ORDER)
      for f, q_of in ((np.percentile, _percentile), (np.quantile, _quantile))],
    nograd(order_weights, ("x",), static={"q": 50.0, "axis": None}, shape=_weights_shape, fresh=True,
           not_symbolic=_ORDER),
]
