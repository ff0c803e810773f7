"""Programs of test_wave34i.py: the red team of wave 34's rewrites, written the way users write them.

* CONFIG: module configuration dicts used whole (a sub-dict bound to a name, ``.get`` with defaults,
  passed to a helper, ``**``-spread), a config read at nested keys, a dict aliased as an argument and a
  module global, a helper's returned dict written by the caller before it is read, a dict of computed and
  constant values, float and Enum keys with ``.get``;
* MASKS: products by boolean masks (mask_products.py) with a mask broadcast against a matrix, an int mask
  (``astype(int)``), a mask of a column, ``~m`` and ``m`` in one sum, a float32-friendly mask chain;
* WHERES: nested np.where chains (wheres.py / factored_branches.py) with a shared factor, subtracted and
  negated selections, a column condition against a matrix, a chain read outside its branch;
* SECOND ORDER: kinks (abs, maximum, clip) inside loops, through reshapes, transposes and slices, use masks
  through index_add (``a[idx] += ...``), a dot with a value that does not move, a mean of selections.

Each row is ``(name, func, make_args(rng), wrt)``.
"""

from __future__ import annotations

import enum

import numpy as np

# ---- CONFIG ----

CFG = {"layer": {"scale": 0.7, "shift": 0.1, "act": "tanh"}, "loss": {"weight": 2.0, "kind": "mse"},
       "z": {"s": 0.5}}


class Term(enum.Enum):
    FIT = 1
    REG = 2


WEIGHTS = {Term.FIT: 1.5, Term.REG: 0.25}
RATES = {300.0: 0.8, 350.0: 1.3}


def _layer(v, layer):
    h = v * layer["scale"] + layer.get("shift", 0.0)
    return np.tanh(h) if layer["act"] == "tanh" else np.maximum(h, 0.0)


def cfg_whole_to_helper(x):
    return np.sum(_layer(x, CFG["layer"]) ** 2) * CFG["loss"]["weight"]


def cfg_sub_dict_kind(x):
    loss = CFG["loss"]
    r = x - 0.3
    base = np.mean(r ** 2) if loss["kind"] == "mse" else np.mean(np.abs(r))
    return loss["weight"] * base + CFG.get("reg", {}).get("l2", 0.01) * np.sum(x ** 2)


def _spread(v, scale, shift, act):
    return np.sum(np.sin(v * scale + shift)) if act == "tanh" else np.sum(v)


def cfg_spread(x):
    return _spread(x, **CFG["layer"])


def cfg_nested_keys(x):
    return np.arctan2(CFG["z"]["s"], -1.0) * np.sum(x ** 2) + CFG["layer"]["scale"] * np.sum(np.cos(x))


def cfg_aliased(x, layer):
    return np.sum(layer["scale"] * x ** 2) + np.sum(np.sin(x) * CFG["layer"]["scale"])


def _moments(v):
    return {"m": np.mean(v), "s": np.mean(v * v), "n": 3.0}


def returned_dict_written(x):
    d = _moments(x)
    d["s"] = d["s"] - d["m"] ** 2
    d["m"] = np.tanh(d["m"])
    return d["s"] * d["n"] + d["m"]


def mixed_computed_constant(x):
    terms = {"fit": np.sum((x - 1.0) ** 2), "w": 0.5, "reg": np.sum(np.abs(x) ** 1.5)}
    return terms["fit"] + terms["w"] * terms["reg"]


def enum_float_get(x):
    k = RATES.get(300.0, 1.0) * np.exp(-RATES.get(400.0, 0.5))
    return WEIGHTS.get(Term.FIT, 0.0) * np.sum((x * k - 1.0) ** 2) + WEIGHTS[Term.REG] * np.sum(x ** 2)


# ---- MASKS ----


def mask_column_matrix(x, m):
    keep = x[:, None] > 0.0
    r = m * x[:, None]
    return np.sum(keep * r * r) + np.sum(~keep * np.sin(r))


def mask_int(x):
    on = (x > 0.2).astype(int)
    return np.sum(on * x ** 3) + np.sum((1 - on) * np.exp(x))


def mask_float32_chain(x):
    small = np.abs(x) <= 0.5
    big = ~small
    return np.sum(small * 0.5 * x * x) + np.sum(big * 0.5 * (np.abs(x) - 0.125))


def mask_of_other_shape(x, w):
    m = w > 0.0
    return np.sum(m * np.outer(x, w)) + np.sum(x ** 2)


def mask_float_where(x):
    m = np.where(x > 0.1, 1.0, 0.0)
    return np.sum(m * np.log1p(x * x)) + np.sum((1.0 - m) * x)


# ---- WHERES ----


def where_shared_factor(x, s):
    return np.sum(np.where(x > 0.0, s * x * x, s * np.sin(x)))


def where_subtracted(x):
    a = np.where(x > 0.3, x ** 2, 0.0)
    b = np.where(x > 0.3, 0.0, np.cos(x))
    return np.sum(np.exp(x)) - np.sum(a) - np.sum(-b)


def where_column(x, c):
    M = np.outer(c, x)
    return np.sum(np.where(c[:, None] > 0.0, np.where(M > 0.2, M, M ** 3), -M))


def where_chain_reused(x):
    v = np.where(x > 0.5, x, np.where(x < -0.5, x * x, 0.0))
    return np.sum(v) * np.sum(np.where(x > 0.5, 2.0 * v, v * v))


# ---- SECOND ORDER ----


def kinks_in_loop(x):
    total = 0.0
    for i in range(3):
        total = total + np.sum(np.abs(x - 0.1 * i) * x) + np.sum(np.maximum(x, 0.2 * i) ** 2)
    return total


def reshape_transpose_affine(x):
    M = (2.0 * x + 1.0).reshape(2, 3).T
    return np.sum(np.abs(M[:, 0]) * M[:, 1]) + np.sum(np.clip(M, -0.5, 0.5) * M)


def index_add_mask(x):
    a = np.zeros(4)
    idx = np.array([0, 2, 2, 3, 1, 0])
    np.add.at(a, idx, x * x)
    return np.sum(np.maximum(a, 0.3) * a) + np.sum(np.abs(x[:3]) * x[3:])


def dot_still(x):
    w = np.array([0.0, 1.5, -2.0, 0.0, 0.5, 1.0])
    return np.dot(w, np.sqrt(x * x + 1.0)) + np.mean(np.abs(x) * x) + np.dot(x, x) ** 2


def masks_in_loop(x):
    v = x.copy()
    for _ in range(2):
        v = np.where(v > 0.0, v * v, 0.5 * v) + 0.1
    return np.sum(v * x)


X6 = lambda r: (r.normal(size=6),)  # noqa: E731
V3 = lambda r: (r.normal(size=3),)  # noqa: E731

PROGRAMS = [
    ("cfg_whole_to_helper", cfg_whole_to_helper, V3, 0),
    ("cfg_sub_dict_kind", cfg_sub_dict_kind, V3, 0),
    ("cfg_spread", cfg_spread, V3, 0),
    ("cfg_nested_keys", cfg_nested_keys, V3, 0),
    ("cfg_aliased", cfg_aliased, lambda r: (r.normal(size=3), CFG["layer"]), 0),
    ("returned_dict_written", returned_dict_written, V3, 0),
    ("mixed_computed_constant", mixed_computed_constant, V3, 0),
    ("enum_float_get", enum_float_get, V3, 0),
    ("mask_column_matrix", mask_column_matrix, lambda r: (r.normal(size=4), r.normal(size=(4, 3))), 0),
    ("mask_column_matrix_m", mask_column_matrix, lambda r: (r.normal(size=4), r.normal(size=(4, 3))), 1),
    ("mask_int", mask_int, X6, 0),
    ("mask_float32_chain", mask_float32_chain, X6, 0),
    ("mask_of_other_shape", mask_of_other_shape, lambda r: (r.normal(size=3), r.normal(size=4)), 0),
    ("mask_of_other_shape_w", mask_of_other_shape, lambda r: (r.normal(size=3), r.normal(size=4)), 1),
    ("mask_float_where", mask_float_where, X6, 0),
    ("where_shared_factor", where_shared_factor, lambda r: (r.normal(size=5), 1.7), 0),
    ("where_shared_factor_s", where_shared_factor, lambda r: (r.normal(size=5), 1.7), 1),
    ("where_subtracted", where_subtracted, X6, 0),
    ("where_column", where_column, lambda r: (r.normal(size=3), r.normal(size=4)), 0),
    ("where_column_c", where_column, lambda r: (r.normal(size=3), r.normal(size=4)), 1),
    ("where_chain_reused", where_chain_reused, X6, 0),
    ("kinks_in_loop", kinks_in_loop, X6, 0),
    ("reshape_transpose_affine", reshape_transpose_affine, X6, 0),
    ("index_add_mask", index_add_mask, X6, 0),
    ("dot_still", dot_still, X6, 0),
    ("masks_in_loop", masks_in_loop, X6, 0),
]


# ---- data the gradient reads when built, changed in place after a first call (test_wave34i.py) ----

NESTED = {"z": {"s": 0.5}}
DEEP = {"a": {"b": {"c": 0.5}}}
INT_KEYED = {0: {1: 0.5}}
LIST_OF_DICTS = [{"s": 0.5}]
KIND = {"loss": {"kind": "mse"}}
ZERO = {"z": {"s": 0.0}}
FLAT_ZERO = {"s": 0.0}
ENUM_ZERO = {Term.FIT: 0.0}
FLOAT_ZERO = {300.0: 0.0}


def nested_keys(x):
    return NESTED["z"]["s"] * np.sum(x ** 2) + np.sin(NESTED["z"]["s"]) * np.sum(x)


def nested_keys_folded(x):
    return np.arctan2(NESTED["z"]["s"], -1.0) * np.sum(x ** 2)


def deep_keys(x):
    return DEEP["a"]["b"]["c"] * np.sum(np.cos(x))


def int_keyed(x):
    return INT_KEYED[0][1] * np.sum(x ** 3)


def list_of_dicts(x):
    return LIST_OF_DICTS[0]["s"] * np.sum(x ** 2)


def nested_kind(x):
    return np.sum(x ** 2) if KIND["loss"]["kind"] == "mse" else np.sum(np.abs(x))


def make_closure_nested():
    table = {"p": {"q": 0.5}}

    def closure_nested(x):
        return table["p"]["q"] * np.sum(x ** 2)
    return closure_nested, table


closure_nested, CLOSURE_TABLE = make_closure_nested()


def zero_nested(x):
    return np.arctan2(ZERO["z"]["s"], -1.0) * np.sum(x ** 2)


def zero_whole(x):
    z = ZERO["z"]
    return np.arctan2(z["s"], -1.0) * np.sum(x ** 2)


def zero_get(x):
    return np.arctan2(FLAT_ZERO.get("s", 1.0), -1.0) * np.sum(x ** 2)


def zero_enum_key(x):
    return np.arctan2(ENUM_ZERO[Term.FIT], -1.0) * np.sum(x ** 2)


def zero_float_key(x):
    return np.arctan2(FLOAT_ZERO[300.0], -1.0) * np.sum(x ** 2)


def zero_copysign(x):
    return np.copysign(1.0, ZERO["z"]["s"]) * np.sum(np.sin(x))


# ---- a masked-out factor that is not finite: the user's value is NaN (0 * inf) ----


def bool_mask_times_data(x, y):
    m = x > 0.0
    return np.sum(m * y * x) + np.sum(~m * x * x)


def float_mask_times_log(x, y):
    m = np.where(x > 0.0, 1.0, 0.0)
    return np.sum(m * np.log(y) * x)
