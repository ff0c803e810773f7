"""Wave 31m: objects a gradient reads when it is built, changed after a first call (test_wave31m.py).

Each row is ``(name, func, make_args(rng), wrt, change)``: `change()` changes, in place or by
rebinding, something `func` read when its gradient was built (a module list, tuple, dict, array,
function, class attribute, default argument, closure cell, enum member, dataclass field) and
returns the function that puts it back.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

NAMES = ["quad", "wave"]
COEF = {"quad": 0.5, "wave": 1.5, "cube": -0.25}
SCALES = [0.5, 1.5]
PAIRS = [(0.5, 2), (1.5, 3)]
LAYERS = [[1.0, 2.0], [0.5]]
POWERS = (2, 3)
TABLE = {"a": 0.5, "b": 2.0}
W = np.array([0.5, -1.0, 2.0])
ROWS = np.array([1.0, 2.0])
ACT = np.tanh
SIZES = [2, 1]
ACTS = [np.tanh, np.sin]
IDX = [0, 2]
SHAPE = [2, 2]
AXES = [1, 0]
CONF = (["quad", "wave"], 2.0)
BY_GROUP = {"main": ["quad", "wave"], "extra": ["cube"]}
LISTED_WEIGHTS = {"a": [0.5, 1.5]}
MATS = [np.array([[1.0, 0.5, 0.0], [0.0, 2.0, 1.0]]), np.array([[0.5, 0.0, 1.0]])]
MANY = [f"k{i}" for i in range(80)]
GROUPS = [["quad", "wave"], ["cube"]]


class Cfg:
    scale = 2.0
    names = ["quad", "wave"]


class Act(enum.Enum):
    TANH = "tanh"
    SIN = "sin"


MODE = Act.TANH


@dataclass
class Setup:
    scale: float = 1.5
    powers: tuple = (2, 3)
    names: list | None = None


SETUP = Setup(names=["quad", "wave"])


def term(name, x):
    if name == "quad":
        return np.sum(x ** 2)
    if name == "wave":
        return np.sum(np.sin(x))
    return np.sum(x ** 3)


# ---- module lists read when the gradient is built ----

def list_names_loop(x):
    total = 0.0
    for name in NAMES:
        total = total + COEF[name] * term(name, x)
    return total


def list_scales_loop(x):
    total = 0.0
    for s in SCALES:
        total = total + s * np.sum(x ** 2)
    return total


def list_scales_enumerate(x):
    total = 0.0
    for i, s in enumerate(SCALES):
        total = total + s * x[i] ** 2
    return total


def list_pairs_loop(x):
    total = 0.0
    for w, p in PAIRS:
        total = total + w * np.sum(x ** p)
    return total


def list_nested_loop(x):
    total = 0.0
    for layer in LAYERS:
        for w in layer:
            total = total + w * np.sum(np.sin(w * x))
    return total


def list_comprehension(x):
    return sum([s * np.sum(np.cos(x)) for s in SCALES])


def list_index(x):
    return SCALES[0] * np.sum(x ** 2) + SCALES[-1] * np.sum(x)


def list_len_range(x):
    total = 0.0
    for i in range(len(SIZES)):
        total = total + SIZES[i] * x[i] ** 2
    return total


def list_sum(x):
    return sum(SCALES) * np.sum(x ** 2)


def tree_names_loop(p):
    total = 0.0
    for name in NAMES:
        total = total + COEF[name] * np.sum(p[name] ** 2)
    return total


def tree_names_generator(p):
    return sum(np.sum(np.sin(p[name])) * COEF[name] for name in NAMES)


def tree_names_dict(p):
    scaled = {name: p[name] * COEF[name] for name in NAMES}
    return sum(np.sum(v ** 2) for v in scaled.values())


def list_functions_loop(x):
    total = 0.0
    for f in ACTS:
        total = total + np.sum(f(x) ** 2)
    return total


def list_arrays_loop(x):
    total = 0.0
    for m in MATS:
        total = total + np.sum((m @ x) ** 2)
    return total


def tree_many_names(p):
    return sum(p[k] ** 2 for k in MANY)


def tree_grouped_names(p):
    total = 0.0
    for group in GROUPS:
        for name in group:
            total = total + COEF[name] * np.sum(p[name] ** 2)
    return total


def _tree_terms(p, names=["quad", "wave"]):  # noqa: B006  a default list, changed in place below
    return sum(np.sum(np.cos(p[k])) for k in names)


def tree_default_names(p):
    return _tree_terms(p)


def _make_closure_names():
    names = ["quad", "wave"]

    def loss(p):
        total = 0.0
        for k in names:
            total = total + np.sum(p[k] ** 3)
        return total

    return loss, names


tree_closure_names, CLOSURE_NAMES = _make_closure_names()


def tuple_holding_list(p):
    names, k = CONF
    total = 0.0
    for name in names:
        total = total + k * np.sum(p[name] ** 2)
    return total


def dict_of_lists(p):
    total = 0.0
    for name in BY_GROUP["main"]:
        total = total + np.sum(np.sin(p[name]))
    return total


def dict_of_weight_lists(x):
    total = 0.0
    for w in LISTED_WEIGHTS["a"]:
        total = total + w * np.sum(x ** 2)
    return total


def list_fancy_index(x):
    return np.sum(np.sin(x[IDX]) * x[IDX])


def list_as_array(x):
    return np.sum(x ** 2 * np.array(SCALES[:2] + [1.0]))


def list_reshape(x):
    m = x.reshape(SHAPE)
    return np.sum(m[0] * m[1] ** 2)


def list_transpose(x):
    m = np.transpose(x.reshape(2, 2), AXES)
    return np.sum(m[0] * np.cos(m[1]))


# ---- tuples, dicts, arrays, functions ----

def tuple_powers_loop(x):
    total = 0.0
    for p in POWERS:
        total = total + np.sum(x ** p)
    return total


def dict_items_loop(x):
    total = 0.0
    for k, w in TABLE.items():
        total = total + w * np.sum(x ** 2) / len(k)
    return total


def dict_lookup(x):
    return TABLE["a"] * np.sum(x ** 2) + TABLE["b"] * np.sum(x)


def array_weights(x):
    return np.sum(W * x ** 2)


def array_rows_loop(x):
    total = 0.0
    for r in ROWS:
        total = total + r * np.sum(x ** 2)
    return total


def function_global(x):
    return np.sum(ACT(x) ** 2)


# ---- class attributes, enums, dataclasses ----

def class_attribute(x):
    return Cfg.scale * np.sum(x ** 2)


def class_list_loop(x):
    total = 0.0
    for name in Cfg.names:
        total = total + term(name, x)
    return total


def enum_mode(x):
    if MODE is Act.TANH:
        return np.sum(np.tanh(x) ** 2)
    return np.sum(np.sin(x) ** 2)


def dataclass_field(x):
    return SETUP.scale * np.sum(x ** 2)


def dataclass_tuple_loop(x):
    total = 0.0
    for p in SETUP.powers:
        total = total + np.sum(x ** p)
    return total


def dataclass_list_loop(x):
    total = 0.0
    for name in SETUP.names:
        total = total + term(name, x)
    return total


# ---- default arguments, closures ----

def _weighted(x, ks=[1.0, 2.0]):  # noqa: B006  a default list, changed in place below
    total = 0.0
    for k in ks:
        total = total + k * np.sum(x ** 2)
    return total


def default_list(x):
    return _weighted(x)


def _scaled(x, k=2.0):
    return k * np.sum(np.sin(x))


def default_number(x):
    return _scaled(x)


def _make_closure_list():
    ks = [0.5, 1.5]

    def loss(x):
        total = 0.0
        for k in ks:
            total = total + k * np.sum(x ** 2)
        return total

    return loss, ks


closure_list, CLOSURE_KS = _make_closure_list()


def _make_closure_number():
    k = 2.0

    def loss(x):
        return k * np.sum(x ** 2) + np.sum(np.sin(k * x))

    def set_k(v):
        nonlocal k
        old, k = k, v
        return old

    return loss, set_k


closure_number, _set_k = _make_closure_number()


# ---- the changes ----

def set_attribute(obj, name, value):
    def change():
        old = getattr(obj, name)
        setattr(obj, name, value)
        return lambda: setattr(obj, name, old)
    return change


def in_place(seq, do):
    def change():
        old = list(seq)
        do(seq)
        return lambda: seq.__setitem__(slice(None), old)
    return change


def _global(name, value):
    def change():
        old = globals()[name]
        globals()[name] = value
        return lambda: globals().__setitem__(name, old)
    return change


def array_in_place(a, i, v):
    def change():
        old = a[i]
        a[i] = v
        return lambda: a.__setitem__(i, old)
    return change


def dict_in_place(d, k, v):
    def change():
        had, old = k in d, d.get(k)
        d[k] = v

        def undo():
            if had:
                d[k] = old
            else:
                del d[k]
        return undo
    return change


def _defaults(func, value):
    return set_attribute(func, "__defaults__", value)


def _closure_number():
    old = _set_k(3.0)
    return lambda: _set_k(old)


def tree(rng):
    return [{name: rng.normal(size=2) for name in ("quad", "wave", "cube")}]


def many(rng):
    return [{k: float(v) for k, v in zip(MANY, rng.normal(size=len(MANY)))}]


def vec(n):
    return lambda rng: [rng.normal(size=n)]


#: (name, func, make_args, wrt, change)
PROGRAMS = [
    ("list_names_append", list_names_loop, vec(3), 0, in_place(NAMES, lambda s: s.append("cube"))),
    ("list_names_setitem", list_names_loop, vec(3), 0, in_place(NAMES, lambda s: s.__setitem__(0, "cube"))),
    ("list_names_sort", list_names_loop, vec(3), 0, in_place(NAMES, lambda s: s.sort(reverse=True))),
    ("list_names_pop", list_names_loop, vec(3), 0, in_place(NAMES, lambda s: s.pop())),
    ("list_names_rebound", list_names_loop, vec(3), 0, _global("NAMES", ["wave", "cube"])),
    ("tree_names_append", tree_names_loop, tree, 0, in_place(NAMES, lambda s: s.append("cube"))),
    ("tree_names_setitem", tree_names_loop, tree, 0, in_place(NAMES, lambda s: s.__setitem__(0, "cube"))),
    ("tree_names_sort", tree_names_loop, tree, 0, in_place(NAMES, lambda s: s.sort(reverse=True))),
    ("tree_names_generator", tree_names_generator, tree, 0, in_place(NAMES, lambda s: s.append("cube"))),
    ("tree_names_dict", tree_names_dict, tree, 0, in_place(NAMES, lambda s: s.__setitem__(1, "cube"))),
    ("tree_many_names", tree_many_names, many, 0, in_place(MANY, lambda s: s.__setitem__(5, "k0"))),
    ("tree_grouped_inner", tree_grouped_names, tree, 0, in_place(GROUPS[1], lambda s: s.append("wave"))),
    ("tree_grouped_outer", tree_grouped_names, tree, 0, in_place(GROUPS, lambda s: s.reverse())),
    ("tree_default_names", tree_default_names, tree, 0,
     in_place(_tree_terms.__defaults__[0], lambda s: s.append("cube"))),
    ("tree_closure_names", tree_closure_names, tree, 0, in_place(CLOSURE_NAMES, lambda s: s.__setitem__(0, "cube"))),
    ("list_functions_setitem", list_functions_loop, vec(3), 0, in_place(ACTS, lambda s: s.__setitem__(0, np.cos))),
    ("list_arrays_setitem", list_arrays_loop, vec(3), 0, in_place(MATS, lambda s: s.__setitem__(1, MATS[0]))),
    ("list_arrays_append", list_arrays_loop, vec(3), 0, in_place(MATS, lambda s: s.append(MATS[0] * 2.0))),
    ("tuple_holding_list", tuple_holding_list, tree, 0, in_place(CONF[0], lambda s: s.append("cube"))),
    ("dict_of_lists", dict_of_lists, tree, 0, in_place(BY_GROUP["main"], lambda s: s.append("cube"))),
    ("dict_of_weight_lists", dict_of_weight_lists, vec(3), 0, in_place(LISTED_WEIGHTS["a"], lambda s: s.append(3.0))),
    ("list_fancy_index", list_fancy_index, vec(3), 0, in_place(IDX, lambda s: s.__setitem__(1, 1))),
    ("list_as_array", list_as_array, vec(3), 0, in_place(SCALES, lambda s: s.__setitem__(0, 3.0))),
    ("list_reshape", list_reshape, vec(4), 0, in_place(SHAPE, lambda s: s.__setitem__(slice(None), [4, 1]))),
    ("list_transpose", list_transpose, vec(4), 0, in_place(AXES, lambda s: s.reverse())),
    ("list_scales_append", list_scales_loop, vec(3), 0, in_place(SCALES, lambda s: s.append(4.0))),
    ("list_scales_setitem", list_scales_loop, vec(3), 0, in_place(SCALES, lambda s: s.__setitem__(1, 3.0))),
    ("list_scales_enumerate", list_scales_enumerate, vec(3), 0, in_place(SCALES, lambda s: s.append(4.0))),
    ("list_pairs_setitem", list_pairs_loop, vec(3), 0, in_place(PAIRS, lambda s: s.__setitem__(0, (2.5, 4)))),
    ("list_nested_inner", list_nested_loop, vec(3), 0, in_place(LAYERS[1], lambda s: s.append(3.0))),
    ("list_nested_outer", list_nested_loop, vec(3), 0, in_place(LAYERS, lambda s: s.append([0.25]))),
    ("list_comprehension", list_comprehension, vec(3), 0, in_place(SCALES, lambda s: s.append(4.0))),
    ("list_index", list_index, vec(3), 0, in_place(SCALES, lambda s: s.__setitem__(0, 3.0))),
    ("list_len_range", list_len_range, vec(3), 0, in_place(SIZES, lambda s: s.append(5))),
    ("list_sum", list_sum, vec(3), 0, in_place(SCALES, lambda s: s.append(4.0))),
    ("tuple_rebound", tuple_powers_loop, vec(3), 0, _global("POWERS", (2, 4))),
    ("dict_items_in_place", dict_items_loop, vec(3), 0, dict_in_place(TABLE, "c", 3.0)),
    ("dict_lookup_in_place", dict_lookup, vec(3), 0, dict_in_place(TABLE, "a", 4.0)),
    ("array_in_place", array_weights, vec(3), 0, array_in_place(W, 0, 5.0)),
    ("array_rebound", array_weights, vec(3), 0, _global("W", np.array([1.0, 2.0, 3.0]))),
    ("array_loop_in_place", array_rows_loop, vec(3), 0, array_in_place(ROWS, 0, 5.0)),
    ("function_rebound", function_global, vec(3), 0, _global("ACT", np.sin)),
    ("class_attribute", class_attribute, vec(3), 0, set_attribute(Cfg, "scale", 3.0)),
    ("class_list_append", class_list_loop, vec(3), 0, in_place(Cfg.names, lambda s: s.append("cube"))),
    ("enum_rebound", enum_mode, vec(3), 0, _global("MODE", Act.SIN)),
    ("dataclass_field", dataclass_field, vec(3), 0, set_attribute(SETUP, "scale", 3.0)),
    ("dataclass_tuple_field", dataclass_tuple_loop, vec(3), 0, set_attribute(SETUP, "powers", (2, 4))),
    ("dataclass_list_append", dataclass_list_loop, vec(3), 0, in_place(SETUP.names, lambda s: s.append("cube"))),
    ("default_list_append", default_list, vec(3), 0, in_place(_weighted.__defaults__[0], lambda s: s.append(4.0))),
    ("default_number", default_number, vec(3), 0, _defaults(_scaled, (3.0,))),
    ("closure_list_append", closure_list, vec(3), 0, in_place(CLOSURE_KS, lambda s: s.append(4.0))),
    ("closure_number", closure_number, vec(3), 0, _closure_number),
]
