"""A helper called with a function as an argument, bound to that function.

Scientific code passes the right-hand side to its integrator: ``rk4_step(rhs, t, y, h)``.
srcdiff differentiates a call through the callee's source, where ``f(t, y)`` must name a
function it can read.  `with_functions` makes, once per function passed, a copy of the
helper without those parameters whose body reads them from its closure:

    def rk4_step(f, t, y, h): k1 = f(t, y) ...        # called as rk4_step(rhs, t, y, h)
    def rk4_step(t, y, h): k1 = f(t, y) ...           # f: a closure cell holding rhs

so the call ``rk4_step(t, y, h)`` is differentiated like any other, in every transformation.
"""

from __future__ import annotations

import ast
import copy
import inspect
import types
import weakref

from ..ir import memo
from .compiling import compile_function
from .naming import assigned_names, names_in
from .parse import ParsedFunction, parse_function, register

_BOUND: "weakref.WeakKeyDictionary" = memo.table(weak=True)  # function -> {key: function}


def is_passed_function(value) -> bool:
    """Whether `value`, an argument of a call, is a function a helper may call (not a class,
    a module or an array)."""
    return callable(value) and not isinstance(value, (type, types.ModuleType)) and not hasattr(value, "shape")


def binds(func, names: tuple[str, ...]) -> bool:
    """Whether `func`'s parameters `names` can be bound to functions: plain parameters its
    body never assigns."""
    parameters = inspect.signature(func).parameters
    written = assigned_names(parse_function(func).tree)
    return all(n in parameters and parameters[n].kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                          inspect.Parameter.KEYWORD_ONLY)
               and n not in written for n in names)


def with_functions(func, functions: dict):
    """`func` without the parameters `functions` names, which its body reads as those functions."""
    key = tuple(sorted((n, id(f)) for n, f in functions.items()))
    cache = _BOUND.setdefault(func, {})
    found = cache.get(key)
    defaults = (func.__defaults__, func.__kwdefaults__)
    if found is None or found[1] != defaults:
        found = cache[key] = (_build(func, functions), defaults, tuple(functions.values()))
    return found[0]


def functions_in_caller(helper, parsed: ParsedFunction) -> dict[str, str] | None:
    """For a helper bound to the functions a call passes (`with_functions`: each a cell of its closure), the
    names the caller's generated code reads them by, each put in the closure of `parsed` (the caller's, which
    its generated code reads; `closure_name`), so the
    helper's code can be copied into its caller (ad/inline.py); None where a cell holds anything else."""
    code, cells = getattr(helper, "__code__", None), getattr(helper, "__closure__", None) or ()
    try:
        values = {name: cell.cell_contents for name, cell in zip(code.co_freevars, cells)}
    except (AttributeError, ValueError):  # (an empty cell)
        return None
    if not values or not all(is_passed_function(v) for v in values.values()):
        return None
    out = {}
    for name, value in values.items():
        held = next((n for n, c in parsed.closure.items() if _holds(c, value)), None)
        if held is None:
            held = closure_name(parsed, f"{name}_{getattr(value, '__name__', 'function')}")
            while held in parsed.closure:
                held += "_"
            parsed.closure[held] = types.CellType(value)
        out[name] = held
    return out


def _holds(cell, value) -> bool:
    try:
        return cell.cell_contents is value
    except ValueError:
        return False


def closure_name(parsed: ParsedFunction, base: str) -> str:
    """A name for a bound helper in the closure of `parsed` (the caller), free in its code."""
    taken = names_in(parsed.tree) | set(parsed.globals)
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in base)
    while name in taken:
        name += "_"
    return name


def _build(func, functions: dict):
    parsed = parse_function(func)
    tree = copy.deepcopy(parsed.tree)
    a = tree.args
    sig = inspect.signature(parsed.func)
    positional = [p.arg for p in a.posonlyargs + a.args if p.arg not in functions]
    keyword_only = [p for p in a.kwonlyargs if p.arg not in functions]
    defaults = tuple(sig.parameters[n].default for n in positional
                     if sig.parameters[n].default is not inspect.Parameter.empty)
    tree.args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in positional], vararg=None,
                              kwonlyargs=keyword_only, kw_defaults=[None] * len(keyword_only),
                              kwarg=None, defaults=[])
    tree.decorator_list = []
    cells = {**parsed.closure, **{n: types.CellType(f) for n, f in functions.items()}}
    made = compile_function(tree, parsed, cells, defaults)
    kw_defaults = {p.arg: sig.parameters[p.arg].default for p in keyword_only
                   if sig.parameters[p.arg].default is not inspect.Parameter.empty}
    made.__kwdefaults__ = kw_defaults or None
    register(made, ParsedFunction(made, tree, parsed.filename, parsed.file_lines, parsed.globals,
                                  {n: cells[n] for n in made.__code__.co_freevars}))
    return made


__all__ = ["binds", "closure_name", "is_passed_function", "with_functions"]
