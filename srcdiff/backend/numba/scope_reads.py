"""A dict or an object the code reads from its scope (a closure's ``state["scale"]``, a
global ``CONFIG.rate``), for numba, which types neither: each item or attribute read at a
constant key is a value of its own.

The generated code reads ``d["a"]`` where the user's helper did; numba would have to take
the dict ``d`` itself (a Python object it cannot type).  Where every read of the name is an
item at a constant key or an attribute (``d["a"]``, ``d["layer"]["W"]``, ``cfg.rate``), each
distinct chain becomes a leading parameter of its own, read on every call as the other
globals are (module.py's `Env`, with the chain as its `path`): a dict rebound or changed
in place is seen.  A name read any other way (iterated, indexed by a variable, passed
whole) stays the one object, which numba refuses at its line.
"""

from __future__ import annotations

import ast

import numpy as np


def _container(value) -> bool:
    """A value read through its items or attributes: a dict or a plain object."""
    if isinstance(value, dict):
        return True
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
            if step is None:
                return None
            path.append(step[0])
            at, current = parents[id(at)], step[1]
        if callable(current):  # a function read from a table: the code calls it (module.py's imports)
            return None
        found.append((at, tuple(path)))
    return found or None


def follow(value, path: tuple):
    """The value the chain `path` reads from `value`."""
    for kind, key in path:
        value = value[key] if kind == "item" else getattr(value, key)
    return value


def spelled(name: str, path: tuple) -> str:
    """A readable parameter name for the chain: ``state_scale`` for ``state["scale"]``."""
    parts = [name] + ["".join(c if c.isalnum() else "_" for c in str(key)) for _, key in path]
    return "_".join(parts)


def replace(tree: ast.AST, reads: list[tuple[ast.AST, tuple]], params: dict[tuple, str]) -> None:
    """Each chain of `reads` in `tree` as the name `params[path]`."""
    targets = {id(node): params[path] for node, path in reads}
    for parent in ast.walk(tree):
        for field, old in ast.iter_fields(parent):
            if isinstance(old, ast.AST) and id(old) in targets:
                setattr(parent, field, ast.copy_location(ast.Name(targets[id(old)], ast.Load()), old))
            elif isinstance(old, list):
                for i, item in enumerate(old):
                    if isinstance(item, ast.AST) and id(item) in targets:
                        old[i] = ast.copy_location(ast.Name(targets[id(item)], ast.Load()), item)


__all__ = ["chains", "follow", "replace", "spelled"]
