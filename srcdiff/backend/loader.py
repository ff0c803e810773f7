"""Stage 7: generated source becomes a callable, with tracebacks that show the source.

The gradient runs in the user's module globals (so module constants are read at call time,
as the original function reads them) and sees the template helpers (``np``, ``math``,
``unbroadcast``...) and the user's closure variables as closure cells.  Its source is
registered in `linecache` under a ``<srcdiff:...>`` filename, so tracebacks, pdb and
`inspect.getsource` show the generated lines.
"""

from __future__ import annotations

import ast
import itertools
import linecache
import types

from . import heap

_MAKER = "__srcdiff_make__"
_serial = itertools.count(1)


def register_source(source: str, label: str) -> str:
    """Put `source` into linecache under a new ``<srcdiff:label:N>`` filename."""
    filename = f"<srcdiff:{label}:{next(_serial)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return filename


def build_function(source: str, label: str, globals_: dict, cells: dict[str, object],
                   prologue: list[ast.stmt] = (), defaults=None, on_error: str | None = None
                   ) -> types.FunctionType:
    """Compile `source` (one ``def``) into a function whose free names resolve to `cells`.

    `cells` maps a name to a value or to an existing `types.CellType` (a user's closure cell,
    shared so later changes to it are seen).  `prologue` statements run first; they are
    compiled on the ``def`` line, so every line of `source` keeps its number.  With
    `on_error` (the name of a cell holding ``handler(exception)``), an exception raised by
    the body goes to the handler, which raises what the caller should see.  The ``try`` costs
    nothing until something is raised.
    """
    heap.settle()
    filename = register_source(source, label)
    module = ast.parse(source, filename)
    func_def = module.body[0]
    if on_error is not None:
        error = "__srcdiff_error__"
        handle = ast.Expr(ast.Call(ast.Name(on_error, ast.Load()), [ast.Name(error, ast.Load())], []))
        handler = ast.ExceptHandler(ast.Name("Exception", ast.Load()), error, [handle, ast.Raise()])
        wrapper = ast.Try(func_def.body, [handler], [], [])
        _on_def_line([wrapper, *ast.walk(handler)], func_def)
        func_def.body = [wrapper]
    for stmt in prologue:
        _on_def_line(ast.walk(stmt), func_def)
    func_def.body[:0] = list(prologue)
    maker = ast.FunctionDef(
        name=_MAKER,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in cells], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[func_def, ast.Return(ast.Name(func_def.name, ast.Load()))],
        decorator_list=[], returns=None, type_comment=None, lineno=1, col_offset=0,
    )
    if hasattr(ast.FunctionDef, "type_params"):
        maker.type_params = []
    module.body = [ast.fix_missing_locations(maker)]
    code = compile(module, filename, "exec")
    maker_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in maker_code.co_consts if isinstance(c, types.CodeType))
    closure = tuple(_cell(cells[name]) for name in inner.co_freevars)
    return types.FunctionType(inner, globals_, func_def.name, defaults, closure)


def _on_def_line(nodes, func_def: ast.FunctionDef) -> None:
    """Put the nodes srcdiff adds on the ``def`` line, so the source's lines keep their numbers."""
    for node in nodes:
        node.lineno = node.end_lineno = func_def.lineno
        node.col_offset = node.end_col_offset = 0


def _cell(value) -> types.CellType:
    return value if isinstance(value, types.CellType) else types.CellType(value)
