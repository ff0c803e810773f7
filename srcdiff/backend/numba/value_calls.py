"""A function of the user's that the gradient calls for its value alone, compiled by numba too
(module.py asks `compiled` before it refuses such a call).

The gradient calls a helper of yours as a Python function where no derivative flows through
the call: the test of a ``while`` loop (``while _quadratic(x - t * g) > fx - c * t * g @ g``, a
line search), a value only compared.  numba compiles the generated code, not the functions it
calls; such a helper is plain NumPy and Python, so numba compiles it as it stands
(``numba.njit`` of the function the Python gradient calls), and the gradient receives it as an
argument, read on every call like any global it reads.  numba's semantics are checked on the
first call of each kind of arguments, as for all compiled code (first_call.py); what numba
cannot compile in the helper is refused at the helper's line.

Only a function the code calls and reads no other way, that is not a library's (NumPy's,
SciPy's: those are numba's or refused as before), has no closure and reads no global but NumPy,
math and their functions, is compiled so: numba freezes what a function reads when it compiles
it, and srcdiff reads a global of yours on every call.
"""

from __future__ import annotations

import ast
import hashlib
import types

from ...ir import memo
from .naming import compiled as compiled_function

#: the packages whose Python functions are not the user's: left to the refusal they had
LIBRARIES = ("numpy", "scipy", "srcdiff", "numba", "builtins", "math")

#: each helper of the user's compiled here -> its numba dispatcher (emptied by clear_cache)
_COMPILED = memo.table(weak=True)


def _only_called(tree: ast.AST, name: str) -> bool:
    """Whether every read of `name` in `tree` is the function of a call with plain arguments."""
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id == name and not any(isinstance(a, ast.Starred) for a in n.args)}
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]
    return bool(reads) and all(id(n) in called for n in reads)


def _library(value) -> bool:
    return isinstance(value, types.ModuleType) and value.__name__.split(".")[0] in ("numpy", "math") \
        or not isinstance(value, types.ModuleType) and callable(value) \
        and (getattr(value, "__module__", None) or "").split(".")[0] in ("numpy", "math", "builtins")


def _reads_only_libraries(value: types.FunctionType) -> bool:
    """Whether the globals `value` reads are NumPy, math and their functions: numba freezes the
    globals a function reads when it compiles it, and these never change (a global array or a
    number of yours is read on every call by srcdiff's code, which a frozen copy would not)."""
    names = set(value.__code__.co_names)
    return all(_library(value.__globals__[n]) for n in names if n in value.__globals__)


def compiled(value, tree: ast.AST, name: str):
    """``numba.njit(value)`` if `value` is a user's Python function that `tree` only calls, by
    `name`, and that reads no global of the user's; None otherwise."""
    if not isinstance(value, types.FunctionType) or value.__closure__ \
            or (value.__module__ or "").split(".")[0] in LIBRARIES or not _only_called(tree, name) \
            or not _reads_only_libraries(value):
        return None
    found = _COMPILED.get(value)
    if found is None:
        found = _COMPILED[value] = compiled_function(value)
    return found


def passes_compiled(env) -> bool:
    """Whether the module argument `env` (module.py's `Env`) is a helper compiled here: numba's
    on-disk cache keys a compiled function passed as an argument by the object, so a new process
    would add an entry to the cache on each run and never read one; such a module is compiled
    in each process instead (as a recursive one is)."""
    value = env.scope.get(env.name) if isinstance(env.scope, dict) else None
    return value is not None and any(value is made for made in _COMPILED.values())


def _described(code: types.CodeType) -> str:
    """`code`'s instructions, names and constants, nested code described alike (a code
    object's repr holds its address, which differs from one process to the next)."""
    consts = [_described(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts]
    return repr((code.co_code, consts, code.co_names))


def digest(value: types.FunctionType) -> str:
    """A short digest of `value`'s code, constants and defaults: numba compiles the helper into
    the gradient, so the gradient's module (named by its text) must change when the helper does."""
    text = _described(value.__code__) + repr(value.__defaults__)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


__all__ = ["compiled", "digest", "passes_compiled"]
