"""Wave 36g: the spellings waves 35a-35i left refused, written as other users would write them
(test_wave36g.py runs each through every transformation against float64 central differences):
NumPy's own keyword for an operand (``np.median(a=x)``), np.split at positions computed from a shape,
lists of numbers joined in the code or appended and then written by index, an update ``q += v`` of a
value the loop body makes and a list holds, two lists of numbers written on either side of a test.
"""

from __future__ import annotations

import numpy as np

from . import wave36g_config as cfg
from .wave35b_water import RAIN, bucket_model

EDGES = [(0, 1, 0), (0, 2, 1), (1, 2, 2), (1, 3, 3), (2, 3, 4), (2, 4, 5), (3, 4, 6)]
PET = 0.3


# ---- 1. NumPy's own keyword for an operand ----

def median_keyword(x):
    return np.median(a=x * x) + np.sum(a=np.sin(x))


def median_axis_first(X):
    return np.sum(np.median(axis=0, a=np.tanh(X)) ** 2)


def clip_keywords(x):
    return np.sum(np.clip(a=x, a_min=-0.5, a_max=0.75) ** 2) + np.mean(a=x ** 3)


def clip_min_max(x):
    return np.sum(np.clip(x * 1.5, min=-1.0, max=1.0) ** 2)


def dot_keywords(w, X):
    return np.dot(a=X @ w, b=X @ w) + np.sum(np.outer(a=w, b=w))


def solve_keywords(w):
    A = np.eye(3) * 3.0 + np.outer(w, w)
    return np.sum(np.linalg.solve(a=A, b=w)) + np.linalg.det(a=A)


def stats_keywords(x):
    return np.var(a=x) + np.std(a=x, ddof=1) + np.percentile(a=x, q=40.0) + np.max(a=np.cumsum(a=x))


KEYWORDS = [
    ("median_keyword", median_keyword, lambda r: (r.normal(size=7),), 0),
    ("median_axis_first", median_axis_first, lambda r: (r.normal(size=(5, 3)),), 0),
    ("clip_keywords", clip_keywords, lambda r: (np.array([0.3, 1.2, -0.9, 0.1, -0.2]),), 0),
    ("clip_min_max", clip_min_max, lambda r: (np.array([0.3, 1.2, -0.9, 0.1, -0.2]),), 0),
    ("dot_keywords", dot_keywords, lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
    ("solve_keywords", solve_keywords, lambda r: (r.normal(size=3),), 0),
    ("stats_keywords", stats_keywords, lambda r: (np.array([0.4, -1.3, 0.9, 2.2, 0.05, -0.6]),), 0),
]


# ---- 2. np.split at positions computed from a shape ----

def split_halves(W):
    n = W.shape[1] // 2
    a, b = np.split(W, [n], axis=1)
    return np.sum(a * a) + np.sum(np.sin(b))


def split_gates(w, x):
    z = np.tanh(x @ w)
    h = z.shape[-1] // 3
    i, f, o = np.split(z, [h, 2 * h], axis=-1)
    c = f * 0.5 + i * np.tanh(o)
    return np.sum(o * np.tanh(c))


def split_pieces_indexed(x):
    k = len(x) // 3
    parts = np.split(x, [k, len(x) - k])
    return np.sum(parts[0] ** 2) - np.sum(parts[1]) * np.sum(parts[2][::-1] ** 3)


def split_pieces_looped(x):
    k = x.size // 2
    total = 0.0
    for piece in np.array_split(x, [1, k]):
        total = total + np.sum(np.exp(-piece)) * len(piece)
    return total


def hsplit_computed(W):
    n = W.shape[1] - 1
    left, right = np.hsplit(W, [n])
    return np.sum(left.T @ right) + np.sum(np.log1p(left ** 2))


def vsplit_computed(W):
    n = len(W) // 2
    top, bottom = np.vsplit(W, [n])
    return np.sum(top * bottom[: len(top)]) + np.sum(bottom ** 3)


SPLITS = [
    ("split_halves", split_halves, lambda r: (r.normal(size=(3, 4)),), 0),
    ("split_gates", split_gates, lambda r: (r.normal(size=(4, 6)) * 0.5, r.normal(size=(2, 4))), 0),
    ("split_pieces_indexed", split_pieces_indexed, lambda r: (r.normal(size=7),), 0),
    ("split_pieces_looped", split_pieces_looped, lambda r: (r.normal(size=6),), 0),
    ("hsplit_computed", hsplit_computed, lambda r: (r.normal(size=(3, 3)),), 0),
    ("vsplit_computed", vsplit_computed, lambda r: (r.normal(size=(4, 2)),), 0),
]


# ---- 3. lists of numbers joined in the code, or appended, then written by index ----

def relax_joined(w):
    dist = [0.0] + [10.0] * 4
    for u, v, e in EDGES:
        if dist[u] + w[e] ** 2 < dist[v]:
            dist[v] = dist[u] + w[e] ** 2
    return dist[4] + 0.5 * dist[3]


def relax_joined_tail(w):
    dist = [9.0] * 4 + [0.0]
    for v, u, e in EDGES:
        if dist[4 - u] + np.exp(w[e]) < dist[4 - v]:
            dist[4 - v] = dist[4 - u] + np.exp(w[e])
    return dist[0] * dist[1]


def relax_appended(w):
    dist = []
    for i in range(5):
        dist.append(0.0 if i == 0 else 10.0)
    for u, v, e in EDGES:
        cand = dist[u] + abs(w[e])
        if cand < dist[v]:
            dist[v] = cand
    return dist[4]


def slots_joined(x):
    slots = [1.0, 1.0] + [0.0] * 3
    for i in range(len(x)):
        k = i % 5
        if x[i] > 0.0:
            slots[k] = slots[k] + x[i] ** 2
    return slots[0] * slots[2] + slots[1] + slots[4]


def two_lists_either_side(x):
    low, high = [0.0] * 2, [0.0] * 2
    for i in range(len(x)):
        if x[i] < 0.5:
            low[i % 2] = low[i % 2] + x[i] ** 2
        else:
            high[i % 2] = high[i % 2] + np.log(x[i])
    return low[0] * high[1] + low[1] + high[0]


def rebound_on_one_side(x):
    acc = [0.0] * 3
    for i in range(len(x)):
        if x[i] > 0.5:
            acc = [a + x[i] ** 2 for a in acc]
    return acc[0] * acc[2]


def written_under_if_only(x):
    best, count = [0.0, 0.0, 0.0], [0, 0, 0]
    for i in range(len(x)):
        k = i % 3
        if x[i] * x[i] > best[k]:
            best[k] = x[i] * x[i]
            count[k] = count[k] + 1
    return best[0] + 2.0 * best[1] * best[2] + count[0]


def tuple_rebound(x):
    low, high = [0.0] * 2, [1.0] * 2
    for i in range(len(x)):
        if x[i] > 0.5:
            low = [a + x[i] ** 2 for a in low]
        else:
            high[i % 2] = high[i % 2] * x[i]
    return low[0] * high[1] + low[1] * high[0]


LISTS = [
    ("relax_joined", relax_joined, lambda r: (np.linspace(0.5, 1.5, 7),), 0),
    ("relax_joined_tail", relax_joined_tail, lambda r: (np.linspace(-0.4, 0.6, 7),), 0),
    ("relax_appended", relax_appended, lambda r: (np.linspace(0.5, 1.5, 7) * np.array([1, -1, 1, 1, -1, 1, 1]),), 0),
    ("slots_joined", slots_joined, lambda r: (np.array([0.3, -1.2, 0.8, 1.1, -0.4, 0.6, 0.9]),), 0),
    ("two_lists_either_side", two_lists_either_side, lambda r: (np.array([0.3, 1.2, 0.2, 2.0, 0.1, 0.7]),), 0),
    ("rebound_on_one_side", rebound_on_one_side, lambda r: (np.array([0.3, 1.2, 0.8, 0.1]),), 0),
    ("written_under_if_only", written_under_if_only, lambda r: (np.array([0.3, -1.2, 0.8, 1.1, -0.4, 0.6]),), 0),
    ("tuple_rebound", tuple_rebound, lambda r: (np.array([0.3, 1.2, 0.8, 0.2]),), 0),
]


# ---- 4. ``q += v`` of a value the loop body makes, then held by a list ----

def spill_bucket(params, rain=RAIN):
    cap, k = params[0], params[1]
    level, spills = 0.5 * cap, []
    for p in rain:
        level = level + p - PET * level / cap
        q = 0.0
        if level > cap:
            q = level - cap
            level = cap
        q += k * level
        q *= 1.0 + 0.01 * p
        level -= k * level
        spills.append(q)
    return sum(s * s for s in spills) / len(spills)


def tanks_history(ks, inflows=(2.0, 0.0, 5.0, 1.5, 0.0, 3.0)):
    store, history = 1.0, []
    for inflow in inflows:
        out = ks[0] * store
        out += ks[1] * store ** 2
        store = store + inflow - out
        history.append(out)
    return np.sum(np.array(history) ** 2)


def residual_rows(w, X):
    rows = []
    for i in range(X.shape[0]):
        r = X[i] * w
        r -= 0.5 * np.mean(r)
        rows.append(r)
    return np.sum(np.stack(rows) ** 2)


UPDATES = [
    ("hyd_bucket_spill", bucket_model, lambda r: (np.array([20.0, 0.3]),), 0),
    ("spill_bucket", spill_bucket, lambda r: (np.array([12.0, 0.25]),), 0),
    ("tanks_history", tanks_history, lambda r: (np.array([0.2, 0.01]),), 0),
    ("residual_rows", residual_rows, lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
]


# ---- refused, as before: the update changes an array another name still holds ----

def carried_array_history(w, X):
    acc, history = np.zeros(3), []
    for i in range(X.shape[0]):
        acc += X[i] * w
        history.append(acc)
    return np.sum(np.stack(history) ** 2)


def made_then_appended_then_updated(w, X):
    rows = []
    for i in range(X.shape[0]):
        r = X[i] * w
        rows.append(r)
        r += 1.0
    return np.sum(np.stack(rows) ** 2)


STILL_REFUSED = [
    ("carried_array_history", carried_array_history, lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
    ("made_then_appended_then_updated", made_then_appended_then_updated,
     lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
]


# ---- 5. another module's dicts and lists, read by attribute ----

def weighted_by_module_dict(w, X):
    r = X @ w - cfg.TARGET
    return cfg.WEIGHTS["fit"] * np.sum(r ** 2) + cfg.WEIGHTS["l2"] * np.sum((w - cfg.WEIGHTS["prior"]) ** 2)


def terms_of_module_dict(w):
    total = 0.0
    for name in cfg.WEIGHTS:
        if name != "prior":
            total = total + cfg.WEIGHTS[name] * np.sum(np.sin(w) ** 2)
    return total + cfg.WEIGHTS.get("missing", 0.25) * np.sum(w)


def layers_of_module_list(w):
    h = w
    for i in range(len(cfg.LAYERS)):
        h = np.tanh(cfg.LAYERS[i]["scale"] * h + cfg.LAYERS[i]["shift"])
    return np.sum(h ** 2)


def table_of_module_list(x):
    s = 0.0
    for i in range(len(x)):
        s = s + cfg.TABLE[i] * x[i] ** 2 + cfg.GRID[1][i] * x[i]
    return s


MODULE_DATA = [
    ("weighted_by_module_dict", weighted_by_module_dict, lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
    ("terms_of_module_dict", terms_of_module_dict, lambda r: (r.normal(size=3),), 0),
    ("layers_of_module_list", layers_of_module_list, lambda r: (r.normal(size=3),), 0),
    ("table_of_module_list", table_of_module_list, lambda r: (r.normal(size=3),), 0),
]


# ---- 6. a dict keyed by a graph's node names, read and written at the names its loops give ----

GRAPH = {"s": [("a", 0), ("b", 1)], "a": [("c", 2), ("t", 3)], "b": [("c", 4), ("t", 5)], "c": [("t", 6)]}
NODES = ["s", "a", "b", "c", "t"]
NAMED = [("s", "a", 0), ("s", "b", 1), ("a", "c", 2), ("a", "t", 3), ("b", "c", 4), ("b", "t", 5), ("c", "t", 6)]
LEVELS = {0: [(1, 0), (2, 1)], 1: [(2, 2), (3, 3)], 2: [(3, 4)]}


def critical_path(w):
    arrival = {n: 0.0 for n in NODES}
    for u in NODES:
        for v, e in GRAPH.get(u, []):
            arrival[v] = max(arrival[v], arrival[u] + np.exp(w[e]))
    return arrival["t"]


def soft_longest(w, tau=0.5):
    best = {}
    best["s"] = 0.0
    for u in NODES[:-1]:
        for v, e in GRAPH[u]:
            cand = best[u] + w[e] ** 2
            if v not in best:
                best[v] = cand
            else:
                best[v] = tau * np.logaddexp(best[v] / tau, cand / tau)
    return best["t"]


def named_edge_flows(w):
    inflow = {"s": 1.0}
    for u, v, e in NAMED:
        share = inflow[u] / (1.0 + np.exp(-w[e]))
        if v in inflow:
            inflow[v] = inflow[v] + share
        else:
            inflow[v] = share
    return inflow["t"] * inflow["c"]


def int_levels(w):
    value = {0: 1.0}
    for u in range(3):
        for v, e in LEVELS[u]:
            value[v] = value.get(v, 0.0) + value[u] * np.tanh(w[e])
    return value[3] ** 2


GRAPHS = [
    ("critical_path", critical_path, lambda r: (np.array([0.3, -0.2, 0.5, 0.1, -0.4, 0.7, 0.2]),), 0),
    ("soft_longest", soft_longest, lambda r: (r.normal(size=7),), 0),
    ("named_edge_flows", named_edge_flows, lambda r: (r.normal(size=7),), 0),
    ("int_levels", int_levels, lambda r: (r.normal(size=5),), 0),
]
