"""Appending a node to the block being lowered, and the checks every new node passes.

A list built in the function (``xs = []``, ``xs.append(v)``) is one object that grows in
place, so only rules that know lists may take one, and once a list is read it may not grow
any more (a read value would otherwise change behind the reader's back).
"""

from __future__ import annotations

import ast
import builtins
import operator

import numpy as np

from ..frontend.depends import MISSING
from ..ir import shapes
from ..ir.nodes import Node, Operand, Var, operand_ast
from ..rules.generated_code import TAKE_LIST_NAMES, TAKE_LISTS
from ..rules.numpy_joins import TAKE_LISTS as JOINS_TAKE_LISTS
from ..rules.structural import LIST_AWARE
from ..rules.table import Rule
from .integer_tables import note_integer_item
from .state import LoweringState


def emit(state: LoweringState, func, inputs: tuple, static: dict, expr: ast.expr, target: str | None) -> Var:
    """Append ``out = func(*inputs)``, the node taking `func`'s rule."""
    return emit_rule(state, state.table.lookup(func), inputs, static, expr, target)


def emit_rule(state: LoweringState, rule: Rule, inputs: tuple, static: dict, expr: ast.expr | None,
              target: str | None, out: Var | None = None, kind=Node, expr_of=None, **extra) -> Var:
    """Append ``out = rule(*inputs)`` to the current block; `out` named after `target`.

    Without `expr`, the forward expression is the call `expr_of` over the inputs.
    """
    check_list_use(state, rule, inputs, expr)
    if expr is None:
        expr = ast.Call(expr_of.func, [operand_ast(v) for v in inputs], [])
    out = out or Var(state.namer.version(target) if target else state.namer.temp())
    state.nodes.append(kind(state.new_id(), rule, tuple(inputs), static, out, expr, state.line, **extra))
    state.sharing.note(state.nodes[-1])  # which fresh arrays `out` may share memory with
    state.facts.note(out, rule, static, inputs, expr)  # its shape, where the signature decides it
    if _is_len(state, expr) and state.facts.param_shapes is not None:
        state.facts.shapes[out.name] = shapes.SCALAR  # ``len(x)`` is an int: np.zeros(len(x)) is a vector
    if rule.name == "getitem":
        note_integer_item(state, out, inputs, static)  # ``v`` of ``for u, v, e in EDGES``: an int
    if rule.name == "getitem" and _element(state, static, inputs):
        state.sharing.new(out.name)  # ``y1 = y[n]`` of a vector is a NumPy scalar: no view of y
    elif rule.name == "getitem" and inputs:
        state.sharing.item(out.name, inputs[0])  # ``s = season[k]`` of ``season = [0.0] * n``: the item
    elif rule.func is operator.mul and state.sharing.owner_of(out) is not None \
            and any(_python_list(state, v) for v in inputs):
        state.sharing.containers.add(state.sharing.owner_of(out))  # ``[0.0] * n``: a new list
    if rule.fresh and not rule.array_result and state.facts.ndim(out) not in (MISSING, 0):
        state.sharing.new_array(state.nodes[-1])  # ``G = X @ X.T`` of matrices: G may be written
    elif rule.func is np.diag and inputs and state.facts.ndim(inputs[0]) == 1:
        state.sharing.fresh(out.name)  # np.diag(v, k) of a vector is a new matrix (of a matrix, a view)
    return out


def _python_list(state: LoweringState, operand) -> bool:
    """Whether `operand` is a Python list: one lowering tracks, or a display of numbers (``[0.0]``)."""
    if not isinstance(operand, Var):
        return False
    if operand.name in state.lists:
        return True
    made = next((n for n in reversed(state.nodes) if getattr(n, "out", None) == operand), None)
    return made is not None and isinstance(made.expr, (ast.List, ast.ListComp))


def _is_len(state: LoweringState, expr) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" \
        and state.parsed.resolve("len") is builtins.len


def _element(state: LoweringState, static: dict, inputs: tuple) -> bool:
    """Whether ``x[i, j]`` is one element of x by the signature (an integer for each of its
    axes): a NumPy scalar, not a view, so a later write into x cannot reach it."""
    index = static.get("index")
    if not (isinstance(index, tuple) and index and inputs) or state.facts.ndim(inputs[0]) != len(index):
        return False
    # (a 0-d index operand is an integer, or a bool, whose advanced index copies: never a view)
    return all(kind == "int" or kind == "op" and isinstance(at, int) and at < len(inputs)
               and _number(state, inputs[at]) for kind, at in index)


def _number(state: LoweringState, operand) -> bool:
    shape = state.facts.shape_of(operand)
    return shape.known and (shape.scalar or shape.ndim == 0)


def check_list_use(state: LoweringState, rule: Rule, inputs, expr=None) -> None:
    # a list in a parameter whose shape alone is read (``np.full((n, n), c)``'s shape) is taken as it is
    shape_only = {i for i, p in enumerate(rule.params) if p in rule.shape_only}
    for i, v in enumerate(inputs):
        if isinstance(v, Var) and v.name in state.lists:
            if rule not in LIST_AWARE and not (rule.name == "list") and rule.func not in TAKE_LISTS \
                    and rule not in JOINS_TAKE_LISTS and i not in shape_only and rule.name not in TAKE_LIST_NAMES:
                raise state.error(state.line, f"the list {v.name} cannot be used here: "
                                  f"{rule.name} does not take a list",
                                  "index it, or turn it into an array with np.stack / np.array")
            if rule.name != "list.append" and not (rule.nograd and _lengths_only(expr, v.name)):
                note_list_read(state, v)


def _lengths_only(expr, name: str) -> bool:
    """Whether `expr` (a value with no gradient, ``len(history) < n``) reads the list `name` only
    through ``len(name)``: its length, which a later append does not make stale (a while loop that
    grows the list until it is long enough), unlike a read of its items."""
    if expr is None:
        return False
    inside = {id(c.args[0]) for c in ast.walk(expr) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
              and c.func.id == "len" and len(c.args) == 1 and not c.keywords}
    return all(id(n) in inside for n in ast.walk(expr) if isinstance(n, ast.Name) and n.id == name)


def note_list_read(state: LoweringState, v: Operand) -> None:
    if isinstance(v, Var) and v.name in state.lists:
        state.frozen_lists.add(v.name)
        for loop in state.loops:
            loop.read.add(v.name)
