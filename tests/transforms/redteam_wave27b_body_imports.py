"""Wave 27b's first finding: imports in the differentiated function's own body, read by the
rewrites that decide what a call is (test_redteam_wave27b.py).  This module imports neither NumPy
nor SciPy at its top (but for the one comparison below): each function imports what it uses
itself, as code pasted from a notebook does."""

from __future__ import annotations

import scipy.linalg


def cho_solve_imported_here(K, y):
    import numpy as np
    import scipy.linalg

    L = np.linalg.cholesky(K)
    return y @ scipy.linalg.cho_solve((L, True), y) + np.sum(np.log(np.diag(L)))


def cho_solve_module_import(K, y):
    import numpy as np

    L = np.linalg.cholesky(K)
    return y @ scipy.linalg.cho_solve((L, True), y) + np.sum(np.log(np.diag(L)))


def cho_solve_as_alias(log_params, X, y):
    import numpy as np
    import scipy.linalg as sla

    ls, sn = np.exp(log_params)
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2 / ls**2) + (sn**2 + 1e-6) * np.eye(len(y))
    L = np.linalg.cholesky(K)
    return 0.5 * y @ sla.cho_solve((L, True), y) + np.sum(np.log(np.diag(L)))


def cho_factor_from_import(K, y):
    import numpy as np
    from scipy.linalg import cho_factor, cho_solve

    c, low = cho_factor(K)
    return y @ cho_solve((c, low), y) + np.sum(np.log(np.diag(c)))


def add_outer_numpy_here(x):
    import numpy as np

    return np.sum(np.sin(np.add.outer(x, x)))


def reshape_fortran_numpy_here(x):
    import numpy as np

    return np.sum(np.cumsum(x.reshape(2, 2, order="F"), axis=0) ** 2)


def vdot_numpy_here(x):
    import numpy as np

    return np.vdot(x, x[::-1]) + np.sum(np.tanh(x))


def math_dist_here(x):
    import math

    return math.dist(x[:2], x[2:]) ** 2


def _spd(r):
    import numpy as np

    A = r.standard_normal((3, 3))
    return A @ A.T + 3.0 * np.eye(3)


PROGRAMS = [
    ("cho_solve_imported_here", cho_solve_imported_here, lambda r: (_spd(r), r.standard_normal(3)), 0),
    ("add_outer_numpy_here", add_outer_numpy_here, lambda r: (r.standard_normal(4),), 0),
    ("math_dist_here", math_dist_here, lambda r: (r.standard_normal(4),), 0),
    ("cho_factor_from_import", cho_factor_from_import, lambda r: (_spd(r), r.standard_normal(3)), 0),
    ("cho_solve_imported_here_y", cho_solve_imported_here, lambda r: (_spd(r), r.standard_normal(3)), 1),
    (
        "cho_solve_as_alias",
        cho_solve_as_alias,
        lambda r: (r.standard_normal(2) * 0.3, r.standard_normal(4), r.standard_normal(4)),
        0,
    ),
    ("reshape_fortran_numpy_here", reshape_fortran_numpy_here, lambda r: (r.standard_normal(4),), 0),
    ("vdot_numpy_here", vdot_numpy_here, lambda r: (r.standard_normal(4),), 0),
]
