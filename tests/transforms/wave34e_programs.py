"""Wave 34e: programs grad accepts that jit="numba" refused (test_wave34e.py), each class written
several ways: a list of numbers ``[0.0] * n`` written by index in a loop, a module list of dicts read
at a loop's count (``ARCH[i]["act"]``), an array indexed by a list argument, a recursive helper
returning ``0.0`` at its base case, and arrays of another module (``import mod; mod.X``)."""

from __future__ import annotations

import numpy as np

from . import wave34e_data
from . import wave34e_data as data

# ---- a list of numbers written by index in a loop ----------------------------------------------


def nash_cascade(theta, rain=np.array([0.0, 5.0, 12.0, 3.0, 0.0, 0.0, 1.0, 0.0])):  # noqa: B008
    k = np.exp(theta[0])
    n = 3
    stores = [0.0] * n
    flows = []
    for p in rain:
        inflow = p
        for s in range(n):
            out = stores[s] / k
            stores[s] = stores[s] + inflow - out
            inflow = out
        flows.append(inflow)
    q = np.array(flows)
    return np.sum((q - np.array([0.0, 0.2, 1.0, 1.8, 2.0, 1.6, 1.3, 1.0])) ** 2) + 0.01 * theta[1] ** 2


def squares_by_index(x):
    vals = [0.0] * x.shape[0]
    for i in range(x.shape[0]):
        vals[i] = x[i] ** 2 + np.sin(x[i])
    return sum(vals)


def buckets_added(x):
    acc = [0.0] * 3
    for i in range(x.shape[0]):
        acc[i % 3] += x[i] * x[i]
    return acc[0] + 2.0 * acc[1] + 3.0 * acc[2]


def reservoir_of_a_parameter(k):
    level = [0.0] * 2
    total = 0.0
    for p in data.RAIN:
        level[0] = level[0] + p - k[0] * level[0]
        level[1] = level[1] + k[0] * level[0] - k[1] * level[1]
        total = total + (level[1] - 1.0) ** 2
    return total


def comprehension_zeros(x):
    buf = [0.0 for _ in range(x.shape[0])]
    for i in range(1, x.shape[0]):
        buf[i] = buf[i - 1] * 0.5 + x[i] * x[i - 1]
    return buf[-1] + np.sum(x ** 2)


def from_a_float_state(x):
    s = [1.0] * 2
    for i in range(x.shape[0]):
        s[1] = s[0] * np.cos(x[i]) + s[1] * 0.1
        s[0] = s[0] + 0.5 * s[1]
    return s[0] * s[1]


# ---- a module list of dicts read at a loop's count -------------------------------------------

ARCH = [{"size": 3, "act": "tanh"}, {"size": 3, "act": "sin"}, {"size": 1, "act": "softplus"}]
ARCH_T = ({"act": "sin", "gain": 1.5}, {"act": "tanh", "gain": 0.5})
LAYERS = [{"scale": 2.0, "shift": 0.5}, {"scale": 0.5, "shift": -0.25}, {"scale": 1.5, "shift": 0.0}]


def _act(name, z):
    if name == "tanh":
        return np.tanh(z)
    if name == "sin":
        return np.sin(z)
    return np.logaddexp(0.0, z)


def arch_act_at_count(x):
    for i in range(len(ARCH)):
        x = _act(ARCH[i]["act"], x) * ARCH[i]["size"]
    return np.sum(x)


def arch_numbers_at_count(x):
    for i in range(len(LAYERS)):
        x = np.tanh(x * LAYERS[i]["scale"] + LAYERS[i]["shift"])
    return np.sum(x ** 2)


def arch_dict_bound_at_count(x):
    for i in range(len(ARCH)):
        spec = ARCH[i]
        if spec["act"] == "tanh":
            x = np.tanh(x)
        else:
            x = np.sin(x) * spec["size"]
    return np.sum(x)


def arch_tuple_at_count(x):
    for i in range(2):
        x = _act(ARCH_T[i]["act"], x) * ARCH_T[i]["gain"]
    return np.sum(x * x)


def arch_at_count_of_a_while(x):
    i = 0
    total = 0.0
    while i < len(LAYERS):
        total = total + LAYERS[i]["scale"] * np.sum(np.cos(x + LAYERS[i]["shift"]))
        i += 1
    return total


# ---- an array indexed by a list argument -----------------------------------------------------


def pick_by_list(x, idx):
    return np.sum(x[idx] ** 2)


def pick_repeated(x, idx):
    return np.sum(np.sin(x[idx]) * np.arange(len(idx)))


def rows_by_list(W, rows):
    return np.sum(np.tanh(W[rows] @ np.array([1.0, -0.5, 0.25])))


def pick_in_a_loop(x, idx):
    total = 0.0
    for k in range(3):
        total = total + np.sum(x[idx] * k) + x[idx[k]] ** 2
    return total


def pick_default(x, idx=[3, 1, 3]):  # noqa: B006
    return np.sum(np.exp(x[idx]) * x[idx])


# ---- a recursive helper returning 0.0 at its base case ----------------------------------------


def _tail_squares(x, i):
    if i == 0:
        return 0.0
    return x[i - 1] ** 2 + _tail_squares(x, i - 1)


def recursive_sum(x):
    return _tail_squares(x, x.shape[0])


def _series(t, k):
    if k == 0:
        return 0.0
    return t * (1.0 + _series(t, k - 1))


def recursive_series(x):
    return _series(x[0], 4) + _series(x[1], 2)


def _array_steps(v, k):
    if k == 0:
        return 0.0
    return np.tanh(v) + 0.5 * _array_steps(v, k - 1)


def recursive_array_base_zero(x):
    return np.sum(_array_steps(x, 3) ** 2)


def _depth_product(x, d):
    if d <= 0:
        return 0.0
    return x[d - 1] * (1.0 + _depth_product(x, d - 1))


def recursive_product(x):
    return _depth_product(x, 3)


# ---- arrays of another module: import mod; mod.X ------------------------------------------------


def module_attr_matmul(w):
    return np.mean((data.X @ w - data.Y) ** 2)


def module_attr_full_name(w):
    return np.mean((wave34e_data.X @ w - wave34e_data.Y) ** 2)


def module_attr_rows_in_loop(w):
    total = 0.0
    for i in range(data.X.shape[0]):
        total = total + np.tanh(data.X[i] @ w) ** 2
    return total


def module_attr_transposed(v):
    return np.sum(np.sin(data.W0.T @ v))


def module_attr_dict(w):
    return np.sum((data.X @ w * data.SETTINGS["scale"] + data.SETTINGS["shift"]) ** 2)


PROGRAMS = [
    ("list_nash_cascade", nash_cascade, lambda r: (np.array([0.5, 0.2]),), 0),
    ("list_squares_by_index", squares_by_index, lambda r: (r.normal(size=5),), 0),
    ("list_buckets_added", buckets_added, lambda r: (r.normal(size=7),), 0),
    ("list_reservoir", reservoir_of_a_parameter, lambda r: (np.array([0.3, 0.2]),), 0),
    ("list_comprehension_zeros", comprehension_zeros, lambda r: (r.normal(size=5),), 0),
    ("list_float_state", from_a_float_state, lambda r: (r.normal(size=4),), 0),
    ("arch_act_at_count", arch_act_at_count, lambda r: (0.3 * r.normal(size=3),), 0),
    ("arch_numbers_at_count", arch_numbers_at_count, lambda r: (r.normal(size=3),), 0),
    ("arch_dict_bound_at_count", arch_dict_bound_at_count, lambda r: (r.normal(size=3),), 0),
    ("arch_tuple_at_count", arch_tuple_at_count, lambda r: (r.normal(size=3),), 0),
    ("arch_while_count", arch_at_count_of_a_while, lambda r: (r.normal(size=3),), 0),
    ("index_list_argument", pick_by_list, lambda r: (r.normal(size=5), [0, 2, 3]), 0),
    ("index_list_repeated", pick_repeated, lambda r: (r.normal(size=5), [4, 1, 1, 0]), 0),
    ("index_list_rows", rows_by_list, lambda r: (r.normal(size=(4, 3)), [2, 0, 2]), 0),
    ("index_list_in_loop", pick_in_a_loop, lambda r: (r.normal(size=5), [1, 3, 4]), 0),
    ("index_list_of_a_default", pick_default, lambda r: (r.normal(size=5),), 0),
    ("recursive_sum", recursive_sum, lambda r: (r.normal(size=4),), 0),
    ("recursive_series", recursive_series, lambda r: (0.5 * r.normal(size=2),), 0),
    ("recursive_array_base_zero", recursive_array_base_zero, lambda r: (r.normal(size=3),), 0),
    ("recursive_product", recursive_product, lambda r: (r.normal(size=4),), 0),
    ("module_attr_matmul", module_attr_matmul, lambda r: (r.normal(size=3),), 0),
    ("module_attr_full_name", module_attr_full_name, lambda r: (r.normal(size=3),), 0),
    ("module_attr_rows_in_loop", module_attr_rows_in_loop, lambda r: (r.normal(size=3),), 0),
    ("module_attr_transposed", module_attr_transposed, lambda r: (r.normal(size=2),), 0),
    ("module_attr_dict", module_attr_dict, lambda r: (r.normal(size=3),), 0),
]
