"""Facts that hold for every value a name takes: the optimizer's "holds a number" and "holds a
float", grown from what the shapes say through the generated code's assignments, and through
its lists.

A gradient's loops keep values on lists (``stack.append((t4, t4_dot0))``, ``states_bar =
zeros_list(states)``) and read them back by position; a fact about every item a list is given
is a fact about every item read from it.  A list counts only where the generated code does
nothing else with it than make it, append to it, write and read and delete items, and take its
length: no alias, no call that could put anything else in it.  Its key in the set of known
names is ``name + ITEM`` (``xs[]``: each ``xs[i]`` has the fact); a list of tuples (each
item unpacked, ``a, b = xs[k]``) has ``name + TUPLES``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from .liveness import nodes

ITEM, TUPLES = "[]", "[()]"
#: runtime helpers making a new list of a list: zeros of it, it with an item added to, it
#: without its last item (rules/list_helpers.py)
_MAKERS = ("zeros_list", "zeros_like", "list_add", "list_drop")


def item_of(node: ast.expr) -> str | None:
    """The key ``xs[]`` when `node` reads one item ``xs[i]`` of a name (not a slice)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and not isinstance(node.slice, ast.Slice):
        return node.value.id + ITEM
    return None


@dataclass
class Bindings:
    """How `func` binds its names, read once for every fact grown over it (see `grow`)."""
    plain: dict[str, list[ast.expr]]  # name -> the values of its ``name = value`` assignments
    unpacked: dict[str, list[tuple[ast.expr, int]]]  # name -> (value, place) of unpackings
    other: set[str]  # names bound any other way (a loop target, a ``del``, an augmented assignment)
    lists: dict[str, tuple[str, list[ast.expr], list[str]]]  # see `_lists`
    params: frozenset[str]

    @classmethod
    def of(cls, func: ast.FunctionDef, params) -> Bindings:
        plain: dict[str, list[ast.expr]] = {}
        unpacked: dict[str, list[tuple[ast.expr, int]]] = {}
        counted = set()
        every = nodes(func)
        for node in every:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    plain.setdefault(target.id, []).append(node.value)
                    counted.add(id(target))
                elif isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts):
                    for place, t in enumerate(target.elts):
                        unpacked.setdefault(t.id, []).append((node.value, place))
                        counted.add(id(t))
            elif isinstance(node, ast.For) and _popped(node.iter) and isinstance(node.target, ast.Tuple) \
                    and all(isinstance(t, ast.Name) for t in node.target.elts):
                for place, t in enumerate(node.target.elts):  # ``for a, b in reversed(stack):``
                    unpacked.setdefault(t.id, []).append((node.iter, place))
                    counted.add(id(t))
        other = {node.id for node in every if isinstance(node, ast.Name)
                 and isinstance(node.ctx, ast.Store) and id(node) not in counted}
        return cls(plain, unpacked, other, _lists(func, every, set(params) | other), frozenset(params))


def grow(func: ast.FunctionDef | Bindings, seed: set[str], params,
         test: Callable[[ast.expr, set[str]], bool]) -> set[str]:
    """`seed` plus every name all of whose assignments are ``name = value`` with
    ``test(value, names)`` true (or unpack an item of a list of tuples that pass it), plus the
    lists' keys (see the module's text) all of whose items pass it.  The greatest such set: an
    accumulation ``x = x + c`` keeps `x` a number (every name is assigned before it is read, so
    the induction is sound).  `func` may be its `Bindings`, read once for several facts."""
    bound = func if isinstance(func, Bindings) else Bindings.of(func, params)
    plain, unpacked, lists = bound.plain, bound.unpacked, bound.lists
    names = {name for name in set(plain) | set(unpacked) if name not in bound.other and name not in params} - seed
    names -= set(lists)
    known = set(seed) | names | {name + _key(kind) for name, (kind, _, _) in lists.items()}

    def holds(name: str) -> bool:
        if name in lists:
            kind, items, made_from = lists[name]
            return all(m + _key(kind) in known for m in made_from) and all(
                all(test(e, known) for e in item.elts) if kind == TUPLES else test(item, known) for item in items)
        return all(test(v, known) for v in plain.get(name, ())) and all(
            _unpacks(v, place, known, test) for v, place in unpacked.get(name, ()))
    shrunk = True
    while shrunk:
        shrunk = False
        for name in sorted(names | set(lists)):
            key = name + _key(lists[name][0]) if name in lists else name
            if key in known and not holds(name):
                known.discard(key)
                shrunk = True
    return known


def _key(kind: str) -> str:
    return TUPLES if kind == TUPLES else ITEM


def _unpacks(value: ast.expr, place: int, known: set[str], test) -> bool:
    """Whether item `place` of unpacking `value` has the fact."""
    if isinstance(value, ast.Tuple):
        return place < len(value.elts) and test(value.elts[place], known)
    key = item_of(value) or _popped(value)
    return key is not None and key[:-len(ITEM)] + TUPLES in known


def _popped(value: ast.expr) -> str | None:
    """The key ``xs[]`` when `value` is ``xs.pop()`` or ``reversed(xs)`` (a loop stack read back:
    each value it gives is an item)."""
    if isinstance(value, ast.Call) and not value.keywords:
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "pop" and not value.args \
                and isinstance(func.value, ast.Name):
            return func.value.id + ITEM
        if isinstance(func, ast.Name) and func.id == "reversed" and len(value.args) == 1 \
                and isinstance(value.args[0], ast.Name):
            return value.args[0].id + ITEM
    return None


def _lists(func: ast.FunctionDef, every: list[ast.AST],
           excluded: set[str]) -> dict[str, tuple[str, list[ast.expr], list[str]]]:
    """name -> (ITEM or TUPLES, the values put in it, the lists whose items it holds too), for
    every name used only as a list the module's text allows (`every`: func's nodes)."""
    parents = {}
    for node in every:
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    found: dict[str, tuple[list[ast.expr], list[str]]] = {}
    bad, made = set(excluded), set()
    aliases = []
    for node in every:
        if not isinstance(node, ast.Name) or node.id in bad:
            continue
        uses = _uses(node, parents.get(id(node)), parents)
        if uses is None:
            bad.add(node.id)
            continue
        if isinstance(node.ctx, ast.Store):
            made.add(node.id)
        items, made_from = found.setdefault(node.id, ([], []))
        for kind, value in uses:
            if kind == "item":
                items.append(value)
            elif kind in ("made", "alias"):
                made_from.append(value)
            if kind == "alias":  # one list under two names: each holds what the other is given
                aliases.append((value, node.id))
    for name, other in aliases:
        if name in found:
            found[name][1].append(other)
    out = {}
    for name, (items, made_from) in found.items():
        if name in bad or name not in made or any(m in bad or m not in made for m in made_from):
            continue
        tuples = [isinstance(i, ast.Tuple) for i in items]
        if any(tuples) and not all(tuples):
            continue
        out[name] = (TUPLES if tuples and all(tuples) else ITEM, items, made_from)
    return out


def _uses(node: ast.Name, parent, parents) -> list[tuple[str, object]] | None:
    """How the list `node` names is used here: ("item", a value put in it), ("made", a list
    whose items it is made of), ("alias", a list it is another name of); [] for a read; None
    for any use not allowed."""
    if isinstance(node.ctx, ast.Store):
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1):
            return None
        value = parent.value
        if isinstance(value, ast.List):
            return [("item", e) for e in value.elts]
        if isinstance(value, ast.Name):
            return [("alias", value.id)]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _MAKERS \
                and value.args and isinstance(value.args[0], ast.Name) and not value.keywords:
            if value.func.id == "zeros_list":
                return []
            if value.func.id == "list_add":  # item i of the list given, plus v
                return [("made", value.args[0].id), ("item", value.args[2])] if len(value.args) == 3 else None
            return [("made", value.args[0].id)] if len(value.args) == 1 else None
        return None
    if isinstance(node.ctx, ast.Del):
        return []
    if isinstance(parent, ast.Subscript) and parent.value is node:
        if isinstance(parent.ctx, ast.Del):
            return []
        if isinstance(parent.slice, ast.Slice):
            return None
        if isinstance(parent.ctx, ast.Load):
            return []
        holder = parents.get(id(parent))
        if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and holder.targets[0] is parent:
            return [("item", holder.value)]
        return None
    if isinstance(parent, ast.Attribute) and parent.attr == "pop":  # a loop stack's last item, read
        call = parents.get(id(parent))
        ok = isinstance(call, ast.Call) and call.func is parent and not call.args and not call.keywords
        return [] if ok else None
    if isinstance(parent, ast.Attribute) and parent.attr == "append":
        call = parents.get(id(parent))
        if isinstance(call, ast.Call) and call.func is parent and len(call.args) == 1 and not call.keywords \
                and isinstance(parents.get(id(call)), ast.Expr):
            return [("item", call.args[0])]
        return None
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) \
            and parent.func.id in ("len", "reversed", *_MAKERS) and parent.args and parent.args[0] is node:
        return []
    if isinstance(parent, ast.Assign) and parent.value is node:  # ``other = xs``: the alias, above
        return []
    return None


__all__ = ["ITEM", "TUPLES", "grow", "item_of"]
