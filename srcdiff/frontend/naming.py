"""Deterministic, readable names for generated code.

The user's names are kept; a reassigned name gets a version suffix (``x``, ``x_1``); an
adjoint is the primal name plus ``_bar``; temporaries are ``t1``, ``t2``...  A name is never
reused and never shadows a name the user's function reads, so the output is the same on
every run and for every machine.
"""

from __future__ import annotations

import ast
import builtins
import types

from .depends import MISSING
from .imports import imported


def assigned_names(tree: ast.AST) -> set[str]:
    """The names a function assigns to (its local variables, parameters excluded)."""
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def names_in(tree: ast.AST) -> set[str]:
    """Every identifier a piece of code mentions (variables, parameters, attributes' roots)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
    return found


#: the nodes that open a scope of their own
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def inner_blocks(stmt: ast.stmt) -> list:
    """The statement lists right inside `stmt`: its body, else and finally, and its handlers'
    bodies (what a rewrite of a block recurses into)."""
    found = [getattr(stmt, field, None) for field in ("body", "orelse", "finalbody")]
    found = [block for block in found if isinstance(block, list) and block and isinstance(block[0], ast.stmt)]
    return found + [handler.body for handler in getattr(stmt, "handlers", [])]


def rewrite_blocks(body: list, before_each) -> None:
    """Every statement of `body` and of the blocks inside it (innermost first; nested defs and
    classes not entered) given the statements ``before_each(stmt)`` returns, put before it (a
    rewrite may also change `stmt` in place)."""
    k = 0
    while k < len(body):
        stmt = body[k]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            k += 1
            continue
        for inner in inner_blocks(stmt):
            rewrite_blocks(inner, before_each)
        before = before_each(stmt)
        body[k:k] = before
        k += len(before) + 1


def own_nodes(tree: ast.FunctionDef):
    """The nodes of the function's own scope (nested functions, lambdas, classes not entered,
    except for what the enclosing scope evaluates when it runs the ``def``: their defaults and
    decorators, a class's bases.  ``def g(u, k=k)`` reads k here, and is a second name of
    its list)."""
    todo = list(ast.iter_child_nodes(tree))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, SCOPES):
            todo.extend(ast.iter_child_nodes(node))
        else:
            todo.extend(_evaluated_here(node))


def _evaluated_here(node: ast.AST) -> list:
    """The parts of a nested function, lambda or class that the enclosing scope evaluates."""
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    found = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    return found + list(getattr(node, "decorator_list", []))


class Rename(ast.NodeTransformer):
    """Reads and writes of the names in `names` (old -> new) under their new names."""

    def __init__(self, names: dict):
        self.names = names

    def visit_Name(self, node):
        return ast.copy_location(ast.Name(self.names[node.id], node.ctx), node) if node.id in self.names else node


class Namer:
    """Hands out names no one else in the generated function has.

    `taken` are names that must keep their meaning (parameters, globals the code reads);
    `locals_` are the user's local variables, each free for its own first version.
    """

    def __init__(self, taken: set[str], locals_: set[str] = frozenset()):
        self.taken = set(taken)
        self.locals = set(locals_)
        self._temps = 0

    def copy(self) -> "Namer":
        other = Namer(self.taken, self.locals)
        other._temps = self._temps
        return other

    def version(self, user_name: str) -> str:
        """The SSA name of a new assignment to `user_name`: itself first, then `name_1`..."""
        if user_name not in self.taken:
            self.taken.add(user_name)
            return user_name
        return self.fresh(user_name)

    def claim(self, name: str) -> str:
        """`name` itself, reserved; used for names that must be kept as they are."""
        self.taken.add(name)
        return name

    def fresh(self, base: str) -> str:
        """`base` if free, else `base_1`, `base_2`, ... (the first free one)."""
        name, k = base, 0
        while name in self.taken or name in self.locals:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name

    def temp(self) -> str:
        """The next free temporary: t1, t2, ..."""
        while True:
            self._temps += 1
            name = f"t{self._temps}"
            if name not in self.taken and name not in self.locals:
                self.taken.add(name)
                return name

    def adjoint(self, primal: str) -> str:
        return self.fresh(f"{primal}_bar")


class FreeNames:
    """What the free names of one function refer to, and fresh names for its rewrites."""

    def __init__(self, tree: ast.FunctionDef, func):
        code = func.__code__
        self.func, self.local = func, assigned_names(tree) | {a.arg for a in ast.walk(tree.args)
                                                               if isinstance(a, ast.arg)}
        self.closure = dict(zip(code.co_freevars, func.__closure__ or ()))
        # the body's own top-level imports (``import scipy.linalg`` first thing in the function):
        # the rewrites run before they are hoisted into closure cells (imports.py), and must read
        # ``scipy.linalg.cho_solve`` there as what it is, as they do of a module-level import
        for statement in tree.body:
            found = imported(statement) if isinstance(statement, (ast.Import, ast.ImportFrom)) else None
            self.closure.update({name: types.CellType(value) for name, value in (found or {}).items()})
        self.namer = Namer(names_in(tree) | set(code.co_names) | set(code.co_freevars) | set(code.co_varnames))

    def resolve(self, expr: ast.expr):
        """The object a Name/Attribute chain of free names refers to, else MISSING."""
        if isinstance(expr, ast.Attribute):
            base = self.resolve(expr.value)
            return MISSING if base is MISSING else getattr(base, expr.attr, MISSING)
        if not isinstance(expr, ast.Name) or expr.id in self.local:
            return MISSING
        if expr.id in self.closure:
            try:
                return self.closure[expr.id].cell_contents
            except ValueError:
                return MISSING
        if expr.id in self.func.__globals__:
            return self.func.__globals__[expr.id]
        return getattr(builtins, expr.id, MISSING)

    def calls(self, expr: ast.expr, func) -> bool:
        return isinstance(expr, ast.Call) and self.resolve(expr.func) is func
