"""Wave 35i: lists of numbers made by repeating a literal (``[10.0] * 5``, ``[0.0] + [9.0] * 4``) and
written by index under a test, as shortest-path relaxations, running maxima and bucket models write
them (test_wave35i.py runs each through every transformation against float64 central differences).
"""

from __future__ import annotations

import numpy as np

EDGES = [(0, 1, 0), (0, 2, 1), (1, 2, 2), (1, 3, 3), (2, 3, 4), (2, 4, 5), (3, 4, 6)]


# ---- a list of a repeated literal written by index on one side of a test ----

def relax_min(w):
    dist = [9.0] * 5
    dist[0] = 0.0
    for _ in range(2):
        for u, v, e in EDGES:
            dist[v] = min(dist[v], dist[u] + w[e] ** 2)
    return dist[4]


def relax_else_side(w):
    dist = [9.0] * 5
    dist[0] = 0.0
    for u, v, e in EDGES:
        cand = dist[u] + np.exp(w[e])
        if cand >= dist[v]:
            continue
        dist[v] = cand
    return dist[3] * dist[4]


def running_max(x):
    best = [0.0] * 3
    for i in range(len(x)):
        k = i % 3
        if x[i] * x[i] > best[k]:
            best[k] = x[i] * x[i]
    return best[0] + 2.0 * best[1] + 3.0 * best[2]


def computed_length(x):
    acc = [1.0] * len(x)
    for i in range(len(x)):
        if x[i] > 0:
            acc[i] = acc[i] * np.sin(x[i]) + x[i]
    return sum(a * a for a in acc)


def two_lists_either_side(x):
    low, high = [0.0] * 2, [0.0] * 2
    for i in range(len(x)):
        if x[i] < 0.5:
            low[i % 2] = low[i % 2] + x[i] ** 2
        else:
            high[i % 2] = high[i % 2] + np.log(x[i])
    return low[0] * high[1] + low[1] + high[0]


def relax_while(w):
    dist = [9.0] * 5
    dist[0] = 0.0
    changed, rounds = True, 0
    while changed and rounds < 4:
        changed, rounds = False, rounds + 1
        for u, v, e in EDGES:
            cand = dist[u] + w[e] * w[e]
            if cand < dist[v]:
                dist[v] = cand
                changed = True
    return dist[4]


def relax_then_sum(w):
    dist = [9.0] * 5
    dist[0] = 0.0
    for u, v, e in EDGES:
        if dist[u] + abs(w[e]) < dist[v]:
            dist[v] = dist[u] + abs(w[e])
    return sum(dist) + np.sum(np.array(dist) ** 2)


RELAXATIONS = [
    ("relax_min", relax_min, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
    ("relax_else_side", relax_else_side, lambda r: (r.uniform(-0.5, 0.5, 7),), 0),
    ("running_max", running_max, lambda r: (r.uniform(-1.5, 1.5, 7),), 0),
    ("computed_length", computed_length, lambda r: (r.uniform(-1.0, 1.0, 5),), 0),
    ("two_lists_either_side", two_lists_either_side, lambda r: (r.uniform(0.1, 1.0, 6),), 0),
    ("relax_while", relax_while, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
    ("relax_then_sum", relax_then_sum, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
]


# ---- the keys of a dict as a list bound to a name, read back at those keys ----

ASSETS = {"stock": (0.08, 0.2), "bond": (0.03, 0.05), "gold": (0.05, 0.15)}
WEIGHTS = {"w": np.array([0.5, -1.0, 2.0]), "v": np.array([1.5, 0.25, -0.5])}


def keys_listed(logits):
    names = list(ASSETS)
    w = np.exp(logits) / np.sum(np.exp(logits))
    mu = np.array([ASSETS[n][0] for n in names])
    vol = np.array([ASSETS[n][1] for n in names])
    return -(w @ mu) + 2.0 * np.sum((w * vol) ** 2)


def keys_sorted(logits):
    names = sorted(ASSETS)
    total = 0.0
    for i, n in enumerate(names):
        total = total + ASSETS[n][1] * np.tanh(logits[i]) ** 2
    return total


def keys_tuple_of_view(x):
    names = tuple(WEIGHTS.keys())
    return sum(np.sum(WEIGHTS[k] * x) ** 2 for k in names)


def tree_keys_listed(p):
    names = list(p)
    return sum(np.sum(np.sin(p[k]) ** 2) for k in names) + p[names[0]][0] * p[names[-1]][1]


def tree_keys_sorted(p):
    out = 0.0
    for k in sorted(p.keys()):
        out = out + np.sum(p[k] ** 3)
    return out


DICT_KEYS = [
    ("keys_listed", keys_listed, lambda r: (r.normal(size=3),), 0),
    ("keys_sorted", keys_sorted, lambda r: (r.normal(size=3),), 0),
    ("keys_tuple_of_view", keys_tuple_of_view, lambda r: (r.normal(size=3),), 0),
    ("tree_keys_listed", tree_keys_listed, lambda r: ({"b": r.normal(size=2), "a": r.normal(size=3)},), 0),
    ("tree_keys_sorted", tree_keys_sorted, lambda r: ({"b": r.normal(size=2), "a": r.normal(size=3)},), 0),
]
