"""A module or closure list of numbers the gradient reads (``PICK = [0, 2, 2]``, ``SHAPE = [2, 3]``,
``MIX = [[1.0, 0.5], [0.0, 2.0]]``), passed to numba as a value it takes; and a list argument of ints
the code indexes with (``x[idx]``), given as an int64 array the same way (`parameters`).

numba takes a Python list as a "reflected list": ``x[PICK]``, ``x.reshape(SHAPE)`` and
``np.transpose(m, AXES)`` have no implementation for one, and a list of lists is not taken at all
("cannot reflect element of reflected container").  Each call the list is read again (a list
changed in place is seen, as every global: module.py's `Env`) and given as

* an int64 array where the code indexes with it (``x[PICK]``, ``x[PICK, 0]``): the same gather
  NumPy makes of the list, and the adjoint's ``add_at`` adds through it as through the list;
* else a tuple (of tuples, for rows): what ``reshape``, ``transpose``, ``np.array``, ``len``, a
  loop over it and ``MIX[i][j]`` read the same way as the list.  A list holding floats and ints
  gives floats throughout (numba's tuples of one type: ``np.array`` of them is the list's array).

A list of anything else (arrays, strings, ragged rows), or one the code computes with as a list
(``PICK * 2``, ``PICK == L``, a method), is passed as it is, as before (numba refuses it at the user's
line).  A tuple is never an index here, where numba would read it as one index per axis.
"""

from __future__ import annotations

import ast

import numpy as np


def _numbers(value) -> str | None:
    """"i" for a (nested, rectangular) list of ints, "f" for one of numbers with a float, else None."""
    if type(value) is not list or not value:
        return None
    if all(type(v) is list for v in value):
        sorts = {_numbers(v) for v in value}
        lengths = {len(v) for v in value}
        return None if None in sorts or len(lengths) != 1 else "f" if "f" in sorts else "i"
    if all(type(v) is int for v in value):
        return "i"
    return "f" if all(type(v) in (int, float) for v in value) else None


def _as_tuple(value, sort: str):
    if type(value) is list:
        return tuple(_as_tuple(v, sort) for v in value)
    return float(value) if sort == "f" else value


def _uses(source: str) -> tuple[set[str], set[str]]:
    """(the names a subscript of `source` indexes with: ``x[PICK]``, ``x[PICK, 0]``; the names it
    computes with as lists, compares or calls a method of: ``PICK * 2``, ``PICK == L``, ``PICK.count``)."""
    tree = ast.parse(source)
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    indexes, operands = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            indexes |= {p.id for p in parts if isinstance(p, ast.Name)}
        parent = parents.get(id(node))
        if isinstance(node, ast.Name) and isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.AugAssign,
                                                              ast.Attribute, ast.BoolOp)):
            operands.add(node.id)
    return indexes, operands


def spellings(source: str, params: list[str], indexes_only: bool = False):
    """A function giving the values of the module's `Env` parameters `params` (in order), from
    their current values, as numba takes them (above).  A list the code both indexes with and
    computes with as a list (an array would add where the list repeats) is left as it is, and so
    is every list but an index where `indexes_only` (arguments: numba takes their other lists)."""
    indexes, operands = _uses(source)
    index_at = [p in indexes for p in params]
    kept = [p in operands for p in params]

    def given(values: list) -> list:
        out = []
        for value, index, keep in zip(values, index_at, kept):
            sort = _numbers(value) if type(value) is list and not keep else None
            if sort is None or indexes_only and not (index and sort == "i"):
                out.append(value)
            elif index and sort == "i":
                out.append(np.array(value, dtype=np.int64))
            else:
                out.append(_as_tuple(value, sort))
        return out
    return given


def parameters(source: str, main: str) -> list[str]:
    """The parameters of the function `main` of the module `source` (the module's globals read as
    arguments first, then the gradient's own): list arguments of ints the code indexes with are
    given as arrays too (``x[idx]`` of ``idx=[0, 2]``)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == main:
            return [a.arg for a in node.args.args]
    return []


__all__ = ["parameters", "spellings"]
