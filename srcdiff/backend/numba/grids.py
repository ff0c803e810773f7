"""numba's ``np.meshgrid``, which numba's NumPy lacks.

``np.meshgrid(a, b, ...)`` with ``indexing="xy"`` (the default) or ``"ij"``, ``copy`` left
True and ``sparse`` False becomes ``meshgrid_of(indexing, a, b, ...)``: each argument
flattened, broadcast along the other axes and copied, the tuple of grids NumPy returns
(with ``"xy"`` the first two axes are swapped: a grid of points ``(y, x)`` as rows and
columns).  Any other form is left as written, and numba refuses it at its line.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .naming import made, overload

INDEXINGS = ("xy", "ij")


def spell(node: ast.Call) -> tuple[str, list] | None:
    """(helper, arguments) for a ``np.meshgrid`` call numba can be given, or None."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "meshgrid" and isinstance(func.value, ast.Name)
            and func.value.id == "np" and node.args and not any(isinstance(a, ast.Starred) for a in node.args)):
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    indexing = keywords.pop("indexing", ast.Constant("xy"))
    if not (isinstance(indexing, ast.Constant) and indexing.value in INDEXINGS):
        return None
    for name, default in (("copy", True), ("sparse", False)):
        value = keywords.pop(name, ast.Constant(default))
        if not (isinstance(value, ast.Constant) and value.value is default):
            return None
    if keywords:
        return None
    return "meshgrid_of", [ast.Constant(indexing.value), *node.args]


def meshgrid_of(indexing, *arrays):
    return tuple(np.meshgrid(*arrays, indexing=indexing))


@overload(meshgrid_of, prefer_literal=True)
def _meshgrid_of(indexing, *arrays):
    if isinstance(arrays, tuple) and len(arrays) == 1 and isinstance(arrays[0], types.BaseTuple):
        arrays = arrays[0].types  # (numba passes the star arguments as one tuple)
    if not (isinstance(indexing, types.StringLiteral) and indexing.literal_value in INDEXINGS and arrays
            and all(isinstance(a, (types.Array, types.Number)) for a in arrays)):
        return None
    n = len(arrays)
    lines = [f"    a{k} = np.asarray(arrays[{k}]).ravel()" for k in range(n)]
    sizes = [f"a{k}.shape[0]" for k in range(n)]
    if indexing.literal_value == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    shape = "(" + "".join(f"{s}, " for s in sizes) + ")"
    grids = []
    for k in range(n):
        axis = k if indexing.literal_value == "ij" or n == 1 else {0: 1, 1: 0}.get(k, k)
        spread = ["1"] * n
        spread[axis] = f"a{k}.shape[0]"
        lines.append(f"    g{k} = np.ascontiguousarray(np.broadcast_to(a{k}.reshape(("
                     + "".join(f"{s}, " for s in spread) + f")), {shape}))")
        grids.append(f"g{k}, ")
    return made("def impl(indexing, *arrays):\n" + "\n".join(lines) + "\n    return (" + "".join(grids) + ")\n")


HELPERS = ("meshgrid_of",)

__all__ = [*HELPERS]
