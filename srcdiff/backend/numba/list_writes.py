"""numba's writes the gradient makes into a list and through a list of index arrays.

* ``vals = [0.0] * 3`` then ``vals[i] = ...`` (negative ``i`` too) is lowered to the
  functional ``vals_1 = set_item(vals, i, v)``: a new list with one item replaced
  (rules/runtime.py).  runtime.py's ``set_item`` takes arrays only; this adds lists of
  numbers, written into a copy (the list the code holds before the write is read again by
  the backward sweep).
* ``np.add.at(f, idx, v)`` becomes ``index_add(f, [idx], v)``, the index's parts as a
  list (the gradient reads tuples back as lists), and its adjoint ``index_read(g, [idx])``.
  pads.py's ``index_add`` takes a tuple of one index into a vector; this takes the list, and
  a base of any number of axes (forces of shape ``(n, 3)`` scattered by an edge list): each
  index adds a row of `v`, or the number `v`, again where an index repeats, as NumPy's
  ``np.add.at`` does.
* ``list_removed`` / ``list_popped`` / ``list_inserted``: a list of indices changed in place, a new list;
* ``scatter_target(g)``: the adjoint of such a list that np.add.at writes into, an array;
* ``index_add(vals_bar, (2,), v)`` into such a list (forward mode over its gradient: a Hessian);
* the adjoint of such a list read as an array (``float_array(vals_bar, True)``); where that
  adjoint is a list of zeros before a loop and such an array in it (numba refuses: "Cannot
  unify list(float64) and array(float64, 1d, C)", or no ``add`` of a list and an array), `retried` makes
  the zeros an array of the same values from the start (indexed, added to and read alike);
* ``zero_item(dist_bar, k)`` of such a list: a float array, item k zero.

Where the types are not of these forms nothing here applies, and numba refuses the line.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

import numpy as np
from numba import types

from ...rules import list_edits, list_helpers
from . import missing
from .missing import float_array
from .naming import overload
from .pads import index_add
from .runtime import set_item, zero_item
from .tuple_parts import index_read


def _is_number(t) -> bool:
    return isinstance(t, (types.Integer, types.Float, types.Boolean))


@overload(set_item)
def _set_list_item(x, index, v):
    # (a list of ints written with an int: a counter ``count[g] += 1``, which stays ints in Python too)
    ints = isinstance(x, types.List) and isinstance(x.dtype, types.Integer) and isinstance(v, types.Integer)
    # (a list of flags written with a flag: ``seen[v] = True``, read in conditions)
    flags = isinstance(x, types.List) and isinstance(x.dtype, types.Boolean) and isinstance(v, types.Boolean)
    if not ((ints or flags or isinstance(x, types.List) and isinstance(x.dtype, types.Float) and _is_number(v))
            and isinstance(index, types.Integer)):
        return None

    def write(x, index, v):
        y = x.copy()  # (a new list: the one before the write is read again)
        y[index] = v
        return y
    return write


@overload(zero_item)
def _zero_list_item(g, index):
    """``zero_item(dist_bar, k)`` of the adjoint of a list of numbers a loop writes by index: a float array
    of its items with item k zero (the Python gradient's, rules/runtime.zero_item)."""
    if not (isinstance(g, types.List) and _is_number(g.dtype) and isinstance(index, types.Integer)):
        return None

    def zero(g, index):
        out = np.empty(len(g), np.float64)
        for k in range(len(g)):
            out[k] = g[k]
        out[index] = 0.0
        return out
    return zero


@overload(float_array)
def _float_array_of_list(x, copy):
    """``float_array(vals_bar, True)``: the adjoint of such a list read as an array of floats
    (the Python gradient's ``np.array(vals_bar, dtype=float)``)."""
    if not (isinstance(x, types.List) and _is_number(x.dtype)):
        return None

    def as_array(x, copy):
        out = np.empty(len(x), np.float64)
        for k in range(len(x)):
            out[k] = x[k]
        return out
    return as_array


def scatter_target(g):
    return list_helpers.scatter_target(g)


@overload(scatter_target)
def _scatter_target(g):
    """The adjoint np.add.at writes into: a list of numbers as an array of floats, an array as it is
    (where the list is a list of zeros before a loop, `retried` makes it an array from the start)."""
    if isinstance(g, types.List) and _is_number(g.dtype):
        return lambda g: float_array(g, True)
    if isinstance(g, types.Array):
        return lambda g: g
    return None


def items_array(xs):
    return list_helpers.items_array(xs)


@overload(items_array)
def _items_array(xs):
    """A list's adjoint as zero_item writes into it (list_helpers.items_array): numbers an array of floats."""
    if isinstance(xs, types.List) and _is_number(xs.dtype):
        return lambda xs: float_array(xs, True)
    if isinstance(xs, types.Array):
        return lambda xs: xs
    return None


def list_removed(xs, value):
    return list_edits.list_removed(xs, value)


def list_popped(xs, index=-1):
    return list_edits.list_popped(xs, index)


def list_inserted(xs, index, value):
    return list_edits.list_inserted(xs, index, value)


def _list_of_numbers(xs) -> bool:
    return isinstance(xs, types.List) and _is_number(xs.dtype)


@overload(list_removed)
def _list_removed(xs, value):
    """``rest.remove(item)`` of a list of indices: a new list (rules/list_edits.py)."""
    if not (_list_of_numbers(xs) and _is_number(value)):
        return None

    def removed(xs, value):
        out = list(xs)
        out.remove(value)
        return out
    return removed


@overload(list_popped)
def _list_popped(xs, index=-1):
    if not (_list_of_numbers(xs) and isinstance(index, (types.Integer, types.Omitted, int))):
        return None

    def popped(xs, index=-1):
        out = list(xs)
        out.pop(index)
        return out
    return popped


@overload(list_inserted)
def _list_inserted(xs, index, value):
    if not (_list_of_numbers(xs) and isinstance(index, types.Integer) and _is_number(value)):
        return None

    def inserted(xs, index, value):
        out = list(xs)
        out.insert(index, value)
        return out
    return inserted


def _one_index_array(index) -> bool:
    """A list (or a tuple of one) of 1-D integer arrays."""
    if isinstance(index, types.List):
        item = index.dtype
    elif isinstance(index, types.BaseTuple) and len(index.types) == 1:
        item = index.types[0]
    else:
        return False
    return isinstance(item, types.Array) and item.ndim == 1 and isinstance(item.dtype, types.Integer)


@overload(index_add)
def _index_add_rows(base, index, value):
    if not (isinstance(base, types.Array) and base.ndim >= 1 and isinstance(base.dtype, types.Float)
            and _one_index_array(index)
            and (_is_number(value) or isinstance(value, types.Array) and isinstance(value.dtype, types.Float)
                 and value.ndim == base.ndim)):
        return None
    if isinstance(index, types.BaseTuple) and base.ndim == 1 and isinstance(value, types.Array):
        return None  # pads.py's

    def add(base, index, value):
        if len(index) != 1:
            raise ValueError("index_add: one index array expected")
        places = index[0]
        out = base.astype(np.float64)  # (a new array: the base is not written)
        n = out.shape[0]
        rows = np.broadcast_to(value, (places.shape[0],) + out.shape[1:])
        for k in range(places.shape[0]):
            i = places[k]
            if not -n <= i < n:
                raise IndexError("index out of bounds in index_add")
            out[i] += rows[k]
        return out
    return add


@overload(index_add)
def _index_add_list_item(base, index, value):
    """``index_add(vals_bar, (2,), v)``: a list of numbers with `v` added to one item (forward mode
    over a gradient that wrote such a list's adjoint), a new list."""
    if not (isinstance(base, types.List) and isinstance(base.dtype, types.Float) and isinstance(index, types.BaseTuple)
            and len(index.types) == 1 and isinstance(index.types[0], types.Integer) and _is_number(value)):
        return None

    def add(base, index, value):
        y = base.copy()
        y[index[0]] += value
        return y
    return add


@overload(index_read)
def _index_read_rows(a, index):
    """``index_read(g, [idx])`` or ``index_read(g, (idx,))``: the rows of `g` at one index array (the
    adjoint of ``np.add.at(g, idx, v)``, of ``centers[labels]`` whose adjoint scatters into a matrix)."""
    if not (isinstance(a, types.Array) and a.ndim >= 1 and _one_index_array(index)):
        return None

    def read(a, index):
        if len(index) != 1:
            raise ValueError("index_read: one index array expected")
        return a[index[0]]
    return read


LIST_AND_ARRAY = re.compile(r"Cannot unify (list\(float64\)\S* and array\(float64, 1d, C\)|"
                            r"array\(float64, 1d, C\) and list\(float64\)\S*) for '(\w+)\.\d+'")
#: such zeros added to an array (``dist_1_bar + zero_item(dist_2_bar, k)``: a list of flags beside the list
#: of numbers, the adjoint of the numbers' list an array in one branch): numba names no variable
LIST_ADDED = re.compile(r"\badd\(list\(float64\)\S*, array\(float64, 1d, C\)\)")
ZEROS = ("zeros_like", "zeros_list")


def retried(built, refusal: str):
    """`built` (module.py's `NumbaModule`) with the list of zeros numba's `refusal` names made
    an array of zeros; None when the refusal is another, or no such zeros are found."""
    found = LIST_AND_ARRAY.search(refusal)
    tree = ast.parse(built.source)
    if found:
        names = _copies(tree, found.group(2))
    elif LIST_ADDED.search(refusal):  # (each name zeros are made under that the code adds an array to)
        added = {n.left.id for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)
                 and isinstance(n.left, ast.Name)}
        names = set().union(*(_copies(tree, name) for name in added)) if added else set()
    else:
        return None
    lines = built.source.splitlines(keepends=True)
    spans = sorted(((node.value.lineno, node.value.col_offset, node.value.end_col_offset)
                    for node in ast.walk(tree)
                    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id in names and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Name) and node.value.func.id in ZEROS
                    and node.value.lineno == node.value.end_lineno), reverse=True)
    for lineno, start, end in spans:
        line = lines[lineno - 1]
        lines[lineno - 1] = f"{line[:start]}float_array({line[start:end]}, True){line[end:]}"
    if not spans:
        return None
    return replace(built, source="".join(lines),
                   imports={**built.imports, "float_array": (missing.__name__, "float_array")})


def _copies(tree: ast.AST, name: str) -> set[str]:
    """`name` and the names bound to it as they are (``stores_2_bar = stores_1_bar``, an adjoint
    carried into a loop and out of it), either way: the zeros numba refuses may be made under
    another of them."""
    pairs = [(node.targets[0].id, node.value.id) for node in ast.walk(tree)
             if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
             and isinstance(node.value, ast.Name)]
    found, grown = {name}, True
    while grown:
        grown = False
        for a, b in pairs:
            if (a in found) != (b in found):
                found |= {a, b}
                grown = True
    return found


HELPERS = ("scatter_target", "items_array", "list_removed", "list_popped", "list_inserted")

__all__ = ["HELPERS", "items_array", "list_inserted", "list_popped", "list_removed", "retried", "scatter_target"]
