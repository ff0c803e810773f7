"""Array-API helpers that only restate their array arguments: ``xp_promote(a, b, xp=xp)``.

SciPy's functions begin by promoting their inputs to one floating dtype
(``x = xp_promote(x, force_floating=True, xp=xp)``).  The helper takes ``*args`` and
``**kwargs`` and computes the dtype from the arrays' types, so srcdiff does not read it: the
values pass through it unchanged but for the dtype, which is a conversion (its gradient
passes through unchanged too).  The forward code spells it with NumPy:
``np.asarray(x, dtype=np.result_type(x, 1.0))``.  Broadcasting two arrays against each
other (``broadcast=True``) is refused: write ``np.broadcast_arrays(a, b)``.
"""

from __future__ import annotations

import ast

import numpy as np

from ..ir.nodes import Const, Operand, operand_ast
from .emit import emit_rule
from .expressions import ExpressionLowerer
from .lists import new_list
from .static_values import constant

#: Functions (by name) that return their array arguments promoted to one dtype.
PROMOTERS = {"xp_promote"}


def is_promoter(func) -> bool:
    return callable(func) and getattr(func, "__name__", None) in PROMOTERS


def lower_promote(lower: ExpressionLowerer, node: ast.Call, target) -> Operand:
    """``xp_promote(a, b, ..., broadcast=False, force_floating=False, xp=xp)``."""
    state = lower.state
    keywords = {k.arg: k.value for k in node.keywords}
    if any(isinstance(a, ast.Starred) for a in node.args) or None in keywords \
            or set(keywords) - {"broadcast", "force_floating", "xp"}:
        raise state.error(node, "xp_promote is supported with its arrays and broadcast=, force_floating=, xp=",
                          "convert with np.asarray(x, dtype=float)")
    options = {k: bool(constant(state, v)) for k, v in keywords.items() if k != "xp"}
    values = [lower.expr(a) for a in node.args]
    arrays = [v for v in values if not (isinstance(v, Const) and v.value is None)]
    if options.get("broadcast") and len(arrays) > 1:
        raise state.error(node, "xp_promote(..., broadcast=True) of several arrays is not supported",
                          "write a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))")
    kinds = [operand_ast(v) for v in arrays] + ([ast.Constant(1.0)] if options.get("force_floating") else [])
    dtype = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "result_type", ast.Load()), kinds, [])
    rule = state.table.lookup(np.asarray)
    out = []
    for v in values:
        if v in arrays:
            expr = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "asarray", ast.Load()), [operand_ast(v)],
                            [ast.keyword("dtype", dtype)])
            v = emit_rule(state, rule, (v,), {}, expr, target if len(values) == 1 else None)
        out.append(v)
    return out[0] if len(out) == 1 else new_list(lower, out, target, tuple_=True)
