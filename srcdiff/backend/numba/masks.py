"""A boolean mask of as many axes as the array it selects from (``x[x > 0]`` of a matrix), for
numba, which selects by 1-D masks only: both raveled, as NumPy's selection reads them (in C
order).  ``masked_items(x, m)`` is the selection and an overload of runtime.py's ``add_at``
its adjoint; `rewrite` spells ``v[m]`` as the helper wherever `m` is a comparison or a name
bound to one (the helper gives numba's own ``v[m]`` for any other types).
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .naming import overload
from .runtime import add_at

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
                  for n in ast.walk(target) if isinstance(n, ast.Name)}
        if found == masks:
            break
        masks = found
    used = False
    for node in ast.walk(func):
        for field, value in ast.iter_fields(node):
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


HELPERS = ("masked_items",)
