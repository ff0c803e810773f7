"""A generator of yours given another one's values: ``sum(f(v) for v in shifted(scaled(x, 0.5), 0.1))``
(desugar.py, right after parsing).

srcdiff reads a generator function as the function returning the list of the values it yields
(generators.py); a list cannot be passed to a function of yours, so the outer generator's listed body is
written out where it is called, its parameters bound to the arguments (the inner generator's values as the
list ``list(scaled(x, 0.5))``, which Python's loop over them reads the same, in the same order) and its other
names fresh; the call is then the list it builds::

    for v in shifted(scaled(x, 0.5), 0.1):      xs = list(scaled(x, 0.5))
        ...                             ==>     shifted_items = []
                                                for v_1 in xs:
                                                    shifted_items.append(v_1 + 0.1)
                                                for v in shifted_items:
                                                    ...

Written out where the statement always runs the call (a ``for``'s iterable, a comprehension's first
iterable, an argument of ``sum``/``list``), for a generator of the caller's file whose globals mean the same
to the caller; the outer generator reads its values lazily, the list eagerly, which computes the same values
(each value of the inner generator is computed before the outer one reads it in both).  Any other use is
left as written, and lowering refuses the list at its line.
"""

from __future__ import annotations

import ast
import copy
import inspect
import types

from .desugar_reduce import replace_node, run_now
from .factory_reading import FactoryRename, bound_arguments, factory_names, place, same_globals, written_names
from .generators import listed_def
from .views import statement_blocks

_DEPTH = 3  # generators fed by generators, written out this deep


def has_pipelines(tree: ast.FunctionDef, names) -> bool:
    """Whether `tree` calls a generator function of the user's with another one's call as an argument."""
    return any(_outer(n, names) is not None for n in ast.walk(tree) if isinstance(n, ast.Call))


def rewrite_pipelines(tree: ast.FunctionDef, names) -> None:
    """Write out, in place, each generator call fed by another generator (see the module's doc)."""
    for _ in range(_DEPTH):
        changed = False
        for block in list(statement_blocks(tree)):
            k = 0
            while k < len(block):
                before = _written(block[k], names, tree)
                block[k:k] = before
                k += len(before) + 1
                changed = changed or bool(before)
        if not changed:
            break
    ast.fix_missing_locations(tree)


def _generator(names, node: ast.expr):
    func = names.resolve(node.func) if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name,
                                                                                              ast.Attribute)) else None
    return func if isinstance(func, types.FunctionType) and inspect.isgeneratorfunction(func) else None


def _outer(node: ast.Call, names):
    """The generator function `node` calls when an argument is another generator's call, else None."""
    func = _generator(names, node)
    return func if func is not None and any(_generator(names, a) is not None for a in node.args) else None


def _written(stmt: ast.stmt, names, tree: ast.FunctionDef) -> list:
    """The statements building the outer generator's list for each pipeline `stmt` always runs."""
    out = []
    for call in [n for n in run_now(stmt) if isinstance(n, ast.Call)]:
        func = _outer(call, names)
        made = _listed_call(call, func, names, tree, stmt) if func is not None else None
        if made is not None:
            statements, items = made
            out += statements
            replace_node(stmt, call, ast.copy_location(ast.Name(items, ast.Load()), call))
    return out


def _listed_call(call: ast.Call, func, names, tree: ast.FunctionDef, where: ast.stmt):
    """(the listed body of `func` bound to `call`'s arguments, the name of its list), or None."""
    caller = names.func
    if func.__globals__ is not caller.__globals__ or func.__closure__ \
            or func.__code__.co_filename != caller.__code__.co_filename:
        return None
    fdef = listed_def(func)  # (a generator's reading: the list it yields, generators.py)
    if fdef is None:
        return None  # (left as written: lowering refuses it at its line)
    bound = bound_arguments(fdef, func, call)
    level = factory_names(fdef)
    if bound is None or fdef.args.vararg or not same_globals(func, level["free"], names):
        return None
    fdef = copy.deepcopy(fdef)
    place(fdef, where, func, names, tree)
    for param, value in bound.items():
        if _generator(names, value) is not None:  # the inner generator's values: a list
            bound[param] = ast.Call(ast.Name("list", ast.Load()), [value], [])
    before, rename = written_names(fdef, bound, level, names, where, lambda param, value: False)
    body = [FactoryRename(rename).visit(s) for s in fdef.body]
    last = body.pop()  # ``return <items>``
    names.local |= {n.id for s in before + body for n in ast.walk(s) if isinstance(n, ast.Name)  # (what it assigns:
                    and not isinstance(n.ctx, ast.Load)}  # a global it reads stays the module's to a later call)
    return before + body, last.value.id


__all__ = ["has_pipelines", "rewrite_pipelines"]
