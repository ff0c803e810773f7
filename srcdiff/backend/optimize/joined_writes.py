"""A join of an array's own ends around a new middle is a copy of the array written into.

``np.concatenate([u[:1], m, u[-1:]])`` where the pieces take u's whole first axis (same-shape
classes: shape_classes.py) keeps u's end elements where they were: it is ``y = u.copy()`` then
``y[1:-1] = m`` — a copy and one write instead of a new array filled piece by piece, and a
write carried_writes.py can then make in place in a loop that carries u (no new array per
step).  Each piece that is a slice of u itself at the place the join puts it stays in the copy;
every other piece is written at its place (bounds constant for every length u's first axis
may have: shape_pieces.constant_bound).

The join's dtype is that of its pieces together; the copy has u's.  So every piece written must
certainly have u's dtype: u holds floats, and the piece is arithmetic (or a NumPy function of
one number, not a comparison) on slices of u, values computed so, numeric constants and
arguments that are Python numbers, which NumPy never lets change an array's floating dtype.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from . import carried_writes
from .liveness import assigned_name, bodies, writes
from .shape_classes import ShapeClasses
from .shape_pieces import constant_bound, same_places, tiles
from .simplify import is_float, numeric_ufunc


def joins_as_writes(func: ast.FunctionDef, classes: ShapeClasses, float_names: Callable[[str], bool],
                    weak: Callable[[str], bool]) -> bool:
    """Rewrite each join described above; True if any.  `float_names`: whether a name certainly holds
    floats (carried_writes.float_arrays grows them); `weak`: whether a name is an argument that is
    a Python number."""
    float_arrays = None
    changed = False
    for block in bodies(func.body):
        for index in range(len(block) - 1, -1, -1):
            stmt = block[index]
            call = getattr(stmt, "value", None)
            if assigned_name(stmt) is not None and isinstance(call, ast.Call) and not call.keywords \
                    and ast.unparse(call.func) == "np.concatenate" and len(call.args) == 1 \
                    and isinstance(call.args[0], (ast.List, ast.Tuple)):
                if float_arrays is None:
                    float_arrays = carried_writes.float_arrays(func, lambda e: is_float(e, float_names))
                found = _writes(block[:index], call.args[0].elts, classes, float_arrays, weak)
                if found is not None:
                    source, written = found
                    name = assigned_name(stmt)
                    stmt.value = ast.Call(ast.Attribute(ast.Name(source, ast.Load()), "copy", ast.Load()), [], [])
                    block[index + 1:index + 1] = [
                        ast.copy_location(ast.Assign([ast.Subscript(ast.Name(name, ast.Load()), place, ast.Store())],
                                                     value), stmt) for place, value in written]
                    changed = True
    return changed


def _writes(before: list[ast.stmt], operands: list[ast.expr], classes: ShapeClasses, float_arrays: set[str],
            weak) -> tuple[str, list] | None:
    """(the array the join copies, [(place, value) written]), or None where it is no such join."""
    pieces = [classes.piece(e) for e in operands]
    bases = {base for base, _ in pieces}
    if None in bases or len(bases) != 1:
        return None
    base = bases.pop()
    dims = classes.dims(base)
    own = [_own_slice(e, before) for e in operands]
    sources = {name for name, _ in filter(None, own)}
    if not dims or not tiles([p for _, p in pieces], dims[0]) or len(sources) != 1 \
            or classes.of(ast.Name(next(iter(sources)), ast.Load())) != base:
        return None  # (the pieces must make an array of u's shape: the copy's)
    source = sources.pop()
    if source not in float_arrays:
        return None
    written = []
    for i, (operand, found) in enumerate(zip(operands, own)):
        start = constant_bound([p for _, p in pieces[:i]], 0, dims[0])
        stop = constant_bound([p for _, p in pieces[:i + 1]], 0, dims[0])
        if start is None or stop is None:
            return None
        place = ast.Slice(_bound(start[0], 0), _bound(stop[0], None))
        if found is not None and same_places(found[1], place, dims[0]):
            continue  # u's own elements where the join puts them: in the copy already
        if _dtype_of(operand, source, before, weak) != "array":
            return None
        written.append((place, operand))
    return (source, written) if len(written) < len(operands) else None


def _bound(value: int | None, default: int | None) -> ast.expr | None:
    if value is None or value == default:
        return None
    return ast.Constant(value) if value >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-value))


def _definition(name: str, before: list[ast.stmt]) -> ast.expr | None:
    """The value `before` last binds to `name`, if nothing after it writes the names it reads."""
    for position in range(len(before) - 1, -1, -1):
        if assigned_name(before[position]) == name:
            value = before[position].value
            read = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
            if any(read & writes(s) for s in before[position + 1:]):
                return None
            return value
        if name in writes(before[position]):
            return None
    return None


def _own_slice(expr: ast.expr, before: list[ast.stmt]) -> tuple[str, ast.Slice] | None:
    """(u, s) when `expr` is ``u[s]`` (a slice of the first axis), or a name bound to one."""
    if isinstance(expr, ast.Name):
        expr = _definition(expr.id, before)
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and isinstance(expr.slice, ast.Slice):
        return expr.value.id, expr.slice
    return None


def _dtype_of(expr: ast.expr, source: str, before: list[ast.stmt], weak, depth: int = 0) -> str | None:
    """"array" for a value certainly of `source`'s dtype, "number" for a number that cannot change
    it (a numeric constant, a Python number argument), None for anything else."""
    if isinstance(expr, ast.Constant):
        return "number" if type(expr.value) in (int, float) else None
    if isinstance(expr, ast.Name):
        if expr.id == source:
            return "array"
        if weak(expr.id):
            return "number"
        value = _definition(expr.id, before) if depth < 8 else None
        return _dtype_of(value, source, before, weak, depth + 1) if value is not None else None
    if isinstance(expr, ast.Subscript):
        return "array" if isinstance(expr.value, ast.Name) and expr.value.id == source \
            and isinstance(expr.slice, ast.Slice) else None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _dtype_of(expr.operand, source, before, weak, depth)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
        kinds = {_dtype_of(expr.left, source, before, weak, depth), _dtype_of(expr.right, source, before, weak, depth)}
        return None if None in kinds else "array" if "array" in kinds else "number"
    if numeric_ufunc(expr) and len(expr.args) == 1:
        return _dtype_of(expr.args[0], source, before, weak, depth)
    return None



