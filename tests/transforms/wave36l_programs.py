"""Wave 36l: sorts at a tie between their entries, reached by a gradient srcdiff differentiates again
(test_wave36l.py), written as users write them.

SORTS (fixed): ``np.sort`` of a value carried through a for or a while loop, in straight-line code
(weighted, squared, a trimmed sum), ``np.sort(axis=0)`` of a matrix, ``np.sort(axis=None)``, a sort
under a helper.  ORDERS (open): the other ways to read a value in its order (``sorted()`` of a list,
``np.median``, ``np.percentile``, ``np.max``, ``x[np.argsort(x)]``, ``np.take_along_axis``).

Each row has a point at the tie (entries 0 and 1 equal) and one beside it.
"""

from __future__ import annotations

import numpy as np

W3 = np.array([1.5, -0.5, 2.0])
W4 = np.array([[1.0, 2.0], [3.0, 0.5]])


# ---- np.sort: fixed ----

def sort_weighted(x):
    """A weighted sum of the sorted entries (an OWA / ranking loss): its gradient jumps at the tie."""
    return np.sum(W3 * np.sort(x))


def sort_squared(x):
    return np.sum(W3 * np.sort(x) ** 2)


def trimmed_sum(x):
    """The sum of the largest two, squared (a trimmed loss)."""
    s = np.sort(x * 1.0)
    return np.sum(s[1:] ** 2) + x[2] * s[0]


def sort_columns(x):
    m = np.reshape(x, (2, 2))
    return np.sum(np.sort(m, axis=0) ** 2 * W4)


def sort_flat(x):
    m = np.reshape(x, (2, 2))
    return np.sum(np.sort(m, axis=None) ** 2 * np.ravel(W4))


def sort_while(x):
    """A state sorted in a while loop, carried."""
    v = x[:2] * 1.0
    s = 0.0
    i = 0
    while i < 2:
        v = np.sort(v) * W3[1:] + x[2]
        s = s + np.sum(v ** 2)
        i += 1
    return s


def _ranked(v):
    return np.sort(v) * W3[:2]


def sort_helper_loop(x):
    """The sort in a helper the loop calls."""
    v = x[:2] * 1.0
    s = 0.0
    for _ in range(2):
        v = _ranked(v) + x[2]
        s = s + np.sum(v * v)
    return s


# ---- other reads in order: open ----

def sorted_list(x):
    s = sorted([x[0] * 1.0, x[1] * 1.0, x[2]])
    return s[0] * 3.0 + s[1] ** 2 + s[2]


def median_times(x):
    return np.median(x * x[2]) * x[1]


def percentile_squared(x):
    return np.percentile(x * 1.0, 60.0) ** 2 * x[0]


def max_times(x):
    return np.max(x) * x[2]


def argsort_gather(x):
    i = np.argsort(x)
    return np.sum(W3 * x[i] ** 2)


def take_along(x):
    i = np.argsort(x)
    return np.sum(W3 * np.take_along_axis(x, i, axis=0) ** 2)


_AT, _BESIDE = np.array([0.5, 0.5, 0.3]), np.array([0.2, 0.5, 0.3])
_AT4, _BESIDE4 = np.array([0.5, 0.2, 0.5, 0.3]), np.array([0.8, 0.2, 0.5, 0.3])

#: (name, function, at the tie, beside it)
SORTS = [
    ("sort_weighted", sort_weighted, _AT, _BESIDE),
    ("sort_squared", sort_squared, _AT, _BESIDE),
    ("trimmed_sum", trimmed_sum, np.array([0.5, 0.5, 0.9]), np.array([0.2, 0.5, 0.9])),
    ("sort_columns", sort_columns, _AT4, _BESIDE4),
    ("sort_flat", sort_flat, _AT4, _BESIDE4),
    ("sort_while", sort_while, _AT, _BESIDE),
    ("sort_helper_loop", sort_helper_loop, _AT, _BESIDE),
]
ORDERS = [
    ("sorted_list", sorted_list, _AT, _BESIDE),
    ("median_times", median_times, np.array([0.5, 0.5, 0.6]), np.array([0.2, 0.5, 0.6])),
    ("percentile_squared", percentile_squared, _AT, _BESIDE),
    ("max_times", max_times, _AT, _BESIDE),
    ("argsort_gather", argsort_gather, _AT, _BESIDE),
    ("take_along", take_along, _AT, _BESIDE),
]


def _a(shape):
    return lambda rng: (0.8 * rng.normal(size=shape),)


#: every program at ordinary points (random arguments), for every transformation
PROGRAMS = [(name, f, _a(x.shape), 0) for name, f, x, _ in SORTS + ORDERS]
