"""numba's version of ``scipy.linalg.solve_triangular(a, b, trans, lower, unit_diagonal)``,
which numba cannot compile (a Gaussian process's ``solve_triangular(L, y, lower=True)`` and
its adjoint's ``solve_triangular(L, g, trans=1, lower=True)``): forward or back substitution,
reading only the triangle SciPy reads, for a vector or a matrix of right-hand sides.  As
SciPy's ``check_finite=True``, non-finite input raises ``ValueError``; a zero on the diagonal
raises too (the Python gradient, run then, says what SciPy says)."""

from __future__ import annotations

import numpy as np
from numba import njit, types

from .naming import overload


def linalg_solve_triangular(a, b, trans, lower, unit_diagonal):
    import scipy.linalg
    return scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


@overload(linalg_solve_triangular, prefer_literal=True)
def _linalg_solve_triangular(a, b, trans, lower, unit_diagonal):
    if not (isinstance(a, types.Array) and a.ndim == 2 and isinstance(b, types.Array) and b.ndim in (1, 2)
            and isinstance(a.dtype, types.Float) and isinstance(b.dtype, types.Float)
            and isinstance(lower, (types.Boolean, types.Integer)) and isinstance(unit_diagonal, (types.Boolean,
                                                                                                  types.Integer))):
        return None
    if isinstance(trans, types.StringLiteral):
        if trans.literal_value not in ("N", "T", "C"):
            return None
        transposed = trans.literal_value != "N"  # (real matrices: "C" is "T")
        return lambda a, b, trans, lower, unit_diagonal: triangular_solve(a, b, transposed, lower, unit_diagonal)
    if isinstance(trans, (types.Integer, types.Boolean)):
        def by_number(a, b, trans, lower, unit_diagonal):
            if trans not in (0, 1, 2):
                raise ValueError("incorrect value for trans")
            return triangular_solve(a, b, trans != 0, lower, unit_diagonal)
        return by_number
    return None


@njit(cache=True)
def triangular_solve(a, b, transposed, lower, unit):
    n = a.shape[0]
    if a.shape[1] != n or b.shape[0] != n:
        raise ValueError("solve_triangular: shapes of a and b do not fit")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("array must not contain infs or NaNs")
    x = np.ascontiguousarray(b).reshape((n, -1)).astype(np.float64)  # (a strided b: numba reshapes C arrays only)
    down = bool(lower) != bool(transposed)  # the triangle of the matrix solved with (a or a.T) is lower
    for c in range(x.shape[1]):
        for step in range(n):
            i = step if down else n - 1 - step
            s = x[i, c]
            for j in (range(i) if down else range(i + 1, n)):
                s -= (a[j, i] if transposed else a[i, j]) * x[j, c]
            if not unit:
                if a[i, i] == 0.0:
                    raise ValueError("singular matrix: a zero on the diagonal")
                s = s / a[i, i]
            x[i, c] = s
    return x.reshape(b.shape)


HELPERS = ()
