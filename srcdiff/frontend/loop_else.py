"""A loop's ``else`` rewritten as the loop, then the ``else`` under a flag no ``break`` set (a
rewrite of desugar.py, which lowering then reads as plain statements)."""

from __future__ import annotations

import ast

from .naming import FreeNames


def without_else(node, names: FreeNames) -> list:
    """A loop with an ``else``: the loop, then the ``else`` -- run only if no ``break`` left the
    loop, which a flag set just before each such ``break`` tells (``broke = True; break``)."""
    if not node.orelse:
        return [node]
    tail, node.orelse = node.orelse, []
    if not _breaks(node.body):
        return [node, *tail]
    flag = names.namer.fresh("broke")
    node.body = _flagged(node.body, flag)
    start = ast.copy_location(ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(False)), node)
    test = ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load()))
    return [start, node, ast.copy_location(ast.If(test, tail, []), tail[0])]


def _flagged(body: list, flag: str) -> list:
    """`body` with ``flag = True`` before each `break` that leaves the loop it is the body of."""
    out = []
    for stmt in body:
        if isinstance(stmt, ast.Break):
            out.append(ast.copy_location(ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(True)), stmt))
        elif isinstance(stmt, (ast.For, ast.While)):
            stmt.orelse = _flagged(stmt.orelse, flag)  # (a break in a nested loop's body leaves that loop)
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    setattr(stmt, name, _flagged(inner, flag))
            for handler in getattr(stmt, "handlers", []):
                handler.body = _flagged(handler.body, flag)
        out.append(stmt)
    return out


def _breaks(body: list) -> bool:
    """Whether a `break` in `body` leaves the loop whose body it is (not one of a nested loop)."""
    for stmt in body:
        if isinstance(stmt, ast.Break):
            return True
        if isinstance(stmt, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if _breaks(stmt.orelse) if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                             ast.ClassDef)) else False:
                return True
            continue
        for name in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and _breaks([s for s in inner if isinstance(s, ast.stmt)] +
                                                   [s for h in inner if isinstance(h, ast.excepthandler)
                                                    for s in h.body]):
                return True
    return False


__all__ = ["without_else"]
