"""A nested function that returns early, rewritten to return once, at its end, so that the tree
rewrite can write it out where it is called (local_defs.py) when it is given a dict or other tree::

    def g(u, k):                              def g(u, k):
        if u[0] > 0.0:                            if u[0] > 0.0:
            return u * k["a"]          ==>            g_returned = u * k["a"]
        return u * k["b"]                         else:
                                                      g_returned = u * k["b"]
                                                  return g_returned

The statements after an ``if`` with a ``return`` in it are copied into each of its sides that does
not return (each copy doubles them: at most `LIMIT` such ``if``s).  Only ``return``s directly in the
body or in the sides of its ``if``s are rewritten; one inside a loop, ``with`` or ``try`` leaves the
function as it is (None).
"""

from __future__ import annotations

import ast
import copy

LIMIT = 4


def single_return(fdef: ast.FunctionDef) -> ast.FunctionDef | None:
    """`fdef` with one ``return``, at its end, or None (no early ``return``, or one this cannot move)."""
    returns = [n for n in ast.walk(ast.Module(fdef.body, [])) if isinstance(n, ast.Return)]
    if not returns or (len(returns) == 1 and fdef.body[-1] is returns[0]):
        return None
    if sum(isinstance(n, ast.If) and _returns(n) for n in ast.walk(ast.Module(fdef.body, []))) > LIMIT:
        return None
    taken = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)} | {
        a.arg for a in ast.walk(fdef.args) if isinstance(a, ast.arg)
    }
    result = f"{fdef.name}_returned"
    while result in taken:
        result += "_"
    body = _tail(list(fdef.body), result)
    if body is None:
        return None
    made = copy.copy(fdef)
    last = ast.Return(ast.Name(result, ast.Load()))
    made.body = body + [ast.copy_location(last, returns[-1])]
    return ast.fix_missing_locations(made)


def _returns(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def _tail(stmts: list, result: str) -> list | None:
    """`stmts` with each ``return v`` an assignment ``result = v`` that ends its path; None if a
    ``return`` is where it cannot be moved."""
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Return):
            value = stmt.value if stmt.value is not None else ast.Constant(None)
            return stmts[:i] + [ast.copy_location(ast.Assign([ast.Name(result, ast.Store())], value), stmt)]
        if isinstance(stmt, ast.If) and _returns(stmt):
            rest = stmts[i + 1 :]
            body = _tail(list(stmt.body) + copy.deepcopy(rest), result)
            orelse = _tail(list(stmt.orelse) + copy.deepcopy(rest), result)
            if body is None or orelse is None:
                return None
            return stmts[:i] + [ast.copy_location(ast.If(stmt.test, body, orelse), stmt)]
        if _returns(stmt):
            return None  # (a return in a loop, a with or a try)
    none = ast.Assign([ast.Name(result, ast.Store())], ast.Constant(None))
    return stmts + [ast.copy_location(none, stmts[-1]) if stmts else none]
