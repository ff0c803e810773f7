"""Programs numba refuses because a value is a number on one path and an array on another
(test_numba_lines28.py): each refusal must name the line here that makes the number (``# NUMBER``),
or, where the number is computed, the line that makes it an array (``# ARRAY``)."""

import numpy as np


def power_step(A):
    b = 1.0  # NUMBER power_step
    for _ in range(4):
        b = A @ np.ones(3) * b
        b = b / np.linalg.norm(b)
    return b @ A @ b


def while_step(A):
    b = 1.0  # NUMBER while_step
    i = 0
    while i < 3:
        b = A @ np.ones(3) * b
        b = b / np.linalg.norm(b)
        i = i + 1
    return b @ A @ b


def branch_step(A):
    if A[0, 0] > 0:
        c = 2.0  # NUMBER branch_step
    else:
        c = A @ np.ones(3)
    return np.sum(c * (A @ A[0]))


def returned_step(A):
    r = 0.0  # NUMBER returned_step
    for k in range(3):
        r = r + np.sin(A[k])
    return r @ A @ r


def _power(A):
    b = 1.0  # NUMBER helper_step
    for _ in range(3):
        b = A @ np.ones(3) * b
        b = b / np.linalg.norm(b)
    return b


def helper_step(A):
    v = _power(A)
    return v @ A @ v


def branch_dot_step(A):
    if A[0, 0] > 0:
        c = 2.0  # NUMBER branch_dot_step
    else:
        c = A @ np.ones(3)
    return np.sum(np.dot(c, A))


def computed_number_step(A):
    b = np.sum(A) / 9.0  # NUMBER computed_number_step
    for _ in range(3):
        b = A @ np.ones(3) * b  # ARRAY computed_number_step
        b = b / np.linalg.norm(b)
    return b @ A @ b
