"""Wave 35a: lists and graph-like dicts the way users write them (test_wave35a.py runs each through
every transformation against float64 central differences).

* History lists: a list that starts as literal numbers and is appended to in a loop, read by slices
  (``incidence[-len(si):][::-1]``), reversed slices, computed bounds, ``reversed()``, ``list(...)``
  copies, ``zip`` of two slices, ``np.array(hist[-k:])``, ``history[-lag]`` (renewal and AR models,
  moving averages, delay differential equations).
* Graph-like dicts keyed by a module graph's node names, read and written at the keys its loops give.
* NumPy calls on list-ish arguments: ``np.partition`` / ``np.argpartition`` with a kth computed from
  shapes, ``np.put`` at constant indices, ``np.poly1d(c)(x)`` / ``np.polyval`` of coefficients built in
  a loop.
"""

from __future__ import annotations

import math

import numpy as np

from .wave34j_programs import shortest_by_edges  # (the numbered rewrite the refusals' hint asks for)

SERIAL = np.array([0.2, 0.4, 0.3, 0.1])


# ---- history lists read by slices ----

def renewal_slices(log_r, si=SERIAL):
    incidence = [1.0, 2.0, 3.0, 4.0]
    rt = np.exp(log_r)
    for t in range(len(rt)):
        recent = incidence[-len(si):][::-1]
        incidence.append(rt[t] * sum(w * x for w, x in zip(si, recent)))
    return math.log(incidence[-1])


def renewal_reversed_call(log_r):
    k = len(SERIAL)
    incidence = [1.0, 1.5, 2.0, 2.5]
    for t in range(len(log_r)):
        recent = list(reversed(incidence[-k:]))
        force = 0.0
        for w, x in zip(SERIAL, recent):
            force = force + w * x
        incidence.append(np.exp(log_r[t]) * force)
    return np.log(np.sum(np.array(incidence[k:])))


def renewal_np_dot(log_r):
    k = len(SERIAL)
    cases = [2.0, 3.0, 1.0, 4.0]
    for t in range(len(log_r)):
        window = np.array(cases[-k:])
        cases.append(np.exp(log_r[t]) * np.dot(SERIAL[::-1], window))
    return np.sum(np.log(np.array(cases[-3:])))


def ar_forecast(coef):
    hist = [0.5, -0.2, 0.1]
    for _ in range(6):
        lags = hist[-len(coef):][::-1]
        hist.append(float(np.tanh(np.dot(coef, np.array(lags)))) + 0.3)
    return sum(v * v for v in hist[3:])


def moving_average(x):
    hist = [0.0, 0.0]
    out = 0.0
    for t in range(len(x)):
        hist.append(np.sin(x[t]) + 0.5 * hist[-1])
        avg = sum(hist[-3:]) / 3.0
        out = out + (avg - 0.1 * t) ** 2
    return out


def delay_logistic(theta, lag=3):
    r, k = theta[0], theta[1]
    history = [0.1] * (lag + 1)
    dt = 0.2
    for _ in range(10):
        x, x_lag = history[-1], history[-lag]
        history.append(x + dt * r * x * (1.0 - x_lag / k))
    return np.sum(np.array(history[lag:]) ** 2)


def delay_window_mean(theta):
    lag = 2
    hist = [0.2, 0.2, 0.2]
    for _ in range(8):
        past = hist[len(hist) - lag - 1:len(hist) - 1]
        hist.append(hist[-1] + 0.1 * (theta[0] * np.mean(past) - theta[1] * hist[-1]))
    return hist[-1] ** 2 + hist[-4]


def zip_two_histories(x):
    a = [1.0, 0.5]
    b = [0.2, 0.3]
    for t in range(len(x)):
        s = 0.0
        for u, v in zip(a[-2:], b[-2:][::-1]):
            s = s + u * v
        a.append(np.tanh(s + x[t]))
        b.append(0.5 * b[-1] + x[t] ** 2)
    return a[-1] + b[-1]


def copied_then_sliced(x):
    hist = [0.3, 0.4]
    for t in range(len(x)):
        hist.append(hist[-1] * np.cos(x[t]) + hist[-2] * 0.2)
    snap = list(hist)
    tail = snap[2:][::2]
    return sum(v ** 2 for v in tail)


def positive_window(x):
    vals = [1.0, 1.0, 1.0]
    for t in range(len(x)):
        w = vals[t:t + 3]
        vals.append(x[t] * (w[0] + 2.0 * w[1] - w[2]) * 0.4)
    return np.sum(np.square(np.array(vals)))


def sliced_step_history(x):
    hist = [0.1, 0.2, 0.3, 0.4]
    for t in range(len(x)):
        evens = hist[::-2]
        hist.append(x[t] * evens[0] + 0.1 * evens[1])
    return hist[-1] + hist[-2] * hist[-3]


# ---- graph-like dicts keyed by node names ----

GRAPH = {"s": [("a", 0), ("b", 1)], "a": [("c", 2), ("t", 3)], "b": [("c", 4), ("t", 5)], "c": [("t", 6)]}
ORDER = ["s", "a", "b", "c", "t"]
EDGES = [(ORDER.index(u), ORDER.index(v), e) for u in ORDER for v, e in GRAPH.get(u, [])]
NAMED_EDGES = [("s", "a", 0), ("s", "b", 1), ("a", "c", 2), ("a", "t", 3), ("b", "c", 4), ("b", "t", 5), ("c", "t", 6)]
INT_GRAPH = {0: [(1, 0), (2, 1)], 1: [(2, 2), (3, 3)], 2: [(3, 4)]}


def soft_shortest_path(weights, gamma=0.3):
    dist = {"s": 0.0}
    for node in ORDER[:-1]:
        for nxt, e in GRAPH.get(node, []):
            cand = dist[node] + weights[e]
            if nxt in dist:
                m = min(dist[nxt], cand)
                dist[nxt] = m - gamma * math.log(math.exp(-(dist[nxt] - m) / gamma) + math.exp(-(cand - m) / gamma))
            else:
                dist[nxt] = cand
    return dist["t"]


def hard_shortest_path(weights):
    dist = {"s": 0.0}
    for node in ORDER[:-1]:
        for nxt, e in GRAPH.get(node, []):
            cand = dist[node] + weights[e]
            dist[nxt] = cand if nxt not in dist else min(dist[nxt], cand)
    return dist["t"]


def flows_by_named_edges(w):
    inflow = {n: 0.0 for n in ORDER}
    for u, v, e in NAMED_EDGES:
        inflow[v] = inflow[v] + np.exp(w[e]) * (1.0 + inflow[u])
    return np.log(inflow["t"])


def potentials_all_keys(w):
    pot = {}
    for n in ORDER:
        pot[n] = 0.0
    for u, v, e in NAMED_EDGES:
        pot[v] += 0.5 * np.tanh(w[e] + pot[u])
    return sum(p * p for p in pot.values())


def int_keyed_longest(w):
    best = {0: 0.0}
    for u in range(3):
        for v, e in INT_GRAPH[u]:
            cand = best[u] + w[e] ** 2
            if v in best:
                best[v] = np.logaddexp(best[v], cand)
            else:
                best[v] = cand
    return best[3]


def list_logsumexp_merge(weights):
    dist = [0.0, 0.0, 0.0, 0.0, 0.0]
    for u, v, e in EDGES:
        cand = dist[u] + weights[e]
        dist[v] = cand if v in (1, 2) else np.logaddexp(dist[v], cand)
    return dist[-1]


def dp_soft_max_path(x):
    best = [0.0] * (len(x) + 1)
    for i in range(1, len(x) + 1):
        take = (best[i - 2] if i >= 2 else 0.0) + x[i - 1]
        best[i] = np.logaddexp(best[i - 1], take)
    return best[-1]


def relaxed_twice(w):
    dist = [10.0] * 5
    dist[0] = 0.0
    for _ in range(2):
        for u, v, e in EDGES[:-1]:
            cand = dist[u] + w[e] ** 2
            if cand < dist[v]:
                dist[v] = cand
    return dist[3] + dist[4]


def written_by_flags(x):
    vals = [1.0] * 4
    done = [False] * 4
    for i, j in ((0, 1), (1, 2), (0, 2), (2, 3), (1, 3)):
        if done[j]:
            vals[j] = 0.5 * (vals[j] + vals[i] * x[i])
        else:
            vals[j] = vals[i] * np.exp(x[j])
            done[j] = True
    return np.log(vals[3])


# ---- NumPy list-ish calls ----

def median_by_partition(x):
    k = len(x) // 2
    return np.partition(x ** 2, k)[k] + np.sum(x)


def lower_half_by_argpartition(x):
    k = len(x) // 3
    idx = np.argpartition(x, k)[:k]
    return np.sum(np.sin(x[idx]))


def trimmed_by_partition(x):
    n = x.shape[0]
    lo = n // 4
    part = np.partition(np.abs(x), (lo, n - lo - 1))
    return np.mean(part[lo:n - lo])


def put_constant_indices(x):
    y = x.copy()
    np.put(y, [0, 2], [x[1] ** 2, 1.0])
    return np.sum(y * np.arange(1.0, len(x) + 1))


def put_scalar(x):
    z = np.zeros(4)
    np.put(z, 1, x[0] * x[1])
    np.put(z, [2, 3], x[1:3])
    return np.sum(np.exp(z))


def poly1d_loop_coeffs(theta):
    c = []
    for k in range(len(theta)):
        c.append(theta[k] / (k + 1))
    p = np.poly1d(c)
    t = np.linspace(-1.0, 1.0, 5)
    return np.sum(p(t) ** 2)


def polyval_loop_coeffs(theta):
    coeffs = [1.0]
    for k in range(len(theta)):
        coeffs.append(coeffs[-1] * theta[k])
    t = np.array([0.2, 0.5, 0.9])
    return np.sum(np.polyval(coeffs, t))


def polyval_list_display(theta):
    t = np.linspace(0.0, 1.0, 4)
    return np.sum(np.polyval([theta[0], theta[1] ** 2, 1.0], t) ** 2)


def poly1d_argument(theta):
    return np.poly1d(theta)(0.7) + np.sum(np.poly1d(theta)(np.array([0.1, -0.4])))


HISTORIES = [
    ("renewal_slices", renewal_slices, lambda r: (0.1 * r.normal(size=6),), 0),
    ("renewal_reversed_call", renewal_reversed_call, lambda r: (0.1 * r.normal(size=5),), 0),
    ("renewal_np_dot", renewal_np_dot, lambda r: (0.1 * r.normal(size=5),), 0),
    ("ar_forecast", ar_forecast, lambda r: (0.3 * r.normal(size=3),), 0),
    ("moving_average", moving_average, lambda r: (r.normal(size=5),), 0),
    ("delay_logistic", delay_logistic, lambda r: (np.array([0.8, 1.5]) + 0.05 * r.normal(size=2),), 0),
    ("delay_window_mean", delay_window_mean, lambda r: (np.array([0.6, 0.3]) + 0.05 * r.normal(size=2),), 0),
    ("zip_two_histories", zip_two_histories, lambda r: (0.5 * r.normal(size=4),), 0),
    ("copied_then_sliced", copied_then_sliced, lambda r: (r.normal(size=5),), 0),
    ("positive_window", positive_window, lambda r: (r.normal(size=5),), 0),
    ("sliced_step_history", sliced_step_history, lambda r: (0.5 * r.normal(size=4),), 0),
]
GRAPHS = [
    ("soft_shortest_path", soft_shortest_path, lambda r: (r.uniform(1.0, 2.0, 7),), 0),
    ("hard_shortest_path", hard_shortest_path, lambda r: (r.uniform(1.0, 2.0, 7),), 0),
    ("flows_by_named_edges", flows_by_named_edges, lambda r: (0.3 * r.normal(size=7),), 0),
    ("potentials_all_keys", potentials_all_keys, lambda r: (r.normal(size=7),), 0),
    ("int_keyed_longest", int_keyed_longest, lambda r: (r.normal(size=5),), 0),
    ("shortest_by_edges", shortest_by_edges, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
    ("list_logsumexp_merge", list_logsumexp_merge, lambda r: (r.normal(size=7),), 0),
    ("dp_soft_max_path", dp_soft_max_path, lambda r: (r.normal(size=5),), 0),
    ("relaxed_twice", relaxed_twice, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
    ("written_by_flags", written_by_flags, lambda r: (0.5 * r.normal(size=4),), 0),
]
NUMPY = [
    ("median_by_partition", median_by_partition, lambda r: (r.normal(size=7),), 0),
    ("lower_half_by_argpartition", lower_half_by_argpartition, lambda r: (r.normal(size=9),), 0),
    ("trimmed_by_partition", trimmed_by_partition, lambda r: (r.normal(size=8),), 0),
    ("put_constant_indices", put_constant_indices, lambda r: (r.normal(size=4),), 0),
    ("put_scalar", put_scalar, lambda r: (0.5 * r.normal(size=3),), 0),
    ("poly1d_loop_coeffs", poly1d_loop_coeffs, lambda r: (r.normal(size=4),), 0),
    ("polyval_loop_coeffs", polyval_loop_coeffs, lambda r: (r.normal(size=3),), 0),
    ("polyval_list_display", polyval_list_display, lambda r: (r.normal(size=2),), 0),
    ("poly1d_argument", poly1d_argument, lambda r: (r.normal(size=3),), 0),
]
PROGRAMS = HISTORIES + GRAPHS + NUMPY
