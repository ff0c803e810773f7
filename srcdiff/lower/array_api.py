"""Array-API helpers that only restate their array arguments: ``xp_promote(a, b, xp=xp)``.

SciPy's functions begin by promoting their inputs to one floating dtype
(``x = xp_promote(x, force_floating=True, xp=xp)``).  The helper takes ``*args`` and
``**kwargs`` and computes the dtype from the arrays' types, so srcdiff does not read it: the
values pass through it unchanged but for the dtype, which is a conversion (its gradient
passes through unchanged too).  The forward code spells it with NumPy:
``np.asarray(x, dtype=np.result_type(x, 1.0))``.  With ``broadcast=True`` each array is
then broadcast against the others (``np.broadcast_to``; its adjoint sums back).
"""

from __future__ import annotations

import ast

import numpy as np

from ..ir.nodes import Const, Operand, operand_ast
from ..rules.numpy_shape import BROADCAST_LIKE
from .emit import emit_rule
from .expressions import ExpressionLowerer
from .lists import new_list
from .static_values import constant

#: Functions (by name) that return their array arguments promoted to one dtype.
PROMOTERS = {"xp_promote"}
#: Array-API helpers (by name, from an array-API package) and what they are in NumPy.
ALIASES = {"atleast_nd": "atleast", "xp_size": "size", "size": "size", "xp_device": "device", "device": "device"}
_AT_LEAST = {1: np.atleast_1d, 2: np.atleast_2d, 3: np.atleast_3d}


def alias_of(func) -> str | None:
    """What an array-API helper (``xpx.atleast_nd``, ``xp_size``) is in NumPy, or None."""
    module = getattr(func, "__module__", "") or ""
    if not callable(func) or not ("array_api" in module or module.startswith("scipy._lib")):
        return None
    return ALIASES.get(getattr(func, "__name__", None))


def lower_alias(lower: ExpressionLowerer, node: ast.Call, kind: str, target) -> Operand:
    """``xpx.atleast_nd(x, ndim=2, xp=xp)`` is ``np.atleast_2d(x)``; ``xp_size(x)`` is ``np.size(x)``;
    ``xp_device(x)`` is ``"cpu"``."""
    state = lower.state
    keywords = {k.arg: k.value for k in node.keywords if k.arg != "xp"}
    if len(node.args) != 1 or isinstance(node.args[0], ast.Starred) \
            or set(keywords) - ({"ndim"} if kind == "atleast" else set()):
        raise state.error(node, f"{ast.unparse(node.func)} is supported with one array"
                          + (" and ndim=" if kind == "atleast" else ""), "call the NumPy function instead")
    if kind == "device":  # where NumPy's arrays live: no value of the array flows through it
        lower.expr(node.args[0])
        return Const("cpu")
    if kind == "size":
        x = lower.expr(node.args[0])
        expr = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "size", ast.Load()), [operand_ast(x)], [])
        return emit_rule(state, state.table.lookup(np.size), (x,), {}, expr, target)
    ndim = constant(state, keywords["ndim"]) if "ndim" in keywords else None
    if ndim not in _AT_LEAST:
        raise state.error(node, f"atleast_nd with ndim={ndim!r} is not supported",
                          "use np.atleast_1d, np.atleast_2d or np.atleast_3d")
    x = lower.expr(node.args[0])
    func = _AT_LEAST[ndim]
    expr = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), func.__name__, ast.Load()), [operand_ast(x)], [])
    return emit_rule(state, state.table.lookup(func), (x,), {}, expr, target)


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
    kinds = [operand_ast(v) for v in arrays] + ([ast.Constant(1.0)] if options.get("force_floating") else [])
    dtype = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "result_type", ast.Load()), kinds, [])
    rule = state.table.lookup(np.asarray)
    converted = {}
    for v in arrays:
        expr = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "asarray", ast.Load()), [operand_ast(v)],
                        [ast.keyword("dtype", dtype)])
        converted[v] = emit_rule(state, rule, (v,), {}, expr, target if len(values) == 1 else None)
    if options.get("broadcast") and len(arrays) > 1:  # each broadcast against the others
        shaped = {}
        for v in arrays:
            x, others = converted[v], [converted[o] for o in arrays if o is not v]
            for other in others:
                call = ast.parse(f"np.broadcast_to({x.name}, np.broadcast_shapes(np.shape({x.name}), "
                                 f"np.shape({other.name})))", mode="eval").body
                x = emit_rule(state, BROADCAST_LIKE, (x, other), {}, call, None)
            shaped[v] = x
        converted = shaped
    out = [converted.get(v, v) if v in arrays else v for v in values]
    return out[0] if len(out) == 1 else new_list(lower, out, target, tuple_=True)
