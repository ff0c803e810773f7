"""Stage 1: read a function's source and turn it into an AST with the user's line numbers.

Also resolves the names the function reads (closure, globals, builtins) and builds the
user-facing locations every later stage reports errors with (spellings: desugar.py)."""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import dataclasses
import dis
import inspect
import textwrap
import types
import weakref
from dataclasses import dataclass, field

from ..errors import Location, SrcDiffError
from ..ir import memo
from ..ir.shapes import signature
from .compiling import compile_function
from .depends import MISSING, Dependency
from .desugar import desugared
from .generators import generator_error, listed_parsed
from .imports import has_imports, hoisted
from .installed import at_users_line, library_name
from .wrappers import passes_through, same_parameters, spread_wrapper


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
    #: the code object parsed (``func.__code__`` may be replaced later, as a module reloader does)
    code: types.CodeType | None = None
    #: variables a rewrite made for what the user writes otherwise (``d_a`` for ``d['a']``): errors say the latter
    spellings: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.tree.name

    def __post_init__(self):
        if self.code is None:
            self.code = self.func.__code__
        for name in getattr(self.tree, "read_statically", ()):  # a factory a rewrite wrote out (desugar.py)
            self.depend(name, self.resolve(name))

    def location(self, node: ast.AST | int) -> Location:
        """The user's file and line of an AST node (or of a line number)."""
        line = node if isinstance(node, int) else getattr(node, "lineno", self.tree.lineno)
        code = self.file_lines[line - 1] if 0 < line <= len(self.file_lines) else ""
        return Location(self.filename, line, code.rstrip(), tuple(self.spellings.items()))

    def error(self, node: ast.AST | int, message: str, hint: str = "", spellings: dict | None = None) -> SrcDiffError:
        """A refusal at `node`'s line; `spellings`, those of a rewrite under way (else the function's own)."""
        where = self.location(node)
        if spellings:
            where = dataclasses.replace(where, spellings=tuple(spellings.items()))
        return SrcDiffError(message, where, hint)

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
        sig = signature(value)
        # a tuple of numbers cannot change: the one seen holds by identity, before its items are read
        seen = value if type(value) is tuple and getattr(sig, "item", None) in (float, int) else None
        self._add(Dependency(scope, name, sig, of_signature=True, state=seen))

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
    inner = unwrap(func)
    parsed = _parse_unwrapped(inner)
    if inner is not func and isinstance(func, types.FunctionType):  # a pass-through wrapper read through:
        # given other code (``f.__code__ = ...``, a reloader) it may pass through no longer, and what was
        # built from `inner` is then not the wrapper's derivative: its code is a dependency
        parsed._add(Dependency(_Attributes(func), "__code__", func.__code__))
    return parsed


class _Attributes:
    """An object as a dependency's scope: ``get(name)`` is its attribute."""

    def __init__(self, obj):
        self.obj = obj

    def get(self, name, default=None):
        return getattr(self.obj, name, default)


def _parse_unwrapped(func) -> ParsedFunction:
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


#: a function compiled from a rewritten AST -> that AST.  Not a memo table: the function's code *is*
#: that AST for as long as the function lives, so `clear_cache` must not forget it (a gradient made
#: before it would then read the original source of a flattened function, `try` and all)
_REWRITTEN: "weakref.WeakKeyDictionary[types.FunctionType, ParsedFunction]" = weakref.WeakKeyDictionary()


def parsed_at(func, where: Location) -> ParsedFunction:
    """`parse_function(func)` for a call at the user's line `where`: what refuses a library's
    function (SciPy's batching decorator around ``schur``) is named at that line."""
    try:
        return parse_function(func)
    except SrcDiffError as exc:
        name = library_name(func)
        named = at_users_line(exc, where, name)
        if named is None:
            raise
        raise named from None


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
    statements that cannot touch the call (see wrappers.py).  Any other wrapper that
    names the same parameters as the function is differentiated itself (from its own
    source), and so is one taking ``*args``/``**kwargs`` that passes them on whole, read with
    the function's parameters (`spread_wrapper`); any other is refused.
    """
    while True:
        inner = getattr(func, "__wrapped__", MISSING)
        if inner is MISSING:
            return func
        if passes_through(func, inner):
            func = inner
            continue
        if isinstance(func, types.FunctionType) and same_parameters(func):
            return func
        made = _spread(func, inner)
        if made is not None:
            return made
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



_SPREAD: "weakref.WeakKeyDictionary" = memo.table(weak=True)  # wrapper -> (inner, its rewrite)


def _spread(wrapper, inner):
    """`wrapper` (``*args, **kwargs`` passed on whole) compiled with `inner`'s parameters and
    defaults, registered with its AST; None if it is not such a wrapper (wrappers.py)."""
    found = _SPREAD.get(wrapper)
    if found is not None and found[0] is inner:
        return found[1]
    fdef = spread_wrapper(wrapper, inner)
    if fdef is None:
        return None
    code = wrapper.__code__
    closure = dict(zip(code.co_freevars, wrapper.__closure__ or ()))
    lines = _file_lines(code.co_filename, [], 1)
    parsed = ParsedFunction(wrapper, fdef, code.co_filename, lines, wrapper.__globals__, closure)
    sig = inspect.signature(inner)
    defaults = tuple(p.default for p in sig.parameters.values() if p.default is not p.empty)
    made = compile_function(fdef, parsed, closure, defaults)
    fdef = desugared(fdef, made)
    register(made, dataclasses.replace(parsed, func=made, tree=fdef,
                                       closure={n: closure[n] for n in made.__code__.co_freevars}))
    _SPREAD[wrapper] = (inner, made)
    return made


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
    if len(lambdas) > 1:  # several on the line (a dict of activations): the one compiled to func's code
        same = [lam for lam in lambdas if _same_code(lam, func.__code__)]
        lambdas = same[:1] or lambdas  # (several that compile alike compute alike)
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


def _same_code(lam: ast.Lambda, code: types.CodeType) -> bool:
    """Whether `lam` compiles to the instructions, names and constants of `code`: the same
    computation, wherever on the line it is written."""
    cells = [ast.Assign([ast.Name(n, ast.Store())], ast.Constant(None)) for n in code.co_freevars]
    outer = ast.parse("def _outer():\n    pass").body[0]
    outer.body = cells + [ast.Return(copy.deepcopy(lam))]
    try:
        made = compile(ast.fix_missing_locations(ast.Module([outer], [])), "<lambda>", "exec")
    except (SyntaxError, ValueError):
        return False
    inner = next(c for c in made.co_consts if isinstance(c, types.CodeType))
    return _alike(next(c for c in inner.co_consts if isinstance(c, types.CodeType)), code)


def _alike(a: types.CodeType, b: types.CodeType) -> bool:
    """The same instructions on the same names and constants (nested code, a comprehension's,
    compared alike).  A method of an imported module is loaded as an attribute or as a method
    depending on the module the code is compiled in: the two count as one."""
    def steps(code):
        return [("LOAD_ATTR" if i.opname == "LOAD_METHOD" else i.opname, i.argval) for i in dis.get_instructions(code)
                if i.opname not in ("CACHE", "NOP", "RESUME", "PUSH_NULL", "EXTENDED_ARG")]
    mine, theirs = steps(a), steps(b)
    return len(mine) == len(theirs) and all(
        x[0] == y[0] and (_alike(x[1], y[1]) if isinstance(x[1], types.CodeType) and isinstance(y[1], types.CodeType)
                          else type(x[1]) is type(y[1]) and x[1] == y[1]) for x, y in zip(mine, theirs))


def _file_lines(filename: str, lines: list[str], first: int) -> list[str]:
    import linecache
    all_lines = linecache.getlines(filename)
    if all_lines:
        return all_lines
    return [""] * (first - 1) + list(lines)
