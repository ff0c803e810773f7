"""Compiling a rewritten function definition back into a function (a closure over the
original's cells, with its globals): used by the rewrites of frontend/flatten.py and
frontend/varargs.py."""

from __future__ import annotations

import ast
import types


def _valid_range(node) -> None:
    """Make `node`'s end no earlier than its start: a lambda's synthesized ``def`` and
    ``return`` (frontend/parse.py) have a start but no end, which `compile` refuses."""
    if getattr(node, "lineno", None) is None:
        return
    end = (getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None))
    if end[0] is None or end[1] is None or end < (node.lineno, node.col_offset):
        node.end_lineno, node.end_col_offset = node.lineno, node.col_offset


def compile_function(fdef: ast.FunctionDef, parsed, cells: dict, defaults: tuple):
    """Compile `fdef` as a closure over `cells` (names not in it are globals); `parsed` is the
    ParsedFunction of the original (its file, globals and names; not imported: parse.py uses
    this module)."""
    free = sorted(cells)
    name, fdef.name = fdef.name, "_srcdiff_made"  # a call of its own name inside reads the module's function
    outer = ast.FunctionDef(name="_srcdiff_outer", args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                                                                       kwonlyargs=[], kw_defaults=[],
                                                                       kwarg=None, defaults=[]),
                            body=[ast.Assign([ast.Name(n, ast.Store())], ast.Constant(None)) for n in free]
                            + [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))],
                            decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        outer.type_params = []
    module = ast.Module([outer], type_ignores=[])
    ast.fix_missing_locations(module)
    for node in ast.walk(outer):
        if node is not outer and not hasattr(node, "lineno") and isinstance(node, (ast.stmt, ast.expr)):
            node.lineno = fdef.lineno
        _valid_range(node)
    code = compile(module, parsed.filename, "exec")
    outer_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in outer_code.co_consts if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    fdef.name = name
    inner = inner.replace(co_name=name, co_qualname=parsed.func.__qualname__) if hasattr(inner, "co_qualname") \
        else inner.replace(co_name=name)
    closure = tuple(cells[n] for n in inner.co_freevars)
    made = types.FunctionType(inner, parsed.globals, name, defaults or None, closure or None)
    made.__qualname__ = parsed.func.__qualname__
    made.__module__ = parsed.func.__module__
    return made


__all__ = ["compile_function"]
