"""Programs grad refused at the user's line though it could take them (test_wave32c.py), by class, each
written the way a user would write that kind of loss.

Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np

from .wave32c_class_lists import CLASS_LISTS

X2 = np.array([0.5, -0.3])
X3 = np.array([0.5, -0.3, 0.8])


def _v(r, n):
    return np.linspace(-0.6, 0.7, n) + 0.05 * r.standard_normal(n)


# ---- DATA_KEYS: dict keys that are data (labels an argument, a module tuple of strings) ------------

LABELS = ("a", "b", "c", "d")
NAMES = ("mu", "log_sigma", "rho")


def labels_argument(x, labels):
    d = {}
    for lab, v in zip(labels, x):
        d[lab] = v ** 2 + np.sin(v)
    return sum(d.values())


def labels_argument_read_back(x, labels):
    d = {}
    for lab, v in zip(labels, x):
        d[lab] = np.exp(0.5 * v)
    return d["a"] * d["b"] + d["c"] ** 2


def labels_module_tuple(x):
    d = {}
    for lab, v in zip(LABELS, x):
        d[lab] = np.tanh(v) * 2.0
    return d["a"] - d["d"] + sum(v ** 2 for v in d.values())


def labels_module_names_params(theta):
    p = {}
    for name, v in zip(NAMES, theta):
        p[name] = v
    sigma = np.exp(p["log_sigma"])
    return (p["mu"] - 0.2) ** 2 / sigma ** 2 + 2.0 * p["log_sigma"] + p["rho"] ** 2


def labels_default_argument(x, labels=LABELS):
    scores = {}
    for lab, v in zip(labels, x):
        scores[lab] = np.log1p(v ** 2)
    total = 0.0
    for lab in labels:
        total = total + scores[lab] * (1.0 + len(lab))
    return total


def labels_comprehension_argument(x, labels):
    d = {lab: v * v for lab, v in zip(labels, x)}
    return d["b"] * np.cos(d["a"]) + d["c"]


def labels_enumerated_module_tuple(x):
    weights = {}
    for i, lab in enumerate(LABELS):
        weights[lab] = np.exp(-x[i] ** 2) * (i + 1.0)
    return weights["b"] * weights["c"] + sum(weights.values())


def labels_range_keys(x):
    d = {}
    for k in range(3):
        d[k] = x[k] * x[k + 1]
    return d[0] + np.sin(d[1]) * d[2]


DATA_KEYS = [
    ("labels_argument", labels_argument, lambda r: (_v(r, 3), ["a", "b", "c"]), 0),
    ("labels_argument_read_back", labels_argument_read_back, lambda r: (_v(r, 3), ("a", "b", "c")), 0),
    ("labels_module_tuple", labels_module_tuple, lambda r: (_v(r, 4),), 0),
    ("labels_module_names_params", labels_module_names_params, lambda r: (_v(r, 3),), 0),
    ("labels_default_argument", labels_default_argument, lambda r: (_v(r, 4),), 0),
    ("labels_comprehension_argument", labels_comprehension_argument, lambda r: (_v(r, 3), ["a", "b", "c"]), 0),
    ("labels_enumerated_module_tuple", labels_enumerated_module_tuple, lambda r: (_v(r, 4),), 0),
    ("labels_range_keys", labels_range_keys, lambda r: (_v(r, 4),), 0),
]


# ---- RANGE_DICTS: a list of dicts over range(n), n from an argument's length or shape --------------

def dicts_over_half_length(x):
    n = len(x) // 2
    layers = [{"w": x[2 * i], "b": x[2 * i + 1]} for i in range(n)]
    h = 0.5
    for layer in layers:
        h = np.tanh(layer["w"] * h + layer["b"])
    return h ** 2


def dicts_over_shape(x, y):
    comps = []
    for i in range(y.shape[0]):
        comps.append({"mu": x[i], "w": y[i]})
    return sum(c["w"] * (c["mu"] - 0.3) ** 2 for c in comps)


def dicts_over_rows(m):
    rows = [{"a": m[i, 0], "b": m[i, 1]} for i in range(m.shape[0])]
    total = 0.0
    for row in rows:
        total = total + row["a"] * np.exp(row["b"])
    return total


def dict_comprehension_from_one(x):
    n = len(x)
    powers = {k: x[k - 1] ** k for k in range(1, n + 1)}
    return sum(powers.values()) + powers[1] * powers[n]


def dict_comprehension_from_one_loop(x):
    n = x.shape[0]
    coef = {k: 1.0 / k for k in range(1, n + 1)}
    total = 0.0
    for k in range(1, n + 1):
        total = total + coef[k] * np.sin(k * x[k - 1])
    return total


RANGE_DICTS = [
    ("dicts_over_half_length", dicts_over_half_length, lambda r: (_v(r, 6),), 0),
    ("dicts_over_shape", dicts_over_shape, lambda r: (_v(r, 3), np.array([0.5, 1.5, 2.0])), 0),
    ("dicts_over_rows", dicts_over_rows, lambda r: (np.reshape(_v(r, 6), (3, 2)),), 0),
    ("dict_comprehension_from_one", dict_comprehension_from_one, lambda r: (_v(r, 4),), 0),
    ("dict_comprehension_from_one_loop", dict_comprehension_from_one_loop, lambda r: (_v(r, 4),), 0),
]


# ---- TUPLE_STATES: tuple(generator) loop states holding a nested list -------------------------------

def tuple_state_nested_list(x):
    state = (x[0], [x[1], x[2]])
    for _ in range(3):
        a, pair = state
        state = tuple(v for v in (a * 0.9 + pair[0] * 0.1, [pair[0] * a, pair[1] + 0.1 * a]))
    a, pair = state
    return a + pair[0] ** 2 + pair[1]


def tuple_states_list_of_states(x):
    states = [tuple(x[i] for i in range(3))]
    for k in range(3):
        prev = states[-1]
        states.append(tuple(v + 0.1 * np.sin(v) * (k + 1) for v in prev))
    return sum(sum(s) for s in states)


def tuple_state_heun_lists(y0):
    ts = [0.0, 0.1, 0.2, 0.3]
    states = [tuple(y0[i] for i in range(len(y0)))]
    for t in ts[1:]:
        y = states[-1]
        k1 = [-yi * (1.0 + t) for yi in y]
        pred = [yi + 0.1 * ki for yi, ki in zip(y, k1)]
        states.append(tuple(yi + 0.05 * (ki - pi) for yi, ki, pi in zip(y, k1, pred)))
    return sum(s[0] ** 2 + s[1] for s in states)


TUPLE_STATES = [
    ("tuple_state_nested_list", tuple_state_nested_list, lambda r: (_v(r, 3),), 0),
    ("tuple_states_list_of_states", tuple_states_list_of_states, lambda r: (_v(r, 3),), 0),
    ("tuple_state_heun_lists", tuple_state_heun_lists, lambda r: (_v(r, 2),), 0),
]


# ---- TUPLE_KEYS: .items() of a tuple-keyed dict argument ---------------------------------------------

def _pairs(r):
    return {(0, 1): 0.3 + 0.01 * r.standard_normal(), (1, 2): -0.4, (0, 2): 0.7}


def tuple_keyed_items(couplings, x):
    energy = 0.0
    for (i, j), j_ij in couplings.items():
        energy = energy + j_ij * x[i] * x[j]
    return energy + sum(v ** 2 for v in couplings.values())


def tuple_keyed_items_of_x(x, couplings):
    energy = 0.0
    for (i, j), w in couplings.items():
        energy = energy + w * np.cos(x[i] - x[j])
    return energy


def tuple_keyed_items_key_read(couplings):
    total = 0.0
    for key, v in couplings.items():
        i, j = key
        total = total + (i + 1.0) * np.sin(v) * (j + 0.5)
    return total


def tuple_keyed_loop_over_keys(couplings, x=X3):
    total = couplings[0, 1] * 0.5
    for key in couplings:
        total = total + np.tanh(couplings[key] * x[key[0]] + x[key[1]])
    return total


def tuple_keyed_sorted_items(couplings):
    return sum(w * (i - j) ** 2 * np.exp(w) for (i, j), w in sorted(couplings.items()))


TUPLE_KEYS = [
    ("tuple_keyed_items", tuple_keyed_items, lambda r: (_pairs(r), np.array([0.2, -0.5, 0.9])), 0),
    ("tuple_keyed_items_of_x", tuple_keyed_items_of_x, lambda r: (_v(r, 3), _pairs(r)), 0),
    ("tuple_keyed_items_key_read", tuple_keyed_items_key_read, lambda r: (_pairs(r),), 0),
    ("tuple_keyed_loop_over_keys", tuple_keyed_loop_over_keys, lambda r: (_pairs(r),), 0),
    ("tuple_keyed_sorted_items", tuple_keyed_sorted_items, lambda r: (_pairs(r),), 0),
]


# ---- FSTRING_KEYS: params[f"w{i}"] in a loop over range of a constant or len of a list -------------

SIZES = [2, 3, 1]


def _mlp_params(r):
    return {"w0": 0.4 * r.standard_normal((3, 2)), "b0": 0.1 * r.standard_normal(3),
            "w1": 0.4 * r.standard_normal((1, 3)), "b1": 0.1 * r.standard_normal(1)}


def fstring_range_constant(params, x=X2):
    h = x
    for i in range(2):
        h = np.tanh(params[f"w{i}"] @ h + params[f"b{i}"])
    return np.sum(h ** 2)


def fstring_range_len(params, x=X2):
    h = x
    for i in range(len(SIZES) - 1):
        h = params[f"w{i}"] @ h + params[f"b{i}"]
        if i < len(SIZES) - 2:
            h = np.tanh(h)
    return np.sum(h ** 2)


def fstring_scalars(p):
    total = 0.0
    for k in range(3):
        total = total + p[f"c{k}"] * 0.5 ** k
    return total ** 2 + p["c0"]


def fstring_format_call(p):
    total = 0.0
    for k in range(1, 4):
        total = total + np.exp(-p["c{}".format(k - 1)] * k)
    return total


FSTRING_KEYS = [
    ("fstring_range_constant", fstring_range_constant, lambda r: (_mlp_params(r),), 0),
    ("fstring_range_len", fstring_range_len, lambda r: (_mlp_params(r),), 0),
    ("fstring_scalars", fstring_scalars, lambda r: ({"c0": 0.3, "c1": -0.2, "c2": 0.8},), 0),
    ("fstring_format_call", fstring_format_call, lambda r: ({"c0": 0.3, "c1": -0.2, "c2": 0.8},), 0),
]


# ---- ACTS: an activation chosen by a string from a module dict of functions ------------------------

def relu(z):
    return np.maximum(z, 0.0)


def softplus(z):
    return np.log1p(np.exp(z))


ACTS = {"tanh": np.tanh, "relu": relu, "softplus": softplus, "sin": np.sin}
ACTIVATION = "softplus"


def act_default_name(w, x=X3, name="tanh"):
    return np.sum(ACTS[name](w * x + 0.1) ** 2)


def act_module_constant(w, x=X3):
    return np.sum(ACTS[ACTIVATION](w * x) * x)


def act_bound_then_called(w, x=X3, name="relu"):
    act = ACTS[name]
    h = act(w * x + 0.05)
    return np.sum(act(h * w) ** 2)


def act_per_layer_names(w, names=("tanh", "sin")):
    h = w
    for name in names:
        h = ACTS[name](h * 1.3 + 0.1)
    return np.sum(h)


LAYER_ACTS = ("relu", "tanh")


def act_module_tuple_loop(w):
    h = w
    for name in LAYER_ACTS:
        act = ACTS[name]
        h = act(h - 0.2) + 0.1 * h
    return np.sum(h ** 2)


def act_literal_names_loop(w, x=X3):
    total = 0.0
    for name in ("softplus", "sin"):
        total = total + np.sum(ACTS[name](w * x))
    return total


ACT_PICKS = [
    ("act_default_name", act_default_name, lambda r: (_v(r, 3),), 0),
    ("act_module_constant", act_module_constant, lambda r: (_v(r, 3),), 0),
    ("act_bound_then_called", act_bound_then_called, lambda r: (_v(r, 3) + 0.3,), 0),
    ("act_per_layer_names", act_per_layer_names, lambda r: (_v(r, 3),), 0),
    ("act_module_tuple_loop", act_module_tuple_loop, lambda r: (_v(r, 3) + 0.45,), 0),
    ("act_literal_names_loop", act_literal_names_loop, lambda r: (_v(r, 3),), 0),
]


# ---- KWONLY: a nested function with a keyword-only parameter ----------------------------------------

def kwonly_nested(x):
    def penalty(v, *, scale=1.0):
        return scale * np.sum(v ** 2)

    return penalty(x, scale=0.5) + penalty(np.sin(x))


def kwonly_nested_required(x):
    def layer(h, *, w, b):
        return np.tanh(w * h + b)

    h = layer(x, w=1.5, b=0.1)
    return np.sum(layer(h, b=-0.2, w=x))


def kwonly_nested_closure(x, t=0.7):
    def smooth(v, *, eps=1e-2):
        return np.sqrt(v * v + eps) * t

    return np.sum(smooth(x)) + np.sum(smooth(x, eps=0.5))


def kwonly_nested_tree(p, x=X2):
    def dense(h, *, key, act=np.tanh):
        return act(p[key] * h)

    return np.sum(dense(dense(x, key="w0"), key="w1", act=np.sin) ** 2)


KWONLY = [
    ("kwonly_nested", kwonly_nested, lambda r: (_v(r, 3),), 0),
    ("kwonly_nested_required", kwonly_nested_required, lambda r: (_v(r, 3),), 0),
    ("kwonly_nested_closure", kwonly_nested_closure, lambda r: (_v(r, 3),), 0),
    ("kwonly_nested_tree", kwonly_nested_tree, lambda r: ({"w0": 0.8, "w1": -1.2},), 0),
]


PROGRAMS = DATA_KEYS + RANGE_DICTS + TUPLE_STATES + TUPLE_KEYS + FSTRING_KEYS + ACT_PICKS + KWONLY + CLASS_LISTS
