"""``np.ix_`` under numba: blocks of a matrix picked by index vectors, as a finite-element
assembly writes them (``K[np.ix_(dofs, dofs)] += ke``, ``K[np.ix_(free, free)]``).

numba has no ``np.ix_``, and its indexing takes one index array, where ``np.ix_`` makes an
open mesh: one array per axis, each varying along its own axis only.  So, in the generated
code (`rewrite`, before spelling.py's rewriter):

* ``np.ix_(a, b)`` becomes the tuple ``(mesh_axis(a, 0, 2), mesh_axis(b, 1, 2))``: each
  vector (integers, or booleans: their positions) shaped as NumPy's;
* ``x[t]`` with `t` a name bound to such a tuple (in the forward pass, or popped from a loop's
  stack in the backward one) becomes ``mesh_read(x, t)`` and ``x[t] = v`` becomes
  ``mesh_write(x, t, v)``: a loop over the block, each index checked as NumPy does (numba reads
  past an array's end unchecked);
* ``set_item(x, t, v)`` (a write into a fresh array) checks that no vector repeats a position,
  as the Python helper does (NumPy would keep one of the values written there): a plain error
  otherwise, and the Python gradient then refuses at the user's line.  ``np.add.at`` through
  the mesh is index_adds.py's (indices that broadcast together), and forward mode's
  ``index_add(g, (mesh,), v)`` a copy of g added to through it.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .list_writes import index_add
from .naming import made, overload
from .runtime import add_at, set_item, zero_item


def _is_ix(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "ix_" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy") \
        and node.args and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)


def rewrite(func: ast.FunctionDef) -> set[str]:
    """Rewrite `func`'s ``np.ix_`` meshes and the indexing through them; the helpers used."""
    meshes = {node.targets[0].id for node in ast.walk(func) if isinstance(node, ast.Assign)
              and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and _is_ix(node.value)}
    if not any(_is_ix(node) for node in ast.walk(func)):
        return set()
    rewriter = _Meshes(meshes)
    rewriter.visit(func)
    return rewriter.helpers


class _Meshes(ast.NodeTransformer):
    def __init__(self, meshes: set[str]):
        self.meshes, self.helpers = meshes, {"mesh_axis"}

    def _mesh(self, index) -> bool:
        return isinstance(index, ast.Name) and index.id in self.meshes or _is_ix(index)

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if not _is_ix(node):
            return node
        n = len(node.args)
        return ast.copy_location(ast.Tuple([ast.Call(ast.Name("mesh_axis", ast.Load()),
                                                     [a, ast.Constant(k), ast.Constant(n)], [])
                                            for k, a in enumerate(node.args)], ast.Load()), node)

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and self._mesh(node.slice):
            self.helpers.add("mesh_read")
            return ast.copy_location(ast.Call(ast.Name("mesh_read", ast.Load()), [node.value, node.slice], []), node)
        return node

    def visit_Assign(self, node: ast.Assign):
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, ast.Subscript) and self._mesh(target.slice):
            self.generic_visit(node)
            self.helpers.add("mesh_write")
            call = ast.Call(ast.Name("mesh_write", ast.Load()), [target.value, target.slice, node.value], [])
            return ast.copy_location(ast.Expr(call), node)
        self.generic_visit(node)
        return node


def mesh_axis(v, axis, count):
    return np.ix_(*[v if k == axis else np.arange(1) for k in range(count)])[axis]


def mesh_read(x, index):
    return x[index]


def mesh_write(x, index, v):
    x[index] = v


@overload(mesh_axis, prefer_literal=True)
def _mesh_axis(v, axis, count):
    k, n = getattr(axis, "literal_value", None), getattr(count, "literal_value", None)
    if not (isinstance(v, types.Array) and v.ndim == 1 and type(k) is int and type(n) is int and 0 <= k < n):
        return None
    shape = "".join("-1, " if d == k else "1, " for d in range(n))
    picked = "np.nonzero(v)[0]" if isinstance(v.dtype, types.Boolean) else "v"
    if not isinstance(v.dtype, (types.Boolean, types.Integer)):
        return None  # NumPy refuses floats too
    return made(f"def impl(v, axis, count):\n    return np.ascontiguousarray({picked}).reshape(({shape}))\n")


def _mesh(x, index) -> bool:
    """An index of x's type that an np.ix_ mesh has: an integer array per leading axis of x."""
    parts = getattr(index, "types", None)
    return isinstance(x, types.Array) and isinstance(index, types.BaseTuple) and bool(parts) \
        and len(parts) <= x.ndim and all(isinstance(p, types.Array) and isinstance(p.dtype, types.Integer)
                                         and p.ndim == len(parts) for p in parts)


def _vectors(m: int, check_repeats: bool = False) -> list[str]:
    """Lines binding ``v0, v1, ...`` to the mesh's vectors, each position checked against x's
    axis (negative ones counted from the end, as NumPy does)."""
    lines = []
    for d in range(m):
        lines += [f"    v{d} = np.ascontiguousarray(index[{d}]).ravel().copy()",  # (normalised below)
                  f"    if v{d}.shape[0] != index[{d}].size or index[{d}].shape[{d}] != v{d}.shape[0]:",
                  "        raise ValueError('not an open mesh')",
                  f"    n{d} = x.shape[{d}]",
                  f"    seen{d} = np.zeros(n{d}, np.bool_)",
                  f"    for k in range(v{d}.shape[0]):",
                  f"        p = v{d}[k] + n{d} if v{d}[k] < 0 else v{d}[k]",
                  f"        if p < 0 or p >= n{d}:",
                  "            raise IndexError('index out of bounds')"]
        if check_repeats:
            lines += [f"        if seen{d}[p]:",
                      "            raise ValueError('writing through an index that repeats a position')"]
        lines += [f"        seen{d}[p] = True", f"        v{d}[k] = p"]
    return lines


def _loops(m: int, body: str) -> list[str]:
    lines = [f"{'    ' * (d + 1)}for i{d} in range(v{d}.shape[0]):" for d in range(m)]
    return lines + ["    " * (m + 1) + body]


def _places(m: int) -> tuple[str, str]:
    return ", ".join(f"v{d}[i{d}]" for d in range(m)), ", ".join(f"i{d}" for d in range(m))


@overload(mesh_read)
def _mesh_read(x, index):
    if not _mesh(x, index):
        return None
    m = len(index.types)
    place, at = _places(m)
    shape = "".join(f"v{d}.shape[0], " for d in range(m)) + "".join(f"x.shape[{d}], " for d in range(m, x.ndim))
    lines = ["def impl(x, index):", *_vectors(m), f"    out = np.empty(({shape}), x.dtype)",
             *_loops(m, f"out[{at}] = x[{place}]"), "    return out"]
    return made("\n".join(lines) + "\n")


def _writer(x, index, v, check_repeats: bool, copy: bool):
    if not _mesh(x, index) or not isinstance(v, (types.Number, types.Boolean, types.Array)):
        return None
    m = len(index.types)
    place, at = _places(m)
    shape = "".join(f"v{d}.shape[0], " for d in range(m)) + "".join(f"x.shape[{d}], " for d in range(m, x.ndim))
    value = f"w[{at}]" if isinstance(v, types.Array) else "v"
    opened = " and ".join(f"index[{d}].size == index[{d}].shape[{d}]" for d in range(m))
    fallback = ["        return broadcast_write(x, index, v, True)"] if copy else \
        ["        broadcast_write(x, index, v, False)", "        return None"]
    lines = ["def impl(x, index, v):", f"    if not ({opened}):", *fallback,
             *_vectors(m, check_repeats), "    y = x.copy()" if copy else "    y = x"]
    if isinstance(v, types.Array):
        lines.append(f"    w = np.broadcast_to(v, ({shape}))")
    lines += _loops(m, f"y[{place}] = {value}")
    lines.append("    return y" if copy else "    return None")
    return made("\n".join(lines) + "\n", broadcast_write=broadcast_write)


def broadcast_write(x, index, v, copy):
    """``x[index] = v`` (a copy of x when `copy`) for index arrays that broadcast together but
    are not an open mesh (``np.put_along_axis``'s rows and columns): NumPy's fancy write."""
    y = x.copy() if copy else x
    y[index] = v
    return y


@overload(broadcast_write)
def _broadcast_write(x, index, v, copy):
    m = len(index.types)
    at = ", ".join(f"i{d}" for d in range(m))
    pick = lambda k: ", ".join(f"i{d} if index[{k}].shape[{d}] > 1 else 0" for d in range(m))  # noqa: E731
    dims = [f"max({', '.join(f'index[{k}].shape[{d}]' for k in range(m))})" for d in range(m)]
    shape = "".join(f"{dim}, " for dim in dims) + "".join(f"x.shape[{d}], " for d in range(m, x.ndim))
    lines = ["def impl(x, index, v, copy):", "    y = x.copy() if copy else x",
             f"    w = np.broadcast_to(v, ({shape}))" if isinstance(v, types.Array) else "    w = v"]
    for d in range(m):
        lines.append(f"{'    ' * (d + 1)}for i{d} in range({dims[d]}):")
    body = "    " * (m + 1)
    for k in range(m):
        lines += [f"{body}p{k} = index[{k}][{pick(k)}]", f"{body}if p{k} < 0:", f"{body}    p{k} += x.shape[{k}]"]
    places = ", ".join(f"p{k}" for k in range(m))
    lines.append(f"{body}y[{places}] = " + (f"w[{at}]" if isinstance(v, types.Array) else "w"))
    lines.append("    return y")
    return made("\n".join(lines) + "\n")


@overload(mesh_write)
def _mesh_write(x, index, v):
    return _writer(x, index, v, False, False)


@overload(set_item)
def _set_item_mesh(x, index, v):
    if isinstance(x, types.Array) and isinstance(x.dtype, (types.Integer, types.Boolean)):
        return None  # (refused in Python: truncation)
    return _writer(x, index, v, True, True)


@overload(zero_item)
def _zero_item_mesh(g, index):
    if not _mesh(g, index):
        return None

    def zero(g, index):
        out = g.astype(np.float64)
        mesh_write(out, index, 0.0)
        return out
    return zero


@overload(index_add)
def _index_add_mesh(base, index, value):
    """``index_add(g, (mesh,), v)`` (forward mode over a gradient that scattered through the
    mesh): a float copy of g with v added through it, repeats adding again."""
    if not (isinstance(index, types.BaseTuple) and len(index.types) == 1 and _mesh(base, index.types[0])):
        return None

    def add(base, index, value):
        out = base.astype(np.float64)
        add_at(out, index[0], value)
        return out
    return add


HELPERS = ("mesh_axis", "mesh_read", "mesh_write")

__all__ = [*HELPERS, "rewrite"]
