"""Writes into an array made in the same block, which nothing else ever reads: no copies.

A preallocated array written slice by slice in a loop's body (``pre = np.zeros((B, 2 * n))``,
``pre[:, :n] = ...``, ``pre[:, n:] = ...``) is lowered as writes into copies::

    pre = np.zeros((B, t5))                         pre_1 = np.zeros((B, t5))
    pre_1 = set_item(pre, np.s_[:, :n], t11)  -->   pre_1[:, :n] = t11
    pre_2 = pre_1.copy()                            pre_2 = pre_1
    pre_2[:, n:] = t17                              pre_2[:, n:] = t17

two copies of a fresh array per step.  Two rewrites, each where the array's name is mentioned
nowhere in the function but in the statements named (so no later statement, next iteration
or code after the loop sees the array, through that name or a view of it):

* ``y = set_item(x, index, v)`` where x's only other mention is ``x = np.zeros(s)`` (or ones,
  empty: a float64 array) earlier in the same block: the array is made under y's name and
  written in place, where nothing between mentions y and v does not read it; the index holds
  no index array (ints, numbers' names, slices: writes.plain_index), so set_item's checks of a
  truncating dtype or a repeated position could not fire;
* ``z = y.copy()`` where y is made so earlier in the block (``y = np.zeros(s)``) and between
  only written into at such indices, values not reading y: ``z = y`` (y is never read again).

The same values, bit for bit (the copy of a new C-ordered float64 array is one too).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable

from .liveness import assigned_name, bodies, mentions, nodes
from .writes import plain_index

_MAKERS = ("zeros", "ones", "empty")


def fresh_writes(func: ast.FunctionDef, is_scalar: Callable[[str], bool]) -> bool:
    """Write in place into arrays the block made and nothing else reads (see the module)."""
    changed = False
    for body in bodies(func.body):
        again = True
        while again:
            counts = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name))
            again = any(_rewrite_at(body, k, counts, is_scalar) for k in range(len(body)))
            changed |= again
    return changed


def _made(stmt: ast.stmt) -> str | None:
    """x of ``x = np.zeros(s)`` (ones, empty; no dtype)."""
    value = getattr(stmt, "value", None)
    name = assigned_name(stmt) if isinstance(stmt, ast.Assign) else None
    if name and isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords \
            and isinstance(value.func, ast.Attribute) and value.func.attr in _MAKERS \
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "np":
        return name
    return None


def _maker_of(body, name: str, before: int, counts: Counter, mentioned: int) -> int | None:
    """The place of ``name = np.zeros(s)`` before `before` in `body`, where the name's `counts`
    are its one mention there and `mentioned` others."""
    for k in range(before - 1, -1, -1):
        if name in mentions(body[k]):
            return k if _made(body[k]) == name and counts[name] == 1 + mentioned else None
    return None


def _rewrite_at(body, c: int, counts: Counter, is_scalar) -> bool:
    stmt = body[c]
    y, value = (assigned_name(stmt), stmt.value) if isinstance(stmt, ast.Assign) else (None, None)
    if y is None or not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Name) and value.func.id == "set_item" and len(value.args) == 3 \
            and not value.keywords and isinstance(value.args[0], ast.Name):
        x, where, v = value.args
        index = plain_index(where, is_scalar)
        k = _maker_of(body, x.id, c, counts, 1)
        if index is None or k is None or x.id == y or y in mentions(v) \
                or any(y in mentions(s) for s in body[k + 1:c]):
            return False
        body[k].targets = [ast.Name(y, ast.Store())]
        store = ast.Subscript(ast.Name(y, ast.Load()), index, ast.Store())
        body[c] = ast.copy_location(ast.Assign([store], v), stmt)
        return True
    if isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args \
            and not value.keywords and isinstance(value.func.value, ast.Name):
        x = value.func.value.id
        between = [k for k in range(c - 1, -1, -1) if x in mentions(body[k])]
        writes = [k for k in between if _written_at(body[k], x, is_scalar)]
        if len(writes) == len(between) - 1 and between and _maker_of(body, x, between[-1] + 1, counts,
                                                                     len(writes) + 1) == between[-1] and x != y:
            stmt.value = ast.Name(x, ast.Load())
            return True
    return False


def _written_at(stmt: ast.stmt, x: str, is_scalar) -> bool:
    """Whether `stmt` is ``x[index] = v`` with a plain index, v and the index not reading x."""
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript) \
        and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == x \
        and plain_index(stmt.targets[0].slice, is_scalar) is not None \
        and x not in mentions(stmt.value) | mentions(stmt.targets[0].slice)
