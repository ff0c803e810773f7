"""A boolean mask of as many axes as the array it selects from (``x[x > 0]`` of a matrix), for
numba, which selects by 1-D masks only: both raveled, as NumPy's selection reads them (in C
order).  ``masked_items(x, m)`` is the selection and an overload of runtime.py's ``add_at``
its adjoint; `rewrite` spells ``v[m]`` as the helper wherever `m` is a comparison or a name
bound to one (the helper gives numba's own ``v[m]`` for any other types), and a write
``g[m] = v`` as ``set_masked(g, m, v)`` (numba's own write through a mask of several axes
fails an assertion); runtime.py's ``set_item`` and ``zero_item`` with such a mask are here too.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import njit, types

from .naming import overload
from .runtime import add_at, set_item, zero_item

MASKS = ("isfinite", "isnan", "isinf", "logical_and", "logical_or", "logical_not", "logical_xor", "isclose")


def rewrite(func: ast.FunctionDef) -> bool:
    """Spell the selections by a mask of `func` in place; whether there was one."""
    masks: set[str] = set()
    for _ in range(8):  # (``t4 = ~m``: a mask of a mask)
        found = {t.id for node in ast.walk(func) if isinstance(node, ast.Assign) and _is_mask(node.value, masks)
                 for t in node.targets if isinstance(t, ast.Name)}
        found -= {n.id for node in ast.walk(func) if isinstance(node, (ast.Assign, ast.AugAssign, ast.For))
                  and not (isinstance(node, ast.Assign) and _is_mask(node.value, masks))
                  for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  for n in _bound(target)}
        if found == masks:
            break
        masks = found
    used = False
    for node in ast.walk(func):
        for field, value in ast.iter_fields(node):
            if field in ("body", "orelse") and isinstance(value, list):  # (an IfExp's are expressions)
                for i, stmt in enumerate(value):
                    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                            and isinstance(stmt.targets[0], ast.Subscript) and _is_mask(stmt.targets[0].slice, masks):
                        value[i] = _write(stmt)
                        used = True
            if isinstance(value, ast.Subscript) and isinstance(value.ctx, ast.Load) and _is_mask(value.slice, masks):
                setattr(node, field, _call(value))
                used = True
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.Subscript) and isinstance(item.ctx, ast.Load) \
                            and _is_mask(item.slice, masks):
                        value[i] = _call(item)
                        used = True
    return used


def _bound(target: ast.expr) -> list:
    """The names an assignment to `target` binds (not those read in a subscript it writes into:
    ``g[m] = 0.0`` leaves the mask `m` a mask)."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _bound(e)]
    if isinstance(target, ast.Starred):
        return _bound(target.value)
    return []


def _write(stmt: ast.Assign) -> ast.Expr:
    """``g[m] = v`` as ``set_masked(g, m, v)``, where the statement came from."""
    target = stmt.targets[0]
    call = ast.Call(ast.Name("set_masked", ast.Load()), [target.value, target.slice, stmt.value], [])
    made = ast.copy_location(ast.Expr(call), stmt)
    if hasattr(stmt, "origin"):
        made.origin = stmt.origin
    return made


def _call(node: ast.Subscript) -> ast.Call:
    return ast.Call(ast.Name("masked_items", ast.Load()), [node.value, node.slice], [])


def _is_mask(node: ast.expr, names: set) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _is_mask(node.operand, names)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _is_mask(node.left, names) and _is_mask(node.right, names)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MASKS \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "np"


def _whole_mask(a, mask) -> bool:
    return isinstance(a, types.Array) and isinstance(mask, types.Array) and isinstance(mask.dtype, types.Boolean) \
        and mask.ndim == a.ndim > 1


def masked_items(x, mask):
    return x[mask]


@overload(masked_items)
def _masked_items(x, mask):
    if not _whole_mask(x, mask):
        return lambda x, mask: x[mask]

    def select(x, mask):
        if x.shape != mask.shape:
            raise IndexError("the boolean mask does not match the array's shape")
        return np.ascontiguousarray(x).reshape(-1)[np.ascontiguousarray(mask).reshape(-1)]
    return select


@overload(add_at)
def _add_at_mask(a, mask, v):
    """``np.add.at(a, mask, v)``, a mask of `a`'s axes: each selected element in C order gets
    the next value (or the one number)."""
    if not _whole_mask(a, mask) or not a.layout == "C" or not (
            isinstance(v, types.Number) or isinstance(v, types.Array) and v.ndim == 1):
        return None
    one = isinstance(v, types.Number)

    def add(a, mask, v):
        if a.shape != mask.shape:
            raise IndexError("the boolean mask does not match the array's shape")
        flat, chosen = a.reshape(-1), np.ascontiguousarray(mask).reshape(-1)
        j = 0
        for i in range(flat.shape[0]):
            if chosen[i]:
                flat[i] += v if one else v[j]
                j += 1
    return add


def set_masked(a, mask, v):
    a[mask] = v


@overload(set_masked)
def _set_masked(a, mask, v):
    if not _whole_mask(a, mask):
        def write(a, mask, v):
            a[mask] = v
        return write
    if isinstance(v, (types.Number, types.Boolean)) or isinstance(v, types.Array) and v.ndim == 1:
        return lambda a, mask, v: _write_masked(a, mask, v)
    return None


@overload(set_item)
def _set_item_mask(x, mask, v):
    """``set_item(x, m, v)``: a copy of `x` written through a mask of its axes."""
    if not _whole_mask(x, mask) or not (isinstance(v, (types.Number, types.Boolean)) or
                                        isinstance(v, types.Array) and v.ndim == 1):
        return None

    def write(x, mask, v):
        y = x.copy()
        _write_masked(y, mask, v)
        return y
    return write


@overload(zero_item)
def _zero_item_mask(g, mask):
    if not _whole_mask(g, mask):
        return None

    def zero(g, mask):
        out = g.astype(np.float64)
        _write_masked(out, mask, 0.0)
        return out
    return zero


@njit(cache=True)
def _write_masked(a, mask, v):
    """``a[mask] = v`` in place, the selected elements in C order, as NumPy writes them."""
    if a.shape != mask.shape:
        raise IndexError("the boolean mask does not match the array's shape")
    values = np.asarray(v).ravel()
    if values.size != 1 and values.size != np.count_nonzero(mask):
        raise ValueError("boolean index assignment: the values do not match the selected elements")
    j = 0
    for index in np.ndindex(a.shape):
        if mask[index]:
            a[index] = values[j if values.size != 1 else 0]
            j += 1


HELPERS = ("masked_items", "set_masked")
