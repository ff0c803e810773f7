"""Programs of test_wave32c.py that loop over class attributes and lists of lists of names, reading a
parameter dict at each (wave32c_programs.py holds the rest).

Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np


def _v(r, n):
    return np.linspace(-0.6, 0.7, n) + 0.05 * r.standard_normal(n)


# ---- CLASS_LISTS: a loop over a class attribute list; over a list of lists with param-dict reads ----

class Cfg:
    SIZES = [0.5, 1.0, 2.0]
    NAMES = ["a", "b"]


class Model:
    def __init__(self):
        self.layers = ["l0", "l1"]

    def loss(self, p):
        h = 0.3
        for name in self.layers:
            h = np.tanh(p[name] * h + 0.1)
        return h ** 2


MODEL = Model()


def class_sizes_loop(x):
    total = 0.0
    for s in Cfg.SIZES:
        total = total + np.sum(np.exp(-s * x ** 2))
    return total


def class_names_params(p):
    total = 0.0
    for name in Cfg.NAMES:
        total = total + p[name] ** 2 * len(name)
    return total


def method_over_self_layers(p):
    return MODEL.loss(p)


GROUPS = [["a", "b"], ["c"]]


def list_of_lists_params(p):
    total = 0.0
    for group in GROUPS:
        s = 0.0
        for name in group:
            s = s + p[name]
        total = total + np.tanh(s) ** 2
    return total


def list_of_lists_pairs(p):
    total = 0.0
    for pair in [["a", "b"], ["b", "c"]]:
        total = total + p[pair[0]] * p[pair[1]]
    return total


class Net:
    DEPTH = 2
    KEYS = ("u", "v")


def class_depth_fstring(p):
    total = 0.0
    for i in range(Net.DEPTH):
        total = total + np.cos(p[f"b{i}"]) * (i + 1.0)
    return total + p[Net.KEYS[0]] * p[Net.KEYS[1]]


PAIRS = (("a", "b"), ("b", "c"))


def groups_tuple_of_tuples(p):
    total = 0.0
    for first, second in PAIRS:
        total = total + np.exp(-(p[first] - p[second]) ** 2)
    return total


CLASS_LISTS = [
    ("class_sizes_loop", class_sizes_loop, lambda r: (_v(r, 3),), 0),
    ("class_names_params", class_names_params, lambda r: ({"a": 0.3, "b": -0.7},), 0),
    ("method_over_self_layers", method_over_self_layers, lambda r: ({"l0": 0.9, "l1": -0.6},), 0),
    ("list_of_lists_params", list_of_lists_params, lambda r: ({"a": 0.3, "b": -0.7, "c": 0.5},), 0),
    ("list_of_lists_pairs", list_of_lists_pairs, lambda r: ({"a": 0.3, "b": -0.7, "c": 0.5},), 0),
    ("class_depth_fstring", class_depth_fstring, lambda r: ({"b0": 0.3, "b1": -0.7, "u": 0.5, "v": 1.5},), 0),
    ("groups_tuple_of_tuples", groups_tuple_of_tuples, lambda r: ({"a": 0.3, "b": -0.7, "c": 0.5},), 0),
]
