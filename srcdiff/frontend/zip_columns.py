"""``list(zip(*rows))`` / ``tuple(zip(*rows))`` of rows the function writes as a display of equal-length
tuples, rewritten (python_forms.py, right after parsing) as the display of its columns::

    rows = [(a, b), (c, d), (e, f)]          rows = [(a, b), (c, d), (e, f)]
    cols = list(zip(*rows))                  cols = [(rows[0][0], rows[1][0], rows[2][0]),
                                                     (rows[0][1], rows[1][1], rows[2][1])]

The items are read where Python's ``zip`` reads them, so a row written in between (``rows[1] = ...``)
is seen as Python sees it.  Rewritten when `rows` is bound once, to that display, and is otherwise
only indexed (``rows[i]``): its length and width are then the display's (a row replaced by a shorter
one raises ``IndexError``, where Python's ``zip`` would cut the columns short).  Rows of another
kind (an argument, an array, a list built in a loop) are left as written and refused at the line.
"""

from __future__ import annotations

import ast
import builtins

from .naming import FreeNames, own_nodes

_DISPLAYS = (ast.List, ast.Tuple)


def rewrite_zip_columns(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, each ``list(zip(*rows))`` / ``tuple(zip(*rows))`` the module's doc covers."""
    shapes = {}
    for node in list(own_nodes(tree)):
        call = node if isinstance(node, ast.Call) else None
        rows = _zipped_rows(call, names) if call is not None else None
        if rows is None:
            continue
        if rows not in shapes:
            shapes[rows] = _shape(tree, rows)
        if shapes[rows] is not None:
            length, width = shapes[rows]
            columns = [ast.Tuple([_item(rows, i, j) for i in range(length)], ast.Load()) for j in range(width)]
            made = (ast.List if names.resolve(call.func) is builtins.list else ast.Tuple)(columns, ast.Load())
            _replace(tree, call, made)


def _zipped_rows(call: ast.Call, names: FreeNames) -> str | None:
    """`rows` of ``list(zip(*rows))`` / ``tuple(zip(*rows))``, else None."""
    if not (names.resolve(call.func) in (builtins.list, builtins.tuple) and len(call.args) == 1 and not call.keywords):
        return None
    inner = call.args[0]
    if isinstance(inner, ast.Call) and names.resolve(inner.func) is builtins.zip and len(inner.args) == 1 \
            and not inner.keywords and isinstance(inner.args[0], ast.Starred) \
            and isinstance(inner.args[0].value, ast.Name):
        return inner.args[0].value.id
    return None


def _shape(tree: ast.FunctionDef, rows: str):
    """``(length, width)`` of `rows` bound once to a display of equal-length tuple displays and
    otherwise only indexed or spread into ``zip``; else None."""
    bound, shape, parents = 0, None, {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == rows):
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, ast.Store):
            bound += 1
            value = parent.value if isinstance(parent, ast.Assign) and parent.targets == [node] else None
            if not (isinstance(value, _DISPLAYS) and value.elts
                    and all(isinstance(e, _DISPLAYS) and e.elts for e in value.elts)
                    and not any(isinstance(n, ast.Starred) for e in value.elts for n in [e, *e.elts])
                    and len({len(e.elts) for e in value.elts}) == 1):
                return None
            shape = (len(value.elts), len(value.elts[0].elts))
        elif not (isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load)
                  and not isinstance(parent.slice, ast.Slice) or isinstance(parent, ast.Starred)):
            return None
    return shape if bound == 1 else None


def _item(rows: str, i: int, j: int) -> ast.expr:
    row = ast.Subscript(ast.Name(rows, ast.Load()), ast.Constant(i), ast.Load())
    return ast.Subscript(row, ast.Constant(j), ast.Load())


def _replace(tree: ast.FunctionDef, old: ast.Call, new: ast.expr) -> None:
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            if value is old:
                setattr(node, field, ast.copy_location(new, old))
            elif isinstance(value, list) and any(v is old for v in value):
                setattr(node, field, [ast.copy_location(new, old) if v is old else v for v in value])
    ast.fix_missing_locations(tree)


__all__ = ["rewrite_zip_columns"]
