"""Programs reading module-level data by attribute or from their arguments (test_wave33a.py), written the
way users write them: a namedtuple's, a dataclass instance's, a SimpleNamespace's or a class's numbers
read as numbers, shapes, loop bounds and indices; a function as a (keyword-only) default; a parameter
dict read at keys computed over ``range(n)`` of an int parameter, or at labels an argument holds.

Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import collections
import types
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

X3 = np.array([0.5, -0.3, 0.8])
X4 = np.array([0.4, -0.2, 0.7, 0.1])


def _v(r, n):
    return np.linspace(-0.6, 0.7, n) + 0.05 * r.standard_normal(n)


# ---- OBJECTS: module-level namedtuples, dataclass instances, namespaces, classes -------------------

Rates = collections.namedtuple("Rates", ["rate", "decay"])
RATES = Rates(rate=0.3, decay=1.2)


class Shape(NamedTuple):
    rows: int
    cols: int
    weights: tuple = (0.5, 1.5, -1.0)


SHAPE = Shape(2, 3)


@dataclass(frozen=True)
class Config:
    eps: float = 1e-3
    steps: int = 3
    sizes: tuple = (2, 2)
    lo: int = 1


CFG = Config()


@dataclass
class Mutable:
    scale: float = 2.0
    power: int = 2


SETUP = Mutable()

HP = types.SimpleNamespace(lr=0.1, l2=0.05, n_steps=2, taps=(0.25, 0.5, 0.25))


class Table:
    scale = 2.0
    offset = -0.5
    SIZES = (2, 3)
    COEFS = (1.0, -0.5, 0.25)
    N = 3


class Settings:
    def __init__(self, alpha, depth):
        self.alpha = alpha
        self.depth = depth


SETTINGS = Settings(0.5, 2)


class Outer:
    inner = Config(eps=0.01)


Affine = collections.namedtuple("Affine", "W b")
AFFINE = Affine(np.array([[0.5, -1.0, 0.2], [0.3, 0.8, -0.4]]), np.array([0.1, -0.2]))
SCHEDULE = types.SimpleNamespace(levels=[0.5, 1.0, 2.0], name="geometric")


class Grid:
    SPACING = [0.5, 1.0, 1.5]


def nt_unpacked_and_indexed(x):
    rate, decay = RATES
    return np.sum(rate * np.tanh(x)) + RATES[1] * np.sum(x ** 2) + len(RATES)


def nt_array_fields(x):
    z = AFFINE.W @ x + AFFINE.b
    return np.sum(np.log1p(np.exp(z)))


def ns_list_field_loop(x):
    total = 0.0
    for s in SCHEDULE.levels:
        total = total + np.sum(np.exp(-s * x ** 2))
    return total


def cls_list_numbers(x):
    return sum(h * np.sum(np.cos(h * x)) for h in Grid.SPACING)


def nt_rate_times_x(x):
    return np.sum(RATES.rate * x ** 2 + np.exp(-RATES.decay * x))


def nt_fields_as_shape(x):
    m = x.reshape(SHAPE.rows, SHAPE.cols)
    return np.sum(np.tanh(m) * np.array(SHAPE.weights))


def nt_weights_indexed(x):
    total = 0.0
    for i in range(len(SHAPE.weights)):
        total = total + SHAPE.weights[i] * x[i] ** 2
    return total


def dc_frozen_eps(x):
    return np.sum(np.sqrt(x * x + CFG.eps))


def dc_steps_loop(x):
    h = x
    for _ in range(CFG.steps):
        h = np.sin(h) + 0.5 * h
    return np.sum(h ** 2)


def dc_sizes_reshape_and_index(x):
    m = np.reshape(x, CFG.sizes)
    return np.sum(m[CFG.lo] ** 2) + np.sum(np.cos(m[:, CFG.lo]))


def dc_mutable_scale(x):
    return SETUP.scale * np.sum(x ** SETUP.power)


def ns_hyper(w, x=X3):
    pred = np.tanh(w * x)
    loss = np.sum((pred - 0.1) ** 2) + HP.l2 * np.sum(w ** 2)
    for _ in range(HP.n_steps):
        loss = loss * (1.0 - HP.lr)
    return loss


def ns_taps_tuple(x):
    out = 0.0
    for k, t in enumerate(HP.taps):
        out = out + t * np.sum(np.roll(x, k) * x)
    return out


def cls_scale_offset(x):
    return np.sum((Table.scale * x + Table.offset) ** 2)


def cls_sizes_shape(x):
    return np.sum(np.exp(x.reshape(Table.SIZES)[0]))


def cls_coefs_loop(x):
    acc = 0.0
    for c in Table.COEFS:
        acc = acc * x + c
    return np.sum(acc ** 2)


def cls_n_range(x):
    total = 0.0
    for k in range(Table.N):
        total = total + np.sin((k + 1) * x[k])
    return total


def inst_alpha_depth(x):
    h = x
    for _ in range(SETTINGS.depth):
        h = np.tanh(SETTINGS.alpha * h + 0.1)
    return np.sum(h ** 2)


def nested_attribute(x):
    return np.sum(np.log(x ** 2 + Outer.inner.eps))


def helper_reads_attribute(x):
    return _scaled(x) + 0.5 * np.sum(x)


def _scaled(v):
    return RATES.decay * np.sum(np.cos(v))


OBJECTS = [
    ("nt_rate_times_x", nt_rate_times_x, lambda r: (_v(r, 3),), 0),
    ("nt_fields_as_shape", nt_fields_as_shape, lambda r: (_v(r, 6),), 0),
    ("nt_weights_indexed", nt_weights_indexed, lambda r: (_v(r, 3),), 0),
    ("dc_frozen_eps", dc_frozen_eps, lambda r: (_v(r, 3),), 0),
    ("dc_steps_loop", dc_steps_loop, lambda r: (_v(r, 3),), 0),
    ("dc_sizes_reshape_and_index", dc_sizes_reshape_and_index, lambda r: (_v(r, 4),), 0),
    ("dc_mutable_scale", dc_mutable_scale, lambda r: (_v(r, 3),), 0),
    ("ns_hyper", ns_hyper, lambda r: (_v(r, 3),), 0),
    ("ns_taps_tuple", ns_taps_tuple, lambda r: (_v(r, 4),), 0),
    ("cls_scale_offset", cls_scale_offset, lambda r: (_v(r, 3),), 0),
    ("cls_sizes_shape", cls_sizes_shape, lambda r: (_v(r, 6),), 0),
    ("cls_coefs_loop", cls_coefs_loop, lambda r: (_v(r, 3),), 0),
    ("cls_n_range", cls_n_range, lambda r: (_v(r, 3),), 0),
    ("inst_alpha_depth", inst_alpha_depth, lambda r: (_v(r, 3),), 0),
    ("nested_attribute", nested_attribute, lambda r: (_v(r, 3),), 0),
    ("nt_unpacked_and_indexed", nt_unpacked_and_indexed, lambda r: (_v(r, 3),), 0),
    ("nt_array_fields", nt_array_fields, lambda r: (_v(r, 3),), 0),
    ("ns_list_field_loop", ns_list_field_loop, lambda r: (_v(r, 3),), 0),
    ("cls_list_numbers", cls_list_numbers, lambda r: (_v(r, 3),), 0),
    ("helper_reads_attribute", helper_reads_attribute, lambda r: (_v(r, 3),), 0),
]


# ---- DEFAULT_FUNCTIONS: a function as a (keyword-only) default ---------------------------------------

def softplus(z):
    return np.log1p(np.exp(z))


def kw_act_tanh(x, *, act=np.tanh):
    return np.sum(act(1.5 * x) ** 2)


def kw_act_user(w, x=X3, *, act=softplus, scale=0.5):
    return scale * np.sum(act(w * x))


def pos_act_default(x, act=np.sin):
    return np.sum(act(x) * x)


def kw_acts_tuple(w, *, acts=(np.tanh, np.sin)):
    h = w
    for a in acts:
        h = a(h)
    return np.sum(h ** 2)


def kw_act_lambda(x, *, f=lambda z: z * z + 1.0):
    return np.sum(np.log(f(x)))


def kw_act_in_helper(x):
    return _layer(x) + _layer(x, act=np.cos)


def _layer(h, *, act=np.tanh):
    return np.sum(act(0.7 * h))


def _dense(h, w=0.8, act=np.tanh):
    return act(w * h)


def _unit(h, *, scale=1.0, act=np.tanh, shift=0.0):
    return scale * act(h) + shift


def pos_act_in_helper(x):
    return np.sum(_dense(x) ** 2 + _dense(x, 1.2, np.sin))


def kw_acts_between_others(x):
    return np.sum(_unit(x, shift=0.5) * _unit(x, act=np.arctan, scale=2.0))


DEFAULT_FUNCTIONS = [
    ("kw_act_tanh", kw_act_tanh, lambda r: (_v(r, 3),), 0),
    ("kw_act_user", kw_act_user, lambda r: (_v(r, 3),), 0),
    ("pos_act_default", pos_act_default, lambda r: (_v(r, 3),), 0),
    ("kw_acts_tuple", kw_acts_tuple, lambda r: (_v(r, 3),), 0),
    ("kw_act_lambda", kw_act_lambda, lambda r: (_v(r, 3),), 0),
    ("kw_act_in_helper", kw_act_in_helper, lambda r: (_v(r, 3),), 0),
    ("pos_act_in_helper", pos_act_in_helper, lambda r: (_v(r, 3),), 0),
    ("kw_acts_between_others", kw_acts_between_others, lambda r: (_v(r, 3),), 0),
]


# ---- RANGE_KEYS: keys computed over range(n) of an int parameter, labels from an argument -----------

def _params(r, n, prefix="w"):
    return {f"{prefix}{i}": 0.4 + 0.3 * i + 0.05 * r.standard_normal() for i in range(n)}


def fstring_range_param(params, x=X3, n=3):
    h = x
    for i in range(n):
        h = np.tanh(params[f"w{i}"] * h)
    return np.sum(h ** 2)


def fstring_range_param_passed(params, n):
    return sum(params[f"w{i}"] ** 2 * (i + 1) for i in range(n))


def percent_range_param(params, n=2):
    total = 0.0
    for i in range(n):
        total = total + np.sin(params["w%d" % i]) * params["w" + str(i)]
    return total


def dict_comp_from_one(x, n=3):
    powers = {k: x[k - 1] ** k for k in range(1, n + 1)}
    return sum(powers.values()) + powers[1] * powers[n]


def dicts_over_range_param(x, n=2):
    layers = [{"w": x[2 * i], "b": x[2 * i + 1]} for i in range(n)]
    h = 0.5
    for layer in layers:
        h = np.tanh(layer["w"] * h + layer["b"])
    return h ** 2


def dicts_appended_over_range(x, n=3):
    comps = []
    for i in range(n):
        comps.append({"mu": x[i], "w": 1.0 + i})
    return sum(c["w"] * (c["mu"] - 0.3) ** 2 for c in comps)


def dicts_appended_literal_range(x):
    specs = []
    for k in range(2):
        specs.append({"a": x[2 * k], "b": np.exp(x[2 * k + 1]), "k": k + 1.0})
    return sum(s["k"] * s["a"] * s["b"] for s in specs)


def dicts_appended_len(x):
    comps = []
    for i in range(len(x)):
        comps.append({"mu": x[i], "w": 1.0 + i})
    return sum(c["w"] * (c["mu"] - 0.3) ** 2 for c in comps)


def labels_tuple_argument(x, labels=("a", "b", "c")):
    d = {}
    for lab, v in zip(labels, x):
        d[lab] = v ** 2 + np.sin(v)
    return sum(d.values())


def labels_read_from_params(params, labels):
    return sum(params[lab] ** 2 * (k + 1) for k, lab in enumerate(labels))


def labels_comprehension(x, labels):
    d = {lab: v * v for lab, v in zip(labels, x)}
    return d["b"] * np.cos(d["a"]) + d["c"]


RANGE_KEYS = [
    ("fstring_range_param", fstring_range_param, lambda r: (_params(r, 3),), 0),
    ("fstring_range_param_passed", fstring_range_param_passed, lambda r: (_params(r, 2), 2), 0),
    ("percent_range_param", percent_range_param, lambda r: (_params(r, 2),), 0),
    ("dict_comp_from_one", dict_comp_from_one, lambda r: (_v(r, 3),), 0),
    ("dicts_over_range_param", dicts_over_range_param, lambda r: (_v(r, 4),), 0),
    ("dicts_appended_over_range", dicts_appended_over_range, lambda r: (_v(r, 3),), 0),
    ("dicts_appended_literal_range", dicts_appended_literal_range, lambda r: (_v(r, 4),), 0),
    ("dicts_appended_len", dicts_appended_len, lambda r: (_v(r, 3),), 0),
    ("labels_tuple_argument", labels_tuple_argument, lambda r: (_v(r, 3),), 0),
    ("labels_read_from_params", labels_read_from_params,
     lambda r: ({"a": 0.3, "b": -0.6, "c": 0.9}, ("a", "c")), 0),
    ("labels_comprehension", labels_comprehension, lambda r: (_v(r, 3), ("a", "b", "c")), 0),
]


PROGRAMS = OBJECTS + DEFAULT_FUNCTIONS + RANGE_KEYS


# ---- CHANGES: what the OBJECTS rows read, changed after a first call (test_wave33a.py) ---------------

def _set(obj, attr, value):
    """Set `obj.attr` (a frozen dataclass's too, as a user working around it would); returns the undo."""
    old, put = getattr(obj, attr), setattr if isinstance(obj, type) else object.__setattr__
    put(obj, attr, value)
    return lambda: put(obj, attr, old)


def _rebind(name, value):
    old = globals()[name]
    globals()[name] = value
    return lambda: globals().__setitem__(name, old)


def _item(seq, k, value):
    old = seq[k]
    seq[k] = value
    return lambda: seq.__setitem__(k, old)


def _appended(seq, value):
    seq.append(value)
    return seq.pop


#: row name -> change() (returns its undo), one or more a row
CHANGES = [
    ("nt_rate_times_x", lambda: _rebind("RATES", Rates(rate=0.9, decay=0.2))),
    ("helper_reads_attribute", lambda: _rebind("RATES", Rates(rate=0.9, decay=0.2))),
    ("nt_weights_indexed", lambda: _rebind("SHAPE", Shape(3, 2, (2.0, -0.5, 1.0)))),
    ("nt_array_fields", lambda: _item(AFFINE.W, (0, 1), 3.0)),
    ("dc_frozen_eps", lambda: _set(CFG, "eps", 0.5)),
    ("dc_steps_loop", lambda: _rebind("CFG", Config(steps=1))),
    ("dc_mutable_scale", lambda: _set(SETUP, "power", 3)),
    ("ns_hyper", lambda: _set(HP, "l2", 2.0)),
    ("ns_hyper", lambda: _set(HP, "n_steps", 4)),
    ("ns_taps_tuple", lambda: _set(HP, "taps", (1.0, -2.0))),
    ("ns_list_field_loop", lambda: _appended(SCHEDULE.levels, 4.0)),
    ("cls_scale_offset", lambda: _set(Table, "scale", -3.0)),
    ("cls_sizes_shape", lambda: _set(Table, "SIZES", (3, 2))),
    ("cls_coefs_loop", lambda: _set(Table, "COEFS", (2.0, 0.5))),
    ("cls_n_range", lambda: _set(Table, "N", 2)),
    ("cls_list_numbers", lambda: _item(Grid.SPACING, 0, 2.5)),
    ("inst_alpha_depth", lambda: _set(SETTINGS, "depth", 3)),
    ("nested_attribute", lambda: _set(Outer.inner, "eps", 0.5)),
    ("nested_attribute", lambda: _set(Outer, "inner", Config(eps=2.0))),
]
