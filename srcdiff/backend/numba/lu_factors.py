"""numba's versions of ``scipy.linalg.lu_factor`` and ``lu_solve`` (numba compiles no SciPy;
scipy_calls.py spells the calls ``lu_factor_of(a)``, ``lu_solve_of((lu, piv), b, trans)``) and
of their adjoints' and tangents' helpers (rules/lu_helpers.py: ``lu_factor_adjoint``,
``lu_solve_adjoint``, ``lu_factor_tangent``, ``lu_solve_tangent``, ``lu_rows``).

The factorisation is LAPACK's ``getrf`` order of work: at each column the first row of largest
magnitude is the pivot (``piv`` as SciPy's, int32), the rows swapped, the column scaled and the rest
updated, so ``lu`` and ``piv`` are SciPy's up to rounding.  A zero pivot leaves its column unscaled,
as LAPACK does (SciPy then warns that the matrix is singular; the solve divides by it).  As SciPy's
``check_finite=True``, non-finite input raises ``ValueError``."""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ...rules import lu_helpers as python
from .naming import overload
from .triangular import triangular_solve


def lu_factor_of(a):
    import scipy.linalg
    return scipy.linalg.lu_factor(a)


def lu_solve_of(lu_and_piv, b, trans):
    import scipy.linalg
    return scipy.linalg.lu_solve(lu_and_piv, b, trans=trans)


def lu_factor_adjoint(g, ans):
    return python.lu_factor_adjoint(g, ans)


def lu_solve_adjoint(g, factors, ans):
    return python.lu_solve_adjoint(g, factors, ans)


def lu_factor_tangent(A_dot, ans):
    return python.lu_factor_tangent(A_dot, ans)


def lu_rows(piv):
    return python.lu_rows(piv)


def lu_solve_tangent(factors_dot, factors, ans):
    return python.lu_solve_tangent(factors_dot, factors, ans)


def _float_matrix(t) -> bool:
    return isinstance(t, types.Array) and t.ndim == 2 and isinstance(t.dtype, types.Float)


def _pair(t) -> bool:
    """``(lu, piv)``: a float matrix and an integer vector."""
    return isinstance(t, types.BaseTuple) and len(t) == 2 and _float_matrix(t[0]) \
        and isinstance(t[1], types.Array) and t[1].ndim == 1 and isinstance(t[1].dtype, types.Integer)


@njit(cache=True)
def _factor(a):
    n = a.shape[0]
    if a.shape[1] != n:
        raise ValueError("expected square matrix")
    if not np.all(np.isfinite(a)):
        raise ValueError("array must not contain infs or NaNs")
    lu = np.ascontiguousarray(a).astype(np.float64)
    piv = np.empty(n, np.int32)
    for j in range(n):
        p = j
        for i in range(j + 1, n):
            if abs(lu[i, j]) > abs(lu[p, j]):
                p = i
        piv[j] = p
        if p != j:
            for c in range(n):
                lu[j, c], lu[p, c] = lu[p, c], lu[j, c]
        if lu[j, j] != 0.0:
            for i in range(j + 1, n):
                lu[i, j] = lu[i, j] / lu[j, j]
        for i in range(j + 1, n):
            for c in range(j + 1, n):
                lu[i, c] -= lu[i, j] * lu[j, c]
    return lu, piv


@njit(cache=True)
def _rows(piv):
    """The row order the swaps make: ``A[order] = L @ U`` (rules/lu_helpers.py's lu_rows)."""
    order = np.arange(piv.shape[0])
    for i in range(piv.shape[0]):
        p = piv[i]
        order[i], order[p] = order[p], order[i]
    return order


@njit(cache=True)
def _solve(lu, piv, b, transposed):
    """``A x = b`` (``A^T x = b`` when transposed) with ``A = P L U`` packed in lu, piv."""
    n = lu.shape[0]
    if b.shape[0] != n:
        raise ValueError("shapes of lu and b do not fit")
    if not np.all(np.isfinite(b)):
        raise ValueError("array must not contain infs or NaNs")
    rows = _rows(piv)
    x = np.ascontiguousarray(b.reshape((n, -1))).astype(np.float64)
    if not transposed:  # L U x = P^T b: b's rows in the swapped order, then L, then U
        y = np.empty_like(x)
        for i in range(n):
            y[i] = x[rows[i]]
        y = triangular_solve(lu, y, False, True, True)
        return triangular_solve(lu, y, False, False, False).reshape(b.shape)
    z = triangular_solve(lu, x, True, False, False)  # U^T L^T P^T x = b
    z = triangular_solve(lu, z, True, True, True)
    out = np.empty_like(z)
    for i in range(n):
        out[rows[i]] = z[i]
    return out.reshape(b.shape)


@overload(lu_factor_of)
def _lu_factor_of(a):
    if not _float_matrix(a):
        return None
    return lambda a: _factor(a)


@overload(lu_solve_of)
def _lu_solve_of(lu_and_piv, b, trans):
    if not (_pair(lu_and_piv) and isinstance(b, types.Array) and b.ndim in (1, 2)
            and isinstance(b.dtype, types.Float) and isinstance(trans, (types.Integer, types.Boolean))):
        return None

    def impl(lu_and_piv, b, trans):
        if trans not in (0, 1, 2):
            raise ValueError("incorrect value for trans")
        return _solve(lu_and_piv[0], lu_and_piv[1], b, trans != 0)
    return impl


@njit(cache=True)
def _through(lu, L_bar, U_bar):
    """``L^-T (tril(L^T L_bar, -1) + triu(U_bar U^T)) U^-T`` with L (unit lower) and U packed in lu."""
    L = np.tril(lu, -1) + np.eye(lu.shape[0])
    U = np.triu(lu)
    inner = np.tril(L.T @ L_bar, -1) + np.triu(U_bar @ U.T)
    left = triangular_solve(lu, inner, True, True, True)
    return triangular_solve(lu, np.ascontiguousarray(left.T), False, False, False).T


@overload(lu_factor_adjoint)
def _lu_factor_adjoint(g, ans):
    if not _pair(ans) or not isinstance(g, (types.BaseTuple, types.List)):
        return None

    def impl(g, ans):
        lu, piv = ans
        G = np.zeros(lu.shape) + g[0]
        through = _through(lu, np.tril(G, -1), np.triu(G))
        out = np.empty(lu.shape)
        rows = _rows(piv)
        for i in range(rows.shape[0]):
            out[rows[i]] = through[i]
        return out
    return impl


@overload(lu_solve_adjoint)
def _lu_solve_adjoint(g, factors, ans):
    if not (_pair(factors) and isinstance(g, types.Array) and isinstance(ans, types.Array) and ans.ndim in (1, 2)):
        return None

    def impl(g, factors, ans):
        lu, piv = factors
        n = lu.shape[0]
        b_bar = _solve(lu, piv, np.ascontiguousarray(g).astype(np.float64), True).reshape((n, -1))
        A_bar = -(b_bar @ np.ascontiguousarray(ans).astype(np.float64).reshape((n, -1)).T)
        B = np.empty_like(A_bar)
        rows = _rows(piv)
        for i in range(n):
            B[i] = A_bar[rows[i]]
        L = np.tril(lu, -1) + np.eye(n)
        return np.tril(B @ np.triu(lu).T, -1) + np.triu(L.T @ B), np.zeros(piv.shape)
    return impl


@overload(lu_rows)
def _lu_rows(piv):
    """(a Hessian's templates read the row order: rules/scipy_linalg.py)"""
    if not (isinstance(piv, types.Array) and piv.ndim == 1 and isinstance(piv.dtype, types.Integer)):
        return None
    return lambda piv: _rows(piv)


@overload(lu_factor_tangent)
def _lu_factor_tangent(A_dot, ans):
    """``(L tril(F, -1) + triu(F) U, 0)`` with ``F = L^-1 P^T A_dot U^-1`` (forward mode: jvp, Hessians)."""
    if not (_pair(ans) and isinstance(A_dot, types.Array) and A_dot.ndim == 2):
        return None

    def impl(A_dot, ans):
        lu, piv = ans
        rows = _rows(piv)
        moved = np.empty(lu.shape)
        for i in range(rows.shape[0]):
            moved[i] = A_dot[rows[i]]
        F = triangular_solve(lu, moved, False, True, True)
        F = triangular_solve(lu, np.ascontiguousarray(F.T), True, False, False).T
        L = np.tril(lu, -1) + np.eye(lu.shape[0])
        return L @ np.tril(F, -1) + np.triu(F) @ np.triu(lu), np.zeros(piv.shape)
    return impl


@overload(lu_solve_tangent)
def _lu_solve_tangent(factors_dot, factors, ans):
    """``-A^-1 dA x`` with ``dA = P (tril(lu_dot, -1) U + L triu(lu_dot))``."""
    if not (_pair(factors) and isinstance(factors_dot, types.BaseTuple) and isinstance(ans, types.Array)
            and ans.ndim in (1, 2)):
        return None

    def impl(factors_dot, factors, ans):
        lu, piv = factors
        n = lu.shape[0]
        lu_dot = np.zeros(lu.shape) + factors_dot[0]
        L = np.tril(lu, -1) + np.eye(n)
        moved = np.tril(lu_dot, -1) @ np.triu(lu) + L @ np.triu(lu_dot)
        dA = np.empty(lu.shape)
        rows = _rows(piv)
        for i in range(n):
            dA[rows[i]] = moved[i]
        dAx = dA @ np.ascontiguousarray(ans).astype(np.float64).reshape((n, -1))
        return -_solve(lu, piv, dAx, False).reshape(ans.shape)
    return impl


HELPERS = ("lu_factor_adjoint", "lu_solve_adjoint", "lu_factor_tangent", "lu_solve_tangent", "lu_rows")
