"""One name, one code: the names numba gives the functions srcdiff's overloads make.

numba names compiled code by module, qualified name, a count kept by each process and the
argument types, and its on-disk cache keeps those names.  Two different functions under one
qualified name (the closure an overload factory makes once per ufunc, a function made from
text, always called ``impl``) can then meet under one name: one loaded from the cache
another process wrote, the other compiled here under the same count.  The first one linked
is then called for both, a silently wrong result (numba issue 10486; here it made the
gradient of ``np.sin`` run ``np.tanh`` in a test run on two processes).

So every implementation an overload returns, and every function made from text, is named
by a digest of its code and of the values it reads: the same name means the same code.
Every module of this package imports `overload` from here, never numba's own (a test checks).
"""

from __future__ import annotations

import functools
import hashlib
import types as pytypes

import numpy as np
from numba.extending import overload as numba_overload

#: made functions' globals are this module's name: numba's cache rebuilds a function's
#: environment by importing its module, so the name must be importable
_HOME = __name__


def overload(stub, **options):
    """numba's ``@overload(stub, ...)``, with each implementation the typer returns renamed
    by what it computes (`unique`)."""
    def register(typer):
        @functools.wraps(typer)
        def named(*args, **kwargs):
            impl = typer(*args, **kwargs)
            return impl if impl is None else unique(impl, stub)
        numba_overload(stub, **options)(named)
        return typer
    return register


def made(text: str, name: str = "impl", **scope):
    """The function `name` that `text` defines (text made from types only), its globals
    `scope` and NumPy as ``np``, named by its text and those globals."""
    namespace = {"np": np, **scope, "__name__": _HOME}
    exec(text, namespace)  # noqa: S102  text made from the types alone
    return unique(namespace[name], None)


def compiled(function, owner=None):
    """``numba.njit(function)`` of a function made at run time (a closure, one per SciPy
    function), named by its code first."""
    from numba import njit
    return njit(unique(function, owner))


def unique(function, stub):
    """`function` with a qualified name its code decides, if it is one numba could confuse
    with another (a closure, a lambda, made from text); module-level functions keep theirs."""
    if not isinstance(function, pytypes.FunctionType):
        return function  # a dispatcher or a builtin: numba names it by itself
    qualname = function.__qualname__
    if "<locals>" not in qualname and "<lambda>" not in qualname and function.__module__ != _HOME:
        return function
    digest = hashlib.sha256(_describe(function, 0).encode()).hexdigest()[:16]
    owner = getattr(stub, "__qualname__", "made")
    function.__qualname__ = f"{owner}_{function.__name__}_{digest}".replace("<", "").replace(">", "")
    return function


def _describe(value, depth: int) -> str:
    """A text that differs wherever two values compute differently (deterministic across
    processes: no addresses)."""
    if depth > 6:
        return "..."
    if isinstance(value, pytypes.FunctionType):
        if "<locals>" not in value.__qualname__ and value.__module__ != _HOME and depth:
            return f"function {value.__module__}.{value.__qualname__}"
        code = value.__code__
        cells = [f"{n}={_describe(_contents(c), depth + 1)}" for n, c in zip(code.co_freevars, value.__closure__ or ())]
        read = [f"{n}={_describe(value.__globals__[n], depth + 1)}" for n in code.co_names
                if value.__module__ == _HOME and n in value.__globals__]
        return f"code {_code(code)} cells {cells} globals {read}"
    if isinstance(value, pytypes.ModuleType):
        return f"module {value.__name__}"
    py_func = getattr(value, "py_func", None)  # a numba dispatcher
    if py_func is not None:
        return f"dispatcher {_describe(py_func, depth + 1)}"
    if isinstance(value, np.ufunc):
        return f"ufunc {value.__name__}"
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({', '.join(_describe(v, depth + 1) for v in value)})"
    text = repr(value)
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    return f"{kind} {text}" if " at 0x" not in text else f"{kind} {getattr(value, '__qualname__', '?')}"


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a closure variable not yet bound
        return "<unbound>"


def _code(code) -> str:
    consts = [_code(c) if isinstance(c, pytypes.CodeType) else repr(c) for c in code.co_consts]
    return f"{code.co_name}:{code.co_code.hex()}:{consts}:{code.co_names}:{code.co_varnames}"


__all__ = ["compiled", "made", "overload", "unique"]
