"""Lists of arrays and numbers only read, or not, under jit="numba" (test_numba_list_tuples.py): the
displays backend/numba/list_tuples.py spells as tuples (bound on two paths, renamed, summed) and the
ones it leaves lists (written at an index, of two lengths)."""

import numpy as np


def two_paths(x):
    if x[0] > 0:
        t = [np.sum(x), x]
    else:
        t = [np.dot(x, x), x * 2.0]
    return t[0] + np.sum(t[1] ** 2)


def renamed_and_summed(x):
    t = [np.sum(x), np.sin(x)]
    u = t
    return np.sum(sum(u)) + u[0]


def written_at_an_index(x):
    t = [np.sin(x), x * 1.0]
    t[0] = t[0] * 2.0
    return np.sum(t[0] * t[1])


def two_lengths(x):
    if x[0] > 0:
        t = [np.sin(x)]
    else:
        t = [np.sin(x), x * x]
    return np.sum(sum(t)) * len(t)


def _x(rng):
    return rng.normal(size=3) + np.array([0.5, 0.0, 0.0])


PROGRAMS = [
    ("two_paths", two_paths, lambda r: (_x(r),), 0),
    ("renamed_and_summed", renamed_and_summed, lambda r: (_x(r),), 0),
    ("written_at_an_index", written_at_an_index, lambda r: (_x(r),), 0),
    ("two_lengths", two_lengths, lambda r: (_x(r),), 0),
]
