"""A list turned into an array under its own name, ``returns = np.array(returns)`` (list_joins.py, first).

Python's name holds the list up to that statement and the array from then on; srcdiff reads a name as
one kind of value, so the array gets a name of its own from that statement on (``returns_array``), and the
list's name stays a list the list rewrites may take (``returns.insert(0, G)`` in a loop before it)::

    returns = []                               returns = []
    for r in reversed(rewards):                for r in reversed(rewards):
        returns.insert(0, r + g * G)    ==>        returns.insert(0, r + g * G)
    returns = np.array(returns)                returns_array = np.array(returns)
    return np.sum(returns * logp)              return np.sum(returns_array * logp)

Only for such a statement at the top of the function's body (every later statement then sees the array),
where no nested function or lambda reads the name (it would read whichever value the name holds when
it is called).
"""

from __future__ import annotations

import ast

import numpy as np

from .naming import SCOPES, Rename

_CONVERSIONS = (np.array, np.asarray, np.stack, np.vstack, np.hstack, np.concatenate)


def rename_conversions(tree: ast.FunctionDef, names) -> None:
    """Give, in place, each list converted to an array under its own name (above) a name of its own."""
    if any(isinstance(n, SCOPES) and n is not tree for n in ast.walk(tree)):
        return  # (a closure may read the name: left as written)
    for k, stmt in enumerate(tree.body):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call) and stmt.value.args
                and isinstance(stmt.value.args[0], ast.Name) and stmt.value.args[0].id == stmt.targets[0].id
                and any(names.resolve(stmt.value.func) is f for f in _CONVERSIONS)):
            continue
        name = stmt.targets[0].id
        if not any(isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
                   and isinstance(s.value, (ast.List, ast.ListComp)) for s in tree.body[:k]):
            continue  # (the name held no list written in the function before)
        held = names.namer.fresh(f"{name}_array")
        stmt.targets[0] = ast.copy_location(ast.Name(held, ast.Store()), stmt.targets[0])
        tree.body[k + 1:] = [Rename({name: held}).visit(s) for s in tree.body[k + 1:]]
        names.local.add(held)


__all__ = ["rename_conversions"]
