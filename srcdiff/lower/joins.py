"""Lowering of joins whose operands are not written in the call, and of ``np.r_[...]`` /
``np.c_[...]``.

``np.hstack(rows)`` of a list the function builds (by ``append``, a comprehension, or a
variable holding a list), of a tuple parameter's items, or of the rows of an array, is one
node taking the list (rules/numpy_joins.py): its adjoint is the list of the operands' pieces.
``np.r_[a, 0.0, b[1:]]`` is ``np.concatenate`` of its items made at least 1-D, which has
rules of its own; ``np.c_[a, b]`` is `join_helpers.column_join` of the list of its items.
"""

from __future__ import annotations

import ast

import numpy as np

from ..ir.nodes import Operand, Var, operand_ast
from ..rules.join_helpers import column_join
from ..rules.list_helpers import list_rows
from ..rules.numpy_joins import LIST_JOINS
from .emit import emit_rule
from .expressions import ExpressionLowerer
from .lists import new_list
from .static_values import static_value

#: The index expressions that join arrays, by the object NumPy names them with.
INDEX_JOINS = {id(np.r_): "r_", id(np.c_): "c_"}


def listed_join(lower: ExpressionLowerer, node: ast.Call, func, items: ast.expr, static: dict, spelled,
                target) -> Operand:
    """``np.concatenate(xs, axis=1)`` of a list (or an array's rows) `items` not written in the call."""
    xs = lower.expr(items)
    if not lower.state.is_list(xs):
        xs = rows_of(lower, xs)
    args = [operand_ast(xs)] + list(node.args[1:])
    keywords = [k for k in node.keywords if k.arg not in ("arrays", "tup")]
    expr = ast.Call(spelled, args, keywords)
    return emit_rule(lower.state, LIST_JOINS[func], (xs,), static, expr, target)


def rows_of(lower: ExpressionLowerer, array: Operand) -> Var:
    """The rows of `array` as a list (a join of an array joins its rows): ``list_rows(a)``,
    whose adjoint stacks the rows' adjoints back (rules/generated_code.py)."""
    state = lower.state
    expr = ast.Call(ast.Name(list_rows.__name__, ast.Load()), [operand_ast(array)], [])
    out = emit_rule(state, state.table.lookup(list_rows), (array,), {}, expr, None)
    state.lists.add(out.name)
    state.frozen_lists.add(out.name)  # never appended to
    return out


def index_join_kind(lower: ExpressionLowerer, node: ast.Subscript) -> str | None:
    """"r_" or "c_" when `node` is ``np.r_[...]`` or ``np.c_[...]``; None for any other subscript."""
    if not isinstance(node.value, (ast.Attribute, ast.Name)):
        return None
    return INDEX_JOINS.get(id(static_value(lower.state, node.value, False)))


def lower_index_join(lower: ExpressionLowerer, node: ast.Subscript, kind: str, target) -> Operand:
    """``np.r_[a, 0.0, b[1:]]`` / ``np.c_[a, b]``: arrays and numbers joined."""
    state = lower.state
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if not isinstance(node.value, ast.Attribute):
        raise state.error(node, f"{kind}[...] imported by itself is not supported", f"write np.{kind}[...]")
    numpy = node.value.value  # the name the function gives NumPy (np)
    items = [_as_range(state, numpy, item, kind) if isinstance(item, ast.Slice) else item for item in items]
    for item in items:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            raise state.error(node, f"np.{kind}[...] with a directive string is not supported",
                              "join with np.concatenate / np.stack / np.column_stack")
    if kind == "r_":
        parts = [ast.copy_location(ast.Call(ast.Attribute(numpy, "atleast_1d", ast.Load()), [item], []), item)
                 for item in items]
        call = ast.Call(ast.Attribute(numpy, "concatenate", ast.Load()), [ast.List(parts, ast.Load())], [])
        return lower.expr(ast.fix_missing_locations(ast.copy_location(call, node)), target)
    xs = new_list(lower, [lower.expr(item) for item in items], None)
    expr = ast.Call(ast.Name(column_join.__name__, ast.Load()), [operand_ast(xs)], [])
    return emit_rule(state, state.table.lookup(column_join), (xs,), {}, expr, target)


def join_item(lower: ExpressionLowerer, node: ast.Call, item: ast.expr, variadic: str) -> ast.expr:
    """An item of ``np.concatenate(([a[0]], np.diff(a), [c]))`` written as a list or tuple
    display: NumPy joins it as the array ``np.array([a[0]])``, and so does the generated code
    (spelled with the call's own name of NumPy)."""
    if variadic != "list" or not isinstance(item, (ast.List, ast.Tuple)) or not isinstance(node.func, ast.Attribute) \
            or any(isinstance(e, ast.Starred) for e in item.elts):
        return item
    numpy = node.func.value
    if static_value(lower.state, numpy, record=False) is not np:
        return item
    call = ast.Call(ast.Attribute(numpy, "array", ast.Load()), [ast.List(item.elts, ast.Load())], [])
    return ast.fix_missing_locations(ast.copy_location(call, item))


def _as_range(state, numpy: ast.expr, item: ast.Slice, kind: str) -> ast.expr:
    """``np.r_[..., 1:10:2, ...]``'s slice: ``np.arange(1, 10, 2)`` (a complex step, NumPy's
    linspace form, is refused)."""
    step = item.step
    if item.upper is None or (isinstance(step, ast.Constant) and isinstance(step.value, complex)):
        raise state.error(item, f"np.{kind}[...] with this slice is not supported",
                          "write the range as np.arange(start, stop, step) or np.linspace(...)")
    bounds = [item.lower or ast.Constant(0), item.upper] + ([step] if step is not None else [])
    return ast.copy_location(ast.Call(ast.Attribute(numpy, "arange", ast.Load()), bounds, []), item)
