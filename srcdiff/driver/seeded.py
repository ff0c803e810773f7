"""``sum(g(x) * cotangent)`` written into a generated gradient's own code: what a batched
Jacobian or Hessian differentiates.

A Jacobian row is the pullback of a basis seed; all rows at once are the gradient of
``sum(f(x) * cotangent)`` with respect to `x`, batched over `cotangent` (driver/batched.py).
For a Hessian, `f` is a gradient srcdiff generated (driver/higher.py): its code is a closure
over srcdiff's helpers, so it cannot be called from another function srcdiff reads.  Its
source is copied instead, the last ``return e`` becoming ``return np.sum(e * cotangent)``;
every line keeps its number, so a refusal still names the user's line.
"""

from __future__ import annotations

import ast

from ..backend import loader
from ..errors import SrcDiffError
from ..frontend import parse
from ..ir import memo
from ..rules import TEMPLATE_GLOBALS
from .cache import CACHE

_MADE: dict = memo.table()  # (function, several) -> its seeded function


def seeded(func, several: bool = False):
    """``func(*params, cotangent)`` returning ``np.sum(func(*params) * cotangent)``; with
    `several` (`func` returns a tuple), ``cotangent`` is a tuple of seeds, one per part."""
    key = (func, several)
    if key in _MADE:
        return _MADE[key]
    parsed = parse.parse_function(func)
    tree = parsed.tree
    last = tree.body[-1]
    if not isinstance(last, ast.Return) or any(isinstance(n, ast.Return) for s in tree.body[:-1] for n in ast.walk(s)):
        raise SrcDiffError(f"{parsed.func.__qualname__}: a batched Jacobian needs one return at the end",
                           hint="the per-row Jacobian is used instead")
    params = [a.arg for a in tree.args.posonlyargs + tree.args.args]
    seed = "cotangent"
    while seed in params or seed in parsed.globals or seed in TEMPLATE_GLOBALS:
        seed += "_"
    lines = list(parsed.file_lines)
    header = lines[tree.lineno - 1].rstrip()
    if tree.lineno != 1 or tree.decorator_list or not header.endswith("):") or tree.args.vararg \
            or tree.args.kwarg or tree.args.kwonlyargs:
        raise SrcDiffError(f"{parsed.func.__qualname__}: not a generated gradient", hint="use contracted")
    lines[0] = header[:-2] + f"{', ' if params else ''}{seed}):"
    value = last.value
    if several:
        if not isinstance(value, ast.Tuple):
            raise SrcDiffError("a batched Jacobian of several results needs a tuple returned",
                               hint="the per-row Jacobian is used instead")
        total = " + ".join(f"np.sum({ast.unparse(e)} * {seed}[{i}])" for i, e in enumerate(value.elts))
    else:
        total = f"np.sum({ast.unparse(value)} * {seed})"
    line = lines[last.lineno - 1]
    indent = line[:len(line) - len(line.lstrip())]
    # the same number of lines: every line keeps its number (and its origin)
    lines[last.lineno - 1:last.end_lineno] = [f"{indent}return {total}"] + [""] * (last.end_lineno - last.lineno)
    source = "\n".join(lines[:last.end_lineno]) + "\n"
    code = (func.__code__.co_freevars, func.__closure__ or ())
    cells = {**TEMPLATE_GLOBALS, **dict(zip(*code))}
    label = f"{parsed.func.__qualname__}_seeded"
    made = loader.build_function(source, label, func.__globals__, cells)
    made.__qualname__ = made.__name__ = label
    new_tree = ast.parse(source).body[0]
    parse.register(made, parse.ParsedFunction(made, new_tree, label, source.splitlines(), func.__globals__,
                                              dict(zip(made.__code__.co_freevars, made.__closure__ or ()))))
    origin = CACHE.generated.get(func.__qualname__)
    if origin is not None:
        CACHE.generated[label] = origin
    _MADE[key] = made
    return made


__all__ = ["seeded"]
