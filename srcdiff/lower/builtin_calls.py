"""Calls lowering handles itself: Python builtins, and NumPy's stacking of a list.

``len(x)``, ``int(n)`` and the like carry no gradient; ``float``, ``abs``, two-valued ``min``
and ``max`` and ``sum`` have structural rules of their own; ``np.stack(xs)`` of a list the
function builds has the list of the result's rows as its adjoint.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math

import numpy as np

from ..frontend.depends import MISSING, static_ok
from ..ir.nodes import Const, Operand, Var
from ..rules.structural import ABS, FLOAT, MAX, MIN, STACK_LIST, SUM_LIST, SUM_ROWS
from .builtin_sequences import one_sequence
from .decided import folded_call
from .emit import emit_rule, note_list_read
from .expressions import ExpressionLowerer
from .list_copies import copied_sequence
from .lists import is_literal_data
from .number_calls import number_call
from .opaque import opaque, text
from .static_values import static_value

_TEXT = (builtins.str, builtins.repr, builtins.format, builtins.ascii)
_NO_GRADIENT = (builtins.len, builtins.int, builtins.round, builtins.bool, builtins.isinstance,
                math.factorial, math.comb, math.perm, math.gcd, math.isqrt)  # of ints (floats raise)
_STACKING = (np.stack, np.array, np.asarray)


def list_consumer(lower: ExpressionLowerer, node: ast.Call, target) -> Operand | None:
    """``np.stack(xs)`` / ``np.array(xs)`` of a list this function builds, of a list written
    in the call (``np.array([x, y])``) or of a comprehension: the adjoint is the list of the
    result's rows.  A comprehension of comprehensions (``np.array([[... for j] for i])``)
    makes each row an array as it goes (the same array in the end)."""
    if len(node.args) != 1 or any(k.arg != "dtype" for k in node.keywords):
        return None
    state, arg = lower.state, node.args[0]
    is_list = isinstance(arg, ast.Name) and state.is_list(state.env.get(arg.id))
    written = isinstance(arg, (ast.List, ast.Tuple)) and not is_literal_data(arg)
    if not (is_list or written or isinstance(arg, (ast.ListComp, ast.GeneratorExp))):
        return None
    if static_value(state, node.func) not in _STACKING:
        return None
    if isinstance(arg, ast.ListComp):
        state.stacked_rows.add(id(arg))
    dtype = _floating_dtype(lower, node)
    x = lower.expr(arg)
    if not state.is_list(x):
        return None
    expr = ast.Call(node.func, [ast.Name(x.name, ast.Load())], [ast.keyword("dtype", dtype)] if dtype else [])
    return emit_rule(state, STACK_LIST, (x,), {}, expr, target)


def as_sequence(lower: ExpressionLowerer, node: ast.Call, func, target) -> Operand | None:
    """``tuple((w, v))``, ``tuple(np.linalg.eigh(a))``, ``list(np.split(x, 3))``, ``tuple(xs)``:
    a sequence of the items already there, so the value itself.  (``list(xs)`` of a list the
    function keeps is a copy that may grow apart from it: not this.)"""
    state = lower.state
    if len(node.args) != 1 or node.keywords:
        return None
    arg = node.args[0]
    if isinstance(arg, (ast.List, ast.Tuple)):
        return lower.expr(ast.copy_location(type(arg)(arg.elts, ast.Load()) if func is builtins.tuple
                                            else ast.List(arg.elts, ast.Load()), arg), target)
    called = static_value(state, arg.func) if isinstance(arg, ast.Call) else MISSING
    rule = state.table.lookup(called) if called is not MISSING else None
    if rule is not None and rule.tuple_result or func is builtins.tuple and isinstance(arg, ast.Name):
        value = lower.expr(arg, target)
        if not state.is_list(value):
            return None
        note_list_read(state, value)  # the sequence is read here: the list may not grow after it
        return value
    return None


def _floating_dtype(lower: ExpressionLowerer, node: ast.Call) -> ast.expr | None:
    """The ``dtype=`` of ``np.array([a, b], dtype=float)``: a floating dtype srcdiff can name
    (a conversion to int would truncate the gradient)."""
    given = next((k.value for k in node.keywords if k.arg == "dtype"), None)
    if given is None:
        return None
    try:
        value = ast.literal_eval(given)
    except ValueError:
        value = static_value(lower.state, given)
    try:
        kind = np.dtype(value).kind if value is not MISSING else None
    except TypeError:
        kind = None
    if kind != "f":
        what = f"to dtype {ast.unparse(given)} would truncate the gradient" if kind else \
            f"with dtype={ast.unparse(given)} needs a dtype srcdiff can read before the function runs"
        raise lower.state.error(node, f"making an array of values {what}",
                                "use dtype=float (or np.float64), or leave dtype out")
    return given


def special_call(lower: ExpressionLowerer, node: ast.Call, func, target) -> Operand | None:
    """Builtins and list consumers that lowering handles itself; None for the rest."""
    state = lower.state
    n = len(node.args)
    decided = folded_call(lower, node, func)
    if decided is not MISSING and static_ok(decided):  # ``tuple(range(x.ndim))``: a constant of this specialisation
        return Const(decided)
    simple = not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
    if func in _NO_GRADIENT:
        return opaque(lower, node, target)
    if func in _TEXT:
        return text(lower, node, target)
    if func is builtins.range:
        raise state.error(node, "range(...) is supported only as the iterable of a `for` loop")
    if func is builtins.float and simple and n == 1:
        return emit_rule(state, FLOAT, (lower.expr(node.args[0]),), {}, None, target, expr_of=node)
    if func is builtins.abs and simple and n == 1:
        return emit_rule(state, ABS, (lower.expr(node.args[0]),), {}, None, target, expr_of=node)
    numbers = number_call(lower, node, func, target)  # math.fsum, math.prod, statistics.mean, divmod
    if numbers is not None:
        return numbers
    if func in (builtins.min, builtins.max, builtins.sorted) and n == 1:
        return one_sequence(lower, node, func, target)  # of a 1-D array or a list of numbers
    if func in (builtins.min, builtins.max):
        if not (simple and n == 2):
            raise state.error(node, f"{func.__name__}() is supported with one sequence or two values",
                              f"use np.{func.__name__} for a sequence or an array")
        rule = MIN if func is builtins.min else MAX
        return emit_rule(state, rule, tuple(lower.expr(a) for a in node.args), {}, None, target, expr_of=node)
    if func is builtins.sum:
        if not (simple and n == 1):
            raise state.error(node, "sum() is supported with one argument", "add the start value")
        x = lower.expr(node.args[0])
        rule = SUM_LIST if isinstance(x, Var) and x.name in state.lists else SUM_ROWS
        return emit_rule(state, rule, (x,), {}, None, target, expr_of=node)
    if func is builtins.tuple and simple and n == 1 and _tuple_valued(lower, node.args[0]):
        return lower.expr(node.args[0])  # tuple((w, v)), tuple(np.linalg.eigh(x)): the tuple itself
    if func is builtins.list and simple and n == 1 and isinstance(node.args[0], ast.Call) \
            and inspect.isgeneratorfunction(static_value(state, node.args[0].func)):
        return lower.expr(node.args[0], target)  # list(gen(...)): the new list it yields (frontend/generators.py)
    if func in (builtins.list, builtins.tuple):
        same = as_sequence(lower, node, func, target)
        same = copied_sequence(lower, node, func, target) if same is None else same
        if same is not None:
            return same
        inner = node.args[0] if n == 1 and isinstance(node.args[0], ast.Call) else None
        if inner is not None and static_value(state, inner.func) in (builtins.enumerate, builtins.zip):
            # (a loop reads reversed(list(enumerate(xs))) itself: lower/loops.py)
            raise state.error(node, f"{func.__name__}({ast.unparse(inner)}) as a value is not supported",
                              f"loop over it where it is made: for ... in reversed({ast.unparse(node)}), "
                              f"or build the list with [...] and append")
        raise state.error(node, f"{func.__name__}(...) is not supported",
                          "build the list with [...] and append")
    if func in _STACKING and n == 1 and not node.keywords \
            and isinstance(node.args[0], (ast.Name, ast.ListComp, ast.GeneratorExp)):
        x = lower.expr(node.args[0])
        if isinstance(x, Var) and x.name in state.lists:
            return emit_rule(state, STACK_LIST, (x,), {}, None, target, expr_of=node)
        return None if not isinstance(node.args[0], (ast.ListComp, ast.GeneratorExp)) else \
            emit_rule(state, STACK_LIST, (x,), {}, None, target, expr_of=node)
    return None


def _tuple_valued(lower: ExpressionLowerer, arg: ast.expr) -> bool:
    """`arg` is a tuple already: a tuple display, or a call of a rule whose value is a tuple."""
    if isinstance(arg, ast.Tuple):
        return True
    if not isinstance(arg, ast.Call) or any(k.arg == "compute_uv" for k in arg.keywords):
        return False
    rule = lower.state.table.lookup(static_value(lower.state, arg.func, False))
    return rule is not None and rule.tuple_result
