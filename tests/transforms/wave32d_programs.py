"""Wave 32d: programs grad differentiates that jit="numba" refused (test_wave32d.py runs them).

Each class is one way users write what numba, typing every value by itself, did not take:

* NUMBER_THEN_ARRAY: a running number that becomes an array in a loop, the function called as a tree;
* CACHED: memoised helpers (``functools.cache``, ``lru_cache``) returning arrays, recursive helpers;
* OBJECTS: module objects read at attributes or keys (a namespace, a dataclass, a dict keyed by pairs);
* TUPLE_STATE: a tuple built before a loop with a list inside the loop's state;
* TABLES: Denavit-Hartenberg tables (a module list or tuple of tuples indexed or iterated in a loop);
* WEIGHTS: weights given as a list or a tuple of arrays, or of numbers beside a default;
* KEYED: dicts keyed by pairs, module dicts read at a loop's key;
* SOLVES: scipy's solve_triangular with a matrix right-hand side;
* EINSUMS: np.einsum of a list operand;
* LISTS: nested module lists, fancy indexing with lists, reshape and transpose with a list.
"""

from __future__ import annotations

import functools
import math
import types
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sl


def _v(r, n=3):
    return 0.3 + 0.4 * r.random(n)


# ---- NUMBER_THEN_ARRAY ----

def running_sum_of_scaled(x):
    acc = 0.0
    for k in range(3):
        acc = acc + np.sin(x) * (k + 1)
    return np.sum(acc * x)


def running_product_of_terms(x):
    prod = 1.0
    for k in range(1, 4):
        prod = prod * (1.0 + x / k)
    return np.sum(np.log(prod))


NUMBER_THEN_ARRAY = [
    ("running_sum_of_scaled", running_sum_of_scaled, lambda r: (_v(r),), 0),
    ("running_product_of_terms", running_product_of_terms, lambda r: (_v(r),), 0),
]


# ---- CACHED ----

@functools.cache
def _smoothing(width):
    k = np.exp(-0.5 * (np.arange(-width, width + 1) / max(width, 1)) ** 2)
    return k / k.sum()


def cached_kernel_convolved(x):
    return np.sum(np.convolve(x, _smoothing(1), mode="same") ** 2)


@functools.lru_cache(maxsize=4)
def _nodes(n):
    return np.cos(np.pi * (np.arange(n) + 0.5) / n)


def cached_nodes_dot(x):
    return np.sum(np.tanh(x * _nodes(3)))


def cached_nodes_in_a_loop(x):
    total = 0.0
    for t in _nodes(4):
        total = total + np.sum(np.tanh(x * t))
    return total


def cached_weights_of_an_int(x, n):
    return np.sum(_smoothing(n) * x[:2 * n + 1] ** 2)


def _power_sum(x, n):
    if n == 0:
        return 0.0 * x
    return x ** n + _power_sum(x, n - 1)


def recursive_power_sum(x):
    return np.sum(_power_sum(x, 3))


CACHED = [
    ("cached_kernel_convolved", cached_kernel_convolved, lambda r: (_v(r, 5),), 0),
    ("cached_nodes_dot", cached_nodes_dot, lambda r: (_v(r),), 0),
    ("recursive_power_sum", recursive_power_sum, lambda r: (_v(r),), 0),
    ("cached_nodes_in_a_loop", cached_nodes_in_a_loop, lambda r: (_v(r),), 0),
    ("cached_weights_of_an_int", cached_weights_of_an_int, lambda r: (_v(r, 5), 2), 0),
]


# ---- OBJECTS ----

SETTINGS = types.SimpleNamespace(rate=0.7, shift=0.2)


@dataclass
class Config:
    rate: float
    weights: tuple


CONFIG = Config(0.5, (1.0, 2.0, 0.5))
PAIRS = {(0, 1): 1.0, (1, 2): 1.2, (0, 2): 1.5}


def namespace_attributes(x):
    return np.sum(np.exp(SETTINGS.rate * x) - SETTINGS.shift * x)


def dataclass_tuple_field(x):
    return sum(w * x[i] ** 2 for i, w in enumerate(CONFIG.weights)) * CONFIG.rate


def pairs_default_read(x, rates=PAIRS):
    p = x.reshape(3, 2)
    return rates[(0, 1)] * np.sum((p[0] - p[1]) ** 2) + rates[(1, 2)] * np.sum((p[1] - p[2]) ** 2)


def pairs_module_items(x):
    p = x.reshape(3, 2)
    total = 0.0
    for (i, j), k in PAIRS.items():
        total = total + k * np.sum((p[i] - p[j]) ** 2)
    return total


Rates = __import__("collections").namedtuple("Rates", "rate shift")
RATES = Rates(0.7, 0.2)


class Table:
    scale = 1.5
    offsets = (0.1, -0.2, 0.3)


def namedtuple_fields(x):
    return np.sum(np.exp(RATES.rate * x) - RATES.shift * x)


def class_attributes_in_a_loop(x):
    total = 0.0
    for i in range(3):
        total = total + Table.scale * (x[i] - Table.offsets[i]) ** 2
    return total


def config_default(x, cfg=CONFIG):
    return cfg.rate * np.sum(x ** 2) + cfg.weights[1] * np.sum(np.cos(x))


OPTIONS = {"scale": 2.0, "shift": 0.5}


def string_dict_default(x, opts=OPTIONS):
    return opts["scale"] * np.sum(np.tanh(x - opts["shift"]))


def int_keyed_argument(x, scales):
    total = 0.0
    for i in range(3):
        total = total + scales[i] * x[i] ** 2
    return total


def dict_read_whole(x, rates=PAIRS):
    return len(rates) * np.sum(x ** 2) + rates[(0, 1)] * x[0]


OBJECTS = [
    ("namespace_attributes", namespace_attributes, lambda r: (_v(r),), 0),
    ("dataclass_tuple_field", dataclass_tuple_field, lambda r: (_v(r),), 0),
    ("pairs_default_read", pairs_default_read, lambda r: (_v(r, 6),), 0),
    ("pairs_module_items", pairs_module_items, lambda r: (_v(r, 6),), 0),
    ("namedtuple_fields", namedtuple_fields, lambda r: (_v(r),), 0),
    ("class_attributes_in_a_loop", class_attributes_in_a_loop, lambda r: (_v(r),), 0),
    ("config_default", config_default, lambda r: (_v(r),), 0),
    ("string_dict_default", string_dict_default, lambda r: (_v(r),), 0),
    ("int_keyed_argument", int_keyed_argument, lambda r: (_v(r), {0: 1.0, 1: 2.0, 2: 0.5}), 0),
    ("dict_read_whole", dict_read_whole, lambda r: (_v(r),), 0),
]


# ---- TUPLE_STATE ----

def tuple_state_with_history(x):
    state = (x, [np.sum(x)])
    for _ in range(3):
        h, hist = state
        h = np.tanh(h) + 0.1 * x
        hist.append(np.sum(h ** 2))
        state = (h, hist)
    return sum(state[1])


def tuple_state_list_of_arrays(x):
    h, outs = x, []
    for k in range(3):
        h = np.sin(h) * (1.0 + 0.1 * k)
        outs.append(h)
    pair = (h, outs)
    return np.sum(pair[0]) + sum(np.sum(o) for o in pair[1])


TUPLE_STATE = [
    ("tuple_state_with_history", tuple_state_with_history, lambda r: (_v(r),), 0),
    ("tuple_state_list_of_arrays", tuple_state_list_of_arrays, lambda r: (_v(r),), 0),
]


# ---- TABLES ----

DH_TUPLE = ((0.0, 0.4, math.pi / 2), (0.6, 0.0, 0.0), (0.5, 0.0, 0.0))
DH_LIST = [(0.0, 0.4, math.pi / 2), (0.6, 0.0, 0.0), (0.5, 0.0, 0.0)]
GOAL = np.array([0.5, 0.4, 0.9])


def _dh(theta, a, d, alpha):
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def dh_default_table(q, table=DH_TUPLE):
    t = np.eye(4)
    for i, (a, d, alpha) in enumerate(table):
        t = t @ _dh(q[i], a, d, alpha)
    return np.sum((t[:3, 3] - GOAL) ** 2)


def dh_module_list_indexed(q):
    t = np.eye(4)
    for i in range(3):
        a, d, alpha = DH_LIST[i]
        t = t @ _dh(q[i], a, d, alpha)
    return np.sum((t[:3, 3] - GOAL) ** 2)


def dh_module_list_zipped(q):
    t = np.eye(4)
    for qi, (a, d, alpha) in zip(q, DH_LIST):
        t = t @ _dh(qi, a, d, alpha)
    return np.sum((t[:3, 3] - GOAL) ** 2)


def dh_rows_read_by_position(q):
    t = np.eye(4)
    for i, row in enumerate(DH_LIST):
        t = t @ _dh(q[i], row[0], row[1], row[2])
    return np.sum((t[:3, 3] - GOAL) ** 2)


TABLES = [
    ("dh_default_table", dh_default_table, lambda r: (_v(r),), 0),
    ("dh_module_list_indexed", dh_module_list_indexed, lambda r: (_v(r),), 0),
    ("dh_module_list_zipped", dh_module_list_zipped, lambda r: (_v(r),), 0),
    ("dh_rows_read_by_position", dh_rows_read_by_position, lambda r: (_v(r),), 0),
]


# ---- WEIGHTS ----

def _weighted(*terms, weights=None):
    if weights is None:
        weights = [1.0] * len(terms)
    return sum(wt * t for wt, t in zip(weights, terms))


def weights_tuple_beside_default(w):
    return _weighted(np.sum(w ** 2), np.sum(np.sin(w)), weights=(1.0, 0.05))


def weights_list_beside_default(w):
    return _weighted(np.sum(w ** 2), np.sum(np.sin(w)), weights=[1.0, 0.05])


def mlp_weights_list(x, layers):
    h = x
    for W in layers:
        h = np.tanh(W @ h)
    return np.sum(h ** 2)


def mlp_weights_tuple(layers, x):
    h = x
    for W in layers:
        h = np.tanh(W @ h)
    return np.sum(h ** 2)


def mlp_params_list(params, x):
    W1, b1, W2, b2 = params
    h = np.tanh(W1 @ x + b1)
    return np.sum((W2 @ h + b2) ** 2)


def layers_zipped(x, Ws, bs):
    h = x
    for W, b in zip(Ws, bs):
        h = np.tanh(W @ h + b)
    return np.sum(h ** 2)


def layers_indexed(x, Ws):
    h = x
    for k in range(len(Ws)):
        h = np.tanh(Ws[k] @ h)
    return np.sum(h)


def _params(r):
    return [0.5 * r.normal(size=(3, 3)), 0.1 * r.normal(size=3), 0.5 * r.normal(size=(2, 3)), 0.1 * r.normal(size=2)]


def _layers(r):
    return [0.5 * r.normal(size=(3, 3)), 0.5 * r.normal(size=(2, 3))]


WEIGHTS = [
    ("weights_tuple_beside_default", weights_tuple_beside_default, lambda r: (_v(r),), 0),
    ("weights_list_beside_default", weights_list_beside_default, lambda r: (_v(r),), 0),
    ("mlp_weights_list", mlp_weights_list, lambda r: (_v(r), _layers(r)), 0),
    ("mlp_weights_tuple", mlp_weights_tuple, lambda r: (tuple(_layers(r)), _v(r)), 0),
    ("mlp_params_list_x", mlp_params_list, lambda r: (_params(r), _v(r)), 1),
    ("layers_zipped", layers_zipped, lambda r: (_v(r), _layers(r), [0.1 * r.normal(size=k) for k in (3, 2)]), 0),
    ("layers_indexed", layers_indexed, lambda r: (_v(r), _layers(r)), 0),
]


# ---- KEYED ----

PRIORS = {"mu": 0.0, "log_sigma": 0.1, "rho": 0.3}
KEYS = ("mu", "log_sigma", "rho")
SCALES = {0: 1.0, 1: 2.0, 2: 0.5}


def module_dict_loop_key(x):
    total = 0.0
    for i, k in enumerate(KEYS):
        total = total + (x[i] - PRIORS[k]) ** 2
    return total


def module_dict_int_keys(x):
    total = 0.0
    for i in range(3):
        total = total + SCALES[i] * np.exp(x[i])
    return total


def pairs_at_loop_keys(x):
    p = x.reshape(3, 2)
    total = 0.0
    for i, j in ((0, 1), (1, 2), (0, 2)):
        total = total + PAIRS[(i, j)] * np.sum((p[i] - p[j]) ** 2)
    return total


MIXED_PAIRS = {(0, 1): 1, (1, 2): 1.5, (2, 0): 2}


def pairs_module_constant_keys(x):
    p = x.reshape(3, 2)
    return PAIRS[(0, 1)] * np.sum((p[0] - p[1]) ** 2) + PAIRS[1, 2] * np.sum(np.sin(p[1] - p[2]))


def mixed_pairs_in_a_loop(x):
    total = 0.0
    for k in range(3):
        total = total + MIXED_PAIRS[(k, (k + 1) % 3)] * (x[k] - x[(k + 1) % 3]) ** 2
    return total


KEYED = [
    ("module_dict_loop_key", module_dict_loop_key, lambda r: (_v(r),), 0),
    ("module_dict_int_keys", module_dict_int_keys, lambda r: (_v(r),), 0),
    ("pairs_at_loop_keys", pairs_at_loop_keys, lambda r: (_v(r, 6),), 0),
    ("pairs_module_constant_keys", pairs_module_constant_keys, lambda r: (_v(r, 6),), 0),
    ("mixed_pairs_in_a_loop", mixed_pairs_in_a_loop, lambda r: (_v(r),), 0),
]


# ---- SOLVES ----

B32 = np.array([[1.0, 0.5], [-0.3, 2.0], [0.7, 0.1]])


def _spd(A):
    return A @ A.T + 3.0 * np.eye(A.shape[0])


def triangular_matrix_rhs(A):
    L = np.linalg.cholesky(_spd(A))
    W = sl.solve_triangular(L, B32, lower=True)
    return np.sum(W ** 2)


def triangular_matrix_rhs_upper(A):
    L = np.linalg.cholesky(_spd(A))
    W = sl.solve_triangular(L.T, B32, lower=False)
    return np.sum(W * B32)


B34 = np.arange(12.0).reshape(3, 4) / 7.0


def triangular_strided_rhs(A, X=B34[:, :2]):
    L = np.linalg.cholesky(_spd(A))
    W = sl.solve_triangular(L.T, sl.solve_triangular(L, X, lower=True), lower=False)
    return np.sum(W * X)


def triangular_transposed_rhs(A):
    L = np.linalg.cholesky(_spd(A))
    return np.sum(sl.solve_triangular(L, B34.T[:3, :].T[:, :2], lower=True, trans=1) ** 2)


def triangular_rhs_param(X):
    L = np.array([[2.0, 0.0, 0.0], [0.5, 1.5, 0.0], [-0.3, 0.2, 1.2]])
    return np.sum(sl.solve_triangular(L, X, lower=True) ** 2)


SOLVES = [
    ("triangular_matrix_rhs", triangular_matrix_rhs, lambda r: (np.eye(3) + 0.2 * r.normal(size=(3, 3)),), 0),
    ("triangular_matrix_rhs_upper", triangular_matrix_rhs_upper,
     lambda r: (np.eye(3) + 0.2 * r.normal(size=(3, 3)),), 0),
    ("triangular_rhs_param", triangular_rhs_param, lambda r: (r.normal(size=(3, 2)),), 0),
    ("triangular_strided_rhs", triangular_strided_rhs, lambda r: (np.eye(3) + 0.2 * r.normal(size=(3, 3)),), 0),
    ("triangular_transposed_rhs", triangular_transposed_rhs, lambda r: (np.eye(3) + 0.2 * r.normal(size=(3, 3)),), 0),
    ("triangular_strided_param", triangular_rhs_param, lambda r: (r.normal(size=(3, 4))[:, ::2],), 0),
]


# ---- EINSUMS ----

def einsum_list_matrix(A):
    return np.sum(np.einsum("ij,jk->ik", A, [[1.0, 2.0], [3.0, -1.0]]) ** 2)


def einsum_list_vector(A):
    return np.sum(np.einsum("ij,j->i", A, [0.5, -1.0]) ** 2)


def einsum_list_weights(A):
    return np.einsum("ij,ij->", A ** 2, [[1.0, 0.5, 2.0], [-1.0, 3.0, 0.25]])


def einsum_list_first(v):
    return np.einsum("i,i->", [1.0, 2.0, 3.0], v ** 2)


EINSUMS = [
    ("einsum_list_matrix", einsum_list_matrix, lambda r: (r.normal(size=(2, 2)),), 0),
    ("einsum_list_vector", einsum_list_vector, lambda r: (r.normal(size=(3, 2)),), 0),
    ("einsum_list_first", einsum_list_first, lambda r: (_v(r),), 0),
    ("einsum_list_weights", einsum_list_weights, lambda r: (r.normal(size=(2, 3)),), 0),
]


# ---- LISTS ----

MIX = [[1.0, 0.5, 0.0], [0.0, 2.0, -1.0]]
PICK = [0, 2, 2]
SHAPE = [2, 3]
AXES = [1, 0]


def nested_module_list(x):
    return np.sum((np.array(MIX) @ x) ** 2)


def nested_module_list_rows(x):
    return sum(np.dot(np.array(row), x) ** 2 for row in MIX)


def fancy_index_module_list(x):
    return np.sum(x[PICK] ** 2 * x[0])


def fancy_index_two_lists(M):
    return np.sum(M[[0, 1, 1], [2, 0, 1]] ** 2)


def reshape_module_list(x):
    return np.sum(np.tanh(x.reshape(SHAPE)) @ np.ones(3))


def transpose_module_list(M):
    return np.sum(np.transpose(M, AXES) @ np.array([1.0, -1.0]))


MIXED = [[1, 0.5, 0], [0, 2, -1]]


def fancy_rows_module_list(M):
    return np.sum(np.tanh(M[PICK]) * M[0])


def mixed_nested_module_list(x):
    return np.sum(np.exp(np.array(MIXED) @ x))


def module_list_items_in_a_loop(x):
    total = 0.0
    for i in range(len(PICK)):
        total = total + x[PICK[i]] ** 2 * SHAPE[i % 2]
    return total


def index_of_a_repeated_list(x):
    return np.sum(x[PICK * 2] ** 2) + np.sum(x[PICK]) * x[1]


LISTS = [
    ("nested_module_list", nested_module_list, lambda r: (_v(r),), 0),
    ("nested_module_list_rows", nested_module_list_rows, lambda r: (_v(r),), 0),
    ("fancy_index_module_list", fancy_index_module_list, lambda r: (_v(r),), 0),
    ("fancy_index_two_lists", fancy_index_two_lists, lambda r: (r.normal(size=(2, 3)),), 0),
    ("reshape_module_list", reshape_module_list, lambda r: (_v(r, 6),), 0),
    ("transpose_module_list", transpose_module_list, lambda r: (r.normal(size=(2, 3)),), 0),
    ("fancy_rows_module_list", fancy_rows_module_list, lambda r: (r.normal(size=(3, 2)),), 0),
    ("mixed_nested_module_list", mixed_nested_module_list, lambda r: (_v(r),), 0),
    ("module_list_items_in_a_loop", module_list_items_in_a_loop, lambda r: (_v(r),), 0),
    ("index_of_a_repeated_list", index_of_a_repeated_list, lambda r: (_v(r),), 0),
]


CLASSES = {"number_then_array": NUMBER_THEN_ARRAY, "cached": CACHED, "objects": OBJECTS, "tuple_state": TUPLE_STATE,
           "tables": TABLES, "weights": WEIGHTS, "keyed": KEYED, "solves": SOLVES, "einsums": EINSUMS, "lists": LISTS}
PROGRAMS = [row for rows in CLASSES.values() for row in rows]
