"""A list holding an array and a number, carried through a loop: refused before numba sees it.

numba types every item of a list alike.  A list display of an array and a number (``s = [x, 1.0]``)
is a heterogeneous "literal list" to it; rebound in a loop (``s = [s[0] * 0.9 + np.sin(s[0]),
s[1] * 0.5]``), with the loop's stack of those lists in the gradient, numba's type inference did not
end (minutes of compiling, no answer).  A tuple of the same items compiles: a list only read is
spelled so (list_tuples.py); else the refusal says so, at the user's line of the list.
"""

from __future__ import annotations

import ast

import numpy as np

from ...ir import shapes
from . import kindflow, kinds, list_tuples

REASON = ("a list holding an array and a number is carried through a loop here (numba types a list's "
          "items alike, and its compiler does not finish on this one); write it as a tuple of the same items "
          "(`(x, 1.0)` for `[x, 1.0]`), or leave jit= out")
UNTOLD = ("a list is carried through a loop here whose items srcdiff cannot all tell to be arrays or numbers "
          "(numba types a list's items alike, and its compiler does not finish on a list of both); write it as a "
          "tuple of the same items (`(x, v)` for `[x, v]`), or leave jit= out")
APPENDED = ("this appends an array to a list that holds numbers, or a number to a list that holds arrays "
            "(numba types a list's items alike); keep the numbers and the arrays in two lists, make the numbers "
            "arrays (`np.array([v])`) or the arrays numbers, or leave jit= out")


def carried_mixed_list(func: ast.FunctionDef, key, params: dict | None = None, read_values: dict | None = None,
                       widths: list | None = None) -> tuple[ast.stmt, str] | None:
    """(statement, reason) of the first assignment of `func` of a list display holding an array and a
    number (as kinds.py tells them, the parameters' kinds from the signature `key`, or for a called
    function's adjoint `params`, of `callee_params`; the values it reads from its closure or module,
    `read_values`, of `value_kinds`) in a loop, or to a name a loop rebinds; or of the
    first ``items.append(v)`` of a number to a list that holds an array (or the other way round): numba
    refuses the one at its line with words of its own, and its type inference does not end on the other.
    A carried list of float32 and float64 arrays (numba's compiler does not finish on it either) is not
    refused: it is added to `widths`, and the gradient computes in float64 from the start."""
    names = [a.arg for a in func.args.args]
    env = {n: kinds.of_signature(n, k) for n, k in zip(names, key)} \
        if isinstance(key, tuple) and len(key) == len(names) else dict(params or {})
    env = {**(read_values or {}), **{n: k for n, k in env.items() if k is not None or n not in (read_values or {})}}
    looped = {n.id for loop in ast.walk(func) if isinstance(loop, (ast.For, ast.While))
              for s in loop.body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    while True:
        found = _scan(func.body, env, looped, False, {}, [] if widths is None else widths)
        # a list only read (a constant index, len, saved on the stack) is a tuple (list_tuples.py)
        if found is None or found[1] == APPENDED or not list_tuples.as_tuples(func, found[0]):
            return found


def _scan(stmts: list, env: dict, looped: set, in_loop: bool, held: dict, widths: list) -> tuple[ast.stmt, str] | None:
    """`held`: list name -> the kinds ("array", "number") of the items it was given so far; `widths`
    gets each carried list display of float32 and float64 arrays (not refused: computed in float64)."""
    for stmt in stmts:
        found = None
        if isinstance(stmt, (ast.For, ast.While)):
            inner = dict(env)
            if isinstance(stmt, ast.For):  # (its name: a number of a range, else not known)
                counted = isinstance(stmt.iter, ast.Call) and isinstance(stmt.iter.func, ast.Name) \
                    and stmt.iter.func.id == "range" and isinstance(stmt.target, ast.Name)
                inner.update(dict.fromkeys(kindflow.bound(stmt.target), kinds.NUMBER["i8"] if counted else None))
            found = _scan(stmt.body, kindflow.loop_entry(stmt, inner), looped, True, held, widths)
        elif isinstance(stmt, ast.If):
            found = _scan(stmt.body, env, looped, in_loop, held, widths) \
                or _scan(stmt.orelse, env, looped, in_loop, held, widths)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.List):
            told = [_sort(kinds.of(e, env)) for e in stmt.value.elts]
            items = set(told) - {None}
            for name in (t.id for t in stmt.targets if isinstance(t, ast.Name)):
                held[name] = set(items)
            carried = in_loop or any(n in looped for t in stmt.targets for n in kindflow.bound(t))
            if carried and (len(items) > 1 or items and None in told and not _lists(stmt.value)):
                found = stmt, REASON if len(items) > 1 else UNTOLD
            elif carried and len(_widths(stmt.value, env)) > 1:
                widths.append(stmt)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "append" \
                and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id in held \
                and len(stmt.value.args) == 1 and not stmt.value.keywords:
            items = held[stmt.value.func.value.id]
            items.add(_sort(kinds.of(stmt.value.args[0], env)))
            items.discard(None)
            if len(items) > 1:
                found = stmt, APPENDED
        if found is not None:
            return found
        env = kindflow.effect(stmt, env)
    return None


def callee_params(made, key=None) -> dict[int, dict]:
    """id of each called function's adjoint (a `Variant`) `made` reaches -> its parameters' kinds, from
    the shapes its call was compiled for (the call's `CallSpec`): without them a callee's parameters
    are of no kind, and neither is a list of them that numba's compiler would not finish on.  A Shape
    tells no dtype: the arrays are float32 where every float array of `made`'s signature `key` is."""
    dtype = "f4" if isinstance(key, tuple) and _float32_only(key) else "f8"
    found: dict[int, dict] = {}
    todo, seen = [made], set()
    while todo:
        caller = todo.pop()
        if id(caller) in seen:
            continue
        seen.add(id(caller))
        calls = getattr(caller.program, "calls", {})
        for name, called in caller.callees.items():
            if called.variant is None:
                continue
            spec = calls.get(name)
            if spec is not None and id(called.variant) not in found:
                found[id(called.variant)] = {n: _of_shape(n, s, dtype) for n, s in spec.shapes}
            todo.append(called.variant)
    return found


def value_kinds(function) -> dict:
    """The kinds of the numbers and float arrays the code of `function` reads from its closure or its
    module (a factor ``scale`` a closure holds), and of the tables of numbers and tuples of floats its
    parameters' defaults are (where the signature tells no more than "a tuple"): name -> Kind."""
    code = getattr(function, "__code__", None)
    if code is None:
        return {}
    cells = dict(zip(code.co_freevars, function.__closure__ or ()))
    found = {}
    given = code.co_varnames[:code.co_argcount][-len(function.__defaults__ or ()):] if function.__defaults__ else ()
    for name, value in zip(given, function.__defaults__ or ()):  # a table given as a default (``table=DH``)
        if isinstance(value, (list, tuple)) and _rows_of_numbers(value):
            found[name] = kinds.Items(tuple(kinds.NUMBER["f8" if isinstance(v, (float, np.floating)) else "i8"]
                                            for v in value[0]))
        elif isinstance(value, tuple) and value and all(isinstance(v, (float, np.floating)) for v in value):
            found[name] = (kinds.NUMBER["f8"],) * len(value)  # a tuple of floats (``gaps=(0.1, 0.3)``)
    for name in (*code.co_freevars, *code.co_names):
        try:
            value = cells[name].cell_contents if name in cells else function.__globals__[name]
        except (KeyError, ValueError):  # (not a global; an empty cell)
            continue
        if isinstance(value, (float, np.floating)) or type(value) is int:
            found[name] = kinds.NUMBER["f8" if isinstance(value, (float, np.floating)) else "i8"]
        elif isinstance(value, np.ndarray) and value.ndim > 0 and value.dtype.kind == "f":
            found[name] = _of_shape(name, shapes.Shape(("?",) * value.ndim))
        elif isinstance(value, (list, tuple)) and _rows_of_numbers(value):  # a table: ``DH[i]`` a row of numbers
            found[name] = kinds.Items(tuple(kinds.NUMBER["f8" if isinstance(v, (float, np.floating)) else "i8"]
                                            for v in value[0]))
    return found


def _rows_of_numbers(value) -> bool:
    """Whether `value` holds tuples of Python numbers alike (each position a float everywhere or an
    int everywhere): numba gives an item of it, and each number of an item, one type."""
    rows = [row for row in value if type(row) is tuple]
    if not rows or len(rows) != len(value):
        return False
    def sort(v):
        return "f" if isinstance(v, (float, np.floating)) else "i" if type(v) is int else None
    first = [sort(v) for v in rows[0]]
    return None not in first and all([sort(v) for v in row] == first for row in rows)


def _float32_only(key: tuple) -> bool:
    """Whether the signature `key` has float arrays, all float32 (ir/shapes.py `signature`)."""
    floats = [k[2] for k in key if isinstance(k, tuple) and len(k) == 3 and k[2] in ("f", "f4")]
    return bool(floats) and set(floats) == {"f4"}


def _of_shape(name: str, shape, dtype: str = "f8") -> kinds.Kind | None:
    """A parameter's Kind from its Shape (ir/shapes.py): a number, an array of its number of axes and of
    `dtype`, or None."""
    if shape.scalar:
        return kinds.NUMBER["f8"]
    if shape.known and shape.ndim > 0:
        return kinds.Kind(shape.ndim, dtype, tuple((f"{name}.{axis}", 0) for axis in range(shape.ndim)))
    return None


def _widths(display: ast.List, env: dict) -> set:
    """The float dtypes ("f4", "f8") of the arrays of a list display, as numba computes them."""
    found = (kinds.of(e, env) for e in display.elts)
    return {k.dtype for k in found if isinstance(k, kinds.Kind) and k.array and k.dtype in ("f4", "f8")}


def _lists(display: ast.List) -> bool:
    """Whether an item of the list display is a list display itself (a nested list: refused elsewhere)."""
    return any(isinstance(e, ast.List) for e in display.elts)


def _sort(kind) -> str | None:
    """"array" or "number" for a Kind (None for anything else: a tuple, a kind not told)."""
    if isinstance(kind, kinds.Kind):
        return "array" if kind.array else "number"
    return None


__all__ = ["APPENDED", "REASON", "UNTOLD", "callee_params", "carried_mixed_list", "value_kinds"]
