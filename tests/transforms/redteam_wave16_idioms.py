"""The red team's sixteenth wave, continued: more novice idioms, where a value leaves NumPy and comes back
(``x.tolist()``, ``x.item()``, ``sorted(x)``, ``math.fsum``, ``math.prod``, ``functools.reduce``,
``itertools.accumulate``, ``np.fromiter`` of a generator, ``statistics.fmean``), an argument centred in
place (``x -= x.mean()``), a mutable default list, floor division and ``%`` of floats, ``divmod``,
``np.heaviside`` times x, ``sum(xs, start)``, ``enumerate(start=1)``, ``zip(*pairs)``, ``np.inner`` /
``np.vdot``, a one-argument ``np.where`` index, ``.sort()`` of a copy, ``np.einsum`` with an implicit
output, ``x.var(ddof=1)``, ``print`` of an f-string inside the function).  See redteam_wave16.py.
"""

from __future__ import annotations

import functools
import itertools
import math
import statistics

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def tolist_sum(x):
    vals = x.tolist()
    return sum(v * v for v in vals) + vals[0] * vals[-1]


def item_scalar(x, w):
    a = x[0].item()
    return a * np.sum(w * x) + np.sum(x).item() ** 2


def sorted_builtin(x):
    s = sorted(x)
    return s[-1] * 2.0 + s[0] + sum(v ** 2 for v in s[1:-1])


def math_fsum_prod(x):
    return math.fsum(v * v for v in x) + math.prod(x)


def reduce_product(x):
    return functools.reduce(lambda a, b: a * b + 0.1, x)


def accumulate_running(x):
    return sum(c ** 2 for c in itertools.accumulate(x))


def fromiter_generator(x):
    y = np.fromiter((v ** 2 for v in x), dtype=float)
    return np.sum(y * np.arange(len(y)))


def statistics_fmean(x):
    return statistics.fmean([v ** 2 for v in x]) + statistics.fmean(x)


def centre_in_place(x):
    x = x.copy()
    x -= x.mean()
    return np.sum(x ** 3)


def centre_argument_in_place(x):
    x -= x.mean()
    return np.sum(x ** 3)


def mutable_default(x, seen=[]):  # noqa: B006  the classic mistake, as users write it
    seen.append(1)
    return np.sum(x ** 2)


def floor_mod_divmod(x):
    q, r = divmod(x, 1.0)
    return np.sum(r ** 2 + (x // 0.5) * x + (x % 0.3))


def heaviside_times(x):
    return np.sum(np.heaviside(x, 0.5) * x ** 2)


def sum_with_start(xs):
    return np.sum(sum(xs, np.zeros(3)) ** 2)


def enumerate_start(x):
    return sum(k * v ** 2 for k, v in enumerate(x, start=1))


def zip_star(pairs_a, pairs_b):
    xs, ys = zip(*zip(pairs_a, pairs_b))
    return sum(a * b for a, b in zip(xs, ys))


def inner_vdot(x, y):
    return np.inner(x, y) ** 2 + np.vdot(x, x) + np.dot(x, y)


def where_one_argument(x):
    idx = np.where(x > 0)[0]
    return np.sum(x[idx] ** 2) + np.sum(x[np.nonzero(x < 0)] ** 3)


def sort_of_copy(x, w):
    y = x.copy()
    y.sort()
    return y @ w


def einsum_implicit(A, x):
    return np.einsum("i,i", x, x) + np.sum(np.einsum("ij", A) * A) + np.sum(np.einsum("ji", A) @ x)


def var_ddof(x):
    return x.var(ddof=1) + np.std(x, ddof=1) + np.mean(x, axis=0) ** 2


def printing_loss(w, X, y, verbose=True):
    loss = np.mean((X @ w - y) ** 2)
    if verbose:
        print(f"loss = {loss:.4f}, |w| = {np.linalg.norm(w):.3f}")
    return loss


def list_then_array(x):
    feats = [x[0], x[1] ** 2, x[0] * x[2], np.sin(x[2])]
    v = np.array(feats)
    return v @ v


def array_of_arrays(x):
    A = np.array([x, x ** 2, np.cos(x)])
    return np.sum(A @ A.T)


def dtype_spellings(x):
    y = np.array(x, dtype=float) + x.astype(np.float64) + np.asarray(x, dtype=np.float64)
    return np.sum(y ** 2) + np.sum(np.array(x, copy=True))


def int_arithmetic_mix(x):
    n = len(x)
    half = n // 2
    return np.sum(x[:half] ** 2) / n + np.sum(x[half:]) * (n % 3) + x[-1] * 2 ** half


def builtin_max_of_array(x):
    return max(x) ** 2 + min(x) + sum(x) * abs(x[0])


def round_then_continue(x):
    k = np.round(x)
    return np.sum((x - k) ** 2 + np.floor(x) * x)


IDIOMS16 = [
    ("w16_tolist_sum", tolist_sum, lambda r: (M(r, 4),), 0),
    ("w16_item_scalar", item_scalar, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w16_sorted_builtin", sorted_builtin, lambda r: (M(r, 5),), 0),
    ("w16_math_fsum_prod", math_fsum_prod, lambda r: (M(r, 4),), 0),
    ("w16_reduce_product", reduce_product, lambda r: (M(r, 4),), 0),
    ("w16_accumulate_running", accumulate_running, lambda r: (M(r, 4),), 0),
    ("w16_fromiter_generator", fromiter_generator, lambda r: (M(r, 4),), 0),
    ("w16_statistics_fmean", statistics_fmean, lambda r: (M(r, 4),), 0),
    ("w16_centre_in_place", centre_in_place, lambda r: (M(r, 4),), 0),
    ("w16_centre_argument_in_place", centre_argument_in_place, lambda r: (M(r, 4),), 0),
    ("w16_mutable_default", mutable_default, lambda r: (M(r, 3),), 0),
    ("w16_floor_mod_divmod", floor_mod_divmod, lambda r: (np.array([0.37, 1.62, -0.81]),), 0),
    ("w16_heaviside_times", heaviside_times, lambda r: (np.array([0.5, -1.0, 2.0]),), 0),
    ("w16_sum_with_start", sum_with_start, lambda r: ([M(r, 3), M(r, 3)],), 0),
    ("w16_enumerate_start", enumerate_start, lambda r: (M(r, 4),), 0),
    ("w16_zip_star", zip_star, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w16_inner_vdot", inner_vdot, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w16_where_one_argument", where_one_argument, lambda r: (np.array([0.5, -1.0, 2.0, -0.3]),), 0),
    ("w16_sort_of_copy", sort_of_copy, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w16_einsum_implicit", einsum_implicit, lambda r: (M(r, 3, 3), M(r, 3)), 0),
    ("w16_var_ddof", var_ddof, lambda r: (M(r, 5),), 0),
    ("w16_printing_loss", printing_loss, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5), False), 0),
    ("w16_list_then_array", list_then_array, lambda r: (M(r, 3),), 0),
    ("w16_array_of_arrays", array_of_arrays, lambda r: (M(r, 3),), 0),
    ("w16_dtype_spellings", dtype_spellings, lambda r: (M(r, 3),), 0),
    ("w16_int_arithmetic_mix", int_arithmetic_mix, lambda r: (M(r, 5),), 0),
    ("w16_builtin_max_of_array", builtin_max_of_array, lambda r: (np.array([0.5, -1.0, 2.0, 1.1]),), 0),
    ("w16_round_then_continue", round_then_continue, lambda r: (np.array([0.3, -1.2, 2.4]),), 0),
]
