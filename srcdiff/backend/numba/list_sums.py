"""Python's ``sum(items[, start])`` for numba, whose builtin ``sum`` adds numbers and the
rows of an array but not the arrays of a list: spelled ``sum_items(items, start)``
(spelling.py calls `spell`).

A list of arrays is added item by item from ``start`` as Python adds it, NumPy broadcasting
each step (``0 + a`` is a new array: the list's arrays are never written).  Anything else is
numba's own ``sum``.  A list of items of different kinds (``[np.sum(v), v]``, which numba types
item by item, a literal list or a tuple) is added in the same order, item by item, each step
broadcast; its adjoint ``list_repeat(g, items)`` gives each item `g` summed back to its shape.  An
empty list of arrays has no array to give (Python gives ``start``,
a number, where numba needs one type): the compiled helper raises, and the Python gradient
then answers.
"""

from __future__ import annotations

import ast

from numba import types

from .list_adjoints import of_kinds
from .naming import made, overload


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``sum(items)`` / ``sum(items, start)`` of the builtin (a name, not a method)."""
    if isinstance(node.func, ast.Name) and node.func.id == "sum" and 1 <= len(node.args) <= 2 and not node.keywords:
        return "sum_items", [node.args[0], node.args[1] if len(node.args) == 2 else ast.Constant(0)]
    return None


#: calls a list display may be passed to whole and still be a tuple (they take either: list_adjoints.py)
_TAKE_TUPLES = {"sum_items", "list_repeat", "len"}


def as_tuples(func: ast.FunctionDef) -> None:
    """Each list display ``terms = [np.sum(v), v]`` of `func` assigned once and only summed, read at
    constant positions or saved whole (in a tuple: a pullback's saved values) becomes a tuple, in place:
    numba types a literal list of items of two kinds, but not saved in a tuple for a pullback (its
    compiler failed inside, "unhashable type: 'list'"); a tuple it types item by item."""
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    stores: dict[str, int] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.List) and node.value.elts and stores.get(node.targets[0].id) == 1 \
                and _read_whole(func, node.targets[0].id, parents):
            node.value = ast.copy_location(ast.Tuple(node.value.elts, ast.Load()), node.value)


def _read_whole(func: ast.FunctionDef, name: str, parents: dict) -> bool:
    """Whether every read of `name` takes the list whole (a call of `_TAKE_TUPLES`, an item of a tuple)
    or an item at a constant position."""
    for node in ast.walk(func):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        taken = isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) \
            and parent.func.id in _TAKE_TUPLES and any(a is node for a in parent.args)
        item = isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Constant) \
            and type(parent.slice.value) is int
        if not (taken or item or isinstance(parent, ast.Tuple)):
            return False
    return True


def sum_items(items, start):
    return sum(items, start)


@overload(sum_items)
def _sum_items(items, start):
    if isinstance(items, (types.List, types.UniTuple)) and isinstance(items.dtype, types.Array):
        def impl(items, start):
            if len(items) == 0:
                raise ValueError("sum of an empty list of arrays")
            total = start + items[0]
            for k in range(1, len(items)):
                total = total + items[k]
            return total
        return impl
    if of_kinds(items):
        added = "".join(f" + items[{k}]" for k in range(len(items.types)))
        return made(f"def impl(items, start):\n    return start{added}\n")
    return lambda items, start: sum(items, start)



HELPERS = ("sum_items",)

__all__ = ["HELPERS", "as_tuples", "spell", "sum_items"]
