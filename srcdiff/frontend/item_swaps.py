"""Items of a list swapped in one statement, ``y[j], y[j + 1] = y[j + 1], y[j]`` (a bubble sort, a
permutation by hand), written as the statements Python runs::

    y[j], y[j + 1] = y[j + 1], y[j]     ==>     swapped = y[j + 1]
                                                swapped_1 = y[j]
                                                y[j] = swapped
                                                y[j + 1] = swapped_1

Python computes every right-hand side first, then assigns the targets left to right (each index
read when its item is written): the statements above, whose item writes list_item_writes.py and
lowering already differentiate.  Only where `y` is known to be a list (every binding of the name in
the function makes one: ``list(...)``, ``sorted(...)``, a display, a comprehension, list_joins.py's
`list_names`): an item of a list
is a reference, so the values read first stay what they were.  A row of a NumPy array read on the
right is a view NumPy reads after the first write changed it; such a swap is left as written, and
lowering refuses it at its line.
"""

from __future__ import annotations

import ast

from .list_joins import list_names
from .naming import rewrite_blocks


def has_item_swaps(tree: ast.FunctionDef) -> bool:
    """A cheap test: a tuple assignment to items; or a slice of a name ``sorted(...)`` binds, which
    list_joins.py reads as the list of its items (as it does a slice of ``list(...)``)."""
    ordered = {n.targets[0].id for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call)
               and getattr(n.value.func, "id", None) == "sorted"}
    return any(isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Tuple)
               and any(isinstance(t, ast.Subscript) for t in n.targets[0].elts)
               or isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)
               and getattr(n.value, "id", None) in ordered for n in ast.walk(tree))


def rewrite_item_swaps(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, the swaps above in `tree`'s own statements."""
    lists = list_names(tree, names)
    if lists:
        rewrite_blocks(tree.body, lambda stmt: _swapped(stmt, lists, names))


def _swapped(stmt: ast.stmt, lists: set, names) -> list:
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
            and isinstance(stmt.value, ast.Tuple) and len(stmt.value.elts) == len(stmt.targets[0].elts)):
        return []
    targets = stmt.targets[0].elts
    if any(isinstance(e, ast.Starred) for e in targets + stmt.value.elts) \
            or not any(isinstance(t, ast.Subscript) for t in targets) \
            or not all(isinstance(t, ast.Name) or isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                       and t.value.id in lists and not isinstance(t.slice, ast.Slice) for t in targets):
        return []
    held = [names.namer.fresh("swapped") for _ in targets]
    before = [ast.Assign([ast.Name(h, ast.Store())], v) for h, v in zip(held, stmt.value.elts)]
    before += [ast.Assign([t], ast.Name(h, ast.Load())) for t, h in zip(targets[:-1], held[:-1])]
    for s in before:
        for n in ast.walk(s):
            ast.copy_location(n, stmt)
    stmt.targets, stmt.value = [targets[-1]], ast.copy_location(ast.Name(held[-1], ast.Load()), stmt)
    return before


__all__ = ["has_item_swaps", "rewrite_item_swaps"]
