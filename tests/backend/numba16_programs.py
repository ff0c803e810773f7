"""Programs of the classes jit="numba" refused while grad differentiated them (a third of the red
team's corpus after its fifteenth wave), several spellings each: ``np.atleast_1d`` / ``2d`` / ``3d``
of a number (``np.r_[x[:2], 0.5, ...]`` makes one) or of an array with fewer axes, and
``scipy.linalg.lu_factor`` / ``lu_solve`` (the factorisation's values, the solve in either operand,
a matrix of right-hand sides, the factorisation's diagonal), and a product's adjoint that meets a
float32 matrix and a float64 gradient (a float32 GRU step: numba's ``@`` takes one dtype), and a
column read in a loop by an index the loop runs over (``logB[:, o]``: ``np.add.at`` through a
slice and an integer in its adjoint).
Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.linalg as sla
import scipy.special

# ---- np.atleast_1d / 2d / 3d of a number ---------------------------------------------------------------


def r_with_numbers(x):
    v = np.r_[x[:2], 0.5, x[2:] ** 2]
    M = np.c_[x, x ** 2]
    return np.sum(v ** 2) + np.sum(M ** 3)


def r_of_a_computed_number(x):
    v = np.r_[np.sum(x), x * 2.0, -1.0]
    return np.sum(np.sin(v) * np.arange(v.size))


def atleast_of_numbers(x):
    a = np.atleast_1d(x[0] * x[1])
    B = np.atleast_2d(x)
    C = np.atleast_3d(np.tanh(x))
    return np.sum(a ** 2) + np.sum(B @ B.T) + np.sum(C[:, :, 0] * x)


# ---- scipy.linalg.lu_factor / lu_solve ---------------------------------------------------------------


def lu_solve_vector(A, b):
    lu, piv = scipy.linalg.lu_factor(A)
    return np.sum(scipy.linalg.lu_solve((lu, piv), b) ** 2)


def lu_solve_right_hand_side(A, b):
    factors = sla.lu_factor(A)
    x = sla.lu_solve(factors, np.sin(b))
    return x @ b


def lu_solve_transposed_matrix(A, B):
    lu, piv = sla.lu_factor(A.T)
    X = sla.lu_solve((lu, piv), B)
    return np.sum(X * B) + np.sum(np.log(np.abs(np.diag(lu))))


# ---- a product's adjoint meeting a float32 matrix and a float64 gradient ------------------------------


def gru_step(W, h, x):
    n = h.shape[0]
    hx = np.concatenate([h, x])
    z = 1 / (1 + np.exp(-(W[:n] @ hx)))
    r = 1 / (1 + np.exp(-(W[n:2 * n] @ hx)))
    cand = np.tanh(W[2 * n:] @ np.concatenate([r * h, x]))
    return np.sum(((1 - z) * h + z * cand) ** 2)


def row_times_matrix(h, W):
    return np.sum(np.sin((h / 3) @ W) * np.linspace(0.0, 1.0, W.shape[1]))


# ---- a column read in a loop by an index it runs over (np.add.at through a slice and an integer) -------


def hmm_forward(log_A, log_pi, log_B, obs):
    logA = log_A - scipy.special.logsumexp(log_A, axis=1, keepdims=True)
    logB = log_B - scipy.special.logsumexp(log_B, axis=1, keepdims=True)
    alpha = log_pi - scipy.special.logsumexp(log_pi) + logB[:, obs[0]]
    for o in obs[1:]:
        alpha = scipy.special.logsumexp(alpha[:, None] + logA, axis=0) + logB[:, o]
    return -scipy.special.logsumexp(alpha)


def columns_by_label(X, labels):
    total = 0.0
    for k in labels:
        total = total + np.sum(np.tanh(X[1:, k]) * X[:-1, k])
    return total


def _well_posed(rng, n=4):
    return rng.normal(size=(n, n)) + n * np.eye(n)


PROGRAMS = [
    ("r_with_numbers", r_with_numbers, lambda rng: (rng.normal(size=4),), 0),
    ("r_of_a_computed_number", r_of_a_computed_number, lambda rng: (rng.normal(size=3),), 0),
    ("atleast_of_numbers", atleast_of_numbers, lambda rng: (rng.normal(size=3),), 0),
    ("lu_solve_vector", lu_solve_vector, lambda rng: (_well_posed(rng), rng.normal(size=4)), 0),
    ("lu_solve_vector_b", lu_solve_vector, lambda rng: (_well_posed(rng), rng.normal(size=4)), 1),
    ("lu_solve_right_hand_side", lu_solve_right_hand_side, lambda rng: (_well_posed(rng), rng.normal(size=4)), 1),
    ("lu_solve_transposed_matrix", lu_solve_transposed_matrix,
     lambda rng: (_well_posed(rng), rng.normal(size=(4, 2))), 0),
    ("gru_step", gru_step, lambda rng: (0.5 * rng.normal(size=(9, 5)), rng.normal(size=3), rng.normal(size=2)), 0),
    ("gru_step_h", gru_step, lambda rng: (0.5 * rng.normal(size=(9, 5)), rng.normal(size=3), rng.normal(size=2)), 1),
    ("row_times_matrix", row_times_matrix, lambda rng: (rng.normal(size=3), rng.normal(size=(3, 4))), 1),
    ("hmm_forward", hmm_forward, lambda rng: (rng.normal(size=(2, 2)), rng.normal(size=2), rng.normal(size=(2, 3)),
                                             [0, 2, 1, 1, 0]), 2),
    ("columns_by_label", columns_by_label, lambda rng: (rng.normal(size=(4, 3)), [2, 0, 2]), 0),
]
