"""An item of a list written by index, ``xs[i] = v``, as the new list it makes (list_joins.py); an item put
first, ``xs.insert(0, v)``, as ``xs = [v] + xs``::

    rows = [x] * 3                              rows = [x] * 3     (built by append)
    rows[0] = rows[0] * 2.0         ==>         written = rows[0] * 2.0
                                                rows = [written if k == 0 else rows[k] for k in range(len(rows))]

Python changes the list in place, so every name of the list sees the new item; a list with one
name (list_joins.py's `single`) is changed the same by a new list with the new item in its place,
which lowering differentiates item by item (a write into an array, which an item of a list may
be, it could not: ``[x] * 3`` holds the caller's ``x`` three times).  Python's order is kept (the
value first, then the index), and so is its ``IndexError`` for an index out of range; a negative
index counts from the end.  ``xs[i] += v`` is left as written: on an array item NumPy adds in place,
into every item holding that array.  A list of numbers written in the code (``[0.0] * n``) is data
lowering keeps whole and writes as an array: left as written too.
"""

from __future__ import annotations

import ast
import builtins


def has_item_writes(tree: ast.FunctionDef) -> bool:
    """A cheap test: ``xs[i] = v`` of a name some assignment binds to a list display or comprehension."""
    written = {n.targets[0].value.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Subscript) and isinstance(n.targets[0].value, ast.Name)}
    return any(isinstance(n, ast.Assign) and isinstance(n.value, (ast.List, ast.ListComp, ast.BinOp))
               and any(isinstance(t, ast.Name) and t.id in written for t in n.targets) for n in ast.walk(tree))


def item_written(stmt: ast.stmt, lists: set, names) -> list | None:
    """`stmt` as the statements making the new list, when it is ``xs[i] = v`` of a list of
    `lists`; else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)
            and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id in lists
            and not isinstance(stmt.targets[0].slice, (ast.Slice, ast.Tuple))) \
            or not all(names.resolve(ast.Name(n, ast.Load())) is getattr(builtins, n)
                       for n in ("len", "range", "IndexError")):
        return None
    name, index = stmt.targets[0].value.id, stmt.targets[0].slice
    out = []
    value = _held(stmt.value, "written", out, names)
    size = names.namer.fresh("size")  # (read by the test of the index, which runs as written)
    out.append(ast.Assign([ast.Name(size, ast.Store())], ast.Call(_load("len"), [_load(name)], [])))
    length = _load(size)
    constant = _integer(index)
    if constant is None:
        index = _held(index, "at", out, names)
        at = ast.IfExp(ast.Compare(index, [ast.GtE()], [ast.Constant(0)]), index,
                       ast.BinOp(length, ast.Add(), index))
    else:
        at = ast.Constant(constant) if constant >= 0 else ast.BinOp(length, ast.Add(), ast.Constant(constant))
    outside = ast.BoolOp(ast.Or(), [ast.Compare(index, [ast.Lt()], [ast.UnaryOp(ast.USub(), length)]),
                                    ast.Compare(index, [ast.GtE()], [length])])
    error = ast.Raise(ast.Call(_load("IndexError"), [ast.Constant("list assignment index out of range")], []), None)
    out.append(ast.If(outside, [error], []))
    k = names.namer.fresh("k")
    item = ast.IfExp(ast.Compare(_load(k), [ast.Eq()], [at]), value, ast.Subscript(_load(name), _load(k), ast.Load()))
    steps = ast.Call(_load("range"), [length], [])
    out.append(ast.Assign([ast.Name(name, ast.Store())],
                          ast.ListComp(item, [ast.comprehension(ast.Name(k, ast.Store()), steps, [], 0)])))
    for made in out:
        for node in ast.walk(made):
            if getattr(node, "lineno", None) is None:
                ast.copy_location(node, stmt)
    return out


def prepended(stmt: ast.stmt, lists: set) -> ast.stmt | None:
    """``xs.insert(0, v)`` of a list of `lists`: ``xs = [v] + xs`` (list_joins.py builds the new list), else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "insert"
            and isinstance(call.func.value, ast.Name) and call.func.value.id in lists and len(call.args) == 2
            and not call.keywords and isinstance(call.args[0], ast.Constant) and call.args[0].value == 0
            and type(call.args[0].value) is int and not isinstance(call.args[1], ast.Starred)):
        return None
    name = call.func.value.id
    joined = ast.BinOp(ast.List([call.args[1]], ast.Load()), ast.Add(), ast.Name(name, ast.Load()))
    made = ast.Assign([ast.Name(name, ast.Store())], joined)
    for node in ast.walk(made):
        if getattr(node, "lineno", None) is None:
            ast.copy_location(node, stmt)
    return made


def _held(expr: ast.expr, base: str, out: list, names) -> ast.expr:
    """`expr` itself when reading it again gives it again (a name, a number), else a name holding it
    (assigned in `out`)."""
    if isinstance(expr, ast.Constant) or isinstance(expr, ast.Name) and _integer(expr) is None:
        return expr
    held = names.namer.fresh(base)
    out.append(ast.Assign([ast.Name(held, ast.Store())], expr))
    return _load(held)


def _integer(node: ast.expr) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _integer(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


__all__ = ["has_item_writes", "item_written", "prepended"]
