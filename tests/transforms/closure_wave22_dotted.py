"""Programs for test_closure_wave22.py that spell SciPy's Cholesky functions dotted
(``scipy.linalg.cho_solve``), and the ones refused with what to write instead."""

import numpy as np
import scipy.linalg


def cho_solve_pair_written(A, b):
    """cho_solve of NumPy's factor, the pair written in the call (was refused: "cho_solve does not
    take a list")."""
    L = np.linalg.cholesky(A)
    return np.sum(scipy.linalg.cho_solve((L, True), b) ** 2)


def cho_solve_upper_pair(A, b):
    U = scipy.linalg.cholesky(A)
    return np.sum(np.sin(scipy.linalg.cho_solve((U, False), b)))


def cho_solve_of_a_triangle(M, b):
    return np.sum(scipy.linalg.cho_solve((M, True), b, overwrite_b=False, check_finite=False) ** 2)


def cholesky_dotted(A, b):
    return np.sum(scipy.linalg.cholesky(A, lower=True) @ b)


def cholesky_dotted_upper(A, b):
    return np.sum(scipy.linalg.cholesky(A, lower=False, overwrite_a=False) @ b)


def logdet_and_solve(A, b):
    """A Gaussian's negative log likelihood through SciPy's factor and solve."""
    L = scipy.linalg.cholesky(A, lower=True)
    alpha = scipy.linalg.cho_solve((L, True), b)
    return 0.5 * b @ alpha + np.sum(np.log(np.diag(L)))


# ---- refused, with what to write instead ----

def cho_solve_flag_computed(A, b, low=True):
    L = np.linalg.cholesky(A)
    return np.sum(scipy.linalg.cho_solve((L, low), b) ** 2)


def cho_solve_pair_held(A, b):
    L = np.linalg.cholesky(A)
    pair = (L, True)
    return np.sum(scipy.linalg.cho_solve(pair, b) ** 2)


def cho_factor_read_otherwise(A, b):
    c, low = scipy.linalg.cho_factor(A)
    return np.sum(c @ b)


def cholesky_overwritten(A, b):
    return np.sum(scipy.linalg.cholesky(A, overwrite_a=True) @ b)


def _spd(rng, n=3):
    M = rng.standard_normal((n, n))
    return M @ M.T + n * np.eye(n)


def _matrix_and_b(rng):
    return _spd(rng), rng.standard_normal(3)


def _loaded_factor(rng):
    M = rng.standard_normal((3, 3))
    return np.tril(M, -1) + np.diag(2.0 + np.abs(np.diag(M))) + np.triu(rng.standard_normal((3, 3)), 1), \
        rng.standard_normal(3)


DOTTED = [
    ("cho_solve_pair_written", cho_solve_pair_written, _matrix_and_b, 0),
    ("cho_solve_pair_written_b", cho_solve_pair_written, _matrix_and_b, 1),
    ("cho_solve_upper_pair", cho_solve_upper_pair, _matrix_and_b, 0),
    ("dotted_cho_solve_of_a_triangle", cho_solve_of_a_triangle, _loaded_factor, 0),
    ("cholesky_dotted", cholesky_dotted, _matrix_and_b, 0),
    ("cholesky_dotted_upper", cholesky_dotted_upper, _matrix_and_b, 0),
    ("logdet_and_solve", logdet_and_solve, _matrix_and_b, 0),
]

#: (name, function, arguments(rng), the words the refusal must hold)
REFUSED = [
    ("cho_solve_flag_computed", cho_solve_flag_computed, _matrix_and_b, "cho_solve((L, True), b)"),
    ("cho_solve_pair_held", cho_solve_pair_held, _matrix_and_b, "cho_solve((L, True), b)"),
    ("cho_factor_read_otherwise", cho_factor_read_otherwise, _matrix_and_b, "np.linalg.cholesky(A)"),
    ("cholesky_overwritten", cholesky_overwritten, _matrix_and_b, "overwrite_a=True"),
]
