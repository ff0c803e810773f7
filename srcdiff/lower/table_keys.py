"""Functions chosen by a string from a module dict of functions, where the string is known when the
gradient is built but a lowered loop would hold it as a value:

    for name in names:                 # names=("tanh", "sin"), a default; or a module tuple
        h = ACTS[name](h * w)          # ACTS = {"tanh": np.tanh, "relu": relu}
    act = ACTS[name]; act(z)           # a name bound to the function the table holds

A ``for`` over a tuple (or list) of strings known now (a static argument, a module-level tuple, a
display of constants) whose body reads a module dict of functions at the loop's name is unrolled
(static_loops.py), each name a constant; a name assigned ``TABLE[key]`` of a function known now
stands for that function (static_values.py reads it as it reads ``ACTS[name](z)``).  The table
and the tuple are dependencies: rebinding either builds the gradient again.
"""

from __future__ import annotations

import ast
import inspect

from ..frontend.depends import MISSING
from ..ir.nodes import Const
from .static_values import constant, static_parameter, static_value


def _keys(value) -> bool:
    return isinstance(value, (tuple, list)) and bool(value) and all(isinstance(v, str) for v in value)


def _reads_a_table(state, stmt: ast.For) -> bool:
    """Whether `stmt`'s body reads a module dict of functions at the loop's name (``ACTS[name]``)."""
    if not isinstance(stmt.target, ast.Name):
        return False
    for n in (n for s in stmt.body for n in ast.walk(s)):
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id == stmt.target.id \
                and isinstance(n.value, ast.Name) and n.value.id not in state.env:
            table = static_value(state, n.value, record=False)
            if isinstance(table, dict) and table and all(callable(f) for f in table.values()):
                return True
    return False


def table_keys(state, stmt: ast.For) -> tuple | None:
    """The strings `stmt` iterates, when its body picks functions from a module table by them; else None."""
    if not _reads_a_table(state, stmt):
        return None
    it = stmt.iter
    if isinstance(it, (ast.Tuple, ast.List)):
        items = tuple(e.value for e in it.elts if isinstance(e, ast.Constant))
        return items if len(items) == len(it.elts) and _keys(items) else None
    parameter = static_parameter(state, it)
    if parameter is not None:
        try:
            default = inspect.signature(state.parsed.func).parameters[parameter].default
        except (KeyError, TypeError, ValueError):
            return None
        if not _keys(default):
            return None  # (a parameter is read as a static argument only where its default says so)
        items = constant(state, it)
        return tuple(items) if _keys(items) else None
    if isinstance(it, (ast.Name, ast.Attribute)) and not (isinstance(it, ast.Name) and it.id in state.env):
        items = static_value(state, it)  # a module-level tuple: rebinding it builds the gradient again
        return tuple(items) if _keys(items) else None
    return None


def bound_function(state, target: ast.expr, value: ast.expr) -> bool:
    """``act = ACTS[name]`` of a function the table holds at a key known now: `target` bound to it (the
    generated code calls it by its spelling, as ``ACTS[name](z)``); False when it is not one."""
    if not isinstance(target, ast.Name) or not isinstance(value, ast.Subscript) \
            or not isinstance(value.value, ast.Name) or value.value.id in state.env:
        return False
    func = static_value(state, value)
    if func is MISSING or not callable(func) or isinstance(func, type):
        return False
    state.env[target.id] = Const(func)
    return True


__all__ = ["bound_function", "table_keys"]
