"""A ``for`` over a tuple of items known when the gradient is built that no generated code could hold:
enum members and functions (``for a in acts`` with ``acts=(Act.TANH, Act.SOFTPLUS)``, a default or a
module-level tuple, ``for f in (np.tanh, np.sin)``).

Such an item is static (``ACTS[a](h)`` is a call of the function the dict holds at that member; ``if a is
Act.TANH:`` is decided), so the loop is unrolled: its body lowered once per item with the name bound to it,
as Python runs it.  A parameter is read as a static argument (the gradient specialised on its value, each
call checked) only when its default is such a tuple.  A ``break``, ``continue`` or ``return`` in the body,
or an ``else``, is refused at the loop's line.
"""

from __future__ import annotations

import ast
import enum
import inspect

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Const
from .static_values import constant, static_parameter, static_value


def static_items(state, it: ast.expr) -> tuple | None:
    """The items of `it` when it is a tuple (or list) of enum members or functions known now, else None."""
    if isinstance(it, (ast.Tuple, ast.List)):
        items = tuple(static_value(state, e) if isinstance(e, (ast.Name, ast.Attribute)) else MISSING
                      for e in it.elts)
    elif isinstance(it, ast.Name) and it.id in state.env:
        parameter = static_parameter(state, it)
        if parameter is None or not _static_default(state, parameter):
            return None
        items = constant(state, it)  # (a parameter: asked for as a static argument)
    elif isinstance(it, (ast.Name, ast.Attribute)):
        items = static_value(state, it)  # a module-level tuple: rebinding it builds the gradient again
    else:
        return None
    if not isinstance(items, (tuple, list)) or not items or not all(_static_item(v) for v in items):
        return None
    return tuple(items)


def _static_item(value) -> bool:
    return isinstance(value, enum.Enum) or callable(value) and not isinstance(value, (type, np.ndarray))


def _static_default(state, parameter: str) -> bool:
    try:
        default = inspect.signature(state.parsed.func).parameters[parameter].default
    except (KeyError, TypeError, ValueError):
        return False
    return isinstance(default, (tuple, list)) and bool(default) and all(_static_item(v) for v in default)


def lower_static_loop(lower, stmt: ast.For, items: tuple) -> None:
    """The body of `stmt` lowered once per item, its target bound to the item."""
    state = lower.state
    if stmt.orelse or not isinstance(stmt.target, ast.Name) or any(
            isinstance(n, (ast.Break, ast.Continue, ast.Return)) for s in stmt.body for n in ast.walk(s)):
        raise state.error(stmt, f"this loop over {ast.unparse(stmt.iter)} (enum members or functions, known when "
                          "the gradient is built) is unrolled by srcdiff, and a `break`, `continue`, `return` "
                          "or `else` in it, or a target other than a name, is not supported",
                          "compute a flag in the loop and test it after")
    for item in items:
        state.env[stmt.target.id] = Const(item)
        lower.statements(stmt.body)


__all__ = ["lower_static_loop", "static_items"]
