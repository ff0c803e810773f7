"""A nested function's ``return`` statements made one, at its end, so it can be inlined:

    def act(u, kind):                       def act(u, kind):
        if kind == "relu":                      if kind == "relu":
            return np.maximum(u, 0.0)  ==>          act_value = np.maximum(u, 0.0)
        if u.size > 3:                          elif u.size > 3:
            return np.tanh(u)                       act_value = np.tanh(u)
        return u                                else:
                                                    act_value = u
                                                return act_value

The statements after an ``if`` whose side returns are written into the side that does not (on the
side that returns they never run), so each path through the body ends by assigning the value once.
A ``return`` inside a loop, ``try`` or ``with``, or a path that falls off the end (returning None), is
left for nested.py to refuse.
"""

from __future__ import annotations

import ast
import copy

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)  # a `return` inside returns from these


def returns_once(func: ast.FunctionDef, result: str) -> ast.FunctionDef | None:
    """A copy of `func` whose every path assigns `result` and which returns it at its end; None when
    some ``return`` sits where this cannot move it (a loop, ``try``, ``with``, ``match``) or a path
    ends without one."""
    body = _tail([copy.deepcopy(s) for s in func.body], result)
    if body is None:
        return None
    last = func.body[-1]
    made = copy.copy(func)
    made.body = body + [ast.copy_location(ast.Return(ast.Name(result, ast.Load())), last)]
    return ast.fix_missing_locations(made)


def own_returns(stmt: ast.stmt) -> list:
    """The ``return`` statements of `stmt` that return from the function holding it: not those of a
    function (or lambda, class) defined inside it, which return from that one."""
    found, todo = [], [] if isinstance(stmt, _SCOPES) else [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _SCOPES):
                todo.append(child)
    return sorted(found, key=lambda r: (r.lineno, r.col_offset))


def _returns_in(stmt: ast.stmt) -> bool:
    return bool(own_returns(stmt))


def _tail(stmts: list, result: str) -> list | None:
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            if s.value is None:
                return None
            return stmts[:i] + [ast.copy_location(ast.Assign([ast.Name(result, ast.Store())], s.value), s)]
        if isinstance(s, ast.If) and _returns_in(s):
            rest = stmts[i + 1:]
            # (the copy of what follows on the second side: a node is lowered once where it is written)
            body, orelse = _tail(s.body + rest, result), _tail(s.orelse + copy.deepcopy(rest), result)
            if body is None or orelse is None:
                return None
            return stmts[:i] + [ast.copy_location(ast.If(s.test, body, orelse), s)]
        if _returns_in(s):
            return None
    return None


__all__ = ["own_returns", "returns_once"]
