"""Index lists under numba: a list of integer constants used only as an index becomes an
integer array (`index_lists`, asked by spelling.py: numba indexes by arrays, not lists), and
numba's ``set_item`` (rules/runtime.py's functional write) takes one integer index array: a
swap or permutation of rows written with index lists (``B[[0, 1]] = B[[1, 0]]``,
``B[:, [2, 0]] = ...``).

runtime.py's ``set_item`` leaves such an index to the Python gradient because of one rule:
an index that names a position twice is refused there (NumPy keeps one of the values written,
so the others would get a gradient they do not have).  This overload checks the same thing
(each index along its axis taken once, counting negative positions as NumPy does) and raises
a plain error otherwise: the compiled gradient's caller then runs the Python gradient, which
refuses at the user's line with its own words.  Indexes of several integer arrays (a
gather's ``x[rows, cols]``) stay with the Python gradient.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .list_writes import index_add
from .naming import made, overload
from .runtime import add_at, set_item

#: run-time helpers whose second argument is an index (set_item's is overloaded below)
INDEXED = ("set_item", "zero_item", "add_at", "index_add", "index_read")


def index_lists(func: ast.FunctionDef) -> None:
    """``idx = [0, 0, 1]`` read only as an index (``x[idx]``, ``np.add.at(g, idx, v)``, a row
    swap's ``B[[0, 1]] = ...``, whose written list is such a name in generated code) as an
    integer array: numba indexes by arrays, not lists.  A list put to any other use stays a
    list (``idx * 2`` would mean another thing of an array)."""
    _inline_lists(func)
    lists = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.List) and node.value.elts \
                and all(isinstance(e, ast.Constant) and type(e.value) is int for e in node.value.elts):
            lists.setdefault(node.targets[0].id, []).append(node)
    if not lists:
        return
    fine = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript):  # ``x[idx]``, ``x[:, idx]``
            fine.update(id(e) for e in (node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice])
                        if isinstance(e, ast.Name))
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and (
                isinstance(node.func, ast.Attribute) and node.func.attr == "at" and len(node.args) == 3
                or isinstance(node.func, ast.Name) and node.func.id in INDEXED):
            # ``np.add.at(g, (slice(None), idx), v)``, ``B_1 = set_item(B, idx, v)``: through the list
            index = node.args[1]
            fine.update(id(e) for e in (index.elts if isinstance(index, ast.Tuple) else [index])
                        if isinstance(e, ast.Name))
    # saved for a callee's pullback (``return (value, (t1, t2, ...))``), which reads it as the index it is
    for node in ast.walk(func):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2 \
                and isinstance(node.value.elts[1], ast.Tuple):
            fine.update(id(e) for e in node.value.elts[1].elts if isinstance(e, ast.Name))
    # ``t13 = (t1,)`` read only as an index (forward mode's ``index_add(g, t13, v)``): its items too
    packed = {node.targets[0].id: node.value.elts for node in ast.walk(func) if isinstance(node, ast.Assign)
              and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.Tuple)}
    uses = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and node.id in packed and isinstance(node.ctx, ast.Load):
            uses.setdefault(node.id, []).append(id(node) in fine)
    for name, items in packed.items():
        if uses.get(name) and all(uses[name]):
            fine.update(id(e) for e in items if isinstance(e, ast.Name))
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and node.id in lists and (len(lists[node.id]) > 1 or (
                isinstance(node.ctx, ast.Load) and id(node) not in fine)):
            lists.pop(node.id)
    for (assign,) in lists.values():
        assign.value = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "array", ast.Load()), [assign.value], [])


def _constant_ints(node) -> bool:
    return isinstance(node, ast.List) and bool(node.elts) \
        and all(isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts)


def _inline_lists(func: ast.FunctionDef) -> None:
    """A list of integer constants written in an index (``B[:, [2, 0]]``, ``set_item(B,
    (slice(None), [0, 2]), v)``, ``np.ix_([0, 2], [1, 2])``) as an integer array: NumPy reads
    it as one, numba takes only the array."""
    def arrays(items: list) -> None:
        for k, item in enumerate(items):
            if _constant_ints(item):
                items[k] = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "array", ast.Load()), [item], [])
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Tuple):
                arrays(node.slice.elts)
            else:
                index = [node.slice]
                arrays(index)
                node.slice = index[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in INDEXED \
                and len(node.args) >= 2:
            if isinstance(node.args[1], ast.Tuple):
                arrays(node.args[1].elts)
            else:
                index = [node.args[1]]
                arrays(index)
                node.args[1] = index[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "ix_":
            arrays(node.args)


def _integer_array(t) -> bool:
    return isinstance(t, types.Array) and t.ndim == 1 and isinstance(t.dtype, types.Integer)


def _plain_part(t) -> bool:
    return isinstance(t, (types.SliceType, types.Integer))


@overload(set_item)
def _set_item_index_array(x, index, v):
    """``y = x.copy(); y[index] = v`` for an index of one 1-D integer array (alone or among
    slices and integers), after checking that it names no position twice."""
    if not isinstance(x, types.Array) or isinstance(x.dtype, (types.Integer, types.Boolean)):
        return None
    parts = index.types if isinstance(index, types.BaseTuple) else (index,)
    arrays = [k for k, p in enumerate(parts) if _integer_array(p)]
    if len(arrays) != 1 or not all(_plain_part(p) for k, p in enumerate(parts) if k != arrays[0]):
        return None
    (k,) = arrays
    # the axis the array indexes: the slices and integers before it each take one of x's axes
    picked = f"index[{k}]" if isinstance(index, types.BaseTuple) else "index"
    return made("def impl(x, index, v):\n"
                f"    picked = {picked}\n"
                f"    n = x.shape[{k}]\n"
                "    seen = np.zeros(n, np.bool_)\n"
                "    for i in range(picked.shape[0]):\n"
                "        p = picked[i] + n if picked[i] < 0 else picked[i]\n"
                "        if p < 0 or p >= n:\n"
                "            raise IndexError('index out of bounds')\n"
                "        if seen[p]:\n"
                "            raise ValueError('writing through an integer index array that repeats a position')\n"
                "        seen[p] = True\n"
                "    y = x.copy()\n"
                "    y[index] = v\n"
                "    return y\n")


@overload(add_at)
def _add_at_index_array(a, index, v):
    """``np.add.at(a, (slice(None), idx), v)`` (the adjoint of reading ``B[:, [2, 0]]``): for each
    position of the one 1-D integer array, v's slice at that position added there; repeats
    add again, as NumPy's."""
    if not isinstance(a, types.Array) or not isinstance(index, types.BaseTuple) \
            or not isinstance(v, (types.Number, types.Array)):
        return None
    parts = index.types
    arrays = [k for k, p in enumerate(parts) if _integer_array(p)]
    if len(arrays) != 1 or not all(_plain_part(p) for k, p in enumerate(parts) if k != arrays[0]) \
            or len(parts) > a.ndim:
        return None
    (k,) = arrays
    into = ", ".join("p" if d == k else f"index[{d}]" for d in range(len(parts)))
    taken = ", ".join("j" if d == k else ":" for d, p in enumerate(parts) if not isinstance(p, types.Integer))
    lines = ["def impl(a, index, v):", f"    picked = index[{k}]", f"    n = a.shape[{k}]"]
    if isinstance(v, types.Array):
        lines.append("    w = np.broadcast_to(v, a[index].shape)")
    lines += ["    for j in range(picked.shape[0]):",
              "        p = picked[j] + n if picked[j] < 0 else picked[j]",
              "        if p < 0 or p >= n:",
              "            raise IndexError('index out of bounds in np.add.at')",
              f"        a[{into}] += {f'w[{taken}]' if isinstance(v, types.Array) else 'v'}"]
    return made("\n".join(lines) + "\n")


@overload(index_add)
def _index_add_index_array(base, index, value):
    """``index_add(g, (slice(None), idx), v)`` (forward mode over the adjoint of reading
    ``B[:, [2, 0]]``): a float copy of g, v added through the index as ``np.add.at`` above."""
    if not (isinstance(base, types.Array) and isinstance(index, types.BaseTuple) and len(index.types) >= 2):
        return None
    parts = index.types
    arrays = [k for k, p in enumerate(parts) if _integer_array(p)]
    if len(arrays) != 1 or not all(_plain_part(p) for k, p in enumerate(parts) if k != arrays[0]):
        return None

    def add(base, index, value):
        out = base.astype(np.float64)
        add_at(out, index, value)
        return out
    return add


HELPERS = ()

__all__ = ["HELPERS", "index_lists"]
