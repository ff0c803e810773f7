"""Items of a list swapped in one statement, ``y[j], y[j + 1] = y[j + 1], y[j]`` (a bubble sort, a
permutation by hand), written as the statements Python runs::

    y[j], y[j + 1] = y[j + 1], y[j]     ==>     swapped = y[j + 1]
                                                swapped_1 = y[j]
                                                y[j] = swapped
                                                y[j + 1] = swapped_1

Python computes every right-hand side first, then assigns the targets left to right (each index
read when its item is written): the statements above, whose item writes list_item_writes.py and
lowering already differentiate.  Only where `y` is known to be a list (every binding of the name in
the function is ``list(...)``, ``sorted(...)``, a list display or comprehension): an item of a list
is a reference, so the values read first stay what they were.  A row of a NumPy array read on the
right is a view NumPy reads after the first write changed it; such a swap is left as written, and
lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import builtins

from .naming import rewrite_blocks


def has_item_swaps(tree: ast.FunctionDef) -> bool:
    """A cheap test: a tuple assignment to items."""
    return any(isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Tuple)
               and any(isinstance(t, ast.Subscript) for t in n.targets[0].elts) for n in ast.walk(tree))


def rewrite_item_swaps(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, the swaps above in `tree`'s own statements."""
    lists = _lists(tree, names)
    if lists:
        rewrite_blocks(tree.body, lambda stmt: _swapped(stmt, lists, names))


def _lists(tree: ast.FunctionDef, names) -> set:
    """The names every binding of which in `tree` makes a new list (not parameters)."""
    made, other, direct = set(), set(), set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            direct.add(id(n.targets[0]))
            (made if _new_list(n.value, names) else other).add(n.targets[0].id)
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and id(n) not in direct:
            other.add(n.id)  # (a loop's target, a tuple's item, `with ... as`, +=: may be anything)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            other.update(n.names)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not tree:
            other.add(n.name)
        elif isinstance(n, ast.arg):
            other.add(n.arg)  # (a parameter, the function's or a nested one's)
    return made - other


def _new_list(value: ast.expr, names) -> bool:
    if isinstance(value, (ast.List, ast.ListComp)):
        return True
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id in ("list", "sorted") and names.resolve(value.func) is getattr(builtins, value.func.id)


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
