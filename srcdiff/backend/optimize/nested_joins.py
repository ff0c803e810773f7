"""Joins of joins made flat, and a join made twice made once.

Three gates' adjoints joined for the products of adjacent blocks (adjacent_products.py) are joined
two by two, and joined again, in the gates' order, for the product scattered into the input weights'
adjoint (joined_scatters.py)::

    t17_joined = np.concatenate([g2, g3], axis=-1)
    t9_joined = np.concatenate([g1, t17_joined], axis=-1)      t9_joined = np.concatenate([g1, g2, g3], axis=-1)
    h_bar = h_bar + t9_joined @ U.T                    -->     h_bar = h_bar + t9_joined @ U.T
    W_bar += x.T @ np.concatenate([g1, g2, g3], axis=-1)       W_bar += x.T @ t9_joined

three copies of the gates where a hand makes one.  In one straight run: a join's item that is a name
bound there to a join along the same axis and read nowhere else takes that join's items (the same
array: joining is associative, of the same dtype); then a join of the same items along the same axis,
read as an operand (not bound to a name, so never written into), is the name an earlier statement of
the run bound it to, where nothing between binds or writes into that name or an item.
"""

from __future__ import annotations

import ast
from collections import Counter

from .liveness import bodies, nodes, writes, written_into


def join_nested(func: ast.FunctionDef) -> bool:
    """Flatten joins of joins and reuse a join made twice (see the module)."""
    loads = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    changed = False
    for body in bodies(func.body):
        changed |= _flatten(body, loads)
        changed |= _reuse(body)
    return changed


def _join(e: ast.expr):
    """``np.concatenate([names...], axis=a)`` with a an int literal: (the items' names, a)."""
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "concatenate" \
            and isinstance(e.func.value, ast.Name) and e.func.value.id == "np" and len(e.args) == 1 \
            and isinstance(e.args[0], ast.List) and all(isinstance(i, ast.Name) for i in e.args[0].elts) \
            and len(e.keywords) == 1 and e.keywords[0].arg == "axis" and _int(e.keywords[0].value) is not None:
        return [i.id for i in e.args[0].elts], _int(e.keywords[0].value)
    return None


def _int(e: ast.expr) -> int | None:
    """An int literal, ``-1`` too."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        inner = _int(e.operand)
        return None if inner is None else -inner
    return e.value if isinstance(e, ast.Constant) and type(e.value) is int else None


def _bound_join(stmt: ast.stmt):
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        found = _join(stmt.value)
        if found is not None:
            return stmt.targets[0].id, found[0], found[1]
    return None


def _changes(stmts: list[ast.stmt]) -> set[str]:
    found = set()
    for s in stmts:
        found |= writes(s) | written_into(s)
    return found


def _flatten(body: list[ast.stmt], loads: Counter) -> bool:
    changed = False
    for j, stmt in enumerate(body):
        outer = _bound_join(stmt)
        if outer is None:
            continue
        for i in range(j - 1, -1, -1):
            inner = _bound_join(body[i])
            if inner is None or inner[0] not in outer[1] or inner[2] != outer[2] or loads[inner[0]] != 1 \
                    or (set(inner[1]) | {inner[0]}) & _changes(body[i + 1:j]):
                continue
            elts = stmt.value.args[0].elts
            k = next(m for m, e in enumerate(elts) if e.id == inner[0])
            elts[k:k + 1] = [ast.Name(n, ast.Load()) for n in inner[1]]
            ast.fix_missing_locations(stmt)
            loads[inner[0]] -= 1
            changed = True
            outer = _bound_join(stmt)
    return changed


def _reuse(body: list[ast.stmt]) -> bool:
    changed = False
    for i, stmt in enumerate(body):
        made = _bound_join(stmt)
        if made is None or made[0] in made[1]:
            continue
        name, items, axis = made
        for j in range(i + 1, len(body)):
            later = body[j]
            if not isinstance(later, ast.Assign | ast.AugAssign | ast.Expr):
                break
            for parent in nodes(later.value):
                for field, value in ast.iter_fields(parent):
                    if isinstance(value, ast.Call) and _join(value) == (items, axis):
                        setattr(parent, field, ast.Name(name, ast.Load()))
                        changed = True
            if (set(items) | {name}) & (writes(later) | written_into(later)):
                break
    return changed
