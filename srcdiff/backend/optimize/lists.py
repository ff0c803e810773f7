"""The list helpers of a derivable gradient in place, in the code that differentiates it.

A gradient srcdiff will differentiate again updates a list's adjoint functionally
(rules/list_helpers.py): ``xs_1 = list_add(xs, i, v)`` copies the list, then adds `v` to
item `i`; ``xs_2 = list_drop(xs_1)`` copies all but the last item.  In a loop, each copy costs
the list's length, every iteration, for the value and for every tangent of forward mode.
Where nothing can see the old list, the update is made in place::

    for i in ...:                              for i in ...:
        xs_1 = list_add(xs, i, v)      -->         xs[i] = xs[i] + v
        ...                                        ...
        xs = xs_1

Safe when (checked on the code, not assumed):

* the carried name `xs` is not a parameter, and every assignment to it is a new list
  (``zeros_list(...)``, ``zeros_like(...)``, ``[...]``, ``[0.0] * n``) or such a carry ``xs = xs_1``;
* every read of `xs` anywhere reads or writes an item, reads the length, or makes a new value from it
  (``zeros_like(xs)``), or is the update itself: no other name or container ever holds
  the list, so changing it changes nothing else (returning it hands it out as the function
  ends);
* the update's result `xs_1` is read only by the carry, which follows it in the same loop
  body with no statement between them mentioning `xs` and no ``break``/``continue``;
* the index is a name or a number, and neither it nor `v` mentions the list.
"""

from __future__ import annotations

import ast
from collections import Counter

from .liveness import is_compound, mentions

_UPDATES = {"list_add": 3, "list_drop": 1}
_FRESH = ("zeros_list", "zeros_like")
_ITEM_READS = ("len", "zeros_like", "zeros_list")


def lists_in_place(func: ast.FunctionDef) -> bool:
    """Rewrite the updates described above; True if any changed."""
    params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    changed = False
    for body in _loop_bodies(func.body):
        index = 0
        while index < len(body):
            if _rewrite(func, body, index, params):
                changed = True
            index += 1
    return changed


def _loop_bodies(body: list[ast.stmt]):
    for stmt in body:
        if isinstance(stmt, (ast.For, ast.While)):
            yield stmt.body
        if isinstance(stmt, (ast.For, ast.While, ast.If)):
            yield from _loop_bodies(stmt.body)
            yield from _loop_bodies(stmt.orelse)


def _update(stmt: ast.stmt):
    """(target, helper, list name, args) of ``t = list_add(xs, i, v)`` / ``t = list_drop(xs)``."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    call = stmt.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in _UPDATES
            and len(call.args) == _UPDATES[call.func.id] and not call.keywords
            and isinstance(call.args[0], ast.Name)):
        return None
    return stmt.targets[0].id, call.func.id, call.args[0].id, call.args[1:]


def _is_copy(stmt: ast.stmt, target: str, source: str) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
        and stmt.targets[0].id == target and isinstance(stmt.value, ast.Name) and stmt.value.id == source


def _rewrite(func: ast.FunctionDef, body: list[ast.stmt], index: int, params: set[str]) -> bool:
    found = _update(body[index])
    if found is None:
        return False
    new, helper, old, args = found
    if old in params or old == new:
        return False
    carry = next((j for j in range(index + 1, len(body)) if _is_copy(body[j], old, new)), None)
    if carry is None:
        return False
    between = body[index + 1:carry]
    if any(old in mentions(s) for s in between) \
            or any(isinstance(n, (ast.Break, ast.Continue)) for s in between for n in ast.walk(s)):
        return False
    if any(old in mentions(a) or new in mentions(a) for a in args):
        return False
    if helper == "list_add" and not isinstance(args[0], (ast.Name, ast.Constant)):
        return False
    uses = Counter(n.id for n in ast.walk(func) if isinstance(n, ast.Name))
    if uses[new] != 2 or not _only_private(func, old, params):
        return False
    target = ast.Name(old, ast.Load())
    if helper == "list_add":
        where, value = args
        item = ast.Subscript(target, where, ast.Load())
        stmt = ast.Assign([ast.Subscript(ast.Name(old, ast.Load()), where, ast.Store())],
                          ast.BinOp(item, ast.Add(), value))
    else:  # ``xs[:-1]``: every item but the last, an empty list left empty
        last = ast.Slice(ast.UnaryOp(ast.USub(), ast.Constant(1)), None, None)
        stmt = ast.Delete([ast.Subscript(ast.Name(old, ast.Load()), last, ast.Del())])
    body[index] = ast.fix_missing_locations(ast.copy_location(stmt, body[index]))
    del body[carry]
    return True


def _only_private(func: ast.FunctionDef, name: str, params: set[str]) -> bool:
    """Whether the list `name` holds is never shared: each assignment to it is a new list or
    the carry of an update of it, and each read of it reads an item or the length, makes a
    new value of it, or is an update of it."""
    for stmt in _simple(func.body):
        if isinstance(stmt, (ast.Delete, ast.Return)):  # (handed out as the function ends: no one else has it)
            continue
        assigns = isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                       for t in stmt.targets)
        if assigns and not (len(stmt.targets) == 1 and _is_private_value(stmt.value, func, name)):
            return False
        if not _reads_privately(stmt, name, assigns):
            return False
    for stmt in ast.walk(func):
        if isinstance(stmt, (ast.For, ast.comprehension)) and name in mentions(stmt.target):
            return False
    return name not in params


def _is_private_value(value: ast.expr, func: ast.FunctionDef, name: str) -> bool:
    if isinstance(value, ast.List) or isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) \
            and isinstance(value.left, ast.List):  # ``[...]``, ``[0.0] * n``
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _FRESH:
        return True
    if isinstance(value, ast.Name):  # the carry of an update of `name`: ``xs = xs_1``
        for stmt in _simple(func.body):
            found = _update(stmt)
            if found is not None and found[0] == value.id and found[2] == name:
                return True
    return False


def _reads_privately(stmt: ast.stmt, name: str, assigns: bool) -> bool:
    allowed: set[int] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
            allowed.add(id(node.value))  # an item read or written: the list itself stays here
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in _ITEM_READS + tuple(_UPDATES) and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            allowed.add(id(node.args[0]))
    if assigns:
        allowed |= {id(t) for t in getattr(stmt, "targets", [])}
    return all(id(n) in allowed for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == name)


def _simple(body: list[ast.stmt]):
    for stmt in body:
        if is_compound(stmt):
            for inner in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
                if isinstance(inner, list):
                    yield from _simple(inner)
            if isinstance(stmt, (ast.For, ast.While, ast.If)):
                yield ast.Expr(stmt.iter if isinstance(stmt, ast.For) else stmt.test)  # its header reads
            continue
        yield stmt


__all__ = ["lists_in_place"]
