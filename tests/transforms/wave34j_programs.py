"""Wave 34j: variants of the findings wave 34b left open (test_wave34j.py runs each through every
transformation against float64 central differences).

* A slice whose bounds a loop gives (``w[:, k:k + 1]``, ``w[k:k + 1]``), of shape (n, ?), times a factor
  of shape (n, ?) that is wider: the second-order code took the two for one shape.
* Constant-making NumPy calls of ints numba lacks (np.fft.fftfreq / rfftfreq, np.diag_indices), a matrix
  read at an index array (``centers[labels]``), a module dict tested at a computed key (``day in TABLE``),
  a list of int counters beside a list of numbers read at the same index.
* A list of indices changed in place (``rest.remove(item)``, ``rest.pop(0)``, ``order.insert(0, k)``).
"""

from __future__ import annotations

import math

import numpy as np

REST = np.array([[0.0, 0.0], [0.5, 0.1], [1.0, 0.0], [1.5, -0.1]])


# ---- a slice of bounds a loop gives, times a wider factor (the Hessian of linear blend skinning) ----

def skin_local_bones(wl):
    w = np.exp(wl)
    w = w / w.sum(axis=1, keepdims=True)
    bones = [(np.eye(2), np.zeros(2)), (np.array([[0.8, -0.6], [0.6, 0.8]]), np.array([0.1, 0.2]))]
    out = np.zeros_like(REST)
    for k, (rot, tr) in enumerate(bones):
        out += w[:, k:k + 1] * (REST @ rot.T + tr)
    return np.sum((out - REST - np.array([0.0, 0.3])) ** 2)


def skin_three_bones_sqrt(wl):
    w = wl ** 2 + 0.1
    w = w / np.sum(w, axis=1, keepdims=True)
    mats = [np.eye(2), np.array([[0.8, -0.6], [0.6, 0.8]]), np.array([[0.0, -1.0], [1.0, 0.0]])]
    out = np.zeros_like(REST)
    for k, m in enumerate(mats):
        out = out + np.sqrt(w[:, k:k + 1]) * (REST @ m)
    return np.sum(out ** 2)


def row_slices_by_enumerate(wl):
    w = np.exp(wl) / np.sum(np.exp(wl))
    acc = np.zeros(3)
    cols = [np.array([1.0, 0.5, -0.2]), np.array([0.3, -1.0, 0.7]), np.array([-0.4, 0.2, 1.1])]
    for k, col in enumerate(cols):
        acc = acc + w[k:k + 1] * col
    return np.sum(acc ** 2) + np.sum(np.log(acc ** 2 + 1.0))


def zip_bounds(wl):
    w = np.tanh(wl)
    w = w / np.sum(w ** 2, axis=1, keepdims=True)
    starts = [0, 1, 2]
    total = 0.0
    for s, m in zip(starts, [np.eye(2), np.array([[0.8, -0.6], [0.6, 0.8]]), np.array([[0.0, 1.0], [1.0, 0.0]])]):
        total = total + np.sum((w[:, s:s + 1] * (REST @ m)) ** 2)
    return total


# ---- numba: constant-making calls of ints, a matrix at an index array, a dict tested at a computed key ----

def band_power(x, fs=100.0):
    f = np.fft.fftfreq(len(x), d=1.0 / fs)
    spec = np.abs(np.fft.fft(x)) ** 2
    return np.sum(np.where(np.abs(f) < 20.0, spec, 0.0)) / np.sum(spec)


def rfft_weighted(x):
    f = np.fft.rfftfreq(n=x.shape[0], d=0.5)
    return np.sum(f * np.abs(np.fft.rfft(x)) ** 2) / x.shape[0]


def diagonal_penalty(a):
    i = np.diag_indices(a.shape[0])
    return np.sum(a[i] ** 2) + 0.5 * np.sum(a * a.T)


LABELS = np.array([0, 2, 1, 0, 2])
NEIGHBOURS = np.array([1, 2, 3, 0])


def prototypes(centers, feats=np.linspace(-1.0, 1.0, 10).reshape(5, 2)):  # noqa: B008
    diff = feats - centers[LABELS]
    return np.sum(diff ** 2) + 0.1 * np.sum(centers ** 2)


def smooth_rows(verts):
    lap = verts[NEIGHBOURS] - verts
    return np.sum(lap ** 2) + np.sum(np.sin(verts[NEIGHBOURS[::-1]]) * verts)


SCHEDULE = {2: 0.5, 5: 1.5, 7: 0.8}


def scheduled_decay(theta, steps=10):
    rate, level = theta[0], theta[1]
    total = 0.0
    for t in range(steps):
        if t in SCHEDULE:
            rate = rate * SCHEDULE[t]
        if t not in SCHEDULE:
            level = level * 0.95
        total = total + level * math.exp(-rate * t / steps)
    return total


def group_counts(x, groups=(1, 0, 1, 1, 0, 2, 2, 0)):
    count = [0, 0, 0]
    total = [0.0, 0.0, 0.0]
    for i in range(len(groups)):
        g = groups[i]
        count[g] += 1
        before = total[g]
        total[g] = before + x[i] ** 2 / count[g]
    return total[0] * total[1] + total[2]


# ---- a list of indices changed in place ----

RANKINGS = [[0, 2, 1, 3], [2, 0, 3, 1], [0, 1, 2, 3]]


def rank_remove(theta):
    nll = 0.0
    for ranking in RANKINGS:
        rest = list(ranking)
        for item in ranking[:-1]:
            scores = theta[rest]
            m = np.max(scores)
            nll -= theta[item] - (m + np.log(np.sum(np.exp(scores - m))))
            rest.remove(item)
    return nll


def rank_pop_front(theta):
    nll = 0.0
    for ranking in RANKINGS:
        rest = list(ranking)
        while len(rest) > 1:
            scores = theta[rest]
            nll -= theta[rest[0]] - np.log(np.sum(np.exp(scores)))
            rest.pop(0)
    return nll


def rank_pop_index(theta):
    nll = 0.0
    for ranking in RANKINGS:
        rest = list(ranking)
        for item in ranking[:-1]:
            nll -= theta[item] - np.log(np.sum(np.exp(theta[rest])))
            rest.pop(rest.index(item))
    return nll


def order_insert(theta):
    order = [3]
    for k in range(3):
        order.insert(0, k)
    return np.sum(theta[order] * np.arange(4.0)) + np.sum(theta ** 2)


def numbers_removed(theta):
    xs = [theta[0], theta[1], theta[2]]
    xs.remove(theta[1])
    return xs[0] * xs[1]


GRAPH = {"s": [("a", 0), ("b", 1)], "a": [("c", 2), ("t", 3)], "b": [("c", 4), ("t", 5)], "c": [("t", 6)]}
ORDER = ["s", "a", "b", "c", "t"]
EDGES = [(ORDER.index(u), ORDER.index(v), e) for u in ORDER for v, e in GRAPH.get(u, [])]


def shortest_by_names(weights, gamma=0.3):
    dist = {"s": 0.0}
    for node in ORDER[:-1]:
        for nxt, e in GRAPH.get(node, []):
            cand = dist[node] + weights[e]
            dist[nxt] = cand if nxt not in dist else min(dist[nxt], cand)
    return dist["t"]


def shortest_by_edges(weights, gamma=0.3):
    dist = [0.0] * len(ORDER)
    seen = [False] * len(ORDER)
    seen[0] = True
    for u, v, e in EDGES:
        cand = dist[u] + weights[e]
        if seen[v]:
            m = min(dist[v], cand)
            dist[v] = m - gamma * math.log(math.exp(-(dist[v] - m) / gamma) + math.exp(-(cand - m) / gamma))
        else:
            dist[v] = cand
            seen[v] = True
    return dist[-1]


SLICES = [
    ("skin_local_bones", skin_local_bones, lambda r: (r.normal(size=(4, 2)),), 0),
    ("skin_three_bones_sqrt", skin_three_bones_sqrt, lambda r: (r.normal(size=(4, 3)),), 0),
    ("row_slices_by_enumerate", row_slices_by_enumerate, lambda r: (r.normal(size=3),), 0),
    ("zip_bounds", zip_bounds, lambda r: (r.uniform(0.3, 1.0, (4, 3)),), 0),
    ("skin_local_bones_f32", skin_local_bones, lambda r: (r.normal(size=(4, 2)).astype(np.float32),), 0),
]
NUMBA = [
    ("band_power", band_power, lambda r: (r.normal(size=8),), 0),
    ("rfft_weighted", rfft_weighted, lambda r: (r.normal(size=7),), 0),
    ("diagonal_penalty", diagonal_penalty, lambda r: (r.normal(size=(3, 3)),), 0),
    ("prototypes", prototypes, lambda r: (r.normal(size=(3, 2)),), 0),
    ("smooth_rows", smooth_rows, lambda r: (r.normal(size=(4, 2)),), 0),
    ("scheduled_decay", scheduled_decay, lambda r: (np.array([0.7, 1.2]),), 0),
    ("group_counts", group_counts, lambda r: (r.normal(size=8),), 0),
]
LIST_EDITS = [
    ("rank_remove", rank_remove, lambda r: (r.normal(size=4),), 0),
    ("rank_pop_front", rank_pop_front, lambda r: (r.normal(size=4),), 0),
    ("rank_pop_index", rank_pop_index, lambda r: (r.normal(size=4),), 0),
    ("order_insert", order_insert, lambda r: (r.normal(size=4),), 0),
]
#: the rewrite the refusal of ``shortest_by_names`` asks for: first order agrees (its hvp and numba are open)
REWRITTEN = [
    ("shortest_by_edges", shortest_by_edges, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
]
#: refused at the user's line, with the rewrite to write instead
REFUSED = [
    ("numbers_removed", numbers_removed, lambda r: (r.normal(size=3),), 0),
    ("shortest_by_names", shortest_by_names, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
]
