"""A module or closure list of ints repeated or joined as a list (``x[PICK * 2]``, ``2 * PICK``, ``PICK +
ROWS``), for numba.

list_reads.py gives such a list to numba as an int64 array where the code indexes with it, else as a
tuple; a list the code also computes with is passed as it is (a reflected list numba cannot index
with), since an array would multiply where the list repeats.  Python's ``*`` and ``+`` of a list are
repetition and concatenation, decided by the list's type when the gradient is built (a list changed
into anything else builds the gradient again: frontend/depends.py).  So where a parameter of the
module holds a non-empty list of ints, ``P * 2`` / ``2 * P`` becomes ``repeated_items(P, 2)`` and ``P + Q``
(Q such a list too) ``joined_items(P, Q)``: the same items in the same order, as the int64 array
list_reads.py gives for an index, whether P comes as that array or as a tuple.
"""

from __future__ import annotations

import ast
from dataclasses import replace

import numpy as np
from numba import types

from .naming import overload


def repeated_items(items, count):
    """``items * count`` of a list: its items `count` times over."""
    return list(items) * count


def joined_items(first, second):
    """``first + second`` of two lists: the items of both, in order."""
    return list(first) + list(second)


def _int_items(t) -> bool:
    return isinstance(t, (types.Array, types.UniTuple)) and isinstance(t.dtype, types.Integer) and \
        getattr(t, "ndim", 1) == 1


@overload(repeated_items)
def _repeated_items(items, count):
    if not (_int_items(items) and isinstance(count, types.Integer)):
        return None

    def repeated(items, count):
        one = np.asarray(items).astype(np.int64)
        out = np.empty(one.shape[0] * max(count, 0), np.int64)
        for k in range(max(count, 0)):
            out[k * one.shape[0]:(k + 1) * one.shape[0]] = one
        return out
    return repeated


@overload(joined_items)
def _joined_items(first, second):
    if not (_int_items(first) and _int_items(second)):
        return None
    return lambda first, second: np.concatenate((np.asarray(first).astype(np.int64),
                                                 np.asarray(second).astype(np.int64)))


def _ints(value) -> bool:
    return type(value) is list and bool(value) and all(type(v) is int for v in value)


def rewrite(built, rewritten):
    """`built` (module.py's `NumbaModule`) with the repetitions and joins of its lists of ints spelled as
    above; `rewritten(built, module)` (joins.py's) makes the new module.  `built` itself where there is none."""
    lists = {e.param for e in built.env if _ints(e.current())}
    if not lists:
        return built
    module = ast.parse(built.source)
    counters = _range_counters(module)

    def is_list(node) -> bool:
        return isinstance(node, ast.Name) and node.id in lists

    def count(node) -> bool:
        return isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0 or \
            isinstance(node, ast.Name) and node.id in counters

    class Spell(ast.NodeTransformer):
        found = False

        def visit_BinOp(self, node):
            self.generic_visit(node)
            call = None
            if isinstance(node.op, ast.Mult) and is_list(node.left) and count(node.right):
                call = ("repeated_items", [node.left, node.right])
            elif isinstance(node.op, ast.Mult) and count(node.left) and is_list(node.right):
                call = ("repeated_items", [node.right, node.left])
            elif isinstance(node.op, ast.Add) and is_list(node.left) and is_list(node.right):
                call = ("joined_items", [node.left, node.right])
            if call is None:
                return node
            Spell.found = True
            return ast.copy_location(ast.Call(ast.Name(call[0], ast.Load()), call[1], []), node)

    Spell().visit(module)
    if not Spell.found:
        return built
    made = rewritten(built, module)
    return replace(made, imports={**made.imports, **{h: (__name__, h) for h in HELPERS}})


def _range_counters(module: ast.Module) -> set[str]:
    """The names bound only as the counter of a ``for`` over ``range(...)`` (ints: ``PICK * k`` repeats)."""
    targets = {id(n.target): n.target.id for n in ast.walk(module) if isinstance(n, ast.For)
               and isinstance(n.target, ast.Name) and isinstance(n.iter, ast.Call)
               and isinstance(n.iter.func, ast.Name) and n.iter.func.id == "range"}
    elsewhere = {n.id for n in ast.walk(module) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
                 and id(n) not in targets} | {a.arg for a in ast.walk(module) if isinstance(a, ast.arg)}
    return set(targets.values()) - elsewhere


HELPERS = ("repeated_items", "joined_items")
