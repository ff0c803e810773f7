"""What the same-shape classes (shape_classes.py) read off a generated function's text: how
often each name is bound, restored from a loop stack or written into by index, the values of
its plain assignments, the statements nested in loops and branches, the names whose every
binding is a start or an added term, and the names that may hold a Python list or tuple.
Read once for every attempt of `shape_classes`."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

from . import liveness
from .liveness import bodies, is_compound, nodes, reads


@dataclass(frozen=True)
class Syntax:
    """The facts the module docstring lists, of one function."""

    stores: Counter  # how often each name is bound
    restored: Counter  # ... of those, restored from a loop stack (liveness.restored)
    written: Counter  # how often each array is written into by index (``x[i] += v``: not a new value)
    values: dict  # name -> the values of its plain ``name = ...`` assignments
    inner: list  # the statements of the bodies nested in the function's (loops, branches)
    bodies: list  # those bodies
    merges: dict  # name -> (values not reading it, terms added to it) where that is every binding
    returns: int  # the index of the first top-level statement with a ``return`` inside (or past the end)
    sequences: frozenset  # names some binding of which may be a list or tuple (`sequence_names`)

    @classmethod
    def of(cls, func: ast.FunctionDef) -> Syntax:
        stores, written, values, updates = Counter(), Counter(), {}, {}
        for n in nodes(func):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] += 1
            elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and isinstance(n.value.ctx, ast.Store):
                written[n.value.id] += 1  # (codegen spells the base of a write as stored)
            elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                values.setdefault(n.targets[0].id, []).append(n.value)
                updates.setdefault(n.targets[0].id, []).append(n)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                updates.setdefault(n.target.id, []).append(n)
        merges = {}
        for name, found in updates.items():
            starts = [u for u in found if isinstance(u, ast.Assign) and not reads(u.value)[name]]
            if stores[name] == len(found) and starts:
                merges[name] = ([u.value for u in starts], [liveness.added_term(u, name) for u in found
                                                            if u not in starts])
        nested = list(bodies(func.body))[1:]
        returns = next((i for i, stmt in enumerate(func.body) if is_compound(stmt)
                        and any(isinstance(n, ast.Return) for n in nodes(stmt))), len(func.body))
        return cls(stores, liveness.restored(func), written, values, [s for b in nested for s in b], nested, merges,
                   returns, sequence_names(values))


_SEQUENCE_CALLS = {"list", "tuple", "set_item", "zero_item", "index_add", "copy_array", "sorted"}


def sequence_names(values: dict) -> frozenset:
    """Names a value of which may be a Python list or tuple: a display, ``list(...)``, or
    arithmetic, a copy or a write of one.  On them ``*`` repeats and ``+`` joins: no elementwise
    shape (``vals = [0.0] * 3`` is not of ``[0.0]``'s shape)."""
    found: set[str] = set()

    def is_sequence(e: ast.expr) -> bool:
        if isinstance(e, (ast.List, ast.Tuple, ast.ListComp)):
            return True
        if isinstance(e, ast.Name):
            return e.id in found
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Mult)):
            return is_sequence(e.left) or is_sequence(e.right)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in _SEQUENCE_CALLS:
            return e.func.id in ("list", "tuple", "sorted") or bool(e.args) and is_sequence(e.args[0])
        return False

    while True:
        more = {name for name, vs in values.items() if name not in found and any(map(is_sequence, vs))}
        if not more:
            return frozenset(found)
        found |= more
