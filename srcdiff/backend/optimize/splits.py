"""``np.split`` into equal sections, and its adjoint, written the way a hand does.

``np.split(x, 4, axis=1)`` costs tens of microseconds whatever the size of `x` (it swaps axes
and slices in Python, piece by piece), which in a recurrent cell's step is as much as a
matrix product.  Its pieces are the slices ``x[:, :n]``, ``x[:, n:2 * n]``, ... of
``n = x.shape[1] // 4``: `slice_sections` writes them so, and calls ``np.split`` only where the
length does not divide (where it raises, as the user's function does).

The adjoint is a list of the pieces' adjoints, each added to ``0.0`` (a copy of each array),
then joined by ``split_adjoint``: `join_adjoints` passes the pieces' adjoints to it as one
list instead, ``split_adjoint([zi_bar, zf_bar], t4, 1)``.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from ...ir.shapes import Shape
from .liveness import bodies, fresh_name, is_comment, nodes, single_definitions

#: more sections than this stay ``np.split`` (the list of slices would be long to read)
#: the calls these passes rewrite: where none is spelled, they have nothing to do
CALLS = frozenset({"split", "split_adjoint"})

MOST_SECTIONS = 8


def join_adjoints(func: ast.FunctionDef) -> bool:
    """``L = [0.0] * len(P)``, ``L[k] += e_k`` (each k once), ``X = split_adjoint(L, P, A)`` of a
    `P` made by ``np.split`` into a known number of pieces: ``X = split_adjoint([e_0, ...], P, A)``."""
    definitions = single_definitions(func)
    counts: dict[str, int] = {}
    for n in nodes(func):
        if isinstance(n, ast.Name):
            counts[n.id] = counts.get(n.id, 0) + 1
    changed = False
    for block in bodies(func.body):
        i = 0
        while i < len(block):
            found = _joined(block, i, definitions, counts)
            if found is None:
                i += 1
                continue
            end, assign = found
            block[i:end + 1] = [assign]
            changed = True
            i += 1
    return changed


def _joined(block: list[ast.stmt], i: int, definitions: dict, counts: dict):
    """The statements from `i` that build a split's adjoint list: (index of the join, its new form)."""
    stmt = block[i]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    name, value = stmt.targets[0].id, stmt.value
    pieces = _zeros_like_list(value)
    if pieces is None or _sections(definitions.get(pieces)) is None:
        return None
    count = _sections(definitions[pieces])
    parts: dict[int, ast.expr] = {}
    j = i + 1
    while j < len(block):
        s = block[j]
        if is_comment(s):
            j += 1
            continue
        if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and isinstance(s.target, ast.Subscript) \
                and isinstance(s.target.value, ast.Name) and s.target.value.id == name \
                and isinstance(s.target.slice, ast.Constant) and type(s.target.slice.value) is int \
                and 0 <= s.target.slice.value < count and s.target.slice.value not in parts \
                and not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(s.value)):
            parts[s.target.slice.value] = s.value
            j += 1
            continue
        break
    if j >= len(block) or not parts:
        return None
    join = block[j]
    if not (isinstance(join, ast.Assign) and isinstance(join.value, ast.Call)
            and isinstance(join.value.func, ast.Name) and join.value.func.id == "split_adjoint"
            and len(join.value.args) == 3 and isinstance(join.value.args[0], ast.Name)
            and join.value.args[0].id == name and isinstance(join.value.args[1], ast.Name)
            and join.value.args[1].id == pieces):
        return None
    if counts.get(name, 0) != 2 + len(parts):  # the list is read nowhere else
        return None
    listed = ast.List([parts.get(k, ast.Constant(0.0)) for k in range(count)], ast.Load())
    new = copy.copy(join)
    new.value = ast.Call(join.value.func, [listed, *join.value.args[1:]], [])
    return j, new


def _zeros_like_list(value: ast.expr) -> str | None:
    """``[0.0] * len(P)``: P."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and isinstance(value.left, ast.List) \
            and len(value.left.elts) == 1 and isinstance(value.left.elts[0], ast.Constant) \
            and value.left.elts[0].value == 0.0 and isinstance(value.right, ast.Call) \
            and isinstance(value.right.func, ast.Name) and value.right.func.id == "len" \
            and len(value.right.args) == 1 and isinstance(value.right.args[0], ast.Name):
        return value.right.args[0].id
    return None


def _split_call(value) -> tuple[ast.expr, object, int] | None:
    """``np.split(x, sections, axis)``: (x, sections, axis) with sections and axis constants."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "split"
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "np" and 2 <= len(value.args) <= 3):
        return None
    axis = value.args[2] if len(value.args) == 3 else ast.Constant(0)
    for k in value.keywords:
        if k.arg != "axis" or len(value.args) == 3:
            return None
        axis = k.value
    sections = value.args[1]
    if not (isinstance(axis, ast.Constant) and type(axis.value) is int):
        return None
    if isinstance(sections, ast.Constant) and type(sections.value) is int and sections.value > 0:
        return value.args[0], sections.value, axis.value
    if isinstance(sections, (ast.List, ast.Tuple)):
        return value.args[0], sections, axis.value
    return None


def _sections(value) -> int | None:
    """How many pieces ``np.split`` makes in `value`, where that is written out."""
    found = _split_call(value)
    if found is None:
        return None
    sections = found[1]
    return sections if isinstance(sections, int) else len(sections.elts) + 1


def slice_sections(func: ast.FunctionDef, shape_of: Callable[[str], Shape]) -> bool:
    """``P = np.split(x, k, axis=a)`` with k a number and x certainly an ndarray (`shape_of` gives
    the names' shapes): the list of the k slices (see the module)."""
    taken = {n.id for n in nodes(func) if isinstance(n, ast.Name)} | {a.arg for a in func.args.args}
    changed = False
    for block in bodies(func.body):
        i = 0
        while i < len(block):
            stmt = block[i]
            found = _split_call(stmt.value) if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) else None
            if found is None or not isinstance(found[1], int) or found[1] > MOST_SECTIONS \
                    or not _is_array(found[0], shape_of):
                i += 1
                continue
            whole, count, axis = found
            name = stmt.targets[0].id
            new = []
            if not isinstance(whole, ast.Name):
                bound = fresh_name(f"{name}_whole", taken)
                new.append(_assign(bound, whole, stmt))
                whole = ast.Name(bound, ast.Load())
            width = fresh_name(f"{name}_width", taken)
            length = ast.Subscript(ast.Attribute(whole, "shape", ast.Load()), ast.Constant(axis), ast.Load())
            new.append(_assign(width, ast.BinOp(length, ast.FloorDiv(), ast.Constant(count)), stmt))
            pieces = ast.List([_piece(whole, axis, k, count, width) for k in range(count)], ast.Load())
            divides = ast.Compare(ast.BinOp(ast.Constant(count), ast.Mult(), ast.Name(width, ast.Load())),
                                  [ast.Eq()], [copy.deepcopy(length)])
            fallback = ast.Call(stmt.value.func, [whole, ast.Constant(count)],
                                [ast.keyword("axis", ast.Constant(axis))])
            new.append(_assign(name, ast.IfExp(divides, pieces, fallback), stmt))
            block[i:i + 1] = new
            i += len(new)
            changed = True
    return changed


def _is_array(expr: ast.expr, shape_of: Callable[[str], Shape]) -> bool:
    """Certainly an ndarray (whose ``.shape`` the slices read): a name of a known array shape, or
    arithmetic with one (not a list, which ``np.split`` would take too)."""
    if isinstance(expr, ast.Name):
        shape = shape_of(expr.id)
        return shape.known and not shape.scalar and shape.ndim > 0
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult)):
        return _is_array(expr.left, shape_of) or _is_array(expr.right, shape_of)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _is_array(expr.operand, shape_of)
    return False


def _piece(whole: ast.Name, axis: int, k: int, count: int, width: str) -> ast.expr:
    def bound(m):
        return ast.Name(width, ast.Load()) if m == 1 else \
            ast.BinOp(ast.Constant(m), ast.Mult(), ast.Name(width, ast.Load()))
    cut = ast.Slice(bound(k) if k else None, bound(k + 1) if k + 1 < count else None)
    every = ast.Slice(None, None)
    if axis >= 0:
        index = [every] * axis + [cut]
    else:
        index = [ast.Constant(Ellipsis), cut] + [every] * (-axis - 1)
    index = index[0] if len(index) == 1 else ast.Tuple(index, ast.Load())
    return ast.Subscript(ast.Name(whole.id, ast.Load()), index, ast.Load())




def _assign(name: str, value: ast.expr, like: ast.stmt) -> ast.Assign:
    return ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), like)
