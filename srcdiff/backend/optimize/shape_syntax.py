"""What the same-shape classes (shape_classes.py) read off a generated function's text: how
often each name is bound, restored from a loop stack or written into by index, the values of
its plain assignments, the statements nested in loops and branches, and the names whose every
binding is a start or an added term.  Read once for every attempt of `shape_classes`."""

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
                   returns)
