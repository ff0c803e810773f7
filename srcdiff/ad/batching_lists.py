"""Lists in batched code (ad/batching.py): a list whose items have a batch axis stays a Python
list, each item rows (a *row list*, kept in `Batching.containers` like a tuple of batched
values).  A gradient's loop keeps such lists: the forward loop appends each saved value
(``stack.append(h)``), the backward loop reads it back by position (``h = stack[k]``), and a
user's list of per-example values (``hs.append(h)``, ``np.stack(hs)``, ``sum(hs)``) has a list
of adjoints (``zeros_list``, ``list_add``, ``list_drop``, ``list_rows``; rules/list_helpers.py).

A list is a row list from the statement that makes it: when a batched value first meets a
list made without rows (appended to it, carried with it through a loop), the transform starts
again with that list made of rows from the start (`RowList`), so no list ever holds some items
with a batch axis and some without (NumPy would then line them up wrongly, silently).

A list of lists (a gradient's tape of a list grown in a loop, ``rows.append([a, b])``) is a row list
whose items are row lists (`Batching.nested`): an item read back is a row list itself, and
``np.stack`` stacks each inner list first (rules/batching_helpers.py's `stack_rows`).  What reads a
row list in any other way (``np.shape(xs)``, an index computed from a batched value) is refused.
"""

from __future__ import annotations

import ast

import numpy as np

from ..ir.nodes import Node, Var, operand_ast
from ..ir.program import Assign, Run
from ..rules import list_helpers as lists
from ..rules.join_helpers import join_adjoint
from ..rules.numpy_joins import LIST_JOINS
from ..rules.structural import APPEND, STACK_LIST, SUM_LIST
from .batching_each_row import each_row_call, each_row_rule
from .batching_moves import stacked
from .batching_rules import call


class RowList(Exception):
    """The list `name` meets a batched value: batch again with it made of rows from the start."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def _size(state) -> ast.expr:
    return ast.Name(state.size, ast.Load())


def _is_list(state, operand) -> bool:
    return isinstance(operand, Var) and operand.name in state.lists


def row_list(state, operand) -> bool:
    """Whether `operand` is a list whose items have a batch axis."""
    return _is_list(state, operand) and operand.name in state.containers


def need_rows(state, operand) -> None:
    """`operand`, a list, must be a row list where it is used: start again with it made so."""
    if operand.name in state.forced:
        state.refuse(None, f"the list {operand.name} holds values with a batch axis and values without")
    raise RowList(operand.name)


def list_node(node: Node, state) -> list | None:
    """The statements of `node` if it makes, grows or reads a list (None for any other node)."""
    inputs = node.inputs
    if node.rule is APPEND:
        return _append(node, state)
    out_list = node.out.name in state.lists
    reads = [v for v in inputs if row_list(state, v)]
    if not out_list and not reads:
        return None
    if not out_list:
        if node.rule.batching_kind in ("index_add", "index_read") and reads == [inputs[1]]:
            return None  # the parts of an index of positions with rows (ad/batching_gathers.py)
        return _read(node, state, reads)
    batched = any(state.batched(v) for v in inputs)
    if not batched and node.out.name not in state.forced:
        return None  # a list without rows: the statement as it is (ad/batching.py)
    func = node.rule.func
    if node.rule.name == "list":  # ``[a, b]``, ``(a, b)``, ``[]``: each item rows
        if any(_is_list(state, v) for v in inputs):
            state.nested.add(node.out.name)
        parts = [state.rows(v) for v in inputs]
        shape = ast.List if isinstance(node.expr, ast.List) else ast.Tuple
        return _made(node, state, shape(parts, ast.Load()))
    for v in inputs[:1] if func in (lists.zeros_list, lists.list_add, lists.list_drop) else inputs[1:2] \
            if func is lists.list_repeat else ():
        if state.batched(v) and not row_list(state, v):  # (a list whose items are not known to be lists of rows)
            state.refuse(node, f"{node.rule.name} of a list read from a list with a batch axis has no batching rule")
    if any(isinstance(v, Var) and v.name in state.zero_lists for v in inputs):
        state.zero_lists.add(node.out.name)  # (list_add, lists_add, list_drop of a zeros_list's rows)
    if func is lists.zeros_list:
        state.zero_lists.add(node.out.name)
        return _made(node, state, call("zeros_list_rows", operand_ast(inputs[0]),
                                       ast.Constant(row_list(state, inputs[0])), _size(state)))
    if func is lists.list_add:
        xs, index, value = inputs
        _index(node, state, index)
        return _made(node, state, call("list_add_rows", _rows_list(state, xs), operand_ast(index), state.rows(value)))
    if func is lists.lists_add:
        return _made(node, state, call("lists_add_rows", *[_rows_list(state, v) for v in inputs]))
    if func is lists.list_drop:
        return _made(node, state, call("list_drop", _rows_list(state, inputs[0])))
    if func is lists.list_repeat:
        xs = inputs[1]
        return _made(node, state, call("list_repeat_rows", state.rows(inputs[0]), operand_ast(xs),
                                       ast.Constant(row_list(state, xs))))
    if func is lists.list_rows and state.batched(inputs[0]):
        return _made(node, state, call("list_of_rows", operand_ast(inputs[0])))
    if node.rule.batching_kind == "stacked":  # ``np.linalg.slogdet`` of rows: a pair of rows
        return _made(node, state, stacked(node, state)[0])
    if func is join_adjoint and node.static.get("kind") in _PROMOTING and reads == [inputs[1]]:  # (`_joined_rows`)
        return _made(node, state, call("join_adjoint_rows", state.rows(inputs[0]), operand_ast(inputs[1]),
                                       ast.Constant(node.static["kind"])))
    if func is join_adjoint and node.static.get("kind") in ("concatenate", "stack") \
            and type(node.static.get("axis")) is int and reads == [inputs[1]]:  # a join's adjoint: its rows cut
        axis = node.static["axis"]  # (along the axis the join of rows ran on: `_joined_rows`)
        shifted = ast.Constant(axis + 1 if axis >= 0 else axis)
        return _made(node, state, call("join_adjoint", state.rows(inputs[0]), operand_ast(inputs[1]),
                                       ast.Constant(node.static["kind"]), shifted))
    if not reads and each_row_rule(node, state) is not None:  # a call giving a tuple (np.linalg.lstsq): run row by
        return _made(node, state, each_row_call(node, state, parts=True)[0])  # row, each part of it stacked
    if node.rule.name == "getitem" and isinstance(node.expr, ast.Subscript) and row_list(state, inputs[0]):
        _index(node, state, *inputs[1:])  # ``xs[1:]``: a list of the same rows
        if inputs[0].name in state.nested:
            state.nested.add(node.out.name)
        return _made(node, state, node.expr)
    state.refuse(node, f"{node.rule.name} of a list with a batch axis has no batching rule")


def _append(node: Node, state) -> list:
    lst, value = node.inputs
    if _is_list(state, value):  # a list of lists (a gradient's tape of a list grown in a loop, a list of steps)
        if state.batched(value) and not row_list(state, lst):
            need_rows(state, lst)
        if row_list(state, lst) and not row_list(state, value):
            need_rows(state, value)  # (its items rows too: an item read back is a row list)
        item = operand_ast(value)
        state.nested |= {lst.name, node.out.name}
    else:
        if state.batched(value) and not row_list(state, lst):
            need_rows(state, lst)
        item = state.rows(value) if row_list(state, lst) else operand_ast(value)
    grow = ast.Call(ast.Attribute(operand_ast(lst), "append", ast.Load()), [item], [])
    return [Run(ast.Expr(grow), node.line)]


def _read(node: Node, state, reads: list) -> list:
    """A value read from a row list: an item (rows), its length, its stack or its sum."""
    rule, expr = node.rule, node.expr
    if rule.name == "getitem" and len(reads) == 1 and node.inputs[0] is reads[0]:
        _index(node, state, *node.inputs[1:])
        if reads[0].name in state.nested:  # an item that is a list of rows itself
            state.lists.add(node.out.name)
            state.containers.add(node.out.name)
        else:
            state.have.add(node.out.name)
            if reads[0].name in state.zero_lists:  # a zero row shaped like the item where the code held 0.0
                state.asked.add(node.out.name)
        return [Assign([node.out.name], expr, node.line)]
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" \
            and len(expr.args) == 1 and not expr.keywords:
        return [Assign([node.out.name], expr, node.line)]  # as many items as without rows
    if rule is STACK_LIST and not (isinstance(expr, ast.Call) and expr.keywords):
        state.have.add(node.out.name)
        return [Assign([node.out.name], call("stack_rows", operand_ast(reads[0]), _size(state)), node.line)]
    if rule is SUM_LIST:
        state.have.add(node.out.name)
        return [Assign([node.out.name], call("sum_rows", operand_ast(reads[0]), _size(state)), node.line)]
    joined = _joined_rows(node, reads[0])
    if joined is not None:
        state.have.add(node.out.name)
        return [Assign([node.out.name], joined, node.line)]
    state.refuse(node, f"{rule.name} of a list with a batch axis has no batching rule")


#: the joins whose axis depends on the items' ranks (rules/join_helpers.py `promoted`), by kind
_PROMOTING = {"hstack": np.hstack, "vstack": np.vstack, "dstack": np.dstack, "column_stack": np.column_stack}


def _joined_rows(node: Node, xs) -> ast.expr | None:
    """``np.concatenate(xs, axis=a)`` / ``np.stack(xs, axis=a)`` of a row list (a head per loop step,
    ``np.concatenate(outs, axis=1)``): every item has the batch axis first, so the join runs along
    ``a + 1`` (a negative axis counts from the end, which the batch axis does not move); ``np.hstack``,
    ``np.vstack``, ``np.dstack`` and ``np.column_stack``, whose axis depends on the items' ranks, as
    ``join_rows(xs, kind)``, which promotes each item's rows when it runs; None for other joins."""
    promoting = next((k for k in _PROMOTING if node.rule.func is _PROMOTING[k]), None)
    if promoting is not None and not node.static and len(node.inputs) == 1:  # np.hstack(xs): its axis, each
        return call("join_rows", operand_ast(xs), ast.Constant(promoting))  # item's rank, known when it runs
    kind = next((k for k in ("concatenate", "stack") if node.rule is LIST_JOINS.get(getattr(np, k))), None)
    axis = node.static.get("axis", 0)
    if kind is None or type(axis) is not int or set(node.static) - {"axis"} or len(node.inputs) != 1:
        return None
    shifted = axis + 1 if axis >= 0 else axis
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), kind, ast.Load()), [operand_ast(xs)],
                    [ast.keyword("axis", ast.Constant(shifted))])


def _index(node: Node, state, *parts) -> None:
    if any(state.batched(p) for p in parts):
        state.refuse(node, "an index computed from a batched value cannot be batched",
                     "index with values that are the same for every example")


def _rows_list(state, operand) -> ast.expr:
    if _is_list(state, operand) and not row_list(state, operand):
        need_rows(state, operand)
    return operand_ast(operand)


def _made(node: Node, state, expr: ast.expr) -> list:
    state.containers.add(node.out.name)
    return [Assign([node.out.name], expr, node.line)]


__all__ = ["RowList", "list_node", "need_rows", "row_list"]
