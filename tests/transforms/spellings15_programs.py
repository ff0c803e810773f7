"""Spellings the red team's fifteenth wave found refused, each written several ways: (1) ``reversed``
of an array or a sequence given, inside ``zip``/``enumerate`` (``x[::-1]``), (2) a starred target
never read (``coef, *_ = np.linalg.lstsq(A, b)``), (3) ``np.vander`` (the powers of a column, exact
where an abscissa is 0), (4) ``scipy.linalg.cho_factor``'s pair kept whole (``cf = cho_factor(K)``,
``cho_solve(cf, b)``).  test_spellings15.py runs every transformation on them."""

import numpy as np
import scipy.linalg

# ---- 1. reversed inside zip / enumerate --------------------------------------------------------


def discounted_backwards(x, y):  # the red team's
    acc = 0.0
    for a, b in zip(reversed(x), y):
        acc = 0.5 * acc + a * b
    return acc


def weighted_from_the_end(x):
    return sum(a * (k + 1) for k, a in enumerate(reversed(x)))


def rows_backwards(X, w):
    total = 0.0
    for row, weight in zip(reversed(X), w):
        total = total + weight * np.sum(np.tanh(row) ** 2)
    return total


# ---- 2. a starred target never read -------------------------------------------------------------


def least_squares_coefficients(A, b):  # the red team's
    coef, *_ = np.linalg.lstsq(A, b, rcond=None)
    r = A @ coef - b
    return r @ r + np.sum(coef ** 2)


def first_and_last(x):
    first, *_, last = x
    return first * last ** 2 + np.sin(first)


def head_of_a_split(x):
    head, *_ = np.split(x, 3)
    return np.sum(head ** 3)


# ---- 3. np.vander --------------------------------------------------------------------------------


def vander_increasing(x, c):  # the red team's: an abscissa at 0
    V = np.vander(x, len(c), increasing=True)
    return np.sum(V @ c)


def vander_decreasing(x, c):
    return np.sum((np.vander(x, 4) @ c) ** 2)


def vander_square(x):
    return np.sum(np.vander(x) ** 2)


def vander_ridge_fit(x, y):
    V = np.vander(x, 3)
    coef = np.linalg.solve(V.T @ V + np.eye(3), V.T @ y)
    return np.sum(coef ** 2)


# ---- 4. cho_factor's pair kept whole ---------------------------------------------------------------


def cholesky_quadratic(A, b):  # the red team's
    S = A @ A.T + np.eye(len(b))
    c = scipy.linalg.cho_factor(S)
    x = scipy.linalg.cho_solve(c, b)
    return b @ x


def cholesky_two_solves(A, b):
    S = A @ A.T + 2.0 * np.eye(3)
    f = scipy.linalg.cho_factor(S, lower=True)
    return np.sum(scipy.linalg.cho_solve(f, b) ** 2) + np.sum(scipy.linalg.cho_solve(f, 2.0 * b))


PROGRAMS = [
    ("discounted_backwards", discounted_backwards, lambda r: (r.normal(size=4), r.normal(size=4)), 0),
    ("discounted_backwards_y", discounted_backwards, lambda r: (r.normal(size=4), r.normal(size=4)), 1),
    ("weighted_from_the_end", weighted_from_the_end, lambda r: (r.normal(size=4),), 0),
    ("rows_backwards", rows_backwards, lambda r: (r.normal(size=(3, 2)), r.normal(size=3)), 0),
    ("least_squares_coefficients", least_squares_coefficients, lambda r: (r.normal(size=(6, 2)), r.normal(size=6)), 1),
    ("first_and_last", first_and_last, lambda r: (r.normal(size=4),), 0),
    ("head_of_a_split", head_of_a_split, lambda r: (r.normal(size=6),), 0),
    ("vander_increasing", vander_increasing, lambda r: (np.array([0.0, 0.5, -1.0]), r.normal(size=4)), 0),
    ("vander_decreasing", vander_decreasing, lambda r: (np.array([0.0, 0.5, -1.0]), r.normal(size=4)), 0),
    ("vander_square", vander_square, lambda r: (np.array([0.0, 0.7, -1.2]),), 0),
    ("vander_ridge_fit", vander_ridge_fit, lambda r: (np.array([0.0, 0.5, -1.0, 2.0]), r.normal(size=4)), 0),
    ("cholesky_quadratic", cholesky_quadratic, lambda r: (r.normal(size=(3, 3)), r.normal(size=3)), 0),
    ("cholesky_two_solves", cholesky_two_solves, lambda r: (r.normal(size=(3, 3)), r.normal(size=3)), 1),
]
