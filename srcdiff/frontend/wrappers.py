"""Wrappers made with ``functools.wraps``: which ones srcdiff looks through, and which it reads.

`passes_through` tells a wrapper that provably passes the call through unchanged (a cache, a
NumPy dispatcher, ``return wrapped(<its parameters>)`` after harmless statements);
`same_parameters` one that takes the parameters of the function it wraps (differentiated
itself); `spread_wrapper` one written ``def wrapper(*args, **kwargs)`` whose body passes
``*args, **kwargs`` on unchanged: it is read as the same body with the wrapped function's
parameters (frontend/parse.py compiles it)::

    def halved(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):              def wrapper(w, X):
            return 0.5 * fn(*args, **kwargs)  ==>      return 0.5 * fn(w, X)
        return wrapper

A wrapper's leading parameters (``def inner(x, *args, **kwargs): return fn(np.clip(x, lo, hi), *args,
**kwargs)``) are the wrapped function's first ones, renamed to theirs.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types

from ..ir import memo
from .depends import MISSING
from .naming import names_in

_PASS_THROUGH_TYPES = {("functools", "_lru_cache_wrapper"), ("numpy", "_ArrayFunctionDispatcher")}
_THROUGH: dict[types.CodeType, bool] = memo.table()  # wrapper code -> whether it passes calls through
_THROUGH_CALLEE: dict[types.CodeType, str] = memo.table()  # ... and the name it calls
_THROUGH_STATE: dict[types.CodeType, set[str]] = memo.table()  # ... and the free names it rebinds


def passes_through(wrapper, inner) -> bool:
    """Whether the wrapper `wrapper` of `inner` provably passes every call through unchanged."""
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


def same_parameters(func) -> bool:
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


def spread_wrapper(wrapper, inner) -> ast.FunctionDef | None:
    """The ``def`` of `wrapper` (``def w(*args, **kwargs)``, or ``def w(x, *args, **kwargs)``: its
    leading parameters are `inner`'s first ones, renamed so; lines as in its file) with `inner`'s
    parameters in place of ``*args, **kwargs``; None unless every use of ``args`` and
    ``kwargs`` passes them on whole (``f(*args, **kwargs)``), so that the two compute the same
    for every call, and `inner` takes plain parameters whose names the wrapper does not use."""
    if not isinstance(wrapper, types.FunctionType) or not callable(inner):
        return None
    try:
        lines, first = inspect.getsourcelines(wrapper.__code__)
        tree = ast.parse(textwrap.dedent("".join(lines)))
        params = list(inspect.signature(inner).parameters.values())
    except (OSError, TypeError, ValueError, SyntaxError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef) or node.name != wrapper.__code__.co_name:
        return None
    a = node.args
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(node)):
        return None  # it rebinds what the call may read: refused with the hint to pass __wrapped__
    if a.posonlyargs or a.kwonlyargs or a.defaults or not (a.vararg or a.kwarg) or len(a.args) > len(params) \
            or any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params):
        return None
    star, stars = (a.vararg.arg if a.vararg else None), (a.kwarg.arg if a.kwarg else None)
    names = [p.name for p in params]
    lead = {p.arg: name for p, name in zip(a.args, names)}  # ``def inner(x, *args, **kwargs)``: x is the first
    used = names_in(node) | set(wrapper.__code__.co_freevars) | set(wrapper.__code__.co_names)
    if any(name in used - {own} for own, name in lead.items()) or set(names[len(lead):]) & used:
        return None  # a parameter named like a name the wrapper reads: renaming would change it
    spread = _Spread(star, stars, names[len(lead):])
    node.body = [spread.visit(_Renamed(lead).visit(s)) for s in node.body]
    if not spread.ok or any(isinstance(n, ast.Name) and n.id in (star, stars) for n in ast.walk(node)):
        return None
    node.args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None, kwonlyargs=[],
                              kw_defaults=[], kwarg=None, defaults=[])
    node.decorator_list = []
    ast.increment_lineno(tree, first - 1)
    return ast.fix_missing_locations(node)


class _Renamed(ast.NodeTransformer):
    """The wrapper's leading parameters under the wrapped function's names."""

    def __init__(self, names: dict):
        self.names = names

    def visit_Name(self, node: ast.Name):
        return ast.copy_location(ast.Name(self.names[node.id], node.ctx), node) if node.id in self.names else node


class _Spread(ast.NodeTransformer):
    """``f(*args, **kwargs)`` as ``f(p0, p1, ...)``; `ok` False where a call passes only one of them."""

    def __init__(self, star, stars, names):
        self.star, self.stars, self.names, self.ok = star, stars, names, True

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        starred = [a for a in node.args if isinstance(a, ast.Starred) and isinstance(a.value, ast.Name)
                   and a.value.id == self.star]
        splat = [k for k in node.keywords if k.arg is None and isinstance(k.value, ast.Name)
                 and k.value.id == self.stars]
        if not starred and not splat:
            return node
        if len(starred) != (self.star is not None) or len(splat) != (self.stars is not None) \
                or (starred and node.args[-1] is not starred[0]) or len(node.keywords) != len(splat):
            self.ok = False  # (*args alone would drop keywords the call was given)
            return node
        node.args = [a for a in node.args if a is not (starred[0] if starred else None)] \
            + [ast.Name(n, ast.Load()) for n in self.names]
        node.keywords = []
        return node
