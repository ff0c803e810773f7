"""The views of a list of functions that function_lists.py unrolls besides the list itself: a
constant slice (``fs[1:]``), and a zip with other sequences (``zip(fs, a)``), whose copy k of the
loop (or item k of the comprehension) runs for the others' item k only if they have one, as zip
stops at the shorter (``for ai in a[k:k + 1]``).
"""

from __future__ import annotations

import ast
import copy


def constant_slice(part: ast.Slice) -> slice | None:
    """``slice(1, None)`` of ``[1:]`` written with whole numbers (or none), else None."""
    bounds = []
    for bound in (part.lower, part.upper, part.step):
        if bound is None:
            bounds.append(None)
            continue
        try:
            value = ast.literal_eval(bound)
        except ValueError:
            return None
        if type(value) is not int or bound is part.step and value == 0:
            return None
        bounds.append(value)
    return slice(*bounds)


def zipped_names(call: ast.Call, node: ast.expr) -> list | None:
    """The other sequences of ``zip(fs, a)`` (names, read by position), or None."""
    others = [a for a in call.args if a is not node]
    if len(others) != len(call.args) - 1 or not all(isinstance(a, ast.Name) for a in others):
        return None
    return others


def _zipped_rows(loop, zipped: tuple, k: int) -> tuple[ast.expr, ast.expr]:
    """The target and iterable taking item k of each sequence zipped with the list: ``ai in a[k:k + 1]``
    (``(ai, bi) in zip(a[k:k + 1], b[k:k + 1])`` for more): none where the sequence is shorter."""
    position, others = zipped
    names = [t for j, t in enumerate(loop.target.elts) if j != position]
    rows = [ast.Subscript(ast.Name(o.id, ast.Load()), ast.Slice(ast.Constant(k), ast.Constant(k + 1)), ast.Load())
            for o in others]
    if len(rows) == 1:
        return copy.deepcopy(names[0]), rows[0]
    return ast.Tuple([copy.deepcopy(n) for n in names], ast.Store()), ast.Call(ast.Name("zip", ast.Load()), rows, [])


def zipped_loop(loop: ast.For, zipped: tuple, k: int, body: list) -> ast.For:
    target, rows = _zipped_rows(loop, zipped, k)
    return ast.copy_location(ast.For(target, rows, body, [], None), loop)


def zipped_comprehension(node, gen: ast.comprehension, zipped: tuple, k: int, elt: ast.expr) -> ast.expr:
    target, rows = _zipped_rows(gen, zipped, k)
    return ast.ListComp(elt, [ast.comprehension(target, rows, [], 0)])


__all__ = ["constant_slice", "zipped_comprehension", "zipped_loop", "zipped_names"]
