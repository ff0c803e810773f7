"""Calls of the user's cached functions with constant arguments, as their values (module.py asks
`fold` before it resolves a function's names).

numba compiles the generated code only, not the Python functions it calls.  A function under
``functools.lru_cache`` or ``functools.cache`` that the gradient calls with constants only
(``_binomial_row(n)`` of an int parameter ``n``, which backend/jit.py compiles in by value, one
module per value met, as it does a string option) gives, in Python,
the value its cache holds on every call: the decorator is the user's word that the value
depends on the arguments alone.  So that call is made once, here, and its value written in its
place, where it is a number, a string or a tuple of them (a value numba takes as a constant).
Where it is an array (``_gauss_kernel(2)``, ``_chebyshev_nodes(5)``), the call becomes an argument
of the compiled module, the cached function called again on every call of the gradient (its
cache's array, as the Python gradient reads it: `Cached`).  A call with an argument computed at
run time (a loop's ``k``), a value of another kind, or a call that raises is left alone: numba
then refuses it at the user's line, as before.
"""

from __future__ import annotations

import ast
import builtins

import numpy as np


def _wrapper(value) -> bool:
    return callable(value) and hasattr(value, "cache_info") and hasattr(value, "__wrapped__")


def cached(value):
    """`value` if it is a cached function, else None: a ``functools.lru_cache`` /
    ``functools.cache`` wrapper, or the function the Python gradient calls in its place (srcdiff
    reads the source ``__wrapped__`` holds, and calls its own compiled copy of it) where its
    module's name for it is such a wrapper of a function of the same name and file."""
    if _wrapper(value):
        return value
    code = getattr(value, "__code__", None)
    home = getattr(value, "__globals__", {}).get(getattr(value, "__name__", None))
    inner = getattr(home, "__wrapped__", None) if _wrapper(home) else None
    same = inner is value or code is not None and getattr(inner, "__qualname__", None) == value.__qualname__ \
        and getattr(getattr(inner, "__code__", None), "co_filename", None) == code.co_filename
    return value if same else None


def is_cached(value) -> bool:
    return cached(value) is not None


def _constant(value):
    """`value` as a constant numba takes (NumPy's numbers as Python's), or `_constant` if it is not one."""
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        value = value.item()
    if isinstance(value, tuple):
        items = tuple(_constant(v) for v in value)
        return _constant if any(v is _constant for v in items) else items
    return value if value is None or type(value) in (int, float, bool, str) else _constant


class Cached:
    """The scope of an array a cached function gives at constant arguments: read (module.py's `Env`)
    on every call of the gradient by calling the function, which gives its cache's value."""

    def __init__(self, function, args: list, keywords: dict):
        self.function, self.args, self.keywords = function, args, keywords

    def __getitem__(self, name: str):
        return self.function(*self.args, **self.keywords)


class _Folder(ast.NodeTransformer):
    def __init__(self, lookup):
        self.lookup = lookup
        self.arrays: list[tuple[ast.Name, Cached, str]] = []

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        if not isinstance(node.func, ast.Name):
            return node
        function = cached(self.lookup(node.func.id))
        if function is None:
            return node
        try:
            args = [ast.literal_eval(a) for a in node.args]
            keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
        except ValueError:
            return node  # an argument computed when the code runs
        if len(keywords) != len(node.keywords):
            return node
        try:
            given = function(*args, **keywords)
        except Exception:  # noqa: BLE001  the call raises: left to run (and be refused) as written
            return node
        if isinstance(given, np.ndarray) and given.dtype.kind in "fiub":  # read on every call (`Cached`)
            name = ast.copy_location(ast.Name(f"{node.func.id}_value", ast.Load()), node)
            self.arrays.append((name, Cached(function, args, keywords), node.func.id))
            return name
        value = _constant(given)
        return node if value is _constant else ast.copy_location(ast.Constant(value), node)


def fold(tree: ast.FunctionDef, function) -> list[tuple[ast.Name, Cached, str]]:
    """Replace, in place, the calls in `tree` (the code of `function`'s gradient) of cached
    functions with constant arguments by their values; those giving arrays by names, returned
    (name, its `Cached` scope, the function's name) for module.py to make arguments read on every call."""
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    bound |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}

    def lookup(name: str):
        if name in bound:
            return None
        if name in cells:
            try:
                return cells[name].cell_contents
            except ValueError:  # an empty cell
                return None
        return function.__globals__.get(name, getattr(builtins, name, None))
    folder = _Folder(lookup)
    folder.visit(tree)
    return folder.arrays


def passed_to_cached(source: str, function, names) -> list[int]:
    """The positions among `names` (the parameters of `function`, whose code is `source`) of the
    parameters passed as they are to a cached function: compiled in by value, one module per
    value met (backend/jit.py), so that `fold` finds the call's arguments constant."""
    tree = ast.parse(source).body[0]
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            cell = cells.get(node.func.id)
            try:
                callee = cell.cell_contents if cell is not None else function.__globals__.get(node.func.id)
            except ValueError:  # an empty cell
                continue
            if is_cached(callee):
                found |= {a.id for a in [*node.args, *(k.value for k in node.keywords)] if isinstance(a, ast.Name)}
    return [i for i, name in enumerate(names) if name in found]


__all__ = ["Cached", "cached", "fold", "is_cached", "passed_to_cached"]
