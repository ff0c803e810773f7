"""``reversed(list(enumerate(xs)))`` and ``reversed(list(zip(xs, ys)))`` in a ``for``: the list is
only there because ``reversed`` needs a sequence; loops.py runs the enumerate or zip from its last item."""

from __future__ import annotations

import ast
import builtins

from .state import LoweringState
from .static_values import static_value


def listed_pairs(state: LoweringState, it: ast.expr) -> ast.expr:
    """``list(enumerate(xs))`` or ``list(zip(xs, ys))`` (tuple too), which ``reversed`` takes, as the
    enumerate or zip itself: the loop runs its items from the last."""
    if isinstance(it, ast.Call) and len(it.args) == 1 and not it.keywords \
            and static_value(state, it.func) in (list, tuple) and isinstance(it.args[0], ast.Call) \
            and static_value(state, it.args[0].func) in (builtins.enumerate, builtins.zip):
        return it.args[0]
    return it
