"""Programs of test_wave36k.py: numbers and arrays read from tuples and lists whose items the code
now knows (a tuple or list argument, a module tuple or list: shapes.ItemsSignature, guarded on each
call), and NumPy reductions of list comprehensions (their items' adjoints Python floats), held out
in benchmarks/variants36_items.py and spelled here beside them."""

import importlib.util
import math
from pathlib import Path

import numpy as np


def _benchmark(name: str):
    """benchmarks/NAME.py loaded by its path (sys.path left alone: test_wave36f.py)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


v36 = _benchmark("variants36_heldout")
v36k = _benchmark("variants36_items")

INT_COEFFS = (3, -1, 2, 1)
BASES = (np.array([0.5, -0.2, 0.1]), np.array([-0.3, 0.4, 0.9]))
MIXED = (0.5, np.array([0.2, -0.1, 0.3]))


def poly_int_tuple(x):
    """Horner's rule over a module tuple of ints."""
    p = 0.0
    for c in INT_COEFFS:
        p = p * x + c
    return p * p


def poly_list_arg(x, coeffs):
    """A list argument of floats read at indices, the last one at -1."""
    s = coeffs[-1]
    for k in range(len(coeffs) - 1):
        s = s + coeffs[k] * math.sin((k + 1) * x)
    return s * s


def module_arrays(x):
    """A module tuple of arrays of x's shape, iterated."""
    total = 0.0
    for b in BASES:
        total = total + np.sum(np.tanh(x * b))
    return total


def mixed_items(x):
    """A module tuple of a float and an array: its items not known alike (the general code)."""
    return np.sum(x * MIXED[0] + MIXED[1] * x * x)


def scale_items(x, scales):
    """A tuple argument's items scaling an array, summed by sum()."""
    return np.sum(x * sum(scales)) + np.sum((x * scales[0]) ** 2)


def sum_listcomp_floats(a, b):
    """np.sum of a comprehension of floats (no array in it)."""
    return np.sum([math.sin(a * k) * b ** 2 for k in range(1, 5)])


def stack_listcomp_rows(x):
    """np.sum of a comprehension of arrays: the rows stay arrays."""
    return np.sum(np.stack([x * k for k in range(3)]) ** 2)


def rates(u, v, k):
    """A helper returning a flat dict of arrays (read at constant keys by its caller)."""
    return {"du": v, "dv": -k * np.sin(u) - 0.1 * v}


def heun_dict_helper(k, u0, v0):
    """Heun's method on a dict state, the right-hand side a helper returning a dict."""
    s = {"u": u0, "v": v0}
    for _ in range(3):
        a = rates(s["u"], s["v"], k)
        b = rates(s["u"] + 0.1 * a["du"], s["v"] + 0.1 * a["dv"], k)
        s = {"u": s["u"] + 0.05 * (a["du"] + b["du"]), "v": s["v"] + 0.05 * (a["dv"] + b["dv"])}
    return np.sum(s["u"] ** 2) + np.sum(s["v"] ** 2)


def nested_rates(u, v):
    """A helper returning a dict holding a dict: refused at its return, saying so."""
    return {"a": {"x": u * v, "y": u + v}, "b": np.sin(u)}


def nested_helper(u, v):
    d = nested_rates(u, v)
    return np.sum(d["a"]["x"] * d["b"]) + np.sum(d["a"]["y"])


def _arr(n):
    return lambda r: (r.uniform(-1.0, 1.0, n),)


PROGRAMS = [
    ("horner_poly", v36.horner_poly, lambda r: v36.scalar_args(), 0),
    ("poly_tuple_arg", v36k.poly_tuple_arg, lambda r: v36k.poly_args(), 0),
    ("poly_tuple_coeffs", v36k.poly_tuple_arg, lambda r: v36k.poly_args(), 1),
    ("series_module_list_x", v36k.series_module_list, lambda r: v36k.series_args(), 0),
    ("series_module_list_y", v36k.series_module_list, lambda r: v36k.series_args(), 1),
    ("bumps_zip", v36k.bumps_zip, lambda r: v36k.bumps_args(), 0),
    ("nearest_templates", v36k.nearest_templates, lambda r: v36k.templates_args(n=5, k=3), 0),
    ("smooth_listcomp", v36k.smooth_listcomp, lambda r: v36k.signal_args(n=7), 0),
    ("mean_listcomp", v36k.mean_listcomp, lambda r: v36k.signal_args(n=7), 0),
    ("rosen_listcomp", v36.rosen_listcomp, lambda r: v36.rosen_args(n=6), 0),
    ("poly_int_tuple", poly_int_tuple, lambda r: (0.3,), 0),
    ("poly_list_arg", poly_list_arg, lambda r: (0.4, [0.5, -1.0, 0.25, 2.0]), 0),
    ("module_arrays", module_arrays, _arr(3), 0),
    ("mixed_items", mixed_items, _arr(3), 0),
    ("scale_items", scale_items, lambda r: (r.uniform(-1.0, 1.0, 4), (0.5, 1.5, -0.5)), 0),
    ("sum_listcomp_floats_a", sum_listcomp_floats, lambda r: (0.7, -0.4), 0),
    ("sum_listcomp_floats_b", sum_listcomp_floats, lambda r: (0.7, -0.4), 1),
    ("stack_listcomp_rows", stack_listcomp_rows, _arr(4), 0),
    ("heun_dict_helper", heun_dict_helper, lambda r: (r.uniform(0.5, 1.5, 3), *r.uniform(-1, 1, (2, 3))), 0),
]

#: refused at the helper's return (a tree of trees returned from a helper)
REFUSED = [("nested_helper", nested_helper, lambda r: (r.uniform(-1, 1, 3), r.uniform(-1, 1, 3)), 0)]
