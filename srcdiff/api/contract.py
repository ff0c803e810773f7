"""``sum(f(x) * cotangent)`` as a function srcdiff reads: what `jacobian(jacobian(f))` differentiates.

The derivative of a Jacobian is, per output element i, the Hessian of ``f(x)[i]``: the
Hessian of ``sum(f(x) * e_i)``.  `contracted(f)` writes that function as source that calls
`f` (a helper call srcdiff differentiates like any other), compiles and registers it, so the
Hessian machinery (generated gradient, differentiated again) applies unchanged.
"""

from __future__ import annotations

import ast
import inspect
import weakref

import numpy as np

from ..errors import SrcDiffError
from ..frontend import parse
from ..ir import memo

_MADE: "weakref.WeakKeyDictionary" = memo.table(weak=True)


def contracted(func):
    """``def <f>_dot(<f's parameters>, cotangent): return np.sum(<f>(<parameters>) * cotangent)``."""
    found = _MADE.get(func)
    if found is not None:
        return found
    name = getattr(func, "__name__", "")
    if not inspect.isfunction(func) or not name.isidentifier():
        raise SrcDiffError("jacobian(jacobian(f)) takes a function defined with def",
                           hint="define f with def, or use srcdiff.hessian on each output")
    params = list(inspect.signature(func).parameters)
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in inspect.signature(func).parameters.values()):
        raise SrcDiffError("jacobian(jacobian(f)) takes a function without *args or **kwargs",
                           hint="name f's parameters, or use srcdiff.hessian on each output")
    cotangent = "cotangent"
    while cotangent in params or cotangent in (name, "np"):
        cotangent += "_"
    args = ", ".join(params)
    keyword_only = {n for n, p in inspect.signature(func).parameters.items() if p.kind is p.KEYWORD_ONLY}
    passed = ", ".join(f"{n}={n}" if n in keyword_only else n for n in params)
    # In f's own globals when f is found there by its name (then srcdiff copies f's body into
    # the wrapper, as it does for any small helper of the same module); else a scope of its own.
    scope = func.__globals__
    numpy = next((k for k, v in scope.items() if v is np and k.isidentifier()), None)
    if scope.get(name) is not func or numpy is None:
        scope, numpy = {name: func, "np": np}, "np"
    source = (f"def {name}_dot({args}{', ' if args else ''}{cotangent}):\n"
              f"    return {numpy}.sum({name}({passed}) * {cotangent})\n")
    # The wrapper's two lines are placed at f's `def` line, in f's file: an error in f's body
    # copied into it then names f's own line, as it does in grad(f).
    filename, file_lines, line = _home(func, name, source)
    tree = ast.parse(source)
    ast.increment_lineno(tree, line - 1)
    space: dict = {}
    exec(compile(tree, filename, "exec"), scope, space)  # noqa: S102 - srcdiff's own two lines
    made = space[f"{name}_dot"]
    made.__defaults__ = None
    parse.register(made, parse.ParsedFunction(made, tree.body[0], filename, file_lines, scope))
    _MADE[func] = made
    return made


def _home(func, name: str, source: str) -> tuple[str, list[str], int]:
    """The file, its lines and the line the wrapper is compiled at: f's `def` line in f's file,
    or a label of its own when f's source cannot be read (then f is refused as usual)."""
    try:
        parsed = parse.parse_function(func)
    except SrcDiffError:
        return f"<srcdiff {name} contracted>", source.splitlines(), 1
    return parsed.filename, parsed.file_lines, parsed.tree.lineno


def contracted_arguments(func, args: tuple, kwargs: dict, cotangent) -> tuple:
    """The positional arguments of `contracted(func)` for the call ``func(*args, **kwargs)``:
    every parameter of `func` in order (the defaults the call leaves out filled in, since the
    contracted function has none), then `cotangent`."""
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    return (*bound.arguments.values(), cotangent)


__all__ = ["contracted", "contracted_arguments"]
