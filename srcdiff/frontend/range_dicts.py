"""A dict comprehension keyed by the counter of ``range`` of a length known only when the function
runs, read only as a list would be, as that list (desugar.py)::

    powers = {i: x[i] ** (i + 1) for i in range(n)}      # n an argument, len(x) // 2, ...
    total = sum(powers[i] for i in range(n)) + powers[0]
becomes
    powers = [x[i] ** (i + 1) for i in range(n)]

Its keys are 0, 1, ..., n - 1 in order, so a list holds the same values at the same indices.  The
rewrite applies only when every use of the name means the same for that list: an item read by an
index that is not a negative constant (``powers[i]``; a dict would raise KeyError where a list reads
from its end), ``len(powers)``, ``powers.values()`` (the list), ``powers.keys()`` and a loop over
the name (``range(len(powers))``), ``powers.items()`` (``enumerate(powers)``), and the name is
assigned nowhere else.  Any other use (a write ``powers[k] = v``, ``k in powers``, a nested def
reading it) leaves the comprehension as written: the tree rewrite reads one over constants
(flatten_items.py), and lowering refuses one over values known only when the function runs at
its line.
"""

from __future__ import annotations

import ast
import builtins

from .desugar_reduce import replace_node

_VIEWS = {"values", "keys", "items"}


def has_range_dicts(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether the function assigns a dict comprehension over ``range``."""
    return any(isinstance(n, ast.Assign) and _counted(n.value) is not None for n in ast.walk(tree))


def rewrite_range_dicts(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, each such comprehension and the reads of its name (`names`: FreeNames)."""
    if any(names.resolve(ast.Name(b, ast.Load())) is not getattr(builtins, b) for b in ("range", "len", "enumerate")):
        return  # (a name of Python's rebound: left as written)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        comp = _counted(node.value)
        name = node.targets[0].id
        if comp is None or not _read_as_a_list(tree, name, node):
            continue
        _as_list(tree, name)
        node.value = ast.copy_location(ast.ListComp(comp.value, comp.generators), comp)


def _counted(value) -> ast.DictComp | None:
    """`value` when it is ``{i: e for i in range(stop)}`` (or ``range(0, stop)``), no condition."""
    if not isinstance(value, ast.DictComp) or len(value.generators) != 1:
        return None
    gen = value.generators[0]
    if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name) or not isinstance(value.key, ast.Name) \
            or value.key.id != gen.target.id:
        return None
    it = gen.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords):
        return None
    if len(it.args) == 1 or len(it.args) == 2 and isinstance(it.args[0], ast.Constant) and it.args[0].value == 0:
        return value
    return None


def _read_as_a_list(tree: ast.FunctionDef, name: str, assigned: ast.Assign) -> bool:
    """Whether every use of `name` in `tree` but `assigned` reads it as the list would be read."""
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and node is not tree \
                and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)):
            return False  # (read in another scope)
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        if not isinstance(node.ctx, ast.Load):
            if node is not assigned.targets[0]:
                return False
            continue
        if _use(node, parents.get(node), parents) is None:
            return False
    return True


def _use(node: ast.Name, parent, parents) -> str | None:
    """How `node` (a read of the name) is used: "item", "len", a view, "iterated"; None otherwise."""
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
        index = parent.slice
        negative = isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) \
            or isinstance(index, ast.Constant) and not (isinstance(index.value, int) and index.value >= 0)
        return None if negative or isinstance(index, ast.Slice) else "item"
    if isinstance(parent, ast.Call) and parent.args == [node] and not parent.keywords \
            and isinstance(parent.func, ast.Name) and parent.func.id == "len":
        return "len"
    if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in _VIEWS:
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent and not call.args and not call.keywords:
            return parent.attr
        return None
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
        return "iterated"
    return None


def _as_list(tree: ast.FunctionDef, name: str) -> None:
    """The reads of `name` rewritten for the list: views and loops over its keys."""
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(node)
        use = _use(node, parent, parents)
        if use == "iterated":
            parent.iter = _keys(node)
        elif use in _VIEWS:
            call = parents[parent]
            new = node if use == "values" else _keys(node) if use == "keys" else \
                ast.Call(ast.Name("enumerate", ast.Load()), [node], [])
            replace_node(parents[call], call, ast.copy_location(new, call))


def _keys(node: ast.Name) -> ast.expr:
    length = ast.Call(ast.Name("len", ast.Load()), [ast.Name(node.id, ast.Load())], [])
    return ast.fix_missing_locations(ast.copy_location(ast.Call(ast.Name("range", ast.Load()), [length], []), node))


__all__ = ["has_range_dicts", "rewrite_range_dicts"]
