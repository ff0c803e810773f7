"""``np.linalg.solve``, ``inv`` and ``slogdet`` of a symmetric positive-definite matrix through its
Cholesky factor: what generated code calls in their stead (backend/optimize/triangular_solves.py).

A Gaussian-process likelihood written with ``np.linalg.slogdet(K)`` and ``np.linalg.solve(K, y)``
has in its gradient two more solves and ``np.linalg.inv(K)``, each an LU factorisation of K
(the inverse three times the factorisation's work).  For a symmetric positive-definite K the
Cholesky factor does each in half the work or less.  Each helper asks first whether its matrix
is one matrix of at least 32 rows, exactly symmetric, with a Cholesky factor (O(n²), then the
factor it needs anyway), and otherwise calls NumPy's own function: the same value but for the
last bits, or NumPy's own error.
"""

from __future__ import annotations

import numpy as np

from .triangular import solve_lower


def spd_factor(a):
    """The Cholesky factor of `a` when it is one float matrix of 32 rows or more, exactly
    symmetric and positive definite (and SciPy is installed, for the triangular solves); else None."""
    if not (isinstance(a, np.ndarray) and a.ndim == 2 and a.shape[0] >= 32 and a.shape[0] == a.shape[1]
            and a.dtype in (np.float64, np.float32)):
        return None
    if a[0, -1] != a[-1, 0] or a[-1, 1] != a[1, -1] or not np.array_equal(a, a.T):
        return None
    try:
        from scipy.linalg import lapack  # (solve_lower and lower_inverse use SciPy too)
    except ImportError:
        return None
    # LAPACK's potrf itself: np.linalg.cholesky copies a C-ordered matrix about, 1.6x the time at n = 200
    factor, info = (lapack.dpotrf if a.dtype == np.float64 else lapack.spotrf)(a, lower=1, clean=1)
    return factor if info == 0 else None  # (not positive definite: LU, as the user wrote)


def spd_solve(a, b, factor=False):
    """``np.linalg.solve(a, b)``: by `a`'s Cholesky factor where `spd_factor` finds one and b is
    a vector or a matrix of right-hand sides.

    `factor`: ``spd_factor`` of `a` (or of `a.T`: a factor exists only for a symmetric matrix),
    found once for several calls on one matrix (None: it has none); False: found here."""
    if not (isinstance(b, np.ndarray) and b.ndim in (1, 2) and b.dtype.kind == "f"):
        factor = None
    elif factor is False:
        factor = spd_factor(a)
    if factor is None or b.shape[0] != a.shape[0]:
        return np.linalg.solve(a, b)
    return solve_lower(factor, solve_lower(factor, b), transpose=True)


def spd_inverse(a, factor=False):
    """``np.linalg.inv(a)``: from `a`'s Cholesky factor where `spd_factor` finds one (`factor` as
    in `spd_solve`)."""
    if factor is False:
        factor = spd_factor(a)
    if factor is None:
        return np.linalg.inv(a)
    from scipy.linalg import lapack  # (spd_factor found SciPy)
    # LAPACK's potri: the lower triangle of the inverse from the factor, two thirds of the work
    # of the triangular inverse and its product with its transpose
    inverse, info = (lapack.dpotri if factor.dtype == np.float64 else lapack.spotri)(factor, lower=1)
    if info != 0:  # (a factor of a positive-definite matrix has no zero on its diagonal)
        return np.linalg.inv(a)
    inverse += np.tril(inverse, -1).T  # its upper triangle: the zeros of the factor's
    return inverse


def spd_slogdet(a, factor=False):
    """``np.linalg.slogdet(a)``: (1.0, twice the sum of the logs of the factor's diagonal) where
    `spd_factor` finds one (`factor` as in `spd_solve`)."""
    if factor is False:
        factor = spd_factor(a)
    if factor is None:
        return np.linalg.slogdet(a)
    kind = type(np.linalg.slogdet(np.ones((1, 1))))  # NumPy's named pair (.sign, .logabsdet)
    return kind(factor.dtype.type(1.0), factor.dtype.type(2.0 * np.sum(np.log(np.diagonal(factor)))))


SYMMETRIC_HELPERS = {f.__name__: f for f in (spd_factor, spd_solve, spd_inverse, spd_slogdet)}
