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
