"""``f(*theta)`` of a parameter or a value computed in the function: its items, one argument each.

    def rot(yaw, pitch, roll): ...
    r = rot(*angles)                 ==>    r = rot(angles[0], angles[1], angles[2])
    r = rot(y, *angles[1:])          ==>    starred = angles[1:]; r = rot(y, starred[0], starred[1])

The frontend spreads a ``*`` argument whose length it reads in the code (a tuple display,
frontend/star_calls.py).  Here the length is the one the callee takes: the ``*`` argument is the last
positional one, it fills the callee's remaining parameters, none of which has a default or is given by
keyword, so Python binds exactly that many items or raises.  A guard raises Python's error for another
length (the items read one by one would otherwise take the first three of four silently); a tuple built
in the function is counted when lowered instead.
"""

from __future__ import annotations

import ast
import inspect

from ..ir.nodes import Var
from .effects import count_guard
from .expressions import ExpressionLowerer


def spread_starred(lower: ExpressionLowerer, node: ast.Call, func) -> ast.Call | None:
    """`node` with its last positional ``*name`` argument spread into ``name[0], name[1]...``, as many as
    `func`'s parameters left to fill; None where the count is not so fixed (left to the caller's refusal)."""
    stars = [a for a in node.args if isinstance(a, ast.Starred)]
    if len(stars) != 1 or node.args[-1] is not stars[0] \
            or any(k.arg is None for k in node.keywords):
        return None
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind != p.POSITIONAL_OR_KEYWORD for p in params):
        return None
    given = {k.arg for k in node.keywords}
    rest = params[len(node.args) - 1:]
    if not rest or any(p.default is not p.empty or p.name in given for p in rest):
        return None
    state = lower.state
    value = lower.expr(stars[0].value)
    name = stars[0].value
    if not isinstance(name, ast.Name) and isinstance(value, Var):  # *angles[1:], *np.exp(t): evaluated once
        name = ast.copy_location(ast.Name(state.namer.fresh("starred"), ast.Load()), name)
        state.env[name.id] = value
    if isinstance(value, Var) and value.name in state.tuple_items:
        if len(state.tuple_items[value.name]) != len(rest):
            raise state.error(node, f"{func.__name__}() takes {len(params)} positional arguments but "
                              f"{len(node.args) - 1 + len(state.tuple_items[value.name])} were given")
    elif isinstance(value, Var):
        written = ast.unparse(stars[0].value)
        count_guard(state, value, len(rest), f"{func.__name__}() takes {len(rest)} items of *{written}")
    else:
        return None
    items = [ast.copy_location(ast.Subscript(ast.Name(name.id, ast.Load()), ast.Constant(j), ast.Load()), name)
             for j in range(len(rest))]
    return ast.copy_location(ast.Call(node.func, node.args[:-1] + items, node.keywords), node)


__all__ = ["spread_starred"]
