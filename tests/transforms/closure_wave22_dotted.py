"""Programs for test_closure_wave22.py that spell SciPy's Cholesky functions dotted
(``scipy.linalg.cho_solve``), and the ones refused with what to write instead."""

import numpy as np
import scipy.linalg

from .closure_wave22_programs import loaded_factor, matrix_and_b


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


DOTTED = [
    ("cho_solve_pair_written", cho_solve_pair_written, matrix_and_b, 0),
    ("cho_solve_pair_written_b", cho_solve_pair_written, matrix_and_b, 1),
    ("cho_solve_upper_pair", cho_solve_upper_pair, matrix_and_b, 0),
    ("dotted_cho_solve_of_a_triangle", cho_solve_of_a_triangle, loaded_factor, 0),
    ("cholesky_dotted", cholesky_dotted, matrix_and_b, 0),
    ("cholesky_dotted_upper", cholesky_dotted_upper, matrix_and_b, 0),
    ("logdet_and_solve", logdet_and_solve, matrix_and_b, 0),
]

#: (name, function, arguments(rng), the words the refusal must hold)
REFUSED = [
    ("cho_solve_flag_computed", cho_solve_flag_computed, matrix_and_b, "cho_solve((L, True), b)"),
    ("cho_solve_pair_held", cho_solve_pair_held, matrix_and_b, "cho_solve((L, True), b)"),
    ("cho_factor_read_otherwise", cho_factor_read_otherwise, matrix_and_b, "np.linalg.cholesky(A)"),
    ("cholesky_overwritten", cholesky_overwritten, matrix_and_b, "overwrite_a=True"),
]
