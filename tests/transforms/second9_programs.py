"""Programs whose second derivatives srcdiff used to refuse where `grad` was right, one table
per class (test_second_order_trees.py): each a function of a differentiated first parameter,
written the way users write them, with a maker of its arguments."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

# ---- class 1: a configuration or data tree the second derivative is not taken with respect to ----


@dataclasses.dataclass(frozen=True)
class Penalty:
    weight: float
    power: float


def dataclass_setting(w, X, pen):
    return np.sum(np.log1p(np.exp(X @ w))) + pen.weight * np.sum(np.abs(w) ** pen.power)


def string_in_settings(w, X, cfg):
    z = X @ w * cfg["scale"]
    act = np.tanh(z) if cfg["act"] == "tanh" else np.sin(z)
    return np.sum(act ** 2) + cfg["l2"] * np.dot(w, w)


class Batch(NamedTuple):
    X: np.ndarray
    y: np.ndarray


def namedtuple_of_data(w, batch):
    r = np.tanh(batch.X @ w) - batch.y
    return 0.5 * np.mean(r ** 2)


def dict_of_data(w, data):
    logits = data["X"] @ w
    return np.sum(np.logaddexp(0.0, logits) - data["y"] * logits)


def scalar_with_settings(t, cfg):
    return np.sin(t * cfg["a"]) * t ** 3 + cfg["b"] * np.exp(-t * t)


def _w(rng, n=3):
    return rng.normal(size=n) * 0.5


TREE_SETTINGS = [
    ("dataclass_setting", dataclass_setting, lambda r: (_w(r) + 1.5, r.normal(size=(4, 3)), Penalty(0.1, 3.0))),
    ("string_in_settings", string_in_settings,
     lambda r: (_w(r), r.normal(size=(5, 3)), {"act": "tanh", "scale": 0.7, "l2": 0.05})),
    ("string_in_settings_sin", string_in_settings,
     lambda r: (_w(r), r.normal(size=(5, 3)), {"act": "sin", "scale": 1.3, "l2": 0.0})),
    ("namedtuple_of_data", namedtuple_of_data, lambda r: (_w(r), Batch(r.normal(size=(6, 3)), r.normal(size=6)))),
    ("dict_of_data", dict_of_data,
     lambda r: (_w(r), {"X": r.normal(size=(6, 3)), "y": (r.random(6) > 0.5).astype(float)})),
    ("scalar_with_settings", scalar_with_settings, lambda r: (0.7, {"a": 1.3, "b": 0.4})),
]


# ---- class 2: an early `return` inside a loop -------------------------------------------------------


def return_when_past(w):
    total = 0.0
    for i in range(8):
        total = total + np.exp(w[0] * i) * w[1]
        if total > 3.0:
            return total * w[0] + np.sin(w[1])  # taken at i == 3 here
    return total


def return_from_inner_loop(w):
    acc = w[0]
    for i in range(3):
        for j in range(4):
            acc = acc * np.cos(w[1] * (i + j)) + w[2]
            if i == 1 and j == 2:
                return acc ** 2
    return acc


def return_array_state(v):
    x = v.copy()
    for step in range(10):
        x = x - 0.1 * np.tanh(x) * v
        if np.sum(x ** 2) < 2.0:
            return np.sum(x ** 3) + step  # an int added: no derivative of its own
    return np.sum(x)


def return_in_while_counted(w):
    t, n = w[0], 0
    while n < 10:
        t = t * 0.5 + np.sin(w[1] * t)
        n += 1
        if n >= 4:
            return t * w[1]
    return t


def return_value_not_taken(w):
    s = 0.0
    for i in range(5):
        s = s + w[i % 2] ** 2 * (i + 1)
        if s > 1e6:
            return np.log(s)
    return s * w[0]


EARLY_RETURNS = [
    ("return_when_past", return_when_past, lambda r: (np.array([0.4, 0.6]),)),
    ("return_from_inner_loop", return_from_inner_loop, lambda r: (np.array([0.8, 0.3, 0.1]),)),
    ("return_array_state", return_array_state, lambda r: (np.array([1.2, -0.9, 0.7]),)),
    ("return_in_while_counted", return_in_while_counted, lambda r: (np.array([0.9, 0.7]),)),
    ("return_value_not_taken", return_value_not_taken, lambda r: (np.array([0.5, -1.1]),)),
]


# ---- class 3: carried arrays swapped in a loop, written through slices (their adjoints alias) --------


def leapfrog_string(c, u0):
    u_prev, u = u0.copy(), u0.copy()
    for _ in range(5):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c ** 2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return np.sum(u ** 2) + np.sum((u - u_prev) ** 2)


def three_level_rotation(u0):
    a, b, c = u0.copy(), 0.5 * u0, np.zeros_like(u0)
    for _ in range(4):
        new = np.zeros_like(u0)
        new[1:] = b[1:] * np.tanh(a[:-1]) + 0.3 * c[1:]
        new[0] = b[0]
        a, b, c = b, c, new
    return np.sum(a * b) + np.sum(c ** 2)


def swapped_heat_rows(k, u0):
    old = u0.copy()
    new = np.zeros_like(u0)
    for _ in range(4):
        new = np.zeros_like(old)
        new[1:-1] = old[1:-1] + k * (old[2:] - 2 * old[1:-1] + old[:-2]) + 0.1 * np.sin(old[1:-1])
        new[0] = old[0]
        new[-1] = old[-1]
        old, new = new, old
    return np.sum(old ** 3) + np.sum(new)


SWAPPED_CARRIES = [
    ("leapfrog_string", leapfrog_string, lambda r: (0.7, np.sin(np.linspace(0.0, np.pi, 7)))),
    ("leapfrog_string_u0", lambda u0, c=0.6: leapfrog_string(c, u0), lambda r: (r.normal(size=6),)),
    ("three_level_rotation", three_level_rotation, lambda r: (r.normal(size=5),)),
    ("swapped_heat_rows", swapped_heat_rows, lambda r: (0.2, r.normal(size=6))),
    ("swapped_heat_rows_u0", lambda u0, k=0.15: swapped_heat_rows(k, u0), lambda r: (r.normal(size=5),)),
]


# ---- class 4: grad(grad(f)) of a function called with trees, as a method or as a partial --------------


@dataclasses.dataclass
class Spring:
    k: float
    rest: float


def spring_energy(x, spring):
    return 0.5 * spring.k * (x - spring.rest) ** 2 + 0.1 * np.cos(3.0 * x) * x


def settings_energy(x, cfg):
    return np.sin(x * cfg["a"]) * x ** 3 + cfg["b"] * np.exp(-x * x)


def tree_in_first(p, y):
    return np.sin(p["x"] * y) * p["x"] ** 3 + p["c"] * p["x"]


class Well:
    def __init__(self, depth):
        self.depth = depth

    def energy(self, x):
        return -self.depth * np.exp(-x * x) + 0.05 * x ** 4


def three_params(x, a, b):
    return np.log1p(np.exp(a * x)) * np.cos(b * x)


# ---- a write into an array one of two branches made (a merge of fresh arrays is fresh) ---------------


def write_into_either(x):
    if x[0] > 0.0:
        out = np.zeros(3)
    else:
        out = np.ones(3) * x[1]
    out[1] = x[0] * x[2]
    out[2] += np.sin(x[1])
    return np.sum(out ** 2) + out[0] * x[2]


def write_into_either_in_loop(x):
    acc = np.zeros(2)
    for i in range(3):
        if i % 2 == 0:
            acc = acc * x[0]
        else:
            acc = np.full(2, x[1])
        acc[0] = acc[0] + np.cos(x[i % 2] * i)
    return np.sum(acc * acc)


EITHER = [
    ("write_into_either", write_into_either, lambda r: (np.array([0.6, -0.8, 1.1]),)),
    ("write_into_either_else", write_into_either, lambda r: (np.array([-0.6, -0.8, 1.1]),)),
    ("write_into_either_in_loop", write_into_either_in_loop, lambda r: (np.array([0.9, 0.4]),)),
]


def aliased_either(x):
    keep = np.zeros(3)
    out = keep if x[0] > 0.0 else np.ones(3)
    out[0] = x[1]
    return np.sum(out) + np.sum(keep)


# ---- class 3b: lists of lists in the gradient's own code (its stacks keep lists for their shapes) -----


def split_gates_in_loop(W, xs):
    h = np.zeros(2)
    for t in range(xs.shape[0]):
        z = W @ np.concatenate([xs[t], h])
        a, b = np.split(z, 2)
        h = np.tanh(a) * (1.0 / (1.0 + np.exp(-b)))
    return np.sum(h ** 2)


def three_way_split_in_loop(v):
    total = 0.0
    x = v
    for k in range(3):
        p, q, r = np.split(x * (k + 1.0), 3)
        total = total + np.sum(p * q) - np.sum(np.sin(r))
        x = np.concatenate([q, r, p]) * 0.9
    return total


def pair_distances_by_generator(pos):
    energy = 0.0
    n = pos.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            r2 = sum((pos[i, k] - pos[j, k]) ** 2 for k in range(pos.shape[1]))
            energy = energy + 1.0 / (0.5 + r2)
    return energy


def row_norms_by_comprehension(X):
    out = 0.0
    for row in range(X.shape[0]):
        squares = [X[row, c] ** 2 for c in range(X.shape[1])]
        out = out + np.sqrt(sum(squares) + 1.0)
    return out


LISTS_IN_GRADIENT = [
    ("three_way_split_in_loop", three_way_split_in_loop, lambda r: (r.normal(size=6),)),
    ("pair_distances_by_generator", pair_distances_by_generator, lambda r: (r.normal(size=(4, 2)),)),
    ("row_norms_by_comprehension", row_norms_by_comprehension, lambda r: (r.normal(size=(3, 3)),)),
    ("split_gates_in_loop", split_gates_in_loop, lambda r: (r.normal(size=(4, 5)) * 0.5, r.normal(size=(3, 3)))),
]
