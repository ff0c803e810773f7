"""Calls whose shape or count is computed when the function runs: ``x.reshape(c.shape + (1,))``,
``np.tile(b, (X.shape[0], 1))``, ``np.repeat(h, len(xs), axis=0)``, ``np.broadcast_to(b, X.shape)``.

A gradient is compiled per number of axes, not per length, so such a shape is not a setting the
rule can take when the gradient is built.  It carries no gradient, so it is computed as written
(one `nograd` node) and passed to a rule that reads it when it runs (rules/numpy_shape.py's
`RESHAPE_TO`, rules/copies_when_run.py).  A constant shape or a parameter (a static argument)
is left to the ordinary rule (None).
"""

from __future__ import annotations

import ast
import inspect

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Var, operand_ast
from ..rules.copies_when_run import BROADCAST_TO_WHEN_RUN, REPEAT_WHEN_RUN, TILE_WHEN_RUN
from ..rules.numpy_shape import RESHAPE_TO
from .emit import emit_rule
from .expressions import ExpressionLowerer
from .opaque import opaque
from .static_values import constant, read_when_run, static_parameter, static_value

#: function -> (its rule with the count read when run, the count's parameter)
COUNTED = {
    np.broadcast_to: (BROADCAST_TO_WHEN_RUN, "shape"),
    np.tile: (TILE_WHEN_RUN, "reps"),
    np.repeat: (REPEAT_WHEN_RUN, "repeats"),
}


def _computed(lower: ExpressionLowerer, shape: ast.expr) -> bool:
    """Whether `shape` is computed when the function runs (not a literal, a constant or a parameter)."""
    state = lower.state
    if static_parameter(state, shape) is not None:
        return False
    try:
        ast.literal_eval(shape)
        return False
    except ValueError:
        pass
    return static_value(state, shape, record=False) is MISSING


def reshape_computed(
    lower: ExpressionLowerer, node: ast.Call, array: ast.expr, shape: ast.expr, spelled, target
) -> Var | None:
    """``c.reshape(c.shape + (1,) * x.ndim)``: a shape computed from other shapes when the
    function runs.  It carries no gradient, so it is computed as written, and the adjoint
    only needs x's own shape."""
    if not _computed(lower, shape):
        return None
    x = lower.expr(array)
    size = opaque(lower, shape, None)
    if spelled is None:
        expr = ast.Call(ast.Attribute(operand_ast(x), "reshape", ast.Load()), [operand_ast(size)], [])
    else:
        expr = ast.Call(spelled, [operand_ast(x), operand_ast(size)], [])
    return emit_rule(lower.state, RESHAPE_TO, (x, size), {}, expr, target)


def copies_computed(lower: ExpressionLowerer, node: ast.Call, func, spelled, target, array=None) -> Var | None:
    """``np.tile`` / ``np.repeat`` / ``np.broadcast_to`` with a count or shape read when the function
    runs (a length, a shape, a name computed from them); `array` is the object of the method form
    (``x.repeat(n, axis=0)``, `spelled` None).  Else None: the ordinary rule takes it."""
    rule, count_name = COUNTED[func]
    args = ([array] if array is not None else []) + list(node.args)
    if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
        return None
    try:
        bound = inspect.signature(func).bind(*args, **{k.arg: k.value for k in node.keywords})
    except TypeError:
        return None
    names = list(bound.arguments)
    if len(names) < 2 or names[1] != count_name or set(names[2:]) - {"axis"}:
        return None
    count = bound.arguments[count_name]
    if not _computed(lower, count) or read_when_run(lower.state, count) is None:
        return None
    state = lower.state
    axis_node = bound.arguments.get("axis")
    axis = None if axis_node is None else constant(state, axis_node)
    x = lower.expr(bound.arguments[names[0]])
    counted = opaque(lower, count, None)
    static = {"ndim": _ndim(lower, func, x, count, counted, axis)}
    keywords = []
    if func is np.repeat:
        static["axis"] = axis
        if axis is not None:
            keywords = [ast.keyword("axis", ast.Constant(axis))]
    if spelled is None:
        expr = ast.Call(ast.Attribute(operand_ast(x), node.func.attr, ast.Load()), [operand_ast(counted)], keywords)
    else:
        expr = ast.Call(spelled, [operand_ast(x), operand_ast(counted)], keywords)
    return emit_rule(state, rule, (x, counted), static, expr, target)


def _ndim(lower: ExpressionLowerer, func, x, count: ast.expr, counted, axis):
    """The number of axes of the copy, where the call's text and x's facts tell it; else None."""
    facts = lower.state.facts
    d = facts.ndim(x)
    d = None if d is MISSING else d
    listed = (
        len(count.elts)
        if isinstance(count, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in count.elts)
        else None
    )
    if func is np.repeat:
        return 1 if axis is None else d
    if func is np.tile:
        reps = listed if listed is not None else 1 if facts.ndim(counted) == 0 else None
        return None if reps is None or d is None else max(d, reps)
    if listed is not None:
        return listed
    dims = facts.shape_of(counted).shape_of if isinstance(counted, Var) else None
    return None if dims is None else len(dims)
