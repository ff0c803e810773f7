"""``rest.remove(item)``, ``order.pop(0)``, ``queue.insert(0, v)`` as statements, on a list the
function made: the change written as a new value of the name, ``rest = list_removed(rest, item)``
(rules/list_edits.py), so that the list's later reads see it.  The rule has no gradient and
refuses a list whose items carry one (``LIST_EDIT.refuses_active``): a list of indices a ranking
or a search works through is followed, a list of numbers that depend on the input is refused at
the user's line with the rewrite srcdiff differentiates."""

from __future__ import annotations

import ast

from ..rules.list_edits import EDITS
from ..rules.structural import LIST_EDIT
from .emit import emit_rule
from .opaque import substitute
from .statements import StatementLowerer


def lower_list_edit(lower: StatementLowerer, call: ast.Call) -> bool:
    """Lower ``xs.remove(v)`` / ``xs.pop([i])`` / ``xs.insert(i, v)`` of a list `xs` the function
    holds as the new value of xs; False for any other call (refused by the caller as before)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in EDITS and isinstance(func.value, ast.Name)
            and not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args)):
        return False
    state = lower.state
    name = func.value.id
    helper, counts = EDITS[func.attr]
    old = state.env.get(name)
    if not state.is_list(old) or old.name in state.tuples or len(call.args) not in counts:
        return False
    parts, reads = substitute(lower.expressions, ast.Tuple([ast.Name(name, ast.Load()), *call.args], ast.Load()))
    expr = ast.Call(ast.Name(helper.__name__, ast.Load()), list(parts.elts), [])
    out = emit_rule(state, LIST_EDIT, reads, {}, expr, name)
    state.lists.add(out.name)
    for loop in state.loops:
        loop.created.add(out.name)  # a new list in every iteration
    state.lambdas.pop(name, None)
    state.env[name] = out
    return True


__all__ = ["lower_list_edit"]
