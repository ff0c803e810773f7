"""Wave 33c: jit="numba" of programs grad differentiates (test_wave33c.py runs them), by class.

* PRODUCTS: a running product started from a number (``prod = 1.0``, then ``prod = prod * (1 + x / k)``),
  called directly, of a vector and of a float;
* DICTS: ``len`` of a dict argument, of a default dict, of a module dict;
* REPEATS: a module list both repeated (``PICK * 2``, ``2 * PICK``, ``PICK + PICK``) and indexed with;
* DIAGONALS: ``np.diag`` of a list or tuple of numbers (constants, ints, computed items, an offset);
* SCATTERS: ``np.add.at`` with a tuple of index arrays (pairs, repeats, a number added, rows of a 3-D array);
* MATRICES: a list or product of matrices carried through a loop (ABCD optics, transfer matrices);
* MEMOS: ``functools.lru_cache`` helpers and recursive helpers;
* PROMOTED: numbers that become arrays in a loop, written to make a promotion wrong if one were made
  where it changes a value (a loop skipped or broken out of, an early return, a value reused after
  its loop, a 2-D promotion meeting a vector, a loop of no trips).
"""

from __future__ import annotations

import functools

import numpy as np


def _v(r, n=3):
    return 0.3 + 0.4 * r.random(n)


def _m(r):
    return 0.3 + 0.4 * r.random((3, 3))


# ---- PRODUCTS ----

def running_product_log(x):
    prod = 1.0
    for k in range(1, 4):
        prod = prod * (1 + x / k)
    return np.sum(np.log(prod))


def running_product_sum(x):
    prod = 1.0
    for k in range(1, 5):
        prod = prod * (1.0 + x / k)
    return np.sum(prod * x)


def running_product_float(x):
    prod = 1.0
    for k in range(1, 5):
        prod = prod * (1 + x / k)
    return prod


def survival_product(h):
    surv = 1.0
    total = 0.0
    for k in range(3):
        surv = surv * (1.0 - h * (k + 1) / 4.0)
        total = total + np.sum(surv)
    return total


def compound_growth(rates, n=4):
    value = 1.0
    for _ in range(n):
        value = value * (1.0 + rates / 12.0)
    return np.sum(np.log(value))


PRODUCTS = [
    ("running_product_log", running_product_log, lambda r: (_v(r),), 0),
    ("running_product_sum", running_product_sum, lambda r: (_v(r),), 0),
    ("running_product_float", running_product_float, lambda r: (0.7,), 0),
    ("survival_product", survival_product, lambda r: (_v(r),), 0),
    ("compound_growth", compound_growth, lambda r: (_v(r),), 0),
]


# ---- DICTS ----

PAIRS = {(0, 1): 1.0, (1, 2): 2.0}
WEIGHTS = {"a": 1.5, "b": 0.5, "c": 2.0}


def dict_len_argument(x, d):
    return len(d) * np.sum(x ** 2) + d["a"] * x[0]


def dict_len_default(x, rates=PAIRS):
    return len(rates) * np.sum(x ** 2) + rates[(0, 1)] * x[0]


def dict_len_module(x):
    return np.sum(x ** 2) / len(WEIGHTS) + WEIGHTS["b"] * x[1]


def dict_len_mean(x, d):
    total = 0.0
    for key in d:
        total = total + d[key] * np.sum(np.sin(x))
    return total / len(d)


DICTS = [
    ("dict_len_argument", dict_len_argument, lambda r: (_v(r), {"a": 1.5, "b": 2.5}), 0),
    ("dict_len_default", dict_len_default, lambda r: (_v(r),), 0),
    ("dict_len_module", dict_len_module, lambda r: (_v(r),), 0),
    ("dict_len_mean", dict_len_mean, lambda r: (_v(r), {"a": 1.5, "b": 2.5, "c": -1.0}), 0),
]


# ---- REPEATS ----

PICK = [0, 2]
ROWS = [1]


def repeated_then_indexed(x):
    return np.sum(x[PICK * 2] ** 2) + np.sum(x[PICK]) * x[1]


def repeated_on_the_left(x):
    return np.sum(x[2 * PICK] * x[1])


def joined_lists_index(x):
    return np.sum(x[PICK + ROWS] ** 3)


def repeated_in_a_loop(x):
    total = 0.0
    for k in range(1, 3):
        total = total + np.sum(np.sin(x[PICK * k]))
    return total


REPEATS = [
    ("repeated_then_indexed", repeated_then_indexed, lambda r: (_v(r),), 0),
    ("repeated_on_the_left", repeated_on_the_left, lambda r: (_v(r),), 0),
    ("joined_lists_index", joined_lists_index, lambda r: (_v(r),), 0),
    ("repeated_in_a_loop", repeated_in_a_loop, lambda r: (_v(r),), 0),
]


# ---- DIAGONALS ----

def diag_of_constants(x):
    Q = np.diag([1.0, 0.1, 2.0])
    return x @ Q @ x


def diag_of_ints_tuple(x):
    return x @ np.diag((1, 2, 3)) @ x + np.sum(np.diag((1, 2), 1) @ x)


def diag_of_computed(x):
    m = np.diag([x[0], 1.0, x[2] ** 2])
    return np.sum(m @ x) + np.trace(m)


def diag_of_a_named_list(x):
    w = [0.5, 1.5, 2.5]
    D = np.diag(w)
    total = 0.0
    for k in range(2):
        total = total + x @ D @ x * (k + 1)
    return total


def lqr_cost(K, steps=6):
    A = np.array([[1.0, 0.1], [0.0, 1.0]])
    B = np.array([[0.0], [0.1]])
    Q, R = np.diag([1.0, 0.1]), np.array([[0.01]])
    x = np.array([1.0, 0.0])
    J = 0.0
    for _ in range(steps):
        u = -K @ x
        J += x @ Q @ x + u @ R @ u
        x = A @ x + B @ u
    return J


DIAGONALS = [
    ("diag_of_constants", diag_of_constants, lambda r: (_v(r),), 0),
    ("diag_of_ints_tuple", diag_of_ints_tuple, lambda r: (_v(r),), 0),
    ("diag_of_computed", diag_of_computed, lambda r: (_v(r),), 0),
    ("diag_of_a_named_list", diag_of_a_named_list, lambda r: (_v(r),), 0),
    ("lqr_cost", lqr_cost, lambda r: (np.array([[3.0, 2.5]]),), 0),
]


# ---- SCATTERS ----

ELEMS = [(0, 1), (1, 2), (2, 3)]


def add_at_pairs(x):
    out = np.zeros((3, 3))
    np.add.at(out, (np.array([0, 1, 1]), np.array([2, 0, 0])), x)
    return np.sum(out ** 2)


def add_at_number(x):
    out = np.outer(x, x)
    np.add.at(out, (np.array([0, 2, 2]), np.array([1, 1, 1])), 0.5)
    return np.sum(out ** 2)


def add_at_stiffness(k, f=np.array([0.0, 0.0, 1.0, 0.5])):  # noqa: B008
    K = np.zeros((4, 4))
    for e, (i, j) in enumerate(ELEMS):
        ke = k[e] * np.array([[1.0, -1.0], [-1.0, 1.0]])
        np.add.at(K, (np.array([i, i, j, j]), np.array([i, j, i, j])), ke.ravel())
    K[0, 0] += 1e3
    u = np.linalg.solve(K, f)
    return u @ f


def add_at_rows_of_3d(x):
    out = np.zeros((3, 2, 2))
    rows, cols = np.array([0, 2, 0]), np.array([1, 0, 1])
    np.add.at(out, (rows, cols), np.stack([x[:2], x[1:], x[::2]]))
    return np.sum(np.sin(out))


SCATTERS = [
    ("add_at_pairs", add_at_pairs, lambda r: (_v(r),), 0),
    ("add_at_number", add_at_number, lambda r: (_v(r),), 0),
    ("add_at_stiffness", add_at_stiffness, lambda r: (np.array([1.0, 2.0, 1.5]),), 0),
    ("add_at_rows_of_3d", add_at_rows_of_3d, lambda r: (_v(r),), 0),
]


# ---- MATRICES ----

def abcd_focal(curvatures, n=1.5, gaps=(0.1, 0.3, 0.1)):
    M = np.eye(2)
    n_before = 1.0
    for i, (c, d) in enumerate(zip(curvatures, gaps)):
        n_after = n if i % 2 == 0 else 1.0
        refract = np.array([[1.0, 0.0], [-(n_after - n_before) * c / n_after, n_before / n_after]])
        travel = np.array([[1.0, d], [0.0, 1.0]])
        M = travel @ refract @ M
        n_before = n_after
    return (-1.0 / M[1, 0] - 2.0) ** 2


def transfer_matrices(k):
    mats = [np.eye(2), np.eye(2)]
    for step in range(3):
        mats = [np.array([[np.cos(k[0]), np.sin(k[0])], [-np.sin(k[0]), np.cos(k[0])]]) @ mats[0],
                mats[1] @ np.array([[1.0, k[1] * (step + 1)], [0.0, 1.0]])]
    return np.sum((mats[0] @ mats[1]) ** 2)


def matrix_history(w):
    A = np.array([[w[0], 0.1], [0.2, w[1]]])
    powers = [np.eye(2)]
    for _ in range(3):
        powers.append(powers[-1] @ A)
    return sum(np.trace(p) for p in powers)


MATRICES = [
    ("abcd_focal", abcd_focal, lambda r: (np.array([0.8, -0.6, 0.5]),), 0),
    ("transfer_matrices", transfer_matrices, lambda r: (_v(r, 2),), 0),
    ("matrix_history", matrix_history, lambda r: (_v(r, 2),), 0),
]


# ---- MEMOS ----

@functools.lru_cache(maxsize=None)
def _coefficient(k):
    return 1.0 / (k * k + 1)


@functools.lru_cache(maxsize=None)
def _stencil(width):
    return np.linspace(-1.0, 1.0, 2 * width + 1) ** 2


def memo_in_a_loop(x):
    s = 0.0
    for k in range(4):
        s = s + _coefficient(k) * np.sum(x ** (k + 1))
    return s


def memo_array_constant(x):
    return np.sum(np.convolve(x, _stencil(1), mode="same") ** 2)


def _power_sum(x, n):
    if n == 0:
        return 0.0
    return x ** n / n + _power_sum(x, n - 1)


def recursive_static_depth(x):
    return np.sum(_power_sum(x, 3))


def _horner(cs, x):
    if len(cs) == 1:
        return cs[0]
    return cs[0] + x * _horner(cs[1:], x)


def recursive_over_a_list(x):
    return np.sum(_horner([1.0, -0.5, 0.25, 0.125], x) ** 2)


def _tree_sum(x, lo, hi):
    if hi - lo == 1:
        return np.sin(x[lo])
    mid = (lo + hi) // 2
    return _tree_sum(x, lo, mid) * _tree_sum(x, mid, hi) + 1.0


def recursive_split(x):
    return _tree_sum(x, 0, 4)


MEMOS = [
    ("memo_in_a_loop", memo_in_a_loop, lambda r: (_v(r),), 0),
    ("memo_array_constant", memo_array_constant, lambda r: (_v(r, 5),), 0),
    ("recursive_static_depth", recursive_static_depth, lambda r: (_v(r),), 0),
    ("recursive_over_a_list", recursive_over_a_list, lambda r: (_v(r),), 0),
    ("recursive_split", recursive_split, lambda r: (_v(r, 4),), 0),
]
