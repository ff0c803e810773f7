"""``np.diag_indices(n)``, which numba lacks, the positions ``np.fill_diagonal`` writes
(``diagonal_range``), and the adjoint of ``np.diag(x, k)`` where x's
ndim was not known when the gradient was made:
``(np.diag(g, k) if np.ndim(x) == 1 else np.eye(...) * np.concatenate([g, ...])...)``.

numba types both sides of a conditional expression, and the matrix side indexes
``np.shape(x)[1]`` of a vector ("tuple index out of range").  `diag_adjoint(g, x, k)` is
compiled for x's type: of a vector, the k-th diagonal of the matrix g; of a matrix, g placed
on the k-th diagonal of zeros of x's shape (what the NumPy form computes).

``np.diagonal(m, k)`` and ``m.diagonal(k)`` of a matrix (numba has neither): the k-th diagonal, a new array.

``np.diag([1.0, 0.1])`` of a list or tuple of numbers (a cost matrix written as its diagonal): NumPy makes
the list an array first; numba's np.diag takes arrays only, so `_diag_of_items` makes the float array of
the items and gives numba's diagonal matrix of it (ints too: NumPy's dtype of a list of ints and floats).
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types
from numba.extending import overload_method

from ...rules import write_helpers
from .naming import made, overload


def diag_adjoint(g, x, k):
    """Outside numba: NumPy's form."""
    if np.ndim(x) == 1:
        return np.diag(g, k)
    out = np.zeros(np.shape(x))
    for i in range(np.size(g)):
        out[(i, i + k) if k >= 0 else (i - k, i)] = g[i]
    return out


@overload(diag_adjoint)
def _diag_adjoint(g, x, k):
    if not isinstance(x, types.Array) or x.ndim not in (1, 2):
        return None
    if x.ndim == 1:
        return lambda g, x, k: np.diag(g, k)

    def placed(g, x, k):
        out = np.zeros(x.shape)
        for i in range(g.size):
            if k >= 0:
                out[i, i + k] = g[i]
            else:
                out[i - k, i] = g[i]
        return out
    return placed


@overload(np.diagonal, prefer_literal=True)
def _diagonal(a, offset=0, axis1=0, axis2=1):
    """``np.diagonal(m, k)`` of a matrix (numba has no np.diagonal): the k-th diagonal, a new array; axes
    given as constants 0 and 1 in either order (swapped: the transposed matrix's)."""
    axes = [_constant_int(t, d) for t, d in ((axis1, 0), (axis2, 1))]
    if not (isinstance(a, types.Array) and a.ndim == 2 and sorted(axes) == [0, 1]
            and isinstance(offset, (types.Integer, types.Omitted, int))):
        return None
    m = "a" if axes == [0, 1] else "a.T"
    return made("def impl(a, offset=0, axis1=0, axis2=1):\n"
                f"    m = {m}\n"
                "    k = offset\n"
                "    n = max(0, min(m.shape[0] + min(k, 0), m.shape[1] - max(k, 0)))\n"
                "    out = np.empty(n, m.dtype)\n"
                "    for i in range(n):\n"
                "        out[i] = m[i - min(k, 0), i + max(k, 0)]\n"
                "    return out\n")


@overload_method(types.Array, "diagonal")
def _diagonal_method(a, offset=0, axis1=0, axis2=1):
    """``m.diagonal(k)``: np.diagonal's (above)."""
    if a.ndim != 2:
        return None

    def impl(a, offset=0, axis1=0, axis2=1):
        return np.diagonal(a, offset, axis1, axis2)
    return impl


def _constant_int(t, default: int):
    """The value of an axis argument's type: its default when omitted, None when not a constant int."""
    if isinstance(t, (types.Omitted, type(None))):
        return default
    if isinstance(t, types.IntegerLiteral):
        return t.literal_value
    return t if type(t) is int else None


def _is_number(t) -> bool:
    return isinstance(t, (types.Integer, types.Float))


@overload(np.diag)
def _diag_of_items(v, k=0):
    """``np.diag(items, k)`` of a list or tuple of numbers: the matrix with the items on its k-th diagonal."""
    kinds = v.types if isinstance(v, types.BaseTuple) else (getattr(v, "dtype", None),)
    if not (isinstance(v, (types.List, types.BaseTuple)) and kinds and all(_is_number(t) for t in kinds)
            and isinstance(k, (types.Integer, types.Omitted, int))):
        return None
    dtype = np.float64 if any(isinstance(t, types.Float) for t in kinds) else np.int64
    if isinstance(v, (types.List, types.UniTuple)):
        return made("def impl(v, k=0):\n    a = np.empty(len(v), DTYPE)\n    for i in range(len(v)):\n"
                    "        a[i] = v[i]\n    return np.diag(a, k)\n", DTYPE=dtype)
    filled = "".join(f"    a[{i}] = v[{i}]\n" for i in range(len(kinds)))  # (items of two types: one by one)
    return made(f"def impl(v, k=0):\n    a = np.empty({len(kinds)}, DTYPE)\n{filled}    return np.diag(a, k)\n",
                DTYPE=dtype)


def spell(node: ast.IfExp):
    """``(np.diag(g, k) if np.ndim(x) == 1 else ...)``: the helper and its arguments, or None."""
    test, body = node.test, node.body
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and (_np_call(test.left, "ndim", 1) or _named_call(test.left, "ndim_of"))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 1
            and _np_call(body, "diag", 2)):
        return None
    return "diag_adjoint", [body.args[0], test.left.args[0], body.args[1]]


def _named_call(node, name: str) -> bool:  # (``np.ndim(x)`` as array_calls.py spells it)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name \
        and len(node.args) == 1 and not node.keywords


def _np_call(node, name: str, count: int) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" and len(node.args) == count \
        and not node.keywords


def diag_indices_of(n):
    return np.diag_indices(n)


@overload(diag_indices_of)
def _diag_indices_of(n):
    """``np.diag_indices(n)`` (numba lacks it): the pair of index arrays of a matrix's diagonal."""
    if not isinstance(n, types.Integer):
        return None

    def pair(n):
        r = np.arange(n)
        return r, r.copy()
    return pair


def diagonal_of(a):
    return np.diagonal(a)


@overload(diagonal_of)
def _diagonal_of(a):
    """``np.diagonal(a)`` (numba lacks it) of a matrix: its diagonal, as ``np.diag`` gives it (a
    copy where NumPy gives a read-only view: the same numbers, never written).  Of another ndim
    numba refuses it at the line."""
    if not (isinstance(a, types.Array) and a.ndim == 2):
        return None
    return lambda a: np.diag(a)


def spell_call(node: ast.Call):
    """``np.diag_indices(n)``, ``np.diagonal(a)``: the helper and its argument, or None."""
    if _np_call(node, "diag_indices", 1):
        return "diag_indices_of", node.args
    if _np_call(node, "diagonal", 1):
        return "diagonal_of", node.args
    return None


def diagonal_range(a, wrap=False):
    return write_helpers.diagonal_range(a, wrap)


@overload(diagonal_range, prefer_literal=True)
def _diagonal_range(a, wrap=False):
    """The positions ``np.fill_diagonal(a, v)`` writes (rules/write_helpers.py): ``k`` of
    ``a[k, k]``, or with `wrap` the flat positions to the end of a tall matrix.  Of another
    ndim numba refuses it at the line (the Python gradient refuses it too)."""
    if not (isinstance(a, types.Array) and a.ndim == 2):
        return None
    if getattr(wrap, "literal_value", False):
        return lambda a, wrap=False: np.arange(0, a.shape[0] * a.shape[1], a.shape[1] + 1)
    return lambda a, wrap=False: np.arange(min(a.shape[0], a.shape[1]))


HELPERS = ("diag_adjoint", "diag_indices_of", "diagonal_of", "diagonal_range")
