"""numba versions of the Cholesky factor's tangent and of the derivatives of its adjoint
(rules/runtime.py's ``cholesky_tangent``, ``cholesky_adjoint_a``, ``cholesky_adjoint_l``,
``cholesky_adjoint_dot``), for one matrix: what ``jvp``, ``hessian`` and ``jacobian`` of a
program calling ``np.linalg.cholesky`` run under ``jit="numba"``.

Each is the Python helper's formula; its operands are made float64 and C-ordered first (a
float32 factor meets a float64 adjoint: numba's products take one dtype, NumPy's would
compute in float64 too).  A stack of matrices has no version here: numba refuses it at the
line that calls the factor.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ...rules import runtime as python
from .naming import overload


def cholesky_tangent(x_dot, L):
    return python.cholesky_tangent(x_dot, L)


def cholesky_adjoint_a(h, L):
    return python.cholesky_adjoint_a(h, L)


def cholesky_adjoint_l(h, a, L):
    return python.cholesky_adjoint_l(h, a, L)


def cholesky_adjoint_dot(L_dot, a, L):
    return python.cholesky_adjoint_dot(L_dot, a, L)


@njit(cache=True)
def _c(m):
    return np.ascontiguousarray(np.asarray(m, dtype=np.float64))


@njit(cache=True)
def _phi(m):
    """The lower triangle, the diagonal halved."""
    return np.tril(m) - 0.5 * np.diag(np.diag(m))


@njit(cache=True)
def _t(m):
    return np.ascontiguousarray(m.T)


@njit(cache=True)
def _tangent(x_dot, L):
    s = np.tril(x_dot) + _t(np.tril(x_dot, -1))
    inv = np.linalg.inv(L)
    return L @ _phi(inv @ s @ _t(inv))


@njit(cache=True)
def _adjoint_a(h, L):
    inv = np.linalg.inv(L)
    s = _phi(h)
    return L @ _phi(inv @ (s + _t(s)) @ _t(inv))


@njit(cache=True)
def _adjoint_l(h, a, L):
    inv = np.linalg.inv(L)
    p = _phi(_t(L) @ a)
    s = _phi(h)
    s = s + _t(s)
    inv_bar = (p + _t(p)) @ inv @ s
    return -(_t(inv) @ inv_bar @ _t(inv)) + a @ _t(_phi(inv @ s @ _t(inv)))


@njit(cache=True)
def _adjoint_dot(L_dot, a, L):
    inv = np.linalg.inv(L)
    inv_dot = -(inv @ L_dot @ inv)
    p = _phi(_t(L) @ a)
    s = _t(inv_dot) @ p @ inv + _t(inv) @ _phi(_t(L_dot) @ a) @ inv + _t(inv) @ p @ inv_dot
    return _phi(s + _t(s))


def _matrices(*ts) -> bool:
    return all(isinstance(t, types.Array) and t.ndim == 2 and isinstance(t.dtype, types.Float) for t in ts)


@overload(cholesky_tangent)
def _cholesky_tangent(x_dot, L):
    if not _matrices(x_dot, L):
        return None
    return lambda x_dot, L: _tangent(_c(x_dot), _c(L))


@overload(cholesky_adjoint_a)
def _cholesky_adjoint_a(h, L):
    if not _matrices(h, L):
        return None
    return lambda h, L: _adjoint_a(_c(h), _c(L))


@overload(cholesky_adjoint_l)
def _cholesky_adjoint_l(h, a, L):
    if not _matrices(h, a, L):
        return None
    return lambda h, a, L: _adjoint_l(_c(h), _c(a), _c(L))


@overload(cholesky_adjoint_dot)
def _cholesky_adjoint_dot(L_dot, a, L):
    if not _matrices(L_dot, a, L):
        return None
    return lambda L_dot, a, L: _adjoint_dot(_c(L_dot), _c(a), _c(L))


HELPERS = ("cholesky_tangent", "cholesky_adjoint_a", "cholesky_adjoint_l", "cholesky_adjoint_dot")

__all__ = [*HELPERS]
