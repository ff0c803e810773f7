"""A function made by a factory of yours, written out where the factory is called (python_forms.py)::

    def make_clip(c):                        def loss(x, k=2.0):
        def clip(v):                             c = k
            return c * np.tanh(v / c)    ==>     def clip(v):
        return clip                                  return c * np.tanh(v / c)
                                                 return np.sum(clip(x) ** 2)
    def loss(x, k=2.0):
        clip = make_clip(k)
        return np.sum(clip(x) ** 2)

Python runs the factory's body with its parameters bound to the call's arguments and returns a
closure that reads them; the same body written where the factory is called (its parameters and
other local names given fresh names the caller never assigns again, the function it returns
named as the caller's name) is a nested function of the caller that reads the same values, which
lowering inlines at each call.  A parameter given a constant, or a name of the caller's module
(``make_act(np.tanh)``, a function of yours), reads that directly (the closure is then
specialised on it, as a callee is); the others are assigned once where the factory is called.

Written out: ``name = factory(...)``, and ``factory(...)(x)`` where the statement always runs it
(the closure made into a name just before the statement), of a plain function (no decorator,
``*args``, generator) whose body is statements with no ``return`` (and no ``yield``, ``global``,
``nonlocal``, class) and then ``return inner`` of a ``def inner`` of that body or ``return lambda
...``; each global the factory reads must be the same object to the caller (the caller's local
names hide none of them).  The factory is then read statically: rebinding it builds the
gradient again.  Any other factory call is left as written, and lowering refuses it at its line
("cannot tell which function ...")."""

from __future__ import annotations

import ast
import copy

from .depends import MISSING
from .desugar_reduce import SIMPLE, replace_node, run_now
from .factory_lambdas import factory_lambdas
from .factory_reading import (
    Factory,
    FactoryRename,
    bound_arguments,
    constant_expr,
    docstring,
    factory,
    factory_names,
    module_name,
    place,
    same_globals,
    written_names,
)
from .views import statement_blocks

_DEPTH = 4  # factories whose bodies call factories, written out this deep


def has_factory_calls(tree: ast.FunctionDef, names) -> bool:
    """Whether `tree` calls a factory of the shape above."""
    return any(_factory_of(n, names) is not None for n in ast.walk(tree) if isinstance(n, ast.Call))


def rewrite_factory_calls(tree: ast.FunctionDef, names) -> None:
    """Write out, in place, each closure `tree` makes by calling a factory (see the module's doc)."""
    read = getattr(tree, "read_statically", set())
    for _ in range(_DEPTH):  # (a factory's body may call a factory: written out in the next round)
        changed = False
        for block in list(statement_blocks(tree)):
            k = 0
            while k < len(block):
                before = _hoisted(block[k], names)
                if before:  # ``factory(...)(x)``: the closure made just before, then written out first
                    block[k:k] = before
                    continue
                written = _written_out(block[k], names, tree, read)
                if written is None:
                    k += 1
                    continue
                block[k:k + 1] = written
                k += len(written)
                changed = True
        if not changed:
            break
    factory_lambdas(tree, names, read)  # the other calls (in a list, a comprehension): lambdas
    tree.read_statically = read  # (parse.py records these as the gradient's dependencies)
    ast.fix_missing_locations(tree)


def _factory_of(call: ast.Call, names) -> Factory | None:
    func = names.resolve(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else MISSING
    return factory(func)


def _hoisted(stmt: ast.stmt, names) -> list:
    """``factory(...)(x)`` run whenever `stmt` runs: the closure made into a name just before it."""
    if not isinstance(stmt, SIMPLE + (ast.For, ast.If)):
        return []
    out = []
    for call in run_now(stmt):
        found = _factory_of(call.func, names) if isinstance(call, ast.Call) and isinstance(call.func, ast.Call) \
            else None
        if found is not None:
            held = names.namer.fresh(found.made or "made")
            out.append(ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], call.func), stmt))
            replace_node(stmt, call.func, ast.copy_location(ast.Name(held, ast.Load()), call.func))
    return out


def _written_out(stmt: ast.stmt, names, tree: ast.FunctionDef, read: set) -> list | None:
    """`stmt` (``name = factory(...)``) as the factory's body made the caller's, or None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, (ast.Name, ast.Attribute))):
        return None
    call, target = stmt.value, stmt.targets[0].id
    func = names.resolve(call.func)
    found = factory(func)
    if found is None or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    bound = bound_arguments(found.fdef, func, call)
    level = factory_names(found.fdef)
    if bound is None or not same_globals(func, level["free"], names):
        return None
    fdef = copy.deepcopy(found.fdef)
    place(fdef, stmt, func, names, tree)
    before, rename = written_names(  # (a constant, or a name of the module, read directly)
        fdef, bound, level, names, stmt,
        lambda param, value: param not in level["stored"] and (constant_expr(value) or module_name(value, names)))
    if found.made is not None:
        rename[found.made] = ast.Name(target, ast.Load())  # the function it returns: the caller's name
    body = [s for s in fdef.body if not docstring(s)]
    last = body.pop()
    if found.made is None:  # ``return lambda v: ...``: bound to the caller's name at the call's line
        body.append(ast.copy_location(ast.Assign([ast.copy_location(ast.Name(target, ast.Store()), stmt)],
                                                 last.value), stmt))
    written = before + [FactoryRename(rename).visit(s) for s in body]
    for made in written:  # the function made for the caller's name: at the call's line (its body at its own)
        if isinstance(made, ast.FunctionDef) and made.name == target:
            ast.copy_location(made, stmt)
    names.local |= {n.id for s in written for n in ast.walk(s) if isinstance(n, ast.Name)
                    and not isinstance(n.ctx, ast.Load)} | {s.name for s in written if isinstance(s, ast.FunctionDef)}
    if isinstance(call.func, ast.Name):
        read.add(call.func.id)
    return written


__all__ = ["has_factory_calls", "rewrite_factory_calls"]
