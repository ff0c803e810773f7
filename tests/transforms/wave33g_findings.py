"""Wave 33g's findings: a module list (or tuple) of configuration dicts, ``ARCH = [{"size": 4, "act":
"tanh"}, ...]``, read the ways users read it: looped over, zipped with a list of parameters or with
numbers written out, enumerated, indexed at a constant or at a loop's count, its dicts' numbers
scaling the computation.  Each was refused ("index 'act' is not an integer", "list(...) is not
supported" at a loop the user wrote without ``list``).  And (DATA_SEQUENCES) a function of a parameter
tree given a list or tuple of indices or names as well (a default, or passed): jvp read that list as a
tree to differentiate ("pairs is a parameter tree, passed whole to zip") where grad passes it whole."""

from __future__ import annotations

import numpy as np

ARCH = [{"size": 3, "act": "tanh"}, {"size": 3, "act": "sin"}, {"size": 1, "act": "softplus"}]
ARCH_T = ({"act": "sin", "gain": 1.5}, {"act": "tanh", "gain": 0.5})
SCALES = [{"a": 2.0, "b": 0.5}, {"a": 3.0, "b": -0.25}]
X = np.random.default_rng(41).normal(size=(4, 2))
Y = np.cos(X[:, 0])


def _act(name, z):
    if name == "tanh":
        return np.tanh(z)
    if name == "sin":
        return np.sin(z)
    return np.logaddexp(0.0, z)


def loop_over_dicts(x):
    for spec in ARCH:
        x = _act(spec["act"], x)
    return np.sum(x * x)


def index_at_count(x):
    for i in range(len(ARCH)):
        x = _act(ARCH[i]["act"], x) * ARCH[i]["size"]
    return np.sum(x)


def index_at_constant(x):
    return np.sum(_act(ARCH[1]["act"], x) + _act(ARCH[0]["act"], x) ** 2)


def zip_with_numbers(x):
    for spec, k in zip(ARCH_T, [1.0, 2.0]):
        x = _act(spec["act"], x) * k * spec["gain"]
    return np.sum(x)


def zip_with_parameter_list(x, gains):
    for spec, g in zip(ARCH, gains):
        x = _act(spec["act"], x * g)
    return np.sum(x ** 2)


def zip_with_tuples(weights):
    h = X
    for spec, (w, b) in zip(ARCH, weights):
        h = _act(spec["act"], h @ w + b)
    return np.mean((h[:, 0] - Y) ** 2)


def tuples_first(weights):
    h = X
    for (w, b), spec in zip(weights, ARCH):
        h = _act(spec["act"], h @ w + b)
    return np.mean((h[:, 0] - Y) ** 2)


def enumerated_dicts(x):
    total = 0.0
    for i, spec in enumerate(ARCH):
        total = total + (i + 1) * np.sum(_act(spec["act"], x))
    return total


def numbers_of_dicts(x):
    for s in SCALES:
        x = s["a"] * x + s["b"] * x ** 2
    return np.sum(x ** 2)


def numbers_at_count(x):
    for i in range(2):
        x = SCALES[i]["a"] * np.sin(x) + SCALES[i]["b"]
    return np.sum(x ** 2)


def _weights(r):
    sizes = [2] + [spec["size"] for spec in ARCH]
    return [(0.5 * r.normal(size=(a, b)), 0.1 * r.normal(size=b)) for a, b in zip(sizes[:-1], sizes[1:])]


def pairs_default(p, pairs=((0, 1), (2, 0), (1, 2))):
    targets = [1.0, 0.0, 1.0]
    loss = 0.0
    for (u, i), y in zip(pairs, targets):
        loss = loss + (p["user"][u] @ p["item"][i] - y) ** 2
    return loss


def pairs_passed(p, pairs):
    return sum((p["user"][u] @ p["item"][i]) ** 2 for u, i in pairs)


def index_list_passed(p, idx, scale=2.0):
    return np.sum(p["user"][idx] ** 2) * scale + np.sum(np.sin(p["item"][idx[0]]))


def enumerate_pairs(p, pairs=[(0, 1), (1, 2)]):  # noqa: B006  (read, never changed)
    total = 0.0
    for k, (u, i) in enumerate(pairs):
        total = total + (k + 1) * np.exp(-np.sum((p["user"][u] - p["item"][i]) ** 2))
    return total


def _embeddings(r):
    return {"user": r.normal(size=(3, 2)), "item": r.normal(size=(3, 2))}


DATA_SEQUENCES = [
    ("data_pairs_default", pairs_default, lambda r: (_embeddings(r),), 0),
    ("data_pairs_passed", pairs_passed, lambda r: (_embeddings(r), [(0, 2), (1, 1), (2, 0)]), 0),
    ("data_pairs_passed_tuple", pairs_passed, lambda r: (_embeddings(r), ((0, 2), (1, 1))), 0),
    ("data_index_list_passed", index_list_passed, lambda r: (_embeddings(r), [2, 0]), 0),
    ("data_enumerate_pairs", enumerate_pairs, lambda r: (_embeddings(r),), 0),
]


RECORDS = [
    ("records_loop", loop_over_dicts, lambda r: (r.normal(size=3),), 0),
    ("records_index_at_count", index_at_count, lambda r: (0.3 * r.normal(size=3),), 0),
    ("records_index_at_constant", index_at_constant, lambda r: (r.normal(size=3),), 0),
    ("records_zip_numbers_tuple", zip_with_numbers, lambda r: (r.normal(size=3),), 0),
    ("records_zip_parameter_list", zip_with_parameter_list, lambda r: (r.normal(size=3), [1.5, 0.5, 2.0]), 0),
    ("records_zip_parameter_list_gains", zip_with_parameter_list,
     lambda r: (r.normal(size=3), [np.float64(1.5), np.float64(0.5), np.float64(2.0)]), 1),
    ("records_zip_tuples", zip_with_tuples, lambda r: (_weights(r),), 0),
    ("records_tuples_first", tuples_first, lambda r: (_weights(r),), 0),
    ("records_enumerate", enumerated_dicts, lambda r: (r.normal(size=3),), 0),
    ("records_numbers", numbers_of_dicts, lambda r: (0.3 * r.normal(size=3),), 0),
    ("records_numbers_at_count", numbers_at_count, lambda r: (r.normal(size=3),), 0),
]


# ---- jit="numba" of a float32 parameter meeting float64 data in a function numba has for one dtype ----

SIGNAL = np.sin(np.linspace(0.0, 3.0, 10))
M64 = np.array([[2.0, 0.5, 0.1], [0.5, 1.5, 0.2], [0.1, 0.2, 1.0]])


def dot_rows(kernel):
    out = np.empty(SIGNAL.shape[0] - kernel.shape[0] + 1)
    for i in range(out.shape[0]):
        out[i] = np.dot(SIGNAL[i:i + kernel.shape[0]], kernel)
    return np.sum(out ** 2)


def matmul_vector(v):
    return np.sum(np.tanh(M64 @ v) ** 2)


def dot_matrix(v):
    return float(v @ np.dot(M64, v))


def solve_data(v):
    return np.sum(np.linalg.solve(M64, v) ** 2)


def outer_data(v):
    return np.sum(np.outer(SIGNAL[:3], v) ** 2)


MIXED_DTYPES = [
    ("mixed_dot_rows", dot_rows, lambda r: (r.normal(size=3).astype(np.float32),), 0),
    ("mixed_matmul_vector", matmul_vector, lambda r: (r.normal(size=3).astype(np.float32),), 0),
    ("mixed_dot_matrix", dot_matrix, lambda r: (r.normal(size=3).astype(np.float32),), 0),
    ("mixed_solve", solve_data, lambda r: (r.normal(size=3).astype(np.float32),), 0),
    ("mixed_outer", outer_data, lambda r: (r.normal(size=3).astype(np.float32),), 0),
]
