"""Wave 35j: ties that persist through a sort (fin_cvar_sort's ``np.maximum(srt[k:] - srt[k], 0)``), written
the ways users write an order statistic (test_wave35j.py).  The sorted values' own differences are 0 at
their own element whatever x does (second derivative 0 there), and the inputs have no ties.
"""
from __future__ import annotations

import numpy as np

SCEN = np.random.default_rng(8).normal(0.01, 0.05, size=(40, 3))


def cvar_sort(w, alpha=0.9):
    losses = -(SCEN @ w)
    srt = np.sort(losses)
    k = int(alpha * len(srt))
    var = srt[k]
    return var + np.mean(np.maximum(srt[k:] - var, 0.0)) + srt[k:].mean()


def cvar_argsort(w, alpha=0.8):
    losses = -(SCEN @ w) * (1.0 + 0.1 * w[0])
    order = np.argsort(losses)
    srt = losses[order]
    k = int(alpha * srt.size)
    return np.sum(np.maximum(srt - srt[k], 0.0) ** 1.5) + 0.1 * np.sum(w ** 2)


def cvar_take_along(w, alpha=0.75):
    losses = SCEN @ (w * w) - SCEN @ w
    idx = np.argsort(losses)
    srt = np.take_along_axis(losses, idx, axis=0)
    k = int(alpha * len(srt))
    return srt[k] + np.mean(np.maximum(srt[k:] - srt[k], 0.0)) * np.exp(w[1])


def trimmed_mean_sort(x, cut=2):
    s = np.sort(x * x - x)
    lo, hi = s[cut], s[-cut - 1]
    return np.sum(np.clip(s, lo, hi) ** 2)


def median_hinge(x):
    s = np.sort(np.sin(x) + x)
    m = s[s.size // 2]
    return np.sum(np.maximum(s - m, 0.0) * x) + np.sum(np.abs(s - m))


def sorted_rows_hinge(x):
    a = np.reshape(x, (2, 3))
    s = np.sort(a * 2.0 + 1.0, axis=1)
    return np.sum(np.maximum(s - s[:, 1:2], 0.0) ** 2 * a)


#: (name, f, x): no ties among the sorted values; a sorted value minus itself is a tie that persists
PERSISTING = [
    ("cvar_sort", cvar_sort, np.array([0.5, 0.3, 0.2])),
    ("cvar_argsort", cvar_argsort, np.array([0.5, 0.3, 0.2])),
    ("cvar_take_along", cvar_take_along, np.array([0.5, 0.3, 0.2])),
    ("trimmed_mean_sort", trimmed_mean_sort, np.array([0.3, -1.2, 2.1, 0.9, -0.4, 1.7, 2.6])),
    ("median_hinge", median_hinge, np.array([0.3, -1.2, 2.1, 0.9, -0.4])),
    ("sorted_rows_hinge", sorted_rows_hinge, np.array([0.3, -1.2, 2.1, 0.9, -0.4, 1.7])),
]


def tied_sort_hinge(x):
    s = np.sort(2.0 * x)
    return np.sum(np.maximum(s - s[1], 0.0) * x) + np.sum(x ** 3)


def tied_argsort_hinge(x):
    s = x[np.argsort(x)]
    return np.sum(np.maximum(s[1:] - s[1], 0.0) ** 1.5) + np.sum(s * x)


def tied_sorted_rows(x):
    s = np.sort(np.reshape(x, (2, 3)), axis=None)
    return np.sum(np.maximum(s - s[2], 0.0) * s)


#: the sorted operand ties at the point: the sorted differences move however the tangent's line crosses it
#: (NaN allowed where no derivative exists; a finite wrong number never)
AT_TIES = [
    ("tied_sort_hinge", tied_sort_hinge, np.array([1.0, 1.0, 1.0, 2.0])),
    ("tied_argsort_hinge", tied_argsort_hinge, np.array([0.5, 0.5, 0.5, -1.0, 2.0])),
    ("tied_sorted_rows", tied_sorted_rows, np.array([0.3, 0.3, 0.3, 0.9, -0.4, 1.7])),
]


def three_tied_sorted(x):
    s = np.sort(x)
    return np.sum(np.maximum(s[1:] - s[0], 0.0) ** 2) + np.sum(x ** 3)


#: a tangent along the last element leaves ``s[1] - s[0]`` still by the permutation found (0 - 0), yet
#: along -e_2 the sort's order changes and s[0] moves: no second derivative there (NaN, never a number)
THREE_TIED = ("three_tied_sorted", three_tied_sorted, np.array([1.0, 1.0, 1.0]))
