"""A loop's closing copies written as the assignments they copy.

Code srcdiff reads back keeps each loop-carried value in two names, the one the body reads
and the one it computes, copied at the end of every iteration (``omega_bar = omega_bar_1``);
forward mode over it copies each tangent too.  Where the computed name is assigned once, in
the loop's body, and used nowhere else, and the carried name is not read after that
assignment, the assignment can write the carried name itself::

    for _ in range(n):                      for _ in range(n):
        x_1 = x * 0.5 + y                       x = x * 0.5 + y
        z = z + x_1                 -->         z = z + x
        x = x_1

The same values in the same order: one statement fewer per iteration and per copy.
"""

from __future__ import annotations

import ast
from collections import Counter

from .liveness import is_comment, nodes


def coalesce_loop_copies(func: ast.FunctionDef) -> bool:
    """Rewrite the loops of `func` as described above; True if any changed."""
    everything = nodes(func)
    occurrences = Counter(n.id for n in everything if isinstance(n, ast.Name))
    stores = Counter(n.id for n in everything if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    stores.update(a.arg for a in func.args.args)
    changed = False
    for loop in everything:
        if isinstance(loop, ast.For) and not loop.orelse \
                and not any(isinstance(n, (ast.Break, ast.Continue)) for n in nodes(loop)):  # (they skip the copies)
            changed |= _coalesce(loop, occurrences, stores)
    return changed


def _coalesce(loop: ast.For, occurrences: Counter, stores: Counter) -> bool:
    body = loop.body
    end = len(body)
    while end and (_copy(body[end - 1]) or is_comment(body[end - 1])):
        end -= 1
    changed = False
    for stmt in [s for s in body[end:] if _copy(s)]:
        carried, computed = stmt.targets[0].id, stmt.value.id
        inside = Counter(n.id for s in body for n in nodes(s) if isinstance(n, ast.Name))
        if stores[computed] != 1 or inside[computed] != occurrences[computed]:
            continue  # computed elsewhere too, or read after the loop
        at = next((i for i, s in enumerate(body[:end]) if _assigns(s, computed)), None)
        if at is None or any(_mentions(s, computed) for s in body[:at]) \
                or any(_mentions(s, carried) for s in body[at + 1:] if s is not stmt) \
                or any(_writes(s, carried) for s in body if s is not stmt):
            continue
        for s in body:
            for n in nodes(s):
                if isinstance(n, ast.Name) and n.id == computed:
                    n.id = carried
        body.remove(stmt)
        occurrences[carried] += occurrences.pop(computed)
        changed = True
    return changed


def _copy(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
        and isinstance(stmt.value, ast.Name) and stmt.value.id != stmt.targets[0].id


def _assigns(stmt: ast.stmt, name: str) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
        and stmt.targets[0].id == name


def _mentions(stmt: ast.stmt, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in nodes(stmt))


def _writes(stmt: ast.stmt, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in nodes(stmt))


__all__ = ["coalesce_loop_copies"]
