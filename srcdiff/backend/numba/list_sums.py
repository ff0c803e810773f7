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

__all__ = ["HELPERS", "spell", "sum_items"]
