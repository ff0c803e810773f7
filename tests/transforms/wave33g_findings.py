"""Wave 33g's findings: a module list (or tuple) of configuration dicts, ``ARCH = [{"size": 4, "act":
"tanh"}, ...]``, read the ways users read it: looped over, zipped with a list of parameters or with
numbers written out, enumerated, indexed at a constant or at a loop's count, its dicts' numbers
scaling the computation.  Each was refused ("index 'act' is not an integer", "list(...) is not
supported" at a loop the user wrote without ``list``)."""

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
