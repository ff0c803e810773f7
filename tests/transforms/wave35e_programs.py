"""Wave 35e: jit="numba" closure (test_wave35e.py runs each row through grad, value_and_grad, float32 and
jit="numba" against float64 central differences).  Each table is a class, written several ways:

* MEDIANS: ``np.median(a, axis=k)`` / ``np.nanmedian`` along an axis (numba's takes none);
* DIAGONALS: ``np.diagonal(m, k)``, offset diagonals, axes swapped (numba has no np.diagonal);
* TABLES: a dict of dicts keyed by ints (``for i in T: for j in T[i]: T[i][j]``), its items, values, a
  generator over it;
* MODULE_ARRAYS: ``data.X`` of another module (``import wave35e_data as data``);
* CONVOLUTIONS: ``np.convolve(x, k, mode="same")`` with the kernel an argument, longer than x, even;
* INDEX_ADDS: ``np.add.at`` of a 2-D target at rows, at a tuple of indices, of a scalar value;
* SEEN: a list of bools written by index (``seen[v] = True``) read in conditions.
"""

from __future__ import annotations

import numpy as np

from . import wave34j_programs, wave35e_data
from . import wave35e_data as data

# ---- np.median along an axis ----

def median_rows(a):
    return np.sum(np.median(a, axis=1) ** 2)


def median_columns_keyword(a):
    m = np.median(a, axis=0)
    return np.sum(np.tanh(m)) + np.sum(m * m)


def median_negative_axis(a):
    return np.sum(np.median(np.exp(a), -1) * np.array([1.0, -0.5, 2.0]))


def median_centred(a):
    centred = a - np.median(a, axis=0)
    return np.sum(np.abs(centred) ** 1.5)


def median_of_3d(a):
    b = a.reshape(2, 3, 2)
    return np.sum(np.median(b, axis=1) ** 2) + np.sum(np.median(b, axis=2))


def nanmedian_rows(a):
    return np.sum(np.nanmedian(a * a, axis=1))


# ---- np.diagonal(m, k) ----

def upper_diagonal(m):
    return np.sum(np.diagonal(m, 1) ** 2)


def two_offsets(m):
    return np.sum(np.sin(np.diagonal(m, -1))) + np.sum(np.diagonal(m, offset=2) * 3.0)


def diagonal_method(m):
    return np.sum(m.diagonal(1) * m.diagonal(-1)) + np.sum(m.diagonal() ** 2)


def diagonal_swapped_axes(m):
    return np.sum(np.diagonal(m, 1, axis1=1, axis2=0) ** 3) + np.sum(np.diagonal(m, 0, 0, 1))


def tridiagonal_energy(m):
    main, up, low = np.diagonal(m), np.diagonal(m, 1), np.diagonal(m, -1)
    return np.sum(main ** 2) - np.sum(up * low)


# ---- a dict of dicts keyed by ints ----

COUPLING = {0: {1: 0.5, 2: 1.5}, 1: {0: 2.0}, 3: {1: -1.0, 3: 0.25}}
GRAPH = {2: {0: 0.3, 3: 1.2}, 0: {1: 0.7}, 1: {2: -0.4}}


def coupling_double_loop(x):
    total = 0.0
    for i in COUPLING:
        for j in COUPLING[i]:
            total = total + COUPLING[i][j] * x[i] * x[j]
    return total


def graph_items(x):
    total = 0.0
    for u in GRAPH:
        for v, w in GRAPH[u].items():
            total = total + w * np.sin(x[u] - x[v])
    return total


def graph_values(x):
    total = 0.0
    for u in GRAPH:
        for w in GRAPH[u].values():
            total = total + w * x[u] ** 2
    return total


def coupling_generator(x):
    total = 0.0
    for i in COUPLING:
        total = total + x[i] * sum(COUPLING[i][j] * np.tanh(x[j]) for j in COUPLING[i])
    return total


def graph_keys_method(x):
    out = 0.0
    for u in GRAPH.keys():
        for v in GRAPH[u].keys():
            out = out + GRAPH[u][v] * (x[u] - x[v]) ** 2
    return out


#: ints keyed by ints: the base iterated ``COUNTS[i]`` by position, its values taken for its keys (a WRONG
#: gradient, [4, 5] for [3, 4.5] at (0.5, 2.0), where other tables raised a KeyError)
COUNTS = {0: {0: 1, 1: 1}, 1: {0: 0, 1: 1}}


def counts_of_counts(x):
    total = 0.0
    for i in COUNTS:
        for j in COUNTS[i]:
            total = total + COUNTS[i][j] * x[i] * x[j]
    return total


def coupling_computed_key(x):
    total = 0.0
    for k in range(2):
        i = 3 * k
        for j in COUPLING[i]:
            total = total + COUPLING[i][j] * x[i] * x[j]
    return total


# ---- another module's arrays ----

def data_least_squares(w):
    return np.mean((data.X @ w - data.Y) ** 2)


def data_full_module_name(w):
    return np.sum(np.tanh(wave35e_data.X @ w) * wave35e_data.Y)


def data_rows_in_loop(w):
    total = 0.0
    for i in range(data.X.shape[0]):
        total = total + np.log1p(np.exp(data.X[i] @ w))
    return total


def data_kernel_and_scale(x):
    return np.sum(np.convolve(x, data.KERNEL, mode="same") ** 2) * data.SCALE


# ---- np.convolve(..., mode="same") ----

def convolve_argument_kernel(x, k):
    return np.sum(np.convolve(x, k, mode="same") ** 2)


def convolve_kernel_longer(x):
    k = np.array([0.1, 0.2, 0.4, 0.2, 0.1, 0.05, 0.3])
    return np.sum(np.sin(np.convolve(x, k, mode="same")))


def convolve_even_kernel(x):
    return np.sum(np.convolve(np.tanh(x), np.array([0.5, -0.25, 1.0, 0.75]), "same") ** 2)


def convolve_kernel_differentiated(k, x):
    return np.sum(np.convolve(x, k, mode="same") ** 2)


def convolve_same_in_loop(x):
    y = x
    for _ in range(2):
        y = np.tanh(np.convolve(y, np.array([0.2, 0.6, 0.2]), mode="same"))
    return np.sum(y ** 2)


# ---- np.add.at ----

ROWS = np.array([0, 2, 0, 1])
COLS = np.array([1, 1, 0, 2])


def add_at_rows_of_a_matrix(x):
    out = np.zeros((3, 2))
    np.add.at(out, ROWS, x)
    return np.sum(out ** 2) + np.sum(np.sin(out))


def add_at_tuple_indices(x):
    out = np.zeros((3, 3))
    np.add.at(out, (ROWS, COLS), x)
    return np.sum(np.tanh(out) * np.arange(9.0).reshape(3, 3))


def add_at_scalar_value(x):
    out = x * 1.0
    np.add.at(out, ROWS, 1.5)
    return np.sum(out ** 2)


def add_at_scalar_parameter(x):
    out = np.zeros(3)
    np.add.at(out, ROWS, x[0])
    return np.sum(out ** 2) + np.sum(x ** 2)


def add_at_rows_of_parameter(x):
    out = x.copy()
    np.add.at(out, np.array([1, 1, 0]), np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]]) * x[0, 0])
    return np.sum(out ** 3)


def add_at_local_tuple(x):
    idx = (np.array([0, 0, 1]), np.array([1, 1, 0]))
    out = np.zeros((2, 2))
    np.add.at(out, idx, x ** 2)
    return np.sum(out * np.array([[1.0, 2.0], [3.0, 4.0]]))


def add_at_local_tuple_sine(x):
    idx = (np.array([0, 1, 1, 0]), np.array([1, 0, 0, 1]))
    out = np.eye(2)
    np.add.at(out, idx, np.tanh(x))
    return np.sum(np.sin(out) ** 2)


# ---- a list of bools written by index, read in conditions ----

NEIGHBOURS = [[1, 2], [0, 3], [3], [], [0]]
ORDER = [0, 1, 2, 3, 4]


def seen_by_index(x):
    seen = [False] * 5
    total = 0.0
    for v in ORDER:
        for u in NEIGHBOURS[v]:
            if not seen[u]:
                seen[u] = True
                total = total + x[u] * x[v]
    return total


def seen_marked_before(x):
    seen = [False, False, False, False, False]
    seen[2] = True
    total = 0.0
    for v in range(5):
        if seen[v]:
            continue
        seen[v] = True
        total = total + np.sin(x[v])
    return total


def visited_while(x):
    visited = [False] * 5
    v, total = 0, 0.0
    while not visited[v]:
        visited[v] = True
        total = total + x[v] ** 2
        v = (2 * v + 1) % 5
    return total


def seen_else_branch(x):
    seen = [False] * 5
    total = 0.0
    for v in [0, 2, 1, 2, 0, 4]:
        if seen[v]:
            total = total + 0.1 * x[v]
        else:
            seen[v] = True
            total = total + np.sin(x[v])
    return total


def first_visit_flags(x, order=(3, 1, 3, 0, 1)):
    flags = [False, False, False, False]
    out = 0.0
    for k in order:
        if flags[k]:
            out = out - x[k] ** 2
        else:
            out = out + np.exp(x[k])
            flags[k] = True
    return out


def _v(r, n=6):
    return r.normal(size=n)


def _m(r, shape=(3, 4)):
    return r.normal(size=shape)


MEDIANS = [
    ("median_rows", median_rows, lambda r: (_m(r),), 0),
    ("median_columns_keyword", median_columns_keyword, lambda r: (_m(r),), 0),
    ("median_negative_axis", median_negative_axis, lambda r: (_m(r, (3, 5)),), 0),
    ("median_centred", median_centred, lambda r: (_m(r, (5, 2)),), 0),
    ("median_of_3d", median_of_3d, lambda r: (_m(r, (3, 4)),), 0),
    ("nanmedian_rows", nanmedian_rows, lambda r: (_m(r),), 0),
]
DIAGONALS = [
    ("upper_diagonal", upper_diagonal, lambda r: (_m(r, (3, 3)),), 0),
    ("two_offsets", two_offsets, lambda r: (_m(r, (3, 4)),), 0),
    ("diagonal_method", diagonal_method, lambda r: (_m(r, (4, 4)),), 0),
    ("tridiagonal_energy", tridiagonal_energy, lambda r: (_m(r, (4, 4)),), 0),
]
TABLES = [
    ("coupling_double_loop", coupling_double_loop, lambda r: (_v(r, 4),), 0),
    ("graph_items", graph_items, lambda r: (_v(r, 4),), 0),
    ("graph_values", graph_values, lambda r: (_v(r, 4),), 0),
    ("coupling_generator", coupling_generator, lambda r: (_v(r, 4),), 0),
    ("graph_keys_method", graph_keys_method, lambda r: (_v(r, 4),), 0),
    ("counts_of_counts", counts_of_counts, lambda r: (_v(r, 2),), 0),
]
#: refused at the user's line: a table read at a key the code computes, saying to loop over the table's keys
#: (the loop iterated the inner dict by position: its values taken for its keys); np.diagonal with its axes
#: swapped (grad has no rule for axis1=1, axis2=0: refused by every transformation)
REFUSED = [
    ("coupling_computed_key", coupling_computed_key, lambda r: (_v(r, 4),), 0),
    ("diagonal_swapped_axes", diagonal_swapped_axes, lambda r: (_m(r, (3, 4)),), 0),
]
#: refused by grad at the user's line (open): a list written by index in an ``if`` with no ``else`` in a loop
#: ("writes into seen by index and also assigns it a different array"; with an ``else`` it is read: SEEN)
GRAD_REFUSED = [
    ("seen_by_index", seen_by_index, lambda r: (_v(r, 5),), 0),
]
MODULE_ARRAYS = [
    ("data_least_squares", data_least_squares, lambda r: (_v(r, 3),), 0),
    ("data_full_module_name", data_full_module_name, lambda r: (_v(r, 3),), 0),
    ("data_rows_in_loop", data_rows_in_loop, lambda r: (_v(r, 3),), 0),
    ("data_kernel_and_scale", data_kernel_and_scale, lambda r: (_v(r, 5),), 0),
]
CONVOLUTIONS = [
    ("convolve_argument_kernel", convolve_argument_kernel, lambda r: (_v(r, 6), np.array([0.3, 0.5, 0.2])), 0),
    ("convolve_kernel_longer", convolve_kernel_longer, lambda r: (_v(r, 4),), 0),
    ("convolve_even_kernel", convolve_even_kernel, lambda r: (_v(r, 6),), 0),
    ("convolve_kernel_differentiated", convolve_kernel_differentiated, lambda r: (_v(r, 3), _v(r, 7)), 0),
    ("convolve_same_in_loop", convolve_same_in_loop, lambda r: (_v(r, 6),), 0),
]
INDEX_ADDS = [
    ("add_at_rows_of_a_matrix", add_at_rows_of_a_matrix, lambda r: (_m(r, (4, 2)),), 0),
    ("add_at_tuple_indices", add_at_tuple_indices, lambda r: (_v(r, 4),), 0),
    ("add_at_scalar_value", add_at_scalar_value, lambda r: (_v(r, 3),), 0),
    ("add_at_scalar_parameter", add_at_scalar_parameter, lambda r: (_v(r, 3),), 0),
    ("add_at_rows_of_parameter", add_at_rows_of_parameter, lambda r: (_m(r, (2, 2)),), 0),
    ("add_at_local_tuple", add_at_local_tuple, lambda r: (_v(r, 3),), 0),
    ("add_at_local_tuple_sine", add_at_local_tuple_sine, lambda r: (_v(r, 4),), 0),
]
SEEN = [
    ("visited_while", visited_while, lambda r: (_v(r, 5),), 0),
    ("seen_else_branch", seen_else_branch, lambda r: (_v(r, 5),), 0),
    ("first_visit_flags", first_visit_flags, lambda r: (_v(r, 4),), 0),
    ("seen_marked_before", seen_marked_before, lambda r: (_v(r, 5),), 0),
    ("shortest_by_edges", wave34j_programs.shortest_by_edges, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
]
