"""The loop that appends the items of one part of a list join (list_joins.py) to the new list.

A slice of a list (``buf = buf[1:] + [echoed]``, a delay line; ``hist = [h] + hist[:2]``, a window)
is read item by item, ``for k in range(start, stop): joined.append(buf[k])``, with Python's bounds
of a slice whose ends are integers written out (or left out) and no step: lowering differentiates
items of a list read by index, not a slice of it (whose adjoint a list cannot take back).  Another
slice (``buf[s:]``, ``buf[::2]``) is not taken for a list (list_joins.py `_is_list`): the join is left
as written, for lowering to refuse at its line.  Any other part is iterated as it is (``for item in
part: joined.append(item)``).
"""

from __future__ import annotations

import ast


def _call(name: str, *args) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])


def integer(node: ast.expr) -> int | None:
    """The integer `node` writes out (``3``, ``-1``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = integer(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _end(bound, length: ast.expr, default: ast.expr) -> ast.expr | None:
    """A slice's end as Python takes it, clipped to ``0..len``; None where it is not an integer."""
    if bound is None:
        return default
    value = integer(bound)
    if value is None:
        return None
    if value >= 0:
        return _call("min", ast.Constant(value), length)
    return _call("max", ast.BinOp(length, ast.Add(), ast.Constant(value)), ast.Constant(0))


def item_slice(part: ast.expr) -> bool:
    """Whether `part` is a slice of a name `items_loop` reads item by item: no step, its ends integers
    written out or left out (another slice of a list is not a part of a join: lowering refuses it)."""
    return isinstance(part, ast.Subscript) and isinstance(part.value, ast.Name) \
        and isinstance(part.slice, ast.Slice) and part.slice.step is None \
        and all(b is None or integer(b) is not None for b in (part.slice.lower, part.slice.upper))


def items_loop(part: ast.expr, held: str, fresh) -> ast.For:
    """``for ...: held.append(...)`` over the items of `part` (`fresh` makes a new name)."""
    if item_slice(part):
        length = _call("len", ast.Name(part.value.id, ast.Load()))
        start = _end(part.slice.lower, length, ast.Constant(0))
        stop = _end(part.slice.upper, length, length)
        if start is not None and stop is not None:
            k = fresh("k")
            item = ast.Subscript(ast.Name(part.value.id, ast.Load()), ast.Name(k, ast.Load()), ast.Load())
            return ast.For(ast.Name(k, ast.Store()), _call("range", start, stop), [_append(held, item)], [], None)
    item = fresh("item")
    return ast.For(ast.Name(item, ast.Store()), part, [_append(held, ast.Name(item, ast.Load()))], [], None)


def _append(name: str, value: ast.expr) -> ast.stmt:
    return ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "append", ast.Load()), [value], []))


__all__ = ["integer", "item_slice", "items_loop"]
