"""The red team's fourteenth wave, continued: Python idioms around a numeric core.  ``assert`` on a
differentiated value, ``isinstance`` and ``ndim`` checks that pick a code path, ``np.asarray(x,
dtype=float)`` and ``x.astype(float)``, ``float(np.sum(x))`` fed to ``math``, ``functools.reduce``,
``sum(..., start)``, ``sorted(..., reverse=True)`` of numbers, ``del`` of a temporary, a global
constant table, ``nonlocal`` in a nested helper, an f-string in a raised error, a ``with
np.errstate(...)`` block, ``np.errstate`` around a guarded log, ``enumerate(..., start=1)``, tuple
unpacking with a starred name, ``any`` / ``all`` over comparisons, generator
functions (one used twice, one over windows), a dict comprehension and a set of indices.  See redteam_wave14.py.
"""

from __future__ import annotations

import functools
import math

import numpy as np

WEIGHTS = (0.5, 1.5, -0.25)


def assert_positive(x):
    s = np.sum(x ** 2) + 1.0
    assert s > 0, f"bad {s}"
    return math.log(s)


def isinstance_path(x):
    if isinstance(x, np.ndarray) and x.ndim == 1:
        return np.sum(np.sin(x))
    return math.sin(x)


def asarray_astype(x):
    a = np.asarray(x, dtype=float)
    b = a.astype(float) * 2.0
    return np.sum(a * b) + float(np.sum(a)) ** 2


def reduce_product(x):
    return functools.reduce(lambda acc, v: acc * (1.0 + v), x, 1.0)


def sum_with_start(xs):
    return sum((np.sum(v ** 2) for v in xs), 0.5)


def sorted_reverse_numbers(x):
    vals = sorted([x[0] ** 2, x[1] + 3.0, x[2] * x[0]], reverse=True)
    return vals[0] - 0.5 * vals[-1]


def del_temporary(x):
    t = x * 2.0
    y = np.exp(t)
    del t
    return np.sum(y)


def global_table(x):
    return sum(w * np.sum(x ** (k + 1)) for k, w in enumerate(WEIGHTS))


def nonlocal_counter(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * v

    for v in x:
        add(v)
    return total


def fstring_error(x):
    if x.shape[0] < 2:
        raise ValueError(f"need two values, got {x.shape[0]}")
    return np.sum(x[:2] ** 3)


def errstate_log(x):
    with np.errstate(divide="ignore"):
        logs = np.log(np.where(x > 0, x, 1.0))
    return np.sum(np.where(x > 0, logs * x, 0.0))


def enumerate_start(x):
    total = 0.0
    for k, v in enumerate(x, start=1):
        total += v ** k
    return total


def starred_unpacking(x):
    first, *middle, last = x
    return first * last + sum(m ** 2 for m in middle)


def any_all_checks(x):
    if all(v > -10.0 for v in x) and not any(np.isnan(x)):
        return np.sum(np.tanh(x))
    return 0.0


def _pairs(x):
    for i in range(len(x) - 1):
        yield x[i] * x[i + 1]


def generator_used_twice(x):
    return sum(_pairs(x)) + max(_pairs(x))


def _windows(x, k):
    i = 0
    while i + k <= len(x):
        yield x[i:i + k]
        i += 1


def generator_windows(x):
    return sum(np.sum(w) ** 2 for w in _windows(x, 3))


def dict_comprehension_powers(x):
    d = {k: x[i] ** (i + 1) for i, k in enumerate("abc")}
    return d["a"] * d["c"] + sum(d.values())


def set_of_indices(x):
    idx = sorted({0, 2, 1} | {2})
    return sum(x[i] ** 2 for i in idx)


def M(rng, *shape):
    return rng.normal(size=shape)


IDIOMS14 = [
    ("w14_assert_positive", assert_positive, lambda r: (M(r, 3),), 0),
    ("w14_isinstance_path", isinstance_path, lambda r: (M(r, 3),), 0),
    ("w14_asarray_astype", asarray_astype, lambda r: (M(r, 3),), 0),
    ("w14_reduce_product", reduce_product, lambda r: (0.3 * M(r, 4),), 0),
    ("w14_sum_with_start", sum_with_start, lambda r: ([M(r, 2), M(r, 3)],), 0),
    ("w14_sorted_reverse_numbers", sorted_reverse_numbers, lambda r: (np.array([0.4, -1.1, 2.0]),), 0),
    ("w14_del_temporary", del_temporary, lambda r: (M(r, 3),), 0),
    ("w14_global_table", global_table, lambda r: (M(r, 3),), 0),
    ("w14_nonlocal_counter", nonlocal_counter, lambda r: (M(r, 3),), 0),
    ("w14_fstring_error", fstring_error, lambda r: (M(r, 3),), 0),
    ("w14_errstate_log", errstate_log, lambda r: (np.array([0.5, -0.3, 2.0, 0.8]),), 0),
    ("w14_enumerate_start", enumerate_start, lambda r: (M(r, 3),), 0),
    ("w14_starred_unpacking", starred_unpacking, lambda r: (M(r, 4),), 0),
    ("w14_any_all_checks", any_all_checks, lambda r: (M(r, 3),), 0),
    ("w14_generator_used_twice", generator_used_twice, lambda r: (M(r, 4),), 0),
    ("w14_generator_windows", generator_windows, lambda r: (M(r, 5),), 0),
    ("w14_dict_comprehension_powers", dict_comprehension_powers, lambda r: (M(r, 3),), 0),
    ("w14_set_of_indices", set_of_indices, lambda r: (M(r, 3),), 0),
]
