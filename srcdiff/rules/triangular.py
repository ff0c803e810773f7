"""Triangular pieces of the Cholesky factor's derivatives (rules/runtime.py's ``cholesky_*``
helpers): the inverse of a lower-triangular factor, and Phi (the lower triangle, its
diagonal halved).

NumPy has no triangular inverse: ``np.linalg.inv(L)`` factors L again as a general matrix,
about six times the work of LAPACK's ``trtri`` (which SciPy exposes).  A Cholesky adjoint
at n = 200 spent more than half its time there, so with SciPy installed the inverse is
``trtri``'s; without it, or for a stack of matrices, NumPy's.
"""

from __future__ import annotations

import numpy as np


def lower_inverse(L):
    """``np.linalg.inv(L)`` of a lower-triangular `L` whose upper triangle is zero (a Cholesky
    factor, or a stack of them): LAPACK's triangular inverse where SciPy is installed."""
    if isinstance(L, np.ndarray) and L.ndim == 2 and L.dtype in (np.float64, np.float32):
        try:
            from scipy.linalg import lapack  # an optional extra; a copy of this function runs without srcdiff
        except ImportError:
            return np.linalg.inv(L)
        inv, info = (lapack.dtrtri if L.dtype == np.float64 else lapack.strtri)(L, lower=1)
        if info == 0:  # (it copies L and inverts its lower triangle: the zeros above stay)
            return inv
    return np.linalg.inv(L)  # a stack, or a singular L (NumPy says so as it always did)


def phi(m):
    """The lower triangle of (a stack of) square matrices, the diagonal halved."""
    out = np.tril(m).astype(np.result_type(m, 0.5), copy=False)
    np.einsum("...ii->...i", out)[...] *= 0.5  # the diagonal, a view written in place
    return out


def cholesky_factor_adjoint(g, L):
    """rules/runtime.py's ``cholesky_adjoint(g, L)``: a large factor a block of rows at a time
    (`blocked_adjoint`), others by the formula through L's inverse (`symbolic_adjoint`); a g whose
    lower triangle is its diagonal (a log determinant's, ``np.log(np.diag(L))``) by `diagonal_adjoint`."""
    if isinstance(g, np.ndarray) and isinstance(L, np.ndarray) and g.ndim == 2 and g.shape == L.shape \
            and np.count_nonzero(g) == np.count_nonzero(np.diagonal(g)):
        return diagonal_adjoint(np.diagonal(g), L)
    if isinstance(L, np.ndarray) and L.ndim == 2 and L.shape[0] > 128 and L.dtype in (np.float64, np.float32):
        try:
            from scipy.linalg import solve_triangular
        except ImportError:
            return symbolic_adjoint(g, L)
        return blocked_adjoint(g, L, solve_triangular)
    return symbolic_adjoint(g, L)


def symbolic_adjoint(g, L):
    """S = L^-T Phi(L^T g) L^-1, then Phi(S + S^T): O(n³) in three matrix products and an
    inverse; for a stack of factors too (the transposes swap the last two axes only)."""
    inv = lower_inverse(L)
    s = np.swapaxes(inv, -1, -2) @ phi(np.swapaxes(L, -1, -2) @ g) @ inv
    return phi(s + np.swapaxes(s, -1, -2))


def diagonal_adjoint(d, L):
    """`symbolic_adjoint` of a g whose lower triangle is the diagonal `d`: Phi(L^T g) is then
    diag(L_ii d_i) / 2, so S = L^-T diag(L_ii d_i) L^-1 / 2 (one product where the formula makes three)
    and Phi(S + S^T) as there."""
    inv = lower_inverse(L)
    s = np.swapaxes(inv, -1, -2) @ ((np.diagonal(L) * d)[:, None] * inv)
    return phi(0.5 * (s + np.swapaxes(s, -1, -2)))


def blocked_adjoint(g, L, solve_triangular):
    """`symbolic_adjoint` of one factor, 64 rows at a time from the bottom: Murray's blocked
    reverse-mode algorithm ("Differentiation of the Cholesky decomposition", 2016, the
    Cholesky factorisation's own steps run backwards), each diagonal block by the formula.
    Solves and products of blocks: a third of the formula's work at n = 300."""
    n = L.shape[0]
    a = np.tril(g)  # a copy: only g's lower triangle reaches x (L's upper one is zero)
    for k in range(n, 0, -64):
        j = max(0, k - 64)
        top, below, left, corner = L[j:k, j:k], L[k:, j:k], L[j:k, :j], L[k:, :j]
        below_bar = solve_triangular(top, a[k:, j:k].T, trans=1, lower=True, check_finite=False).T
        a[k:, j:k] = below_bar
        a[k:, :j] -= below_bar @ left
        a[j:k, :j] -= below_bar.T @ corner
        top_bar = symbolic_adjoint(a[j:k, j:k] - np.tril(below_bar.T @ below), top)
        a[j:k, j:k] = top_bar
        a[j:k, :j] -= (top_bar + top_bar.T) @ left
    return a


def solve_lower(L, b, transpose=False):
    """``np.linalg.solve(L, b)`` (``np.linalg.solve(L.T, b)`` with `transpose`) of a lower-triangular
    `L` whose upper triangle is zero (a Cholesky factor): a triangular solve, O(n²) for one
    right-hand side where NumPy's solve factors L again in O(n³), for one matrix and a vector or
    a matrix of right-hand sides where SciPy is installed; else NumPy's solve itself."""
    if isinstance(L, np.ndarray) and isinstance(b, np.ndarray) and L.ndim == 2 and b.ndim in (1, 2) \
            and L.dtype in (np.float64, np.float32) and b.dtype.kind == "f" and b.size and L.shape[0] == b.shape[0]:
        try:
            from scipy.linalg import solve_triangular
        except ImportError:
            solve_triangular = None
        if solve_triangular is not None:  # (NaNs pass through, as NumPy's solve lets them)
            return solve_triangular(L, b, trans=1 if transpose else 0, lower=True, check_finite=False)
    return np.linalg.solve(np.swapaxes(L, -1, -2) if transpose else L, b)


def proportion(g, b):
    """The number k with ``g == k * b`` to the last bits, when `g` and `b` are float arrays of one
    shape and dtype and `b` starts with a nonzero; else None.

    A quadratic form's adjoint seeds a solve with its own right-hand side scaled: where a solve
    of `b` with the same matrix was made already (x), k * x is this solve's answer
    (backend/optimize/repeated_solves.py)."""
    if not (type(g) is np.ndarray and type(b) is np.ndarray and g.shape == b.shape and g.dtype == b.dtype
            and g.dtype.kind == "f" and b.size):
        return None
    first = (0,) * b.ndim
    if b[first] == 0.0:
        return None
    k = float(g[first] / b[first])
    if not np.isfinite(k):
        return None
    rows = (0,) * (b.ndim - 1)  # one line of elements first: most seeds that are not proportional fail there
    if not _near(g[rows], k * b[rows]):
        return None
    return k if np.array_equal(g, k * b) or _near(g, k * b) else None


def _near(g, kb):
    """Whether g and k * b agree to a few units in the last place of each element of g."""
    return bool(np.all(np.abs(g - kb) <= 8.0 * np.finfo(g.dtype).eps * np.abs(g)))


def solve_pair_adjoint(w, x):
    """Phi(w x^T + x w^T) for `w` and `x` of one shape (vectors, or matrices of columns): the
    adjoint of a symmetric matrix S, read by its lower triangle, of what depends on its Cholesky
    factor through S alone (backend/optimize/cholesky_pairs.py)."""
    w, x = np.reshape(w, (np.shape(w)[0], -1)), np.reshape(x, (np.shape(x)[0], -1))
    m = w @ x.T
    return phi(m + m.T)


TRIANGULAR_HELPERS = {f.__name__: f for f in (lower_inverse, solve_lower, proportion, solve_pair_adjoint)}
