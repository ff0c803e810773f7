"""Programs for test_closure_wave22.py that import SciPy's functions by name alone: this module
binds no name to ``scipy`` or ``scipy.linalg`` (closure_wave22_dotted.py spells them dotted), so
the rewrites that need a name for the module take their other way."""

import numpy as np
from scipy.linalg import cho_factor, cho_solve, cholesky, solve_triangular
from scipy.special import expit, logsumexp

W64 = np.linspace(0.5, 1.5, 3)


# ---- SciPy's functions imported by name ----

def triangular_by_name(L, b):
    return np.sum(solve_triangular(L, b, lower=True) ** 2)


def triangular_by_name_positional(L, b):
    """lower given by position: it binds SciPy's parameter and the rule's alike."""
    return np.sum(np.sin(solve_triangular(L, b, 0, True)))


def triangular_upper_by_name(L, b):
    return np.sum(solve_triangular(L.T, b) * W64)


def cholesky_by_name_lower(A, b):
    L = cholesky(A, lower=True)
    return np.sum((L @ b) ** 2)


def cholesky_by_name_upper(A, b):
    """SciPy's default: the upper factor, of A's upper triangle."""
    U = cholesky(A)
    return np.sum(np.tanh(U @ b))


def cho_factor_by_name(A, b):
    c = cho_factor(A)
    return np.sum(cho_solve(c, b) ** 2)


def cho_solve_of_numpy_factor(A, b):
    """cho_solve imported alone, of NumPy's factor: SciPy reads its lower triangle only."""
    L = np.linalg.cholesky(A)
    return np.sum(cho_solve((L, True), b) ** 2)


def cho_solve_upper_of_numpy_factor(A, b):
    L = np.linalg.cholesky(A)
    return np.sum(np.cos(cho_solve((L.T, False), b)))


def cho_solve_of_a_triangle(M, b):
    """A factor with numbers in its other triangle, which SciPy never reads (nor its derivative)."""
    return np.sum(cho_solve((M, True), b) * W64)


def expit_by_name(x, w):
    return np.sum(expit(x * w) ** 2)


def logsumexp_by_name(x, w):
    return logsumexp(x * w) + np.sum(x)


def spd(rng, n=3):
    M = rng.standard_normal((n, n))
    return M @ M.T + n * np.eye(n)


def factor_and_b(rng):
    return np.linalg.cholesky(spd(rng)), rng.standard_normal(3)


def matrix_and_b(rng):
    return spd(rng), rng.standard_normal(3)


def loaded_factor(rng):
    """A lower triangle well away from singular, arbitrary numbers above it."""
    M = rng.standard_normal((3, 3))
    return np.tril(M, -1) + np.diag(2.0 + np.abs(np.diag(M))) + np.triu(rng.standard_normal((3, 3)), 1), \
        rng.standard_normal(3)


def _vectors(rng):
    return rng.standard_normal(4), rng.standard_normal(4)


#: (name, function, arguments(rng), the parameter differentiated)
BY_NAME = [
    ("triangular_by_name", triangular_by_name, factor_and_b, 0),
    ("triangular_by_name_b", triangular_by_name, factor_and_b, 1),
    ("triangular_by_name_positional", triangular_by_name_positional, factor_and_b, 0),
    ("triangular_upper_by_name", triangular_upper_by_name, factor_and_b, 0),
    ("cholesky_by_name_lower", cholesky_by_name_lower, matrix_and_b, 0),
    ("cholesky_by_name_upper", cholesky_by_name_upper, matrix_and_b, 0),
    ("cho_factor_by_name", cho_factor_by_name, matrix_and_b, 0),
    ("cho_solve_of_numpy_factor", cho_solve_of_numpy_factor, matrix_and_b, 0),
    ("cho_solve_of_numpy_factor_b", cho_solve_of_numpy_factor, matrix_and_b, 1),
    ("cho_solve_upper_of_numpy_factor", cho_solve_upper_of_numpy_factor, matrix_and_b, 0),
    ("cho_solve_of_a_triangle", cho_solve_of_a_triangle, loaded_factor, 0),
    ("expit_by_name", expit_by_name, _vectors, 0),
    ("logsumexp_by_name", logsumexp_by_name, _vectors, 0),
]
