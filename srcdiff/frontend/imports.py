"""``import numpy as np`` / ``from scipy.special import gammaln`` in a function's body.

An import statement binds a name to the same module (or object of one) every time it runs.
A function whose body imports at its top level is rewritten without those statements, the
imported objects given to it as closure cells, as if imported around it: every later stage
(and the generated code, which reads the same cells) sees ordinary free names.  An import
inside a branch or loop, a relative import, or one that fails is left in place (lowering
refuses it at its line).
"""

from __future__ import annotations

import ast
import importlib
import types

from .compiling import compile_function


def imported(statement) -> dict | None:
    """The names a top-level import statement binds and their objects; None if it cannot say."""
    if isinstance(statement, ast.ImportFrom) and (statement.level or statement.module is None):
        return None
    names = {}
    try:
        for alias in statement.names:
            if isinstance(statement, ast.Import):
                module = importlib.import_module(alias.name)
                top = alias.name.split(".")[0]
                names[alias.asname or top] = module if alias.asname else importlib.import_module(top)
            elif alias.name == "*":
                return None
            else:
                module = importlib.import_module(statement.module)
                names[alias.asname or alias.name] = getattr(module, alias.name) if hasattr(module, alias.name) \
                    else importlib.import_module(f"{statement.module}.{alias.name}")
    except ImportError:
        return None
    return names


def hoisted(parsed, make):
    """`parsed` with its top-level imports made closure cells (a new, compiled function;
    `make(func, tree, closure)` builds its ParsedFunction); `parsed` itself if it has none."""
    tree = parsed.tree
    cells, body = {}, []
    for statement in tree.body:
        found = imported(statement) if isinstance(statement, (ast.Import, ast.ImportFrom)) else None
        if found is None:
            body.append(statement)
        else:
            cells.update({name: types.CellType(value) for name, value in found.items()})
    if not cells:
        return parsed
    fdef = ast.FunctionDef(name=tree.name, args=tree.args, body=body or [ast.Pass()], decorator_list=[],
                           returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        fdef.type_params = []
    ast.copy_location(fdef, tree)
    fdef.end_lineno = tree.end_lineno
    ast.fix_missing_locations(fdef)
    closure = {**parsed.closure, **cells}
    made = compile_function(fdef, parsed, closure, parsed.func.__defaults__ or ())
    made.__kwdefaults__ = parsed.func.__kwdefaults__
    return make(made, fdef, {n: closure[n] for n in made.__code__.co_freevars})


def has_imports(tree: ast.FunctionDef) -> bool:
    return any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in tree.body)


__all__ = ["has_imports", "hoisted", "imported"]
