"""Writes by index in the generated code: in place where nothing else sees the array.

Lowering turns ``y[i] = v`` into the functional ``y_1 = set_item(y, i, v)`` (a copy: the
backward sweep may read the array as it was before the write), and the adjoint of the write
zeroes the written positions on a copy, ``y_bar = zero_item(y_1_bar, i)``.  Read from the
generated code, most of these copies are not needed, and none needs a run-time helper:

* ``y_1 = set_item(y, i, v)`` becomes ``y[i] = v`` (and `y_1` is `y` from then on) where `y`
  is a float array the function made at top level (``np.zeros(n)``, ``x.copy()``) that
  nothing else reads, and `i` holds no index array (`set_item` refuses those: a repeated index would
  lose a gradient);
* in a loop, ``y_2 = set_item(y_1, i, v)`` with ``y_1 = y_2`` carrying it becomes ``y_1[i] = v``
  where the loop reads `y_1` only to write it;
* ``a = zero_item(g, i)`` read only at other constant positions (``a[0]`` after zeroing
  ``[2]``) reads `g` there instead, and goes;
* any other ``a = zero_item(g, i)`` becomes ``a = g.copy()`` and ``a[i] = 0.0``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from . import zeroed_blocks
from .liveness import assigned_name, bodies, is_fresh, nodes
from .statements import mutated

_MAKERS = ("zeros", "ones", "empty")


def write_in_place(func: ast.FunctionDef, is_scalar: Callable[[str], bool],
                   is_float: Callable[[ast.expr], bool]) -> bool:
    """``y_1 = set_item(y, i, v) -> y[i] = v`` where that is safe (module docstring).

    `is_float(expr)` says whether an expression certainly gives floats: then a new array it
    makes (``x * 2.0``) takes a write as a constructor's does."""
    params = _params(func)
    made: set[str] = set()  # float arrays made by a top-level assignment, written in place since
    changed = False
    for index, stmt in enumerate(func.body):
        name = assigned_name(stmt)
        if name is None:
            continue
        if _is_made(stmt.value, is_float) and name not in params:
            made.add(name)
            continue
        call = stmt.value
        if not _helper_call(call, "set_item", 3) or not isinstance(call.args[0], ast.Name):
            continue
        old, where, value = call.args
        where = plain_index(where, is_scalar)
        if old.id not in made or where is None or name in params or _stores(func, name) != 1 \
                or _stores(func, old.id) != 1 or _loads(func, old.id) != 1:
            continue
        target = ast.Subscript(ast.Name(old.id, ast.Load()), where, ast.Store())
        func.body[index] = ast.copy_location(ast.Assign([target], value), stmt)
        _drop_deletes(func, old.id)
        for node in nodes(func):
            if isinstance(node, ast.Name) and node.id == name:
                node.id = old.id
        changed = True
    return changed


def write_in_place_in_loops(func: ast.FunctionDef, is_scalar: Callable[[str], bool],
                            is_float: Callable[[ast.expr], bool]) -> bool:
    """``for ...: y_2 = set_item(y_1, i, v); ...; y_1 = y_2`` -> ``y_1[i] = v`` where `y_1`
    starts as a new float array (read nowhere before the loop) and the loop reads it only to
    write into it: every other read comes after the loop, and sees the last value anyway."""
    made = _made(func, is_float)
    changed = False
    for index, loop in enumerate(func.body):
        if not isinstance(loop, ast.For):
            continue
        for stmt in list(loop.body):
            name = assigned_name(stmt)
            call = getattr(stmt, "value", None)
            if name is None or not _helper_call(call, "set_item", 3) or not isinstance(call.args[0], ast.Name):
                continue
            carried, where = call.args[0].id, plain_index(call.args[1], is_scalar)
            carry = [s for s in loop.body if assigned_name(s) == carried and isinstance(s.value, ast.Name)
                     and s.value.id == name]
            init = [s for s in func.body[:index] if assigned_name(s) == carried]
            if where is None or len(carry) != 1 or len(init) != 1 or _stores(func, carried) != 2 \
                    or _stores(func, name) != 1 or _loads(func, name) != 1 or _loads(loop, carried) != 1:
                continue
            start = init[0].value
            if not (_is_made(start, is_float) or isinstance(start, ast.Name) and start.id in made
                    and _loads(func, start.id) == 1):
                continue
            if any(_loads(s, carried) for s in func.body[func.body.index(init[0]) + 1:index]):
                continue
            target = ast.Subscript(ast.Name(carried, ast.Load()), where, ast.Store())
            loop.body[loop.body.index(stmt)] = ast.copy_location(ast.Assign([target], call.args[2]), stmt)
            loop.body.remove(carry[0])
            changed = True
    return changed


def _made(func: ast.FunctionDef, is_float) -> set[str]:
    """Names a top-level assignment gives a new float array (and nothing else assigns)."""
    params = _params(func)
    return {assigned_name(s) for s in func.body if assigned_name(s) and _is_made(s.value, is_float)
            and assigned_name(s) not in params and _stores(func, assigned_name(s)) == 1}


def _is_made(value: ast.expr, is_float) -> bool:
    copied = _copied(value)
    return _makes_float_array(value) or is_fresh(value) and is_float(value) \
        or copied is not None and is_float(copied)


def read_around_zeroed(func: ast.FunctionDef) -> bool:
    """``a = zero_item(g, 2)`` read only as ``a[0]``, ``a[1]``: those read ``g[0]``, ``g[1]``.

    Constant positions of one depth, none negative, none the zeroed one: they are other
    elements (or rows), which the zeroing left as `g` has them.  `g` must hold one value
    throughout (assigned once at top level, or a parameter, and never changed in place)."""
    changing = mutated(func.body)
    top = {assigned_name(stmt) for stmt in func.body} - {None}
    params = _params(func)
    changed = False
    for stmt in list(func.body):
        name = assigned_name(stmt)
        call = getattr(stmt, "value", None)
        if name is None or not _helper_call(call, "zero_item", 2) or not isinstance(call.args[0], ast.Name):
            continue
        g, zeroed = call.args[0].id, _positions(call.args[1])
        if zeroed is None or g in changing or name in changing or _stores(func, name) != 1:
            continue
        if not (g in params and _stores(func, g) == 0 or g in top and _stores(func, g) == 1):
            continue
        reads = [n for n in nodes(func) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)
                 and isinstance(n.value, ast.Name) and n.value.id == name]
        if len(reads) != _loads(func, name):
            continue  # read as a whole somewhere
        if not all(_positions(r.slice) is not None and len(_positions(r.slice)) == len(zeroed)
                   and _positions(r.slice) != zeroed for r in reads):
            continue
        for r in reads:
            r.value = ast.Name(g, ast.Load())
        func.body.remove(stmt)
        changed = True
    return zeroed_blocks.read_around_zeroed_blocks(func) or changed  # (blocks cut by a bound, in loops too)


def zero_on_copies(func: ast.FunctionDef, is_array: Callable[[str], bool]) -> bool:
    """``a = zero_item(g, i)`` -> ``a = g.copy()`` and ``a[i] = 0.0`` (plain NumPy)."""
    changed = False
    for block in bodies(func.body):
        for stmt in list(block):
            name = assigned_name(stmt)
            call = getattr(stmt, "value", None)
            if name is None or not _helper_call(call, "zero_item", 2):
                continue
            g, where = call.args
            if isinstance(g, ast.Name) and is_array(g.id):
                stmt.value = ast.Call(ast.Attribute(g, "copy", ast.Load()), [], [])
            else:  # maybe a number: an array of floats all the same
                stmt.value = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "array", ast.Load()), [g],
                                      [ast.keyword("dtype", ast.Name("float", ast.Load()))])
            write = ast.Assign([ast.Subscript(ast.Name(name, ast.Load()), unwrapped_index(where), ast.Store())],
                               ast.Constant(0.0))
            block.insert(block.index(stmt) + 1, ast.copy_location(write, stmt))
            changed = True
    return changed


def _params(func: ast.FunctionDef) -> set[str]:
    args = func.args
    return {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}


def _helper_call(expr, name: str, count: int) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == name \
        and len(expr.args) == count and not expr.keywords


def _makes_float_array(expr: ast.expr) -> bool:
    """``np.zeros(shape)``, ``np.ones``, ``np.empty`` (float64 unless told), or with
    ``dtype=float``; ``np.full(shape, 0.5)`` with a float constant."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np"):
        return False
    keywords = {k.arg: ast.unparse(k.value) for k in expr.keywords}
    if any(k != "dtype" for k in keywords) or keywords.get("dtype", "float") not in ("float", "np.float64"):
        return False
    if expr.func.attr in _MAKERS:
        return len(expr.args) == 1
    return expr.func.attr == "full" and len(expr.args) == 2 and isinstance(expr.args[1], ast.Constant) \
        and type(expr.args[1].value) is float


def _copied(expr: ast.expr) -> ast.expr | None:
    """`e` when `expr` is ``e.copy()``."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "copy" \
            and not expr.args and not expr.keywords:
        return expr.func.value
    return None


def unwrapped_index(where: ast.expr) -> ast.expr:
    """The index itself: ``np.s_[1:, 0]`` is ``1:, 0``."""
    if isinstance(where, ast.Subscript) and isinstance(where.value, ast.Attribute) and where.value.attr == "s_" \
            and isinstance(where.value.value, ast.Name) and where.value.value.id == "np":
        return where.slice
    return where


def plain_index(where: ast.expr, is_scalar: Callable[[str], bool]) -> ast.expr | None:
    """The index `where` spells (``np.s_`` unwrapped) when it holds no index array: ints,
    numbers' names and slices of them; else None."""
    where = unwrapped_index(where)

    def plain(e) -> bool:
        if e is None:
            return True
        if isinstance(e, ast.Constant):
            return type(e.value) is int or e.value is Ellipsis
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return plain(e.operand)
        if isinstance(e, ast.Name):
            return is_scalar(e.id)
        if isinstance(e, ast.Slice):
            return plain(e.lower) and plain(e.upper) and plain(e.step)
        if isinstance(e, ast.Tuple):
            return all(plain(p) for p in e.elts)
        return False

    return where if plain(where) else None


def _positions(where: ast.expr) -> tuple[int, ...] | None:
    """``2`` or ``(0, 1)``: non-negative constant positions, as a tuple; else None."""
    parts = where.elts if isinstance(where, ast.Tuple) else [where]
    if not all(isinstance(p, ast.Constant) and type(p.value) is int and p.value >= 0 for p in parts):
        return None
    return tuple(p.value for p in parts)


def _loads(tree: ast.AST, name: str) -> int:
    """Reads of `name` in `tree`, not counting those that write into it (``name[i] = v``)."""
    written = {id(n.value) for n in nodes(tree) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)}
    return sum(1 for n in nodes(tree) if isinstance(n, ast.Name) and n.id == name
               and isinstance(n.ctx, ast.Load) and id(n) not in written)


def _stores(func: ast.FunctionDef, name: str) -> int:
    return sum(1 for n in nodes(func) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store))


def _drop_deletes(func: ast.FunctionDef, name: str) -> None:
    """Remove `name` from every ``del`` (it holds the array its writes now go into)."""
    for block in bodies(func.body):
        for stmt in list(block):
            if isinstance(stmt, ast.Delete):
                stmt.targets = [t for t in stmt.targets if not (isinstance(t, ast.Name) and t.id == name)]
                if not stmt.targets:
                    block.remove(stmt)
