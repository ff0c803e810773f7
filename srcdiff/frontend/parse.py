"""Stage 1: read a function's source and turn it into an AST with the user's line numbers.

Also resolves the names the function reads (closure, globals, builtins) and builds the
user-facing locations every later stage reports errors with (spellings: desugar.py)."""

from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import inspect
import textwrap
import types
import weakref
from dataclasses import dataclass, field

from ..errors import Location, SrcDiffError
from ..ir import memo
from ..ir.shapes import signature
from .depends import MISSING, Dependency
from .desugar import desugared
from .generators import generator_error, listed_parsed
from .imports import has_imports, hoisted


@dataclass
class ParsedFunction:
    """A user function's AST (line numbers as in its file) and its name environment."""

    func: types.FunctionType
    tree: ast.FunctionDef
    filename: str
    file_lines: list[str]
    globals: dict
    closure: dict[str, types.CellType] = field(default_factory=dict)
    #: the free names lowering read statically, by (scope id, name) (depends.py)
    depends: dict[tuple, Dependency] = field(default_factory=dict)

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
        """The object a free name refers to, looked up as Python would; `MISSING` if none."""
        if name in self.closure:
            try:
                return self.closure[name].cell_contents
            except ValueError:  # an empty cell: the enclosing function has not set it yet
                return MISSING
        if name in self.globals:
            return self.globals[name]
        return getattr(builtins, name, MISSING)

    def depend(self, name: str, value) -> None:
        """Record that the transform relies on free name `name` holding `value`.

        Modules and builtins are not recorded: rebinding ``np`` or shadowing a builtin after
        the first call is not supported."""
        if value is MISSING or isinstance(value, types.ModuleType) and name not in self.closure:
            return  # (a module in a closure cell, as an import in the body makes, is passed on)
        scope = self.closure.get(name)
        if scope is None:
            if name not in self.globals:
                return
            scope = self.globals
        self._add(Dependency(scope, name, value))

    def depend_on_signature(self, name: str, value) -> None:
        """Record that the transform relies on free name `name` holding a value of
        `value`'s signature (a global array or number the generated code reads by name)."""
        scope = self.closure.get(name)
        if scope is None:
            if name not in self.globals:
                return
            scope = self.globals
        self._add(Dependency(scope, name, signature(value), of_signature=True))

    def include(self, depends) -> None:
        """Record a callee's dependencies as this function's own."""
        for d in depends:
            self._add(d)

    def _add(self, dependency: Dependency) -> None:
        """One dependency per name: one on the value itself wins over one on its signature."""
        key = (id(dependency.scope), dependency.name)
        found = self.depends.get(key)
        if found is None or (found.of_signature and not dependency.of_signature):
            self.depends[key] = dependency

    def dependencies(self) -> tuple[Dependency, ...]:
        return tuple(self.depends.values())


def parse_function(func) -> ParsedFunction:
    """Parse `func` (following ``__wrapped__`` where that is safe, see `unwrap`) into a
    `ParsedFunction`.

    Raises `SrcDiffError` for anything whose source cannot be read or that is not a plain
    function: builtins, generators, coroutines, functions typed at a prompt or built by exec.
    """
    func = unwrap(func)
    made = _REWRITTEN.get(func) if isinstance(func, types.FunctionType) else None
    if made is not None:  # a function srcdiff rewrote (flatten.py): its own AST, fresh dependencies
        if made.func is not func:  # ... or one whose imports it hoisted: defaults as the user's are now
            made.func.__defaults__, made.func.__kwdefaults__ = func.__defaults__, func.__kwdefaults__
        return dataclasses.replace(made, depends={})
    if not isinstance(func, types.FunctionType):
        raise SrcDiffError(
            f"srcdiff differentiates Python functions; got {type(func).__name__} {func!r}",
            hint="pass a function defined with `def` in a .py file",
        )
    code = func.__code__
    where = Location(code.co_filename, code.co_firstlineno)
    if inspect.isasyncgenfunction(func):
        raise generator_error(func, where)
    if inspect.iscoroutinefunction(func):
        raise SrcDiffError(f"{func.__name__} is an async function", where,
                           "differentiate a plain (synchronous) function")
    try:
        lines, first = inspect.getsourcelines(code)  # the code: getsource(func) follows __wrapped__
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
    parsed = ParsedFunction(func, tree, code.co_filename, file_lines, func.__globals__, closure)
    if inspect.isgeneratorfunction(func):  # read as the list it yields (generators.py)
        register(func, parsed := listed_parsed(parsed, where))
    if has_imports(tree):  # ``import numpy as np`` in the body: a closure cell (frontend/imports.py)
        parsed = hoisted(parsed, lambda made, fdef, cells: ParsedFunction(made, fdef, code.co_filename, file_lines,
                                                                            func.__globals__, cells))
        if parsed.func is not func:
            register(func, parsed)
    return parsed


_REWRITTEN: "weakref.WeakKeyDictionary[types.FunctionType, ParsedFunction]" = memo.table(weak=True)


def read_function(func):
    """The function whose code srcdiff reads for `func`: `func`, or the rewrite registered for
    it (an import in the body hoisted into a closure cell, frontend/imports.py)."""
    made = _REWRITTEN.get(func) if isinstance(func, types.FunctionType) else None
    return func if made is None else made.func


def register(func: types.FunctionType, parsed: ParsedFunction) -> None:
    """Make `parse_function(func)` give `parsed`: `func` was compiled from a rewritten AST."""
    _REWRITTEN[func] = parsed


def unwrap(func):
    """The function whose source srcdiff differentiates for `func`.

    A decorator made with ``functools.wraps`` leaves the decorated function in
    ``__wrapped__``, but the wrapper is what runs, and it may change the result.  It is
    followed only when the wrapper provably passes the call through unchanged: a cache
    (``functools.lru_cache`` / ``cache``), a NumPy dispatcher, or a Python wrapper whose
    source ends in ``return wrapped(<its parameters, unchanged>)`` after nothing but
    statements that cannot touch the call (see `_passes_through`).  Any other wrapper that
    names the same parameters as the function is differentiated itself (from its own
    source); one taking ``*args``/``**kwargs`` is refused.
    """
    while True:
        inner = getattr(func, "__wrapped__", MISSING)
        if inner is MISSING:
            return func
        if _transparent(func, inner):
            func = inner
            continue
        if isinstance(func, types.FunctionType) and _same_parameters(func):
            return func
        name = getattr(inner, "__qualname__", repr(inner))
        code = getattr(func, "__code__", None)
        where = Location(code.co_filename, code.co_firstlineno) if code else None
        wrapper = getattr(code, "co_qualname", getattr(code, "co_name", type(func).__qualname__))
        raise SrcDiffError(
            f"{name} is wrapped by {wrapper} which may change its result; srcdiff differentiates "
            "source it can see", where,
            f"pass the undecorated function ({name}.__wrapped__) if the decorator does not "
            "change the value",
        )


_PASS_THROUGH_TYPES = {("functools", "_lru_cache_wrapper"), ("numpy", "_ArrayFunctionDispatcher")}
_THROUGH: dict[types.CodeType, bool] = memo.table()  # wrapper code -> whether it passes calls through
_THROUGH_CALLEE: dict[types.CodeType, str] = memo.table()  # ... and the name it calls
_THROUGH_STATE: dict[types.CodeType, set[str]] = memo.table()  # ... and the free names it rebinds


def _transparent(wrapper, inner) -> bool:
    kind = type(wrapper)
    if (kind.__module__.split(".")[0], kind.__name__) in _PASS_THROUGH_TYPES:
        return True
    if not isinstance(wrapper, types.FunctionType):
        return False
    code = wrapper.__code__
    if code not in _THROUGH:
        _THROUGH[code] = _passes_through(wrapper)
    return _THROUGH[code] and _names(wrapper, _THROUGH_CALLEE[code]) is inner \
        and not any(_may_read(inner, name, set()) for name in _THROUGH_STATE[code])


def _may_read(func, name: str, seen: set) -> bool:
    """Whether `func`, or a Python function it names (recursively), may read the free name
    `name`: a wrapper that rebinds it (``global K; K = 7``) changes what the call computes."""
    if not isinstance(func, types.FunctionType) or id(func) in seen:
        return False
    seen.add(id(func))
    codes, names = [func.__code__], set()
    while codes:
        code = codes.pop()
        names |= set(code.co_names) | set(code.co_freevars)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    if name in names:
        return True
    closure = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    for other in names:
        cell = closure.get(other)
        try:
            value = cell.cell_contents if cell is not None else func.__globals__.get(other)
        except ValueError:
            continue
        if _may_read(value, name, seen):
            return True
    return False


def _names(func, name: str):
    """What free name `name` of `func` refers to."""
    closure = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    if name in closure:
        try:
            return closure[name].cell_contents
        except ValueError:
            return MISSING
    return func.__globals__.get(name, MISSING)


def _passes_through(wrapper) -> bool:
    """Whether `wrapper`'s source is ``[harmless statements]; return fn(<params unchanged>)``.

    Harmless: a docstring, ``pass``, ``global``/``nonlocal``, and expression statements
    or assignments to other plain names that do not mention the parameters (logging,
    counters, timers).  Parameters must have no defaults (the wrapped function's apply).
    The name of the function called is remembered in `_THROUGH_CALLEE`.
    """
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(wrapper.__code__)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return False
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef) or node.name != wrapper.__code__.co_name:
        return False
    a = node.args
    if a.defaults or any(d is not None for d in a.kw_defaults):
        return False
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    *before, last = node.body
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Call)
            and isinstance(last.value.func, ast.Name)):
        return False
    call = last.value
    expected_args = [ast.Name(p.arg) for p in a.posonlyargs + a.args]
    if a.vararg:
        expected_args.append(ast.Starred(ast.Name(a.vararg.arg)))
    expected_keywords = [ast.keyword(p.arg, ast.Name(p.arg)) for p in a.kwonlyargs]
    if a.kwarg:
        expected_keywords.append(ast.keyword(None, ast.Name(a.kwarg.arg)))
    if ast.unparse(ast.Call(call.func, expected_args, expected_keywords)) != ast.unparse(call):
        return False
    for stmt in before:
        if not _harmless(stmt, params, params | {call.func.id}):
            return False
    _THROUGH_CALLEE[wrapper.__code__] = call.func.id
    _THROUGH_STATE[wrapper.__code__] = {n for stmt in before if isinstance(stmt, (ast.Global, ast.Nonlocal))
                                        for n in stmt.names}
    return True


def _harmless(stmt: ast.stmt, params: set[str], protected: set[str]) -> bool:
    """A statement that cannot change the call that follows it: it assigns no `protected`
    name, does not mention the parameters, and neither yields nor defines functions."""
    if isinstance(stmt, (ast.Pass, ast.Global, ast.Nonlocal)):
        return not set(stmt.names if not isinstance(stmt, ast.Pass) else ()) & protected
    if isinstance(stmt, ast.Expr):
        targets = []
    elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    else:
        return False
    if not all(isinstance(t, ast.Name) and t.id not in protected for t in targets):
        return False
    nodes = list(ast.walk(stmt.value)) if stmt.value is not None else []
    unsafe = (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr, ast.Lambda)
    return not any(isinstance(n, unsafe) or (isinstance(n, ast.Name) and n.id in params) for n in nodes)


def _same_parameters(func) -> bool:
    """Whether `func` itself takes the parameters its signature reports (which follows
    ``__wrapped__``), with the same defaults, and none of them ``*args``/``**kwargs``."""
    def spelled(sig):
        return [(p.name, p.kind, p.default) for p in sig.parameters.values()]
    try:
        own, reported = inspect.signature(func, follow_wrapped=False), inspect.signature(func)
    except (TypeError, ValueError):
        return False
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in own.parameters.values()):
        return False
    try:
        return spelled(own) == spelled(reported)
    except Exception:  # defaults whose == is not a bool (arrays)
        return False


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
    if func.__code__.co_name == "<lambda>":
        return _lambda_def(module or _lambdas_in(text), func, where)
    if module is None or not module.body:
        raise SrcDiffError(f"cannot parse the source of {func.__qualname__}", where)
    node = module.body[0]
    while isinstance(node, ast.If):  # from the `if True:` wrapper above
        node = node.body[0]
    if isinstance(node, ast.AsyncFunctionDef) or not isinstance(node, ast.FunctionDef):
        raise SrcDiffError(f"cannot find the `def` of {func.__qualname__} in its source", where)
    if node.name != func.__code__.co_name:  # (a wrapper's __name__ is the wrapped function's)
        raise SrcDiffError(
            f"the source found for {func.__name__} defines {node.name}: the file changed "
            "since the function was defined", where, "reload the module",
        )
    return desugared(node, func)


def _lambdas_in(text: str) -> ast.Module | None:
    """The lambdas of lines that are no statement (``"gelu": lambda z: ...,`` of a dict), each
    read up to the longest end that makes it a lambda (``lambda z: z,`` is a tuple)."""
    found = []
    for start in (i for i in range(len(text)) if text.startswith("lambda", i)):
        for end in range(len(text), start, -1):
            with contextlib.suppress(SyntaxError):
                expr = ast.parse(text[start:end].strip(), mode="eval").body
                if isinstance(expr, ast.Lambda):
                    ast.increment_lineno(expr, text.count("\n", 0, start))
                    found.append(ast.Expr(expr))
                    break
    return ast.Module(found, type_ignores=[]) if found else None


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
    fdef = ast.FunctionDef(name="lambda_", args=lam.args, body=[ret], decorator_list=[], returns=None,
                           type_comment=None, lineno=lam.lineno, col_offset=lam.col_offset)
    if hasattr(ast.FunctionDef, "type_params"):
        fdef.type_params = []
    return ast.fix_missing_locations(fdef)


def _file_lines(filename: str, lines: list[str], first: int) -> list[str]:
    import linecache
    all_lines = linecache.getlines(filename)
    if all_lines:
        return all_lines
    return [""] * (first - 1) + list(lines)
