"""A nested function that writes its caller's names with ``nonlocal``, written out where it is called
(python_forms.py, right after parsing)::

    total = 0.0                              total = 0.0
    def add(v):                              for row in X:
        nonlocal total                           v_1 = np.tanh(row @ w)
        total = total + v                        total = total + v_1
    for row in X:
        add(np.tanh(row @ w))

A call runs the function's body with its parameters bound to the arguments, and the ``nonlocal``
names are the caller's own; so the body written at the call (its parameters and other local
names given fresh names, one set per call) computes the same.  It is rewritten when every use of
the function is a call as a statement (``add(v)``), as the value of an assignment (``y =
step(v)``) or of a ``return`` (``return add(v)``; both of a body ending in ``return e``), with
positional arguments, one per parameter; its body holds no other ``return``, ``yield``,
``global``, nested function or lambda.  Another use is left as written, and lowering refuses ``nonlocal`` at its line.

A nested procedure, with no ``return`` at all, is written out the same way where it is called as a
statement (``def add(t): terms.append(t)`` then ``add(v ** 3)``): its body runs there, reading and
changing the caller's values as Python's closure does.
"""

from __future__ import annotations

import ast
import copy

from .naming import FreeNames, assigned_names


def has_nonlocal(tree: ast.FunctionDef) -> bool:
    """A cheap test: a ``nonlocal``, or a nested procedure (a def with no ``return``)."""
    return any(isinstance(n, ast.Nonlocal) or isinstance(n, ast.FunctionDef) and n is not tree
               and _procedure(n) for n in ast.walk(tree))


def _procedure(func: ast.FunctionDef) -> bool:
    """A function run for what it does to its caller's values (``def add(t): terms.append(t)``): no
    ``return`` anywhere, which lowering (a nested def must end in one) would refuse."""
    return not any(isinstance(n, ast.Return) for s in func.body for n in ast.walk(s))


def inline_nonlocal_calls(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Write out, in place, each nested function of `tree`'s body that uses ``nonlocal`` where it
    is called (see the module's doc)."""
    for stmt in list(tree.body):
        if isinstance(stmt, ast.FunctionDef) and _writable(stmt) and _only_called(tree, stmt):
            tree.body.remove(stmt)
            _inline(tree.body, stmt, names)


def _writable(func: ast.FunctionDef) -> bool:
    """A plain function of positional parameters whose ``nonlocal`` statements are at its top,
    with no ``return`` but a last one, and nothing that makes a scope or a generator."""
    a = func.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs or func.decorator_list:
        return False
    if not any(isinstance(s, ast.Nonlocal) for s in func.body) and not _procedure(func):
        return False  # (a nested def returning a value: lowering inlines it at each call)
    last = len(func.body) - 1
    for k, s in enumerate(func.body):
        for n in ast.walk(s):
            if isinstance(n, _SCOPES) or isinstance(n, ast.Nonlocal) and n is not s \
                    or isinstance(n, ast.Return) and (n is not s or k != last):
                return False
    return True


#: what a written-out body may not hold: another scope, a generator, a global
_SCOPES = (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
           ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _only_called(tree: ast.FunctionDef, func: ast.FunctionDef) -> bool:
    """Whether every use of `func`'s name is a call statement or an assignment's call, with one
    positional argument per parameter; and the name is bound only by its def."""
    name, arity = func.name, len(func.args.args)
    calls = set()
    for node in ast.walk(tree):
        value = node.value if isinstance(node, (ast.Expr, ast.Return)) or isinstance(node, ast.Assign) \
            and len(node.targets) == 1 else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == name:
            if value.keywords or len(value.args) != arity or any(isinstance(a, ast.Starred) for a in value.args):
                return False
            if isinstance(node, (ast.Assign, ast.Return)) and not isinstance(func.body[-1], ast.Return):
                return False
            calls.add(id(value.func))
    if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(ast.Module(func.body, []))) or any(
            isinstance(other, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and other is not func
            and other is not tree and name in {n.id for n in ast.walk(other) if isinstance(n, ast.Name)}
            for other in ast.walk(tree)):
        return False  # it calls itself, or another scope calls it: not written out
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]
    stored = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name]
    return bool(calls) and len(stored) == 1 and all(id(n) in calls for n in reads)


def _inline(body: list, func: ast.FunctionDef, names: FreeNames) -> None:
    k = 0
    while k < len(body):
        stmt = body[k]
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt) \
                    and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                _inline(inner, func, names)
        for handler in getattr(stmt, "handlers", []):
            _inline(handler.body, func, names)
        call = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.Return)) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == func.name:
            written = _written_out(func, call, stmt, names)
            body[k:k + 1] = written
            k += len(written)
        else:
            k += 1


def _written_out(func: ast.FunctionDef, call: ast.Call, stmt: ast.stmt, names: FreeNames) -> list:
    shared = {n for s in func.body if isinstance(s, ast.Nonlocal) for n in s.names}
    params = [a.arg for a in func.args.args]
    local = (set(params) | assigned_names(ast.Module(func.body, []))) - shared
    fresh = {n: names.namer.fresh(f"{n}_{func.name}") for n in sorted(local)}

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.copy_location(ast.Name(fresh.get(node.id, node.id), node.ctx), node)

    out = [ast.copy_location(ast.Assign([ast.Name(fresh[p], ast.Store())], a), stmt) for p, a in zip(params, call.args)]
    for s in func.body:
        if isinstance(s, ast.Nonlocal):
            continue
        s = Rename().visit(copy.deepcopy(s))
        if isinstance(s, ast.Return):
            if isinstance(stmt, ast.Assign) and s.value is not None:
                out.append(ast.copy_location(ast.Assign(stmt.targets, s.value), stmt))
            elif isinstance(stmt, ast.Return):  # return add(v): the body, then return what it returns
                out.append(ast.copy_location(ast.Return(s.value), stmt))
            continue
        out.append(s)
    return out or [ast.copy_location(ast.Pass(), stmt)]


__all__ = ["has_nonlocal", "inline_nonlocal_calls"]
