"""Wave 34b's findings, with their variants: an item read from a Python list of numbers the function
made (``season = [0.0] * period``, ``m = [0.0] * n``, a list display), after which the list's slot is
written again (``season[k] = ...``) or the item is carried to the next iteration (``mp = m[t]``).  A
list's item is the item, never a view of the list: the write rebinds the slot and cannot change what
was read.  These were refused ("s shares its memory with season", "this loop writes into an array by
index that mp also refers to in the next iteration"); an array's row, a view, still is."""

from __future__ import annotations

import numpy as np

OBS = np.array([1.0, 1.4, 1.1, 0.7, 0.9, 1.5, 1.8, 1.2])
EDGES = [(0, 1, 0), (0, 2, 1), (1, 3, 2), (1, 4, 3), (2, 3, 4), (2, 4, 5), (3, 4, 6)]
PAIRS = ((0, 1), (1, 2), (2, 0))
VISIT = [2, 0, 1, 2, 1]


def seasonal_slots(x, period=3):
    season = [0.0] * period
    sse = 0.0
    for t in range(x.shape[0]):
        s = season[t % period]
        sse = sse + (OBS[t] - x[t] - s) ** 2
        season[t % period] = 0.4 * (OBS[t] - x[t]) + 0.6 * s
    return sse


def filter_carried(x):
    n = x.shape[0]
    m = [0.0] * n
    mp = 0.0
    for t in range(n):
        m[t] = mp + 0.5 * (x[t] - mp)
        mp = m[t]
    return sum(v * v for v in m) + mp


def display_swapped(x):
    a = [0.0, 0.0, 0.0]
    a[0] = x[0] * x[1]
    old = a[0]
    a[0] = np.sin(x[2])
    a[1] = old + a[0]
    return a[0] * a[1] + old


def two_lists(x, groups=(0, 1, 0, 1, 1, 0, 0, 1)):
    mean = [0.0, 0.0]
    count = [0, 0]
    spread = [0.0, 0.0]
    for i in range(len(groups)):
        g = groups[i]
        count[g] += 1
        before = mean[g]
        mean[g] = before + (x[i] - before) / count[g]
        spread[g] = spread[g] + (x[i] - before) * (x[i] - mean[g])
    return spread[0] + spread[1] + mean[0] * mean[1]


def slice_then_write(x):
    buf = [0.0] * 4
    for i in range(4):
        buf[i] = x[i] ** 2
    head = buf[:2]
    buf[1] = x[0] * x[3]
    return head[0] + head[1] * buf[1]


def max_plus(x):
    best = [0.0] * 3
    for t in range(x.shape[0]):
        prev = best[t % 3]
        best[t % 3] = np.logaddexp(prev, x[t])
        best[(t + 1) % 3] = best[(t + 1) % 3] + 0.1 * prev
    return best[0] + best[1] * best[2]


def soft_relaxation(w, gamma=0.3):
    dist = np.full(5, np.inf)
    dist[0] = 0.0
    for u, v, e in EDGES:
        cand = dist[u] + w[e]
        if np.isinf(dist[v]):
            dist[v] = cand
        else:
            m = min(dist[v], cand)
            dist[v] = m - gamma * np.log(np.exp(-(dist[v] - m) / gamma) + np.exp(-(cand - m) / gamma))
    return dist[4]


def edge_flow(w):
    flow = np.zeros(5)
    flow[0] = 1.0
    for u, v, e in EDGES:
        old = flow[v]
        flow[v] = old + np.tanh(w[e]) * flow[u]
    return flow[4] + flow[3] ** 2


def swap_pairs(x):
    y = x.copy()
    for i, j in PAIRS:
        a = y[i]
        y[i] = 0.5 * (y[i] + y[j])
        y[j] = a * y[j]
    return np.sum(y ** 2)


def visit_order(x):
    buf = np.zeros(3)
    for k in VISIT:
        prev = buf[k]
        buf[k] = 0.5 * prev + x[k] ** 2
    return buf @ x


def table_rows_by_index(w):
    dist = np.zeros(5)
    for b in range(len(EDGES)):
        v = EDGES[b][1]
        before = dist[v]
        dist[v] = before + w[EDGES[b][2]] * (1.0 + dist[EDGES[b][0]])
    return np.sum(dist ** 2)


def matrix_row_of_a_table(x):
    m = np.zeros((3, 3))
    tot = 0.0
    for i, j in PAIRS:
        r = m[i]
        m[i, j] = x[i]
        tot = tot + r[j] * x[j]
    return tot


def row_view_written(x):
    a = np.zeros((2, 2))
    r = a[0]
    a[0, 1] = x[0]
    return r[1] * x[1]


def list_item_array_updated(x):
    a = [np.zeros(x.shape[0])] * 2
    s = a[0]
    s += x
    return np.sum(a[1] * x)


LIST_ITEMS = [
    ("items_seasonal_slots", seasonal_slots, lambda r: (r.normal(0, 0.3, 8),), 0),
    ("items_filter_carried", filter_carried, lambda r: (r.normal(size=6),), 0),
    ("items_display_swapped", display_swapped, lambda r: (r.normal(size=3),), 0),
    ("items_two_lists", two_lists, lambda r: (r.normal(size=8),), 0),
    ("items_slice_then_write", slice_then_write, lambda r: (r.normal(size=4),), 0),
    ("items_max_plus", max_plus, lambda r: (r.normal(size=7),), 0),
    ("items_seasonal_f32", seasonal_slots, lambda r: (r.normal(0, 0.3, 8).astype(np.float32),), 0),
]
#: a number read at an int of a module's table of ints (``for u, v, e in EDGES``, ``for k in VISIT``) is one
#: element of a vector, not a view: the vector is written there after
TABLE_ITEMS = [
    ("table_soft_relaxation", soft_relaxation, lambda r: (r.uniform(1.0, 2.0, 7),), 0),
    ("table_edge_flow", edge_flow, lambda r: (r.normal(size=7),), 0),
    ("table_swap_pairs", swap_pairs, lambda r: (r.normal(size=3),), 0),
    ("table_visit_order", visit_order, lambda r: (r.normal(size=3),), 0),
    ("table_rows_by_index", table_rows_by_index, lambda r: (r.normal(size=7),), 0),
    ("table_edge_flow_f32", edge_flow, lambda r: (r.normal(size=7).astype(np.float32),), 0),
]
#: a view of an array (a row), or an array a list holds, is still shared: refused at the line
STILL_SHARED = [
    ("shared_matrix_row_of_a_table", matrix_row_of_a_table, lambda r: (r.normal(size=3),), 0),
    ("shared_row_view_written", row_view_written, lambda r: (r.normal(size=2),), 0),
    ("shared_list_item_array_updated", list_item_array_updated, lambda r: (r.normal(size=3),), 0),
]
