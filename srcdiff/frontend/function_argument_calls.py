"""A helper of yours given a function made in the caller: ``_euler(lambda y: -k * y ** 3, y0, 0.1)``,
``_euler(functools.partial(_rate, k=k), y0, 0.1)``, ``integrate(clip, x)`` of a nested ``def``, written out
where it is called (desugar.py, right after parsing)::

    y1 = _euler(lambda y: -k * y ** 3, y0, 0.1)       f = lambda y: -k * y ** 3
                                               ==>    y = y0
    def _euler(f, y, dt, n=3):                        dt = 0.1
        for _ in range(n):                            for _ in range(3):
            y = y + dt * f(y)                             y = y + dt * f(y)
        return y                                      y1 = y

A function made in the caller reads the caller's names (a closure); the helper cannot be given it as a
callee of its own (frontend/function_arguments.py binds a helper to a function the module names), so the
helper's body is written out in the caller, its parameters bound to the arguments (the function as a
local lambda, a partial or a nested function of the caller, read as such where the body calls it) and its
other names fresh; the call is then the value of its last ``return``.  A plain function of the caller's
file whose globals mean the same to the caller, with one ``return``, last, and no ``yield``, ``global``,
``nonlocal`` or recursion; a call Python always makes where its statement runs.  Any other is left as
written (lowering refuses a lambda passed to a function at its line).

A list the caller builds when it runs (``preds = []`` appended to in a loop, a comprehension, ``list(X)``)
and gives whole to such a helper is written out the same way (lowering takes lists in the caller's own
code, not as a callee's argument): the helper's parameter is the caller's list itself (a write into it is
the caller's, as in Python), unless the helper assigns that parameter (then a name of its own holding the
list, as Python's parameter does).  A call as a statement is its body alone.
"""

from __future__ import annotations

import ast
import copy
import functools
import types

from .desugar_reduce import replace_node, run_now
from .factory_reading import (
    FactoryRename,
    bound_arguments,
    docstring,
    factory_names,
    place,
    same_globals,
    source_def,
    written_names,
)
from .views import statement_blocks

_FORBIDDEN = (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.ClassDef, ast.AsyncFunctionDef)


def has_function_arguments(tree: ast.FunctionDef, names) -> bool:
    """Whether `tree` gives a lambda, a partial or a nested function made in it, or a list it builds, to a
    function of the user's."""
    defined = _nested_defs(tree) | _lists(tree, names)
    return any(_helper(n, names, defined) is not None for n in ast.walk(tree) if isinstance(n, ast.Call))


def _nested_defs(tree: ast.FunctionDef) -> set:
    return {s.name for s in ast.walk(tree) if isinstance(s, ast.FunctionDef) and s is not tree}


def _lists(tree: ast.FunctionDef, names) -> set:
    """The names `tree` assigns a list it builds: ``[]`` (appended to after), a comprehension, ``list(...)``
    (a display of items alone is a tuple tree of its own: tuple_state.py), and nothing else."""
    stores = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores.setdefault(n.id, []).append(n)
    values = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            values.setdefault(n.targets[0].id, []).append(n.value)
    return {LIST + name for name, made in values.items() if len(made) == len(stores[name])
            and any(_list_value(v, names) for v in made)
            and all(_list_value(v, names) or isinstance(v, ast.List) for v in made)}


def _list_value(value: ast.expr, names) -> bool:
    return isinstance(value, ast.List) and not value.elts or isinstance(value, ast.ListComp) \
        or names.calls(value, list)


#: (a list's name among the names `_made_here` reads, apart from a nested def's)
LIST = "list:"


def rewrite_function_arguments(tree: ast.FunctionDef, names) -> None:
    """Write out, in place, each call of a helper given a function made in the caller (the module's doc)."""
    defined = _nested_defs(tree) | _lists(tree, names)
    for block in list(statement_blocks(tree)):
        k = 0
        while k < len(block):
            stmt = block[k]
            before = _written(stmt, names, tree, defined)
            block[k:k] = before
            k += len(before) + 1
            if before and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Name):
                del block[k - 1]  # ``_set_first(xs, v)`` as a statement: its body is all it does
                k -= 1
    ast.fix_missing_locations(tree)


def _made_here(arg: ast.expr, names, defined: set) -> bool:
    """A function the caller makes: a lambda, ``functools.partial(...)``, or a nested ``def``'s name; or a list
    it builds: a list's name, a comprehension, ``list(...)``."""
    return isinstance(arg, ast.Lambda) or names.calls(arg, functools.partial) \
        or isinstance(arg, ast.Name) and (arg.id in defined or LIST + arg.id in defined) \
        or isinstance(arg, ast.ListComp) or names.calls(arg, list)


def _helper(call: ast.Call, names, defined=frozenset()):
    """The function of the user's `call` calls when it gives it a function made here, else None."""
    if not isinstance(call.func, ast.Name) or not any(_made_here(a, names, defined)
                                                      for a in call.args + [k.value for k in call.keywords]):
        return None
    func = names.resolve(call.func)
    return func if isinstance(func, types.FunctionType) else None


def _written(stmt: ast.stmt, names, tree: ast.FunctionDef, defined: set) -> list:
    out = []
    for call in [n for n in run_now(stmt) if isinstance(n, ast.Call)]:
        func = _helper(call, names, defined)
        made = _body(call, func, names, tree, stmt, defined) if func is not None else None
        if made is not None:
            statements, value = made
            out += statements
            replace_node(stmt, call, value)
    return out


def _body(call: ast.Call, func, names, tree: ast.FunctionDef, where: ast.stmt, defined: set):
    """(the statements of `func`'s body bound to `call`'s arguments, the expression of its value), or None."""
    caller = names.func
    if func.__globals__ is not caller.__globals__ or func.__closure__ or func is caller \
            or func.__code__.co_filename != caller.__code__.co_filename \
            or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    fdef = _plain_def(func)
    if fdef is None:
        return None
    bound = bound_arguments(fdef, func, call)
    level = factory_names(fdef)
    if bound is None or not same_globals(func, level["free"], names):
        return None
    fdef = copy.deepcopy(fdef)
    place(fdef, where, func, names, tree)
    before, rename = written_names(  # (a nested def of the caller: called by its own name)
        fdef, bound, level, names, where,
        lambda param, value: isinstance(value, ast.Name) and (value.id in defined or LIST + value.id in defined)
        and param not in level["stored"])  # (a list's name: the caller's list, appended to or read)
    body = [FactoryRename(rename).visit(s) for s in fdef.body if not docstring(s)]
    value = body.pop().value
    held = names.namer.fresh(f"{func.__name__.strip('_')}_value")
    body.append(ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], value), where))
    names.local |= {n.id for s in before + body for n in ast.walk(s) if isinstance(n, ast.Name)  # (what it assigns:
                    and not isinstance(n.ctx, ast.Load)}  # a global it reads stays the module's to a later call)
    return before + body, ast.copy_location(ast.Name(held, ast.Load()), call)


def _plain_def(func) -> ast.FunctionDef | None:
    """The helper's ``def`` (its lines the file's) when it ends in its one ``return <value>``."""
    fdef = source_def(func)
    if fdef is None or fdef.decorator_list or fdef.args.vararg or fdef.args.kwarg:
        return None
    body = [s for s in fdef.body if not docstring(s)]
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return None
    for s in body[:-1]:
        if any(isinstance(n, _FORBIDDEN + (ast.Return,)) for n in ast.walk(s)) \
                or any(isinstance(n, ast.Name) and n.id == func.__name__ for n in ast.walk(s)):
            return None
    return fdef


__all__ = ["has_function_arguments", "rewrite_function_arguments"]
