"""Helpers of the adjoints and tangents of SciPy's LU factorisations (rules/scipy_linalg.py):
``scipy.linalg.lu`` (``A = P L U``), ``lu_factor`` (L's strict lower part and U packed in one
matrix, with LAPACK's row swaps ``piv``) and ``lu_solve`` of such a factorisation.

With ``F = L^-1 P^T dA U^-1`` the factors move by ``dL = L tril(F, -1)`` and ``dU = triu(F) U`` (L
keeps its unit diagonal), so the adjoint of the factors is
``A_bar = P L^-T (tril(L^T L_bar, -1) + triu(U_bar U^T)) U^-T``.  The row swaps are piecewise
constant: no gradient.  Square matrices only (a stack of them is refused by the rules).
"""

import numpy as np

from .lazy_modules import SCIPY_LINALG as sl  # imported when first used: `import srcdiff` imports no SciPy


def lu_rows(piv) -> np.ndarray:
    """The row order LAPACK's swaps `piv` make: ``A[order] = L @ U`` (whole numbers: no gradient)."""
    order = np.arange(len(piv))
    for i, p in enumerate(np.asarray(piv)):
        order[i], order[p] = order[p], order[i]
    return order


_rows = lu_rows


def _factors(lu):
    """L (unit lower) and U of a packed factorisation."""
    return np.tril(lu, -1) + np.eye(np.shape(lu)[0], dtype=lu.dtype), np.triu(lu)


def _through(L, U, L_bar, U_bar):
    """``L^-T (tril(L^T L_bar, -1) + triu(U_bar U^T)) U^-T``: the adjoint of ``L U`` (with L unit
    lower) in terms of the factors' adjoints."""
    inner = np.tril(L.T @ L_bar, -1) + np.triu(U_bar @ U.T)
    left = sl.solve_triangular(L, inner, trans=1, lower=True, unit_diagonal=True)
    return sl.solve_triangular(U, left.T, trans=0, lower=False).T


def _zero_or(g, like):
    return np.zeros(np.shape(like)) + g


def lu_adjoint(g, ans):
    """Adjoint of ``P, L, U = scipy.linalg.lu(A)`` with respect to A (P carries none)."""
    P, L, U = ans
    L_bar, U_bar = _zero_or(g[1], L), _zero_or(g[2], U)
    return np.asarray(P @ _through(L, U, L_bar, U_bar), dtype=np.result_type(L))


def lu_tangent(A_dot, ans):
    """Tangent ``(0, L_dot, U_dot)`` of ``scipy.linalg.lu(A)`` along `A_dot`."""
    P, L, U = ans
    F = sl.solve_triangular(L, P.T @ A_dot, lower=True, unit_diagonal=True)
    F = sl.solve_triangular(U, F.T, trans=1, lower=False).T
    return np.zeros(np.shape(P)), L @ np.tril(F, -1), np.triu(F) @ U


def lu_factor_adjoint(g, ans):
    """Adjoint of ``lu, piv = scipy.linalg.lu_factor(A)`` with respect to A (piv carries none)."""
    lu, piv = ans
    L, U = _factors(lu)
    G = _zero_or(g[0], lu)
    out = np.empty(np.shape(lu), dtype=np.result_type(lu, G))
    out[_rows(piv)] = _through(L, U, np.tril(G, -1), np.triu(G))
    return out


def lu_factor_tangent(A_dot, ans):
    """Tangent ``(lu_dot, 0)`` of ``scipy.linalg.lu_factor(A)`` along `A_dot`."""
    lu, piv = ans
    L, U = _factors(lu)
    F = sl.solve_triangular(L, np.asarray(A_dot)[_rows(piv)], lower=True, unit_diagonal=True)
    F = sl.solve_triangular(U, F.T, trans=1, lower=False).T
    return L @ np.tril(F, -1) + np.triu(F) @ U, np.zeros(np.shape(piv))


def lu_solve_adjoint(g, factors, ans):
    """Adjoint of ``x = scipy.linalg.lu_solve((lu, piv), b)`` with respect to the factors, as the pair
    ``(lu_bar, 0)``: with ``b_bar = A^-T g``, ``A_bar = -b_bar x^T`` taken back to the packed factors."""
    lu, piv = factors
    b_bar = sl.lu_solve((lu, piv), g, trans=1)
    A_bar = -np.outer(b_bar, ans) if np.ndim(ans) == 1 else -b_bar @ np.swapaxes(ans, -1, -2)
    L, U = _factors(lu)
    B = A_bar[_rows(piv)]  # P^T A_bar
    return np.tril(B @ U.T, -1) + np.triu(L.T @ B), np.zeros(np.shape(piv))


def lu_solve_tangent(factors_dot, factors, ans):
    """Tangent of ``scipy.linalg.lu_solve((lu, piv), b)`` along the factors' tangent ``(lu_dot, _)``:
    ``-A^-1 dA x`` with ``dA = P (tril(lu_dot, -1) U + L triu(lu_dot))``."""
    lu, piv = factors
    L, U = _factors(lu)
    lu_dot = factors_dot[0]
    dA = np.empty(np.shape(lu), dtype=np.result_type(lu, lu_dot))
    dA[_rows(piv)] = np.tril(lu_dot, -1) @ U + L @ np.triu(lu_dot)
    return -sl.lu_solve((lu, piv), dA @ ans)


LU_HELPERS = {f.__name__: f for f in (lu_rows, lu_adjoint, lu_tangent, lu_factor_adjoint, lu_factor_tangent,
                                      lu_solve_adjoint, lu_solve_tangent)}
