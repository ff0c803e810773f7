"""Lists of numbers written in the code (``[0.0] * n``, ``[1.0, 2.0] + [3.0]``, ``[0.0] + [9.0] * 4``): data
that lowering keeps whole, as one value with no gradient, and writes by index as a new list of numbers
(lower/lists.py), never rewritten item by item (list_joins.py, list_item_writes.py), unless the name is
bound to another list too, which is built item by item: then both are."""

from __future__ import annotations

import ast


def numbers_written(expr: ast.expr) -> bool:
    """Whether `expr` is a display of numbers, repeated or joined with others."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return numbers_written(expr.left) and numbers_written(expr.right)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return numbers_written(expr.left) or numbers_written(expr.right)
    return isinstance(expr, ast.List) and bool(expr.elts) and all(isinstance(e, ast.Constant) for e in expr.elts)


def numbers_named(nodes) -> set:
    """The names some assignment among `nodes` binds to a list of numbers written in the code
    (``low, high = [0.0] * 2, [0.0] * 2`` binds two)."""
    return {name for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
            for name, value in _bound(n.targets[0], n.value) if numbers_written(value)}


def numbers_rebound(nodes) -> set:
    """The names one assignment among `nodes` binds to a list of numbers written in the code and another
    to another value (``acc = [0.0] * 3``, then ``acc = [a + v for a in acc]`` on one side of a test)."""
    numbers, other = set(), set()
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            for name, value in _bound(n.targets[0], n.value):
                (numbers if numbers_written(value) else other).add(name)
    return numbers & other


def split_numbers(stmt: ast.stmt, rebound: set) -> list | None:
    """``low, high = [0.0] * 2, [0.0] * 2`` binding a name of `rebound` to a list of numbers, as one
    assignment per name (the values read none of the names, so Python's order is kept); else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)):
        return None
    pairs = _bound(stmt.targets[0], stmt.value)
    names = {name for name, _ in pairs}
    if len(pairs) != len(stmt.targets[0].elts) or not any(n in rebound and numbers_written(v) for n, v in pairs) \
            or any(isinstance(n, ast.Name) and n.id in names for _, v in pairs for n in ast.walk(v)):
        return None
    return [ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), stmt) for name, value in pairs]


def _bound(target: ast.expr, value: ast.expr) -> list:
    """The (name, value) pairs an assignment binds."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts):
        return [pair for t, v in zip(target.elts, value.elts) for pair in _bound(t, v)]
    return []
