"""A dict or an object the code reads from its scope (a closure's ``state["scale"]``, a
global ``CONFIG.rate``), for numba, which types neither: each item or attribute read at a
constant key is a value of its own.

The generated code reads ``d["a"]`` where the user's helper did; numba would have to take
the dict ``d`` itself (a Python object it cannot type).  Where every read of the name is an
item at a constant key, an attribute or a dict's length (``d["a"]``, ``d["layer"]["W"]``, ``cfg.rate``,
``len(d)``), each distinct chain becomes a leading parameter of its own, read on every call as the other
globals are (module.py's `Env`, with the chain as its `path`): a dict rebound or changed
in place is seen.  A dict of one type of keys and of values (dict_items.py) read at keys the
code computes (``RATES[name]``) is passed as the pair (keys, values) and read by
``dict_item(pair, key)``, a membership test ``k in RATES`` by ``dict_has(pair, k)``.  A name read
any other way (iterated, passed whole) stays the one object, which numba refuses at its line.  A user's
module read at its data (``data.X``, lower/module_arrays.py) is such an object: each array a parameter.
"""

from __future__ import annotations

import ast
import types

import numpy as np

from . import dict_items

#: the step of a dict read at a key the code computes: the chain's value is the pair (keys, values)
INDEXED = ("indexed", None)
#: modules whose attributes the generated code reads as functions and constants numba compiles in
_LIBRARIES = ("numpy", "math", "cmath", "scipy", "srcdiff", "builtins")
#: the step of ``len(d)`` of a dict
LENGTH = ("len", "len")


def _container(value) -> bool:
    """A value read through its items or attributes: a dict or a plain object."""
    if isinstance(value, dict):
        return True
    if isinstance(value, types.ModuleType):  # ``data.X`` of a user's module of data (a library's: imported)
        return value.__name__.partition(".")[0] not in _LIBRARIES
    if isinstance(value, (np.ndarray, np.generic, int, float, complex, bool, str, bytes, list, tuple, type(None))):
        return False
    return hasattr(value, "__dict__") and not callable(value) and type(value).__module__ not in ("builtins",)


def _step(node: ast.AST, parent: ast.AST, value):
    """(step, the value it reads) if `parent` reads an item at a constant key or an
    attribute of `node` (whose value is `value`), else None."""
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load) \
            and isinstance(value, dict) and isinstance(parent.slice, ast.Constant) \
            and type(parent.slice.value) in (str, int) and parent.slice.value in value:
        return ("item", parent.slice.value), value[parent.slice.value]
    if isinstance(parent, ast.Attribute) and parent.value is node and isinstance(parent.ctx, ast.Load) \
            and not isinstance(value, dict) and parent.attr in getattr(value, "__dict__", {}):
        return ("attr", parent.attr), getattr(value, parent.attr)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len" \
            and len(parent.args) == 1 and parent.args[0] is node and not parent.keywords and isinstance(value, dict):
        return LENGTH, len(value)  # ``len(WEIGHTS)``: a number, read on every call as the items are
    return None


def chains(tree: ast.AST, name: str, value) -> list[tuple[ast.AST, tuple]] | None:
    """For the free name `name` bound to the dict or object `value`: each read of it as
    (the outermost node of its chain, the chain's steps), or None where some read is not a
    chain of constant keys and attributes ending at a value that is not itself a dict or an
    object."""
    if not _container(value):
        return None
    parents = {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        if not isinstance(node.ctx, ast.Load):
            return None
        path, at, current = [], node, value
        while _container(current):
            step = _step(at, parents.get(id(at)), current)
            if step is None and _indexed(at, parents.get(id(at)), current):
                path.append(INDEXED)
                at, current = parents[id(at)], None
                break
            if step is None:
                return None
            path.append(step[0])
            at, current = parents[id(at)], step[1]
        if callable(current):  # a function read from a table: the code calls it (module.py's imports)
            return None
        found.append((at, tuple(path)))
    return found or None


def _indexed(node: ast.AST, parent: ast.AST, value) -> bool:
    """Whether `parent` reads the dict `value` (`node`) at a key the code computes (dict_items.py), or
    tests such a key's membership (``day in INTERVENTIONS``: `_member`)."""
    if _member(parent, node):
        return isinstance(value, dict) and dict_items.readable(value)
    return isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load) \
        and isinstance(value, dict) and not isinstance(parent.slice, ast.Slice) \
        and (not isinstance(parent.slice, ast.Tuple) or all(type(k) is tuple for k in value)) \
        and dict_items.readable(value)


def _member(parent: ast.AST, node: ast.AST) -> bool:
    """Whether `parent` is ``key in node`` or ``key not in node``, one comparison."""
    return isinstance(parent, ast.Compare) and len(parent.ops) == 1 and isinstance(parent.ops[0], (ast.In, ast.NotIn)) \
        and parent.comparators[0] is node


def follow(value, path: tuple):
    """The value the chain `path` reads from `value`."""
    for kind, key in path:
        value = dict_items.pair(value) if kind == INDEXED[0] else len(value) if kind == LENGTH[0] else \
            value[key] if kind == "item" else getattr(value, key)
    return value


def spelled(name: str, path: tuple) -> str:
    """A readable parameter name for the chain: ``state_scale`` for ``state["scale"]``."""
    parts = [name] + ["".join(c if c.isalnum() else "_" for c in str(key)) for _, key in path if key is not None]
    return "_".join(parts)


def replace(tree: ast.AST, reads: list[tuple[ast.AST, tuple]], params: dict[tuple, str]) -> None:
    """Each chain of `reads` in `tree` as the name `params[path]`."""
    targets = {id(node): (params[path], path[-1] == INDEXED) for node, path in reads}

    def read(old: ast.AST) -> ast.expr:
        param, indexed = targets[id(old)]
        new = ast.Name(param, ast.Load())
        if indexed and isinstance(old, ast.Compare):  # ``k in d``: dict_has((keys, values), k)
            new = ast.Call(ast.Name("dict_has", ast.Load()), [new, old.left], [])
            new = ast.UnaryOp(ast.Not(), new) if isinstance(old.ops[0], ast.NotIn) else new
        elif indexed:  # ``d[k]``: dict_item((keys, values), k)
            new = ast.Call(ast.Name("dict_item", ast.Load()), [new, old.slice], [])
        return ast.copy_location(new, old)
    for parent in ast.walk(tree):
        for field, old in ast.iter_fields(parent):
            if isinstance(old, ast.AST) and id(old) in targets:
                setattr(parent, field, read(old))
            elif isinstance(old, list):
                for i, item in enumerate(old):
                    if isinstance(item, ast.AST) and id(item) in targets:
                        old[i] = read(item)


def indexed(reads: list) -> bool:
    """Whether some read of `reads` (`chains`) is at a key the code computes (then the code calls dict_item
    and dict_has)."""
    return any(path[-1] == INDEXED for _, path in reads)


__all__ = ["INDEXED", "chains", "follow", "indexed", "replace", "spelled"]
