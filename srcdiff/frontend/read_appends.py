"""Appending to a list after it was read, outside loops, as a new list (list_joins.py)::

    xs = [x[0]]
    a = xs[0] * 2.0                       a = xs[0] * 2.0
    xs.append(a + x[1])          ->       xs = xs + [a + x[1]]     (then built item by item)

Lowering differentiates a list that grows until it is first read; a later append would change a
list a value was already computed from.  An ``xs.append(v)`` statement run after a read of xs (in an
earlier statement, or in v itself) is the new list ``xs + [v]`` bound to xs, which list_joins.py
builds item by item as it builds any join: the items already read keep their place, and every later
read sees the new list, as Python's sees the grown one.  Only lists with one name are rewritten (a
second name would keep the old list).  Appends inside a loop are list_joins.py's own (a list grown
while read in the same loop); an append in a loop to a list read before the loop is left as written,
for lowering to refuse at its line.
"""

from __future__ import annotations

import ast

_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def regrow_read_appends(tree: ast.FunctionDef, single: set) -> None:
    """Rewrite, in place, each append of a list of `single` (names of one list each) after a read."""
    for name in sorted(single):
        _block(tree.body, name, False)


def _block(body: list, name: str, read: bool) -> bool:
    """Rewrite `body`'s appends of `name` run after a read (`read`: one before it); whether it reads."""
    for k, stmt in enumerate(body):
        if isinstance(stmt, _SCOPES):
            read = read or _reads(stmt, name)
            continue
        appended = _appended(stmt, name)
        if appended is not None:
            if read or _reads(appended, name):
                grown = ast.BinOp(ast.Name(name, ast.Load()), ast.Add(), ast.List([appended], ast.Load()))
                body[k] = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], grown), stmt)
            read = read or _reads(appended, name)
            continue
        if isinstance(stmt, ast.If):
            read = read or _reads(stmt.test, name)
            sides = [_block(stmt.body, name, read), _block(stmt.orelse, name, read)]
            read = read or any(sides)
            continue
        if isinstance(stmt, (ast.With, ast.Try)):
            for inner in [stmt.body] + [h.body for h in getattr(stmt, "handlers", [])] \
                    + [getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]:
                read = _block(inner, name, read) or read
            continue
        read = read or _reads(stmt, name)  # (a loop: its own appends are list_joins.py's)
    return read


def _appended(stmt: ast.stmt, name: str) -> ast.expr | None:
    """v of a statement ``name.append(v)``, else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
            and isinstance(call.func.value, ast.Name) and call.func.value.id == name \
            and len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return None


def _reads(node: ast.AST, name: str) -> bool:
    """Whether `node` reads `name` other than to append to it."""
    parents = {child: parent for parent in ast.walk(node) for child in ast.iter_child_nodes(parent)}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
            parent = parents.get(n)
            if not (isinstance(parent, ast.Attribute) and parent.attr == "append"):
                return True
    return False


__all__ = ["regrow_read_appends"]
