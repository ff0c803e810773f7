"""A list the function builds from a display (``xs = [a, b, c]``) and then changes with ``.pop``,
``.insert``, ``.reverse``, ``.extend`` or ``.append``, rewritten (python_forms.py, right after
parsing) as the new list each change makes, written out item by item::

    xs = [x, 2.0 * x, x * x]                 xs = [x, 2.0 * x, x * x]
    first = xs.pop(0)                        first = xs[0]
                                             xs = [xs[1], xs[2]]
    xs.insert(1, y)                          xs = [xs[0], y, xs[1]]
    xs.reverse()                             xs = [xs[2], xs[1], xs[0]]

Lowering differentiates items of a new list; a list changed in place it cannot (the adjoint of a
popped item has nowhere to go).  The length of the list must be known where it changes: the
display and the changes are statements of one block, in order (a change inside a loop or a
branch, or after one that touched the list, is left as written).  Python's own errors are kept:
a ``pop`` of an empty list or out of range is left as written (lowering refuses it).  The list
must have no second name (``ys = xs``, a helper given ``xs``, ``out.append(xs)``): the new list
would leave the other one unchanged.  ``.pop(i)`` is rewritten as a statement of its own or as the
value of an assignment (``v = xs.pop()``); ``.extend`` of a display.
"""

from __future__ import annotations

import ast
import copy

from .depends import MISSING
from .naming import FreeNames, assigned_names, inner_blocks

_CHANGES = {"pop", "insert", "reverse", "extend", "append"}
_READERS = ("builtins", "numpy", "math")


def has_list_changes(tree: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _CHANGES - {"append"}
               for n in ast.walk(tree))


def rewrite_list_changes(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, the changes of lists with one name (see the module's doc); a function that
    only appends is left as it is (lowering takes appends as they are)."""
    if not has_list_changes(tree):
        return
    single = {n for n in assigned_names(tree) if _one_name(tree, n, names)}
    _block(tree.body, single)


def _one_name(tree: ast.FunctionDef, name: str, names: FreeNames) -> bool:
    """Whether every read of `name` is an item, a length, a loop over it, a change, or an argument of
    a library function (which makes no second name for it)."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Subscript) and parent.value is node \
                or isinstance(parent, (ast.comprehension, ast.For)) and parent.iter is node:
            continue
        if isinstance(parent, ast.Attribute) and parent.attr in _CHANGES | {"index", "count"}:
            continue
        if isinstance(parent, ast.Call) and node in parent.args:
            func = names.resolve(parent.func)
            if func is not MISSING and (getattr(func, "__module__", None) or "builtins").split(".")[0] in _READERS:
                continue
        return False
    return True


def _block(body: list, single: set) -> None:
    known: dict[str, int] = {}  # a list's length where the statement runs
    k = 0
    while k < len(body):
        stmt = body[k]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            k += 1
            continue
        for inner in inner_blocks(stmt):
            _block(inner, single)
        written = _changed(stmt, known)
        if written is not None:
            body[k:k + 1] = written
            k += len(written)
            continue
        for name in list(known):  # anything else that binds or changes the list: its length is unknown now
            if name in assigned_names(stmt) or _touches(stmt, name):
                del known[name]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.List) and stmt.targets[0].id in single \
                and not any(isinstance(e, ast.Starred) for e in stmt.value.elts):
            known[stmt.targets[0].id] = len(stmt.value.elts)
        k += 1


def _touches(stmt: ast.stmt, name: str) -> bool:
    """Whether `stmt` calls a method of `name` or deletes or writes one of its items."""
    for n in ast.walk(stmt):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == name:
            return True
        if isinstance(n, ast.Delete) and name in {t.value.id for t in n.targets if isinstance(t, ast.Subscript)
                                                  and isinstance(t.value, ast.Name)}:
            return True
    return False


def _item(name: str, j: int) -> ast.expr:
    return ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(j), ast.Load())


def _changed(stmt: ast.stmt, known: dict) -> list | None:
    """`stmt` written out when it changes a list of known length, else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) or isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], ast.Name) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id in known and not call.keywords) \
            or isinstance(stmt, ast.Assign) and stmt.targets[0].id == call.func.value.id:
        return None
    name, how, args = call.func.value.id, call.func.attr, call.args
    n = known[name]
    items: list[ast.expr] = [_item(name, j) for j in range(n)]
    value = None
    if how == "pop" and len(args) <= 1:
        at = _integer(args[0]) if args else -1
        if at is None or not -n <= at < n:
            return None  # Python raises IndexError: lowering refuses it
        at %= n
        value, items = _item(name, at), items[:at] + items[at + 1:]
    elif isinstance(stmt, ast.Assign):
        return None  # insert/reverse/extend/append return None: a value no one differentiates
    elif how == "insert" and len(args) == 2 and _integer(args[0]) is not None:
        at = _integer(args[0])
        at = max(0, min(n, at if at >= 0 else n + at))  # Python's clamping
        items = items[:at] + [args[1]] + items[at:]
    elif how == "reverse" and not args:
        items = items[::-1]
    elif how == "extend" and len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)) \
            and not any(isinstance(e, ast.Starred) for e in args[0].elts):
        items = items + list(args[0].elts)
    elif how == "append" and len(args) == 1:
        items = items + [args[0]]
    else:
        return None
    out = []
    if isinstance(stmt, ast.Assign):
        out.append(ast.Assign([copy.deepcopy(stmt.targets[0])], value))
    out.append(ast.Assign([ast.Name(name, ast.Store())], ast.List(items, ast.Load())))
    for made in out:
        for node in ast.walk(made):
            ast.copy_location(node, stmt)
    known[name] = len(items)
    return out


def _integer(node: ast.expr) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _integer(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


__all__ = ["has_list_changes", "rewrite_list_changes"]
