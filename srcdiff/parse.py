"""Stage 1: read a function's source and turn it into an AST with the user's line numbers.

Also resolves the names the function reads (closure, globals, builtins) and builds the
user-facing locations every later stage reports errors with.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import types
from dataclasses import dataclass, field

from .errors import Location, SrcDiffError

_MISSING = object()


@dataclass
class ParsedFunction:
    """A user function's AST (line numbers as in its file) and its name environment."""

    func: types.FunctionType
    tree: ast.FunctionDef
    filename: str
    file_lines: list[str]
    globals: dict
    closure: dict[str, types.CellType] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.tree.name

    def location(self, node: ast.AST | int) -> Location:
        """The user's file and line of an AST node (or of a line number)."""
        line = node if isinstance(node, int) else getattr(node, "lineno", self.tree.lineno)
        code = self.file_lines[line - 1] if 0 < line <= len(self.file_lines) else ""
        return Location(self.filename, line, code.rstrip())

    def error(self, node: ast.AST | int, message: str, hint: str = "") -> SrcDiffError:
        return SrcDiffError(message, self.location(node), hint)

    def resolve(self, name: str):
        """The object a free name refers to, looked up as Python would; `_MISSING` if none."""
        if name in self.closure:
            try:
                return self.closure[name].cell_contents
            except ValueError:  # an empty cell: the enclosing function has not set it yet
                return _MISSING
        if name in self.globals:
            return self.globals[name]
        return getattr(builtins, name, _MISSING)


def parse_function(func) -> ParsedFunction:
    """Parse `func` (following ``__wrapped__``) into a `ParsedFunction`.

    Raises `SrcDiffError` for anything whose source cannot be read or that is not a plain
    function: builtins, generators, coroutines, functions typed at a prompt or built by exec.
    """
    func = inspect.unwrap(func)
    if not isinstance(func, types.FunctionType):
        raise SrcDiffError(
            f"srcdiff differentiates Python functions; got {type(func).__name__} {func!r}",
            hint="pass a function defined with `def` in a .py file",
        )
    code = func.__code__
    where = Location(code.co_filename, code.co_firstlineno)
    if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
        raise SrcDiffError(
            f"{func.__name__} is a generator function, which has no single value to differentiate",
            where, "return a value instead of yielding; collect the values in a list",
        )
    if inspect.iscoroutinefunction(func):
        raise SrcDiffError(f"{func.__name__} is an async function", where,
                           "differentiate a plain (synchronous) function")
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise SrcDiffError(
            f"cannot read the source of {func.__qualname__} ({exc})", where,
            "srcdiff transforms source code: define the function in a .py file (not at an "
            "interactive prompt or through exec) so inspect.getsource can find it",
        ) from None
    tree = _parse_lines(lines, func, where)
    ast.increment_lineno(tree, first - 1)
    file_lines = _file_lines(code.co_filename, lines, first)
    closure = dict(zip(code.co_freevars, func.__closure__ or ()))
    return ParsedFunction(func, tree, code.co_filename, file_lines, func.__globals__, closure)


def _parse_lines(lines: list[str], func, where: Location) -> ast.FunctionDef:
    text = textwrap.dedent("".join(lines))
    try:
        module = ast.parse(text)
    except SyntaxError:
        # A lambda inside a larger expression, or a body whose strings defeat dedent.
        try:
            module = ast.parse("if True:\n" + textwrap.indent(text, " "))
            ast.increment_lineno(module, -1)
        except SyntaxError:
            module = None
    if func.__name__ == "<lambda>":
        return _lambda_def(module, func, where)
    if module is None or not module.body:
        raise SrcDiffError(f"cannot parse the source of {func.__qualname__}", where)
    node = module.body[0]
    while isinstance(node, ast.If):  # from the `if True:` wrapper above
        node = node.body[0]
    if isinstance(node, ast.AsyncFunctionDef) or not isinstance(node, ast.FunctionDef):
        raise SrcDiffError(f"cannot find the `def` of {func.__qualname__} in its source", where)
    if node.name != func.__name__:
        raise SrcDiffError(
            f"the source found for {func.__name__} defines {node.name}: the file changed "
            "since the function was defined", where, "reload the module",
        )
    return node


def _lambda_def(module, func, where: Location) -> ast.FunctionDef:
    """Turn the one lambda on the source line(s) into an equivalent `def`."""
    lambdas = [n for n in ast.walk(module)] if module else []
    names = list(func.__code__.co_varnames[: func.__code__.co_argcount])
    lambdas = [n for n in lambdas if isinstance(n, ast.Lambda)
               and [a.arg for a in n.args.args] == names]
    if len(lambdas) != 1:
        raise SrcDiffError(
            "cannot tell which lambda to differentiate from its source line", where,
            "define the function with `def` (or put the lambda on a line of its own)",
        )
    lam = lambdas[0]
    ret = ast.Return(value=lam.body, lineno=lam.lineno, col_offset=lam.col_offset)
    fdef = ast.FunctionDef(name="lambda_", args=lam.args, body=[ret], decorator_list=[],
                           returns=None, type_comment=None, lineno=lam.lineno,
                           col_offset=lam.col_offset)
    if hasattr(ast.FunctionDef, "type_params"):
        fdef.type_params = []
    return ast.fix_missing_locations(fdef)


def _file_lines(filename: str, lines: list[str], first: int) -> list[str]:
    import linecache

    all_lines = linecache.getlines(filename)
    if all_lines:
        return all_lines
    return [""] * (first - 1) + list(lines)
