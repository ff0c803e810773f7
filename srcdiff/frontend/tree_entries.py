"""What a name or an expression stands for while a tree function is rewritten (flatten.py)."""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass

from . import trees


@dataclass
class Leaf:
    name: str  # the variable holding it


@dataclass
class Const:
    value: object


@dataclass
class Static:
    name: str  # the injected closure cell holding the callable
    obj: object = None


@dataclass
class Bad:
    reason: str  # why it cannot be used (opaque value, assigned differently on paths...)


@dataclass
class Node:
    struct: trees.Struct
    children: dict  # key -> entry
    local: bool = False  # built in the function (writable), not an argument
    depth: int = 0  # how deep in branches and loops it was built (writes must be as deep)
    literal: object = None  # a dict of constants written in the code: its expression, where used whole

    def child(self, key):
        return self.children[key]


@dataclass
class Method:
    func: types.FunctionType
    owner: Node  # the object tree it is bound to
    name: str


@dataclass
class Read:
    expr: object  # the expression that reads it (``self.w2``: a call of the property's getter)


@dataclass
class DictView:
    node: Node
    which: str  # items / keys / values


def node_struct(entry) -> trees.Struct:
    """The structure a helper sees for an entry passed to it."""
    if isinstance(entry, Node):
        keys = tuple(entry.children)
        return trees.Struct(entry.struct.kind, keys, tuple(node_struct(entry.children[k]) for k in keys),
                            entry.struct.cls)
    if isinstance(entry, Static):
        return trees.Struct("static", cls=trees.Ident(entry.obj))
    if isinstance(entry, Bad):
        return trees.Struct("opaque")
    return trees.LEAF


def leaf_entries(entry) -> list:
    """The leaves of an entry, in the order a flattened helper takes them."""
    if isinstance(entry, Node):
        return [x for k in entry.children for x in leaf_entries(entry.children[k])]
    if isinstance(entry, (Leaf, Const)):
        return [entry]
    return []


def call_key(env: dict, node) -> tuple:
    """``(key, kept)``: what identifies a call a rewriter writes out once although `entry` asks about it
    again: the call's node and the entries its names are bound to (an unrolled comprehension reads one
    node again with each item bound, another call each time); `kept` holds them, so that no id is
    reused while the key is."""
    bound = tuple(env.get(n) for n in sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)}))
    return (id(node), tuple(map(id, bound))), (node, bound)


class Names:
    """Fresh identifiers that collide with nothing the function mentions."""

    def __init__(self, taken: set):
        self.taken = set(taken)
        self.spellings: dict[str, str] = {}  # a variable made for an entry -> the user's spelling, d['a']

    def fresh(self, base: str, spelling: str | None = None) -> str:
        """A new identifier from `base`; `spelling`, the user's way to write what it holds (``d['a']``),
        is what error messages say instead of it."""
        name, k = base, 0
        while name in self.taken or not name.isidentifier():
            k += 1
            name = f"{base}_{k}"
            if not name.isidentifier():
                name = f"v_{name}"
        self.taken.add(name)
        if spelling:
            self.spellings[name] = spelling
        return name


__all__ = ["Bad", "Const", "DictView", "Leaf", "Method", "Names", "Node", "Read", "Static", "call_key",
           "leaf_entries", "node_struct"]
