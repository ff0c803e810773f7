"""Index parts known when batched code is made: ``t12 = slice(1, None, None)``, ``t13 = t12,``,
a constant ``(-1,)``.  A read at such an index is written out (``g[:, 1:]``) instead of a call of
the run-time helper that builds the index of every row (ad/batching_rules.py's `index_read`)."""

from __future__ import annotations

import ast
import copy

from ..ir.nodes import Const, Var


def static_part(expr: ast.expr, statics: dict) -> ast.expr | None:
    """An index part known when the code is made: ``slice(1, None, None)`` (as ``1:``), a
    number, or a name `statics` holds one of; None otherwise."""
    if isinstance(expr, ast.Name):
        return statics.get(expr.id)
    try:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "slice" \
                and not expr.keywords and 1 <= len(expr.args) <= 3:
            bounds = [ast.literal_eval(arg) for arg in expr.args]
            if all(b is None or type(b) is int for b in bounds):
                bounds = [None, *bounds, None][:3] if len(bounds) == 1 else bounds + [None] * (3 - len(bounds))
                return ast.Slice(*(None if b is None else ast.Constant(b) for b in bounds))
            return None
        value = ast.literal_eval(expr)
    except ValueError:
        return None
    return ast.Constant(value) if type(value) is int else None


def static_index(index, statics: dict) -> list[ast.expr] | None:
    """The parts of `index` (index_read's, index_add's: a tuple of them) where each is known
    when the code is made (`static_part`); None where one is not."""
    if isinstance(index, Const) and type(index.value) is tuple:
        parts = [_static_value(v) for v in index.value]
        return None if not parts or any(p is None for p in parts) else parts
    if not isinstance(index, Var) or not isinstance(statics.get(index.name), list):
        return None
    return statics[index.name]


def _static_value(value) -> ast.expr | None:
    if type(value) is int:
        return ast.Constant(value)
    if type(value) is slice and all(b is None or type(b) is int for b in (value.start, value.stop, value.step)):
        return ast.Slice(*(None if b is None else ast.Constant(b) for b in (value.start, value.stop, value.step)))
    return None


def record_static(name: str, expr: ast.expr, statics: dict) -> None:
    """Note `name`'s value if it is an index part or a tuple of them known when the code is
    made (``t12 = slice(1, None, None)``, ``t13 = t12,``); forget it if assigned otherwise."""
    statics.pop(name, None)
    if isinstance(expr, ast.Tuple):
        parts = [static_part(e, statics) for e in expr.elts]
        if parts and all(p is not None and not isinstance(p, list) for p in parts):
            statics[name] = [copy.deepcopy(p) for p in parts]
        return
    part = static_part(expr, statics)
    if part is not None and not isinstance(part, list):
        statics[name] = part




def index_value(index: ast.expr) -> ast.expr:
    """An index as a value that can be passed to a function: always a tuple of its parts
    (srcdiff reads a tuple back as a list: a list index is never the index itself), and
    ``:`` becomes ``slice(None, None, None)``."""
    def value(part: ast.expr) -> ast.expr:
        if isinstance(part, ast.Slice):
            bounds = [b if b is not None else ast.Constant(None) for b in (part.lower, part.upper, part.step)]
            return ast.Call(ast.Name("slice", ast.Load()), bounds, [])
        return part
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return ast.Tuple([value(e) for e in parts], ast.Load())


__all__ = ["index_value", "record_static", "static_index", "static_part"]
