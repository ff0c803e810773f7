"""Programs of reach 29 (test_reach29_refusals.py): constructs grad refused before, each as a class
with variants, run through every transformation against float64 central differences.

Each row is ``(name, func, make_args(rng), wrt)`` (corpus.from_table).
"""

from __future__ import annotations

import math

import numpy as np

# ---- a loop over the sorted labels of groups: ``for g in sorted(set(groups))`` ----


def group_sums_squared(x, groups):
    t = 0.0
    for g in sorted(set(groups)):
        t = t + np.sum(x[groups == g]) ** 2
    return t


def group_means_comprehension(x, groups):
    return sum(np.mean(x[groups == g]) ** 2 for g in sorted(set(groups)))


def group_enumerated(x, groups):
    t = 0.0
    for k, g in enumerate(sorted(set(groups))):
        t = t + (k + 1.0) * np.sum(np.tanh(x[groups == g]))
    return t


def group_variance_components(params, y, groups):
    sigma_b, sigma_e = math.exp(params[0]), math.exp(params[1])
    ll = 0.0
    for g in sorted(set(groups)):
        yg = np.array([yi for yi, gi in zip(y, groups) if gi == g])
        n = len(yg)
        V = sigma_e**2 * np.eye(n) + sigma_b**2 * np.ones((n, n))
        sign, logdet = np.linalg.slogdet(V)
        ll += -0.5 * (logdet + yg @ np.linalg.solve(V, yg))
    return ll


def group_effects_dict(b, x, groups):
    # a random effect per group: b[g] read by the label
    r = 0.0
    for g in sorted(set(groups)):
        r = r + np.sum((x[groups == g] - b[g]) ** 2) + 0.5 * b[g] ** 2
    return r


def sorted_distinct_values(x):
    # sorted(set(...)) of the differentiated values themselves (distinct here)
    return sum(v * v * (k + 1.0) for k, v in enumerate(sorted(set(x))))


def _groups(r):
    return 0.5 * r.standard_normal(7), np.array([2, 0, 1, 2, 0, 1, 1])


GROUPS = [
    ("group_sums_squared", group_sums_squared, _groups, 0),
    ("group_sums_squared_list", group_sums_squared, lambda r: (0.5 * r.standard_normal(5), [1, 0, 1, 3, 3]), 0),
    ("group_means_comprehension", group_means_comprehension, _groups, 0),
    ("group_enumerated", group_enumerated, _groups, 0),
    ("group_variance_components", group_variance_components,
     lambda r: (np.array([0.1, -0.2]), r.standard_normal(6), np.array([0, 1, 0, 1, 1, 2])), 0),
    ("group_effects_dict", group_effects_dict,
     lambda r: (0.3 * r.standard_normal(3), r.standard_normal(6), np.array([0, 1, 0, 2, 1, 2])), 0),
    ("sorted_distinct_values", sorted_distinct_values, lambda r: (np.array([0.3, -1.2, 0.8, 2.0]),), 0),
]

PROGRAMS = GROUPS
