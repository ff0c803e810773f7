"""A factory call where no statement can hold its body (``[make_clip(c) for c in cs]``,
``make_clip(c)(x)`` in a comprehension), of a factory whose function is one ``return``: the lambda it
makes (closure_factories.py calls this after writing out the calls it can)."""

from __future__ import annotations

import ast
import copy

from .desugar_reduce import HIDDEN
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
    scope_names,
)
from .key_selections import plain
from .naming import SCOPES


def factory_lambdas(tree: ast.FunctionDef, names, read: set) -> None:
    """Each factory call left in `tree`'s own statements as the lambda it makes; `read` gets the
    names of the factories read."""
    made = _Lambdas(names, read, tree)
    tree.body = [made.visit(s) for s in tree.body]


class _Lambdas(ast.NodeTransformer):
    """A factory call anywhere else (``[make_clip(c) for c in cs]``), of a factory whose function is
    one ``return``: the lambda it makes, ``lambda v, c=c: c * np.tanh(v / c)`` (a parameter given
    a constant or a name of the module read directly; the others defaults, which Python computes
    where the lambda is made, as it computes the factory's arguments)."""

    def __init__(self, names, read: set, tree: ast.FunctionDef):
        self.names, self.read, self.tree = names, read, tree
        self.made = set()  # (ids of the lambdas made here)

    def visit_FunctionDef(self, node):
        return node  # a scope of its own

    visit_ClassDef = visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Lambda) and id(node.func) in self.made:
            return _applied(node.func, node) or node  # ``make_clip(c)(x)`` in a comprehension
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            return node
        func = self.names.resolve(node.func)
        found = factory(func)
        made = _lambda_of(found, func, node, self.names, self.tree) if found is not None else None
        if made is None:
            return node
        if isinstance(node.func, ast.Name):
            self.read.add(node.func.id)
        self.made.add(id(made))
        return made


def _applied(made: ast.Lambda, call: ast.Call) -> ast.expr | None:
    """``(lambda v, c=c: ...)(x)``: the lambda's body with its parameters read as the values (each
    a name, constant or item, which reading again gives again; or read once); None otherwise."""
    a = made.args
    params = [p.arg for p in a.args]
    if call.keywords or len(call.args) > len(params) or len(call.args) < len(params) - len(a.defaults) \
            or any(isinstance(v, ast.Starred) for v in call.args):
        return None
    values = dict(zip(params, call.args))
    values.update((p, d) for p, d in zip(params[len(params) - len(a.defaults):], a.defaults) if p not in values)
    reads = [n.id for n in ast.walk(made.body) if isinstance(n, ast.Name)]
    if any(isinstance(n, SCOPES + HIDDEN) for n in ast.walk(made.body)) \
            or any(reads.count(p) > 1 and not plain(v) for p, v in values.items()):
        return None
    return FactoryRename(values).visit(copy.deepcopy(made.body))


def _lambda_of(found: Factory, func, call: ast.Call, names, tree) -> ast.Lambda | None:
    """The lambda `call` makes (`_Lambdas`), or None when the factory is not that simple."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    body = [s for s in found.fdef.body if not docstring(s)]
    level = factory_names(found.fdef)
    if found.made is None and len(body) == 1:
        made = body[0].value
    elif found.made is not None and len(body) == 2 and isinstance(body[0], ast.FunctionDef):
        inner = [s for s in body[0].body if not docstring(s)]
        a = body[0].args
        if len(inner) != 1 or not isinstance(inner[0], ast.Return) or inner[0].value is None \
                or a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            return None
        made = ast.Lambda(a, inner[0].value)
    else:
        return None
    bound = bound_arguments(found.fdef, func, call)
    if bound is None or level["stored"] or not same_globals(func, level["free"], names):
        return None
    made = copy.deepcopy(made)
    place(made, call, func, names, tree)
    own = scope_names(made)
    # (a default of its own is computed where the factory runs, with the arguments)
    made.args.defaults = [FactoryRename(bound).visit(d) for d in made.args.defaults]
    rename = {}
    for param, value in bound.items():
        if param in own:
            continue  # the function's own parameter hides it
        if constant_expr(value) or module_name(value, names):
            rename[param] = value
        else:
            made.args.args.append(ast.arg(param))
            made.args.defaults.append(value)
            rename[param] = ast.Name(param, ast.Load())
    made.body = FactoryRename(rename).visit(made.body)
    return made


__all__ = ["factory_lambdas"]
