"""numba versions of ``np.linalg.slogdet``, ``det``, ``inv`` and ``solve`` that also take stacks
of matrices (ndim > 2), for generated code: numba's own take one matrix, so a stack is seen
as (count, n, n) and each matrix goes through numba's function in a loop over the leading
axes.  A single matrix goes to numba's own unchanged.

`spell` is spelling.py's rule: ``np.linalg.slogdet(x)`` becomes ``linalg_slogdet(x)``, and
so on; the helper's code is picked from the argument's type when numba compiles it.  A
``solve`` whose right-hand side is not a stack of the same count of matrices (NumPy
broadcasts the leading axes) raises when it runs, and the Python gradient then says so.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .missing import solve_adjoint_x, solve_adjoint_y
from .naming import overload

#: np.linalg's function -> the helper that also takes stacks
SPELLED = {"slogdet": "linalg_slogdet", "det": "linalg_det", "inv": "linalg_inv", "solve": "linalg_solve"}


def spell(node: ast.Call) -> tuple[str, list] | None:
    """(helper, arguments) for ``np.linalg.slogdet(x)`` / ``det`` / ``inv`` / ``solve(a, b)``."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in SPELLED and isinstance(func.value, ast.Attribute)
            and func.value.attr == "linalg" and isinstance(func.value.value, ast.Name)
            and func.value.value.id == "np") or node.keywords:
        return None
    if len(node.args) != (2 if func.attr == "solve" else 1):
        return None
    return SPELLED[func.attr], list(node.args)


def _stack(t) -> bool:
    return isinstance(t, types.Array) and t.ndim > 2 and isinstance(t.dtype, types.Float)


def linalg_slogdet(a):
    return np.linalg.slogdet(a)


@overload(linalg_slogdet)
def _linalg_slogdet(a):
    """(sign, log|det|), each of the stack's leading shape."""
    if not _stack(a):
        return lambda a: np.linalg.slogdet(a)

    def impl(a):
        flat = np.ascontiguousarray(a).reshape((-1, a.shape[-2], a.shape[-1]))
        sign = np.empty(flat.shape[0], a.dtype)
        logdet = np.empty(flat.shape[0], a.dtype)
        for i in range(flat.shape[0]):
            sign[i], logdet[i] = np.linalg.slogdet(flat[i])
        return sign.reshape(a.shape[:-2]), logdet.reshape(a.shape[:-2])
    return impl


def linalg_det(a):
    return np.linalg.det(a)


@overload(linalg_det)
def _linalg_det(a):
    if not _stack(a):
        return lambda a: np.linalg.det(a)

    def impl(a):
        flat = np.ascontiguousarray(a).reshape((-1, a.shape[-2], a.shape[-1]))
        out = np.empty(flat.shape[0], a.dtype)
        for i in range(flat.shape[0]):
            out[i] = np.linalg.det(flat[i])
        return out.reshape(a.shape[:-2])
    return impl


def linalg_inv(a):
    return np.linalg.inv(a)


@overload(linalg_inv)
def _linalg_inv(a):
    if not _stack(a):
        return lambda a: np.linalg.inv(a)

    def impl(a):
        flat = np.ascontiguousarray(a).reshape((-1, a.shape[-2], a.shape[-1]))
        out = np.empty(flat.shape, a.dtype)
        for i in range(flat.shape[0]):
            out[i] = np.linalg.inv(flat[i])
        return out.reshape(a.shape)
    return impl


def linalg_solve(a, b):
    return np.linalg.solve(a, b)


@overload(linalg_solve)
def _linalg_solve(a, b):
    """A stack of systems: `b` a stack of as many right-hand sides (matrices, ``b.ndim ==
    a.ndim``), as NumPy takes them; other forms are numba's (which refuses stacks).  A float32
    and a float64 operand are solved in float64, as NumPy does (numba's solve takes one dtype)."""
    if isinstance(a, types.Array) and isinstance(b, types.Array) and a.dtype != b.dtype:
        common = np.result_type(np.dtype(str(a.dtype)), np.dtype(str(b.dtype)))
        return lambda a, b: linalg_solve(a.astype(common), b.astype(common))
    if not _stack(a):
        return lambda a, b: np.linalg.solve(a, b)
    if not (isinstance(b, types.Array) and b.ndim == a.ndim):
        return None
    dtype = np.result_type(np.dtype(str(a.dtype)), np.dtype(str(b.dtype)))

    def impl(a, b):
        if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
            raise ValueError("linalg_solve: the stacks of a and b do not match (NumPy broadcasts them)")
        flat_a = np.ascontiguousarray(a).reshape((-1, a.shape[-2], a.shape[-1]))
        flat_b = np.ascontiguousarray(b).reshape((-1, b.shape[-2], b.shape[-1]))
        out = np.empty(flat_b.shape, dtype)
        for i in range(flat_a.shape[0]):
            out[i] = np.linalg.solve(flat_a[i], flat_b[i])
        return out.reshape(b.shape)
    return impl


def _stacked_solve(x, y) -> bool:
    return _stack(x) and isinstance(y, types.Array) and y.ndim == x.ndim


@overload(solve_adjoint_y)
def _stacked_solve_adjoint_y(g, x, y):
    """The adjoint of a stack of systems with respect to `y`: ``solve(x^T, g)`` per matrix."""
    if not _stacked_solve(x, y):
        return None
    return lambda g, x, y: linalg_solve(np.ascontiguousarray(np.swapaxes(x, -1, -2)), np.ascontiguousarray(g))


@overload(solve_adjoint_x)
def _stacked_solve_adjoint_x(g, x, y, ans):
    """With respect to `x`: ``-y_bar @ ans^T`` per matrix."""
    if not _stacked_solve(x, y):
        return None

    def impl(g, x, y, ans):
        y_bar = linalg_solve(np.ascontiguousarray(np.swapaxes(x, -1, -2)), np.ascontiguousarray(g))
        flat_bar = y_bar.reshape((-1, y_bar.shape[-2], y_bar.shape[-1]))
        flat_ans = np.ascontiguousarray(ans).reshape((-1, ans.shape[-2], ans.shape[-1]))
        out = np.empty((flat_bar.shape[0], x.shape[-2], x.shape[-1]), y_bar.dtype)
        for i in range(flat_bar.shape[0]):
            out[i] = -(flat_bar[i] @ np.ascontiguousarray(flat_ans[i].T))
        return out.reshape(x.shape)
    return impl


HELPERS = tuple(SPELLED.values())
