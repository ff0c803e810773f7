"""Recursive helpers, written the ways everyday code recurses: a power by repeated products,
Horner's rule over an array, two functions calling each other, a tree of calls, a smoothing
that shortens its array at each level, a continued fraction.  test_numba_recursion.py runs
every transformation on them, numba's included (each level of the numba gradient recomputes
its forward values: backend/numba/recursion.py)."""

import numpy as np


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def uses_power(x, y):
    return power(x, 4) * y + power(y, 2)


def horner(c, x, k):
    if k == c.shape[0] - 1:
        return c[k] + 0.0 * x
    return c[k] + x * horner(c, x, k + 1)


def polynomial_by_horner(c, x):
    return np.sum(np.sin(horner(c, x, 0)))


def _up(x, n):
    if n <= 0:
        return np.tanh(x)
    return _down(x * 1.5, n - 1) + x


def _down(x, n):
    if n <= 0:
        return x * x
    return _up(np.sin(x), n - 1) * 0.5


def mutual(x):
    return np.sum(_up(x, 5))


def branching(x, n):
    if n <= 0:
        return np.tanh(x)
    return branching(x * 0.9, n - 1) * branching(x + 0.1, n - 2)


def tree_of_calls(x):
    return np.sum(branching(x, 4))


def smooth(v, depth):
    if depth == 0:
        return v
    return smooth(0.5 * (v[1:] + v[:-1]) + 0.1 * v[1:] ** 2, depth - 1)


def smoothed_sum(v):
    return np.sum(smooth(v, 3) ** 2)


def continued(a, x, k):
    if k == a.shape[0]:
        return 0.0
    return a[k] / (x + continued(a, x, k + 1))


def continued_fraction(a, x):
    return continued(a, x, 0) * x


def scaled_depth(w, x):
    """The recursion reads a weight it is not differentiated along (the gradient is for w)."""
    return np.sum(_scaled(w, x, 3))


def _scaled(w, x, n):
    if n == 0:
        return w * x
    return np.cos(_scaled(w, x, n - 1)) * w


PROGRAMS = [
    ("uses_power", uses_power, lambda r: (1.3, 0.7), 0),
    ("uses_power_y", uses_power, lambda r: (1.3, 0.7), 1),
    ("polynomial_by_horner", polynomial_by_horner, lambda r: (r.normal(size=4), r.normal(size=5)), 0),
    ("polynomial_by_horner_x", polynomial_by_horner, lambda r: (r.normal(size=4), r.normal(size=5)), 1),
    ("mutual", mutual, lambda r: (r.normal(size=3) * 0.5,), 0),
    ("tree_of_calls", tree_of_calls, lambda r: (r.normal(size=3) * 0.5,), 0),
    ("smoothed_sum", smoothed_sum, lambda r: (r.normal(size=7),), 0),
    ("continued_fraction", continued_fraction, lambda r: (r.uniform(1.0, 2.0, size=4), 1.7), 0),
    ("continued_fraction_x", continued_fraction, lambda r: (r.uniform(1.0, 2.0, size=4), 1.7), 1),
    ("scaled_depth", scaled_depth, lambda r: (r.normal(size=3), r.normal(size=3)), 0),
]
