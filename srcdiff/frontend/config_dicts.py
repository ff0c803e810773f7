"""Module-level configuration dicts used whole, read as trees of constants::

    CFG = {"layer": {"scale": 0.7, "shift": 0.1}, "loss": {"weight": 2.0}}

    layer = CFG["layer"]                    # a dict of the dict bound to a name
    h = x * layer.get("scale", 1.0)         # .get with a default
    loss = helper(h, CFG["loss"])           # passed to a helper, which reads cfg["weight"]

Lowering reads ``CFG["layer"]["scale"]`` as data of the module when the function runs; a dict it
holds bound to a name, ``CFG.get(...)``, or the dict passed to a function were refused with messages
about integers and methods.  A module dict of strings, numbers (and tuples of them) and such dicts,
read so by the function, is instead a tree like a module-level object's (global_objects.py): its
numbers constants of the code, each a dependency, so a dict changed in place (a value, a key added or
removed) builds the gradient again.  A dict read only at keys (``CFG["layer"]["scale"]``,
``COEF[name]``) is left to lowering as before.
"""

from __future__ import annotations

import ast

from ..ir.nodes import typed

MAX_DEPTH = 4
_PLAIN = (int, float, bool, str, type(None))


def config_dict(value, depth: int = 0) -> bool:
    """Whether `value` is a non-empty dict with string keys holding numbers, strings, None, tuples of numbers
    or (`MAX_DEPTH` deep) such dicts."""
    return type(value) is dict and bool(value) and depth < MAX_DEPTH and all(
        isinstance(k, str) and (type(v) in _PLAIN or type(v) is tuple and all(type(t) in _PLAIN for t in v)
                                or config_dict(v, depth + 1)) for k, v in value.items())


def used_whole(tree: ast.AST, name: str, value) -> bool:
    """Whether the function `tree` reads config dict `value`, held by the free `name`, other than at keys:
    ``name.get(...)``, ``name`` (or ``name[k]`` of a dict it holds) passed to a call or ``**``-spread, or a
    dict it holds bound to a name (``layer = name["layer"]``)."""
    if not config_dict(value):
        return False
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        held, inner = value, node
        while isinstance(parent := parents.get(id(inner)), ast.Subscript) and parent.value is inner \
                and isinstance(parent.slice, ast.Constant) and isinstance(held, dict) and parent.slice.value in held:
            held, inner = held[parent.slice.value], parent
        if not isinstance(held, dict):
            continue
        parent = parents.get(id(inner))
        if isinstance(parent, ast.Attribute) and parent.attr == "get" \
                or isinstance(parent, (ast.Call, ast.keyword)) and inner is not getattr(parent, "func", None) \
                or isinstance(parent, ast.Assign) and parent.value is inner and inner is not node:
            return True
    return False


class Snapshot:
    """A dependency's scope: ``get("items")`` is the config dict as it is now, by value (`frozen`)."""

    def __init__(self, d: dict):
        self.d = d

    def get(self, name, default=None):
        return frozen(self.d)


def frozen(value):
    """A config dict's keys and values, nested dicts too, as tuples (compared by value, types included)."""
    if type(value) is dict:
        return tuple((k, frozen(v)) for k, v in value.items())
    return typed(value)  # (by type and value, a zero by its sign too)


__all__ = ["Snapshot", "config_dict", "frozen", "used_whole"]
