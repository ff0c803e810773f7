"""A module list (or tuple) of configuration dicts read at an index known only when the code runs
(``ARCH[i]["act"]``, ``LAYERS[i]["scale"]`` in ``for i in range(len(ARCH))``), given to numba as
a tuple of columns.

numba takes no Python dict, and no list of them ("non-precise type pyobject").  Where the code
reads such a global only as ``NAME[index]["key"]`` with constant keys, and as ``len(NAME)``, those
reads become ``NAME[k][index]`` and ``len(NAME[0])``, and each call gives the list's current items
(read again: a dict changed in place is seen) as one tuple per key read, in the order of the keys'
first reads: the strings, the ints, or the numbers (floats where one is) of every dict at that key.
A list whose dicts lack a key, or hold values of other types there, is given as it is: numba then
refuses the line, as before.
"""

from __future__ import annotations

import ast
from dataclasses import replace


def _reads(tree: ast.AST, name: str) -> list[str] | None:
    """The constant keys of ``name[index]["key"]`` in `tree`, where every other read of `name` is
    ``len(name)``; None if `name` is read any other way (or not at all)."""
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    keys: list[str] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len" \
                and parent.args == [node] and not parent.keywords:
            continue
        outer = parents.get(id(parent))
        if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(outer, ast.Subscript) \
                and outer.value is parent and isinstance(outer.slice, ast.Constant) \
                and isinstance(outer.slice.value, str) and isinstance(outer.ctx, ast.Load):
            if outer.slice.value not in keys:
                keys.append(outer.slice.value)
            continue
        return None
    return keys or None


def _spans(main: ast.AST, name: str, keys: list[str]) -> list | None:
    """The replacements ``(line, start, end, text)`` of the reads of `name` in `main` (one line each,
    none inside another); None where a read spans lines or holds another."""
    found = []
    for node in ast.walk(main):
        inner = node.value if isinstance(node, ast.Subscript) else None
        if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and inner.value.id == name \
                and isinstance(node.slice, ast.Constant) and node.slice.value in keys:
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(inner.slice)):
                return None
            text = f"{name}[{keys.index(node.slice.value)}][{ast.unparse(inner.slice)}]"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            text = f"len({name}[0])"
        else:
            continue
        if node.lineno != node.end_lineno:
            return None
        found.append((node.lineno, node.col_offset, node.end_col_offset, text))
    return found


def rewrite(built, params: list[str], values: list):
    """`built` (module.py's `NumbaModule`) with the reads of each of its global parameters `params`
    that is now (`values`) a list or tuple of dicts read as above made reads of columns, and
    ``{param: keys}`` of those (the text keeps its lines: their origins stay)."""
    tree = ast.parse(built.source)
    main = next((f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == built.main), None)
    if main is None:
        return built, {}
    columns, edits = {}, []
    for param, value in zip(params, values):
        if type(value) in (list, tuple) and value and all(type(v) is dict for v in value):
            keys = _reads(main, param)
            spans = _spans(main, param, keys) if keys and _reads(tree, param) == keys else None
            if spans and _given(value, keys) is not value:
                edits += spans
                columns[param] = keys
    if not columns:
        return built, {}
    lines = built.source.splitlines(keepends=True)
    for line, start, end, text in sorted(edits, reverse=True):
        lines[line - 1] = lines[line - 1][:start] + text + lines[line - 1][end:]
    return replace(built, source="".join(lines)), columns


def _given(value, keys: list[str]):
    """`value` (a list of dicts) as a tuple of columns, one per key; `value` itself where a dict
    lacks a key or a column is not all strings or all numbers."""
    if type(value) not in (list, tuple) or not all(type(v) is dict and all(k in v for k in keys) for v in value):
        return value
    out = []
    for key in keys:
        column = [d[key] for d in value]
        sorts = {type(c) for c in column}
        if sorts <= {str} or sorts <= {int}:
            out.append(tuple(column))
        elif sorts <= {int, float}:
            out.append(tuple(float(c) for c in column))
        else:
            return value
    return tuple(out)


def spellings(columns: dict, params: list[str]):
    """A function giving the global parameters' values (in `params`' order) with those `columns`
    names as their tuples of columns."""
    keys = [columns.get(p) for p in params]

    def given(values: list) -> list:
        return [v if k is None else _given(v, k) for v, k in zip(values, keys)]
    return given


__all__ = ["rewrite", "spellings"]
