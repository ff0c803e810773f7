"""``f(*args)`` of a tuple written in the function: its items, one argument each.

    args = (w, b, x)                       args = (w, b, x)
    return np.sum(dl(*args) ** 2)   ==>    return np.sum(dl(args[0], args[1], args[2]) ** 2)
    g = helper(*(w, b), x)                 g = helper(w, b, x)

Lowering binds a call's arguments to the callee's parameters when the function is transformed, so a
``*`` argument is read so only when its length is known there: a tuple or list display in the call,
or a name the function binds once, at the top of its body, to such a display (the items are read
through the name: a name the display used, rebound later, does not change them).  Any other ``*``
argument is left as written (lowering refuses it at the line), and so is ``zip(*pairs)``.
"""

from __future__ import annotations

import ast
import builtins
import copy

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def has_star_calls(tree: ast.FunctionDef) -> bool:
    """Whether a call in `tree` has a ``*`` argument."""
    return any(isinstance(n, ast.Call) and any(isinstance(a, ast.Starred) for a in n.args) for n in ast.walk(tree))


def rewrite_star_calls(tree: ast.FunctionDef, names) -> None:
    """Each ``*`` argument of a known length in `tree`'s own scope, spread into its items (in place).
    ``zip(*pairs)`` is left to the rewrites of that idiom (sequence_spellings.py, zip_columns.py): they
    read it as the columns of the pairs, which a zip of the pairs spread out would hide."""
    displays = _displays(tree)
    for node in _own_nodes(tree.body):
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Starred) for a in node.args) \
                and not names.calls(node, builtins.zip):
            node.args = [item for a in node.args for item in _spread(a, displays, node.lineno)]


def _displays(tree: ast.FunctionDef) -> dict:
    """name -> (its display's length, the line it is bound at) for the names bound once, at the top of
    the body, to a tuple or list display with no ``*`` item (and never a parameter)."""
    args = tree.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    counts: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            counts[node.arg] = counts.get(node.arg, 0) + 1
    found = {}
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, (ast.Tuple, ast.List))
            and not any(isinstance(e, ast.Starred) for e in stmt.value.elts)
        ):
            name = stmt.targets[0].id
            if name not in params and counts.get(name) == 1:
                found[name] = (len(stmt.value.elts), stmt.lineno)
    return found


def _spread(arg: ast.expr, displays: dict, line: int) -> list:
    if not isinstance(arg, ast.Starred):
        return [arg]
    value = arg.value
    if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
        return list(value.elts)
    if isinstance(value, ast.Name) and value.id in displays and displays[value.id][1] < line:
        return [
            ast.copy_location(ast.Subscript(copy.copy(value), ast.Constant(i), ast.Load()), arg)
            for i in range(displays[value.id][0])
        ]
    return [arg]


def _own_nodes(stmts: list):
    """The nodes of `stmts`, not those of nested functions, lambdas or classes."""
    todo = [s for s in stmts if not isinstance(s, _SCOPES)]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _SCOPES))


__all__ = ["has_star_calls", "rewrite_star_calls"]
