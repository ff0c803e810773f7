"""Wave 34a: dicts and objects the way users write them (test_wave34a.py): helpers returning dicts
of computed values (a literal, built key by key, a comprehension, with a tuple, ``**``-unpacked into
another helper, read with ``.get``, a method of a module-level object), configuration dicts of dicts,
parameter trees nested two and three levels, lists of dicts of dicts, objects read through
``__slots__`` or ``__getattr__``, a float-keyed dict and Enum members as keys.

Each row is ``(name, func, make_args(rng), wrt)``.
"""

from __future__ import annotations

import enum
import math

import numpy as np

# ---- 1. helpers returning a dict of computed values ----


def _stats(v):
    return {"mean": np.mean(v), "var": np.mean((v - np.mean(v)) ** 2)}


def module_helper_dict(x):
    s = _stats(x)
    return s["var"] / (1.0 + s["mean"] ** 2)


def nested_helper_dict(x):
    def moments(v):
        return {"m1": np.mean(v), "m2": np.mean(v * v)}

    m = moments(x)
    return m["m2"] - m["m1"] ** 2 + 0.1 * m["m1"]


def nested_helper_dict_built(x):
    def features(v):
        d = {}
        d["lin"] = np.sum(v)
        d["sq"] = np.sum(v ** 2)
        d["sin"] = np.sum(np.sin(v))
        return d

    f = features(x)
    return f["lin"] * f["sin"] + f["sq"]


def module_helper_dict_built(x):
    out = _built(x)
    return out["a"] * out["b"]


def _built(v):
    d = dict()
    d["a"] = np.tanh(v[0])
    d["b"] = np.sum(np.exp(-v))
    return d


def _powers(v):
    return {k: np.sum(v ** k) for k in (1, 2, 3)}


def helper_dict_comprehension(x):
    p = _powers(x)
    return p[1] * p[3] - p[2] ** 2


def _layers(w):
    return {"first": w[:2] * 2.0, "second": np.cos(w[2:])}


def helper_dict_of_arrays_loop(w):
    parts = _layers(w)
    total = 0.0
    for key in ("first", "second"):
        total = total + np.sum(parts[key] ** 2)
    return total


def helper_dict_items_loop(w):
    total = 0.0
    for name, arr in _layers(w).items():
        total = total + np.sum(arr) * (2.0 if name == "first" else 1.0)
    return total


def _loss_and_parts(v):
    parts = {"fit": np.sum((v - 1.0) ** 2), "reg": 0.1 * np.sum(v ** 2)}
    return parts, parts["fit"] + parts["reg"]


def helper_dict_and_float(x):
    parts, total = _loss_and_parts(x)
    return total + parts["fit"] * parts["reg"]


def _combine(a, b, scale=1.0):
    return scale * (a * b + a)


def helper_dict_kwargs(x):
    terms = {"a": np.sum(np.sin(x)), "b": np.sum(x ** 2)}
    return _combine(**terms)


def helper_returned_dict_kwargs(x):
    return _combine(**_stats_ab(x), scale=0.5)


def _stats_ab(v):
    return {"a": np.mean(v), "b": np.std(v)}


def helper_dict_get_default(x):
    s = _stats(x)
    return s.get("var", 0.0) + s.get("skew", 0.5) * s.get("mean")


class Model:
    def __init__(self, scale):
        self.scale = scale

    def forward(self, x):
        h = np.tanh(self.scale * x)
        return {"hidden": h, "out": np.sum(h ** 2)}


MODEL = Model(1.5)


def method_returning_dict(x):
    res = MODEL.forward(x)
    return res["out"] + np.sum(res["hidden"])


# ---- 2. configuration dicts holding dicts, nested parameter trees ----

CFG = {"layer": {"scale": 0.7, "shift": 0.1}, "loss": {"kind": "mse", "weight": 2.0}}


def module_cfg_nested(x):
    h = np.tanh(x * CFG["layer"]["scale"] + CFG["layer"]["shift"])
    return CFG["loss"]["weight"] * np.mean(h ** 2)


def module_cfg_nested_get(x):
    layer = CFG.get("layer", {})
    return np.sum(np.sin(x) * layer.get("scale", 1.0)) + layer["shift"]


def cfg_argument_nested(x, cfg):
    h = x * cfg["layer"]["scale"] + cfg["layer"]["shift"]
    return np.sum(np.tanh(h) ** 2) * cfg["loss"]["weight"]


def module_cfg_sub_dict(x):
    layer = CFG["layer"]
    h = np.tanh(x * layer["scale"] + layer["shift"])
    return np.sum(h ** 2) * CFG["loss"]["weight"]


def _apply(v, layer):
    return np.tanh(v * layer["scale"] + layer.get("shift", 0.0))


def module_cfg_to_helper(x):
    return np.sum(_apply(x, CFG["layer"]) ** 2)


def params_two_levels(params, x):
    h = np.tanh(x @ params["enc"]["W"] + params["enc"]["b"])
    y = h @ params["dec"]["W"] + params["dec"]["b"]
    return np.mean((y - x) ** 2)


def params_three_levels(params, x):
    h = x * params["net"]["enc"]["scale"] + params["net"]["enc"]["shift"]
    return np.sum(np.sin(h) * params["net"]["head"]["w"]) + params["bias"]


def params_nested_sub_name(params, x):
    enc = params["enc"]
    h = np.tanh(x @ enc["W"])
    dec = params["dec"]
    return np.sum((h @ dec["W"] + dec["b"]) ** 2)


def list_of_dicts_of_dicts(layers, x):
    h = x
    for layer in layers:
        h = np.tanh(h @ layer["lin"]["W"] + layer["lin"]["b"]) * layer["gain"]["g"]
    return np.sum(h ** 2)


def params_loop_over_keys(params, x):
    h = x
    for name in ("enc", "dec"):
        h = np.tanh(h @ params[name]["W"] + params[name]["b"])
    return np.sum(h ** 2)


def params_nested_items(params):
    total = 0.0
    for group in params.values():
        for value in group.values():
            total = total + np.sum(value ** 2)
    return total


# ---- 3. objects through __slots__ or __getattr__, float keys, Enum keys ----


class SlotParams:
    __slots__ = ("w", "b")

    def __init__(self, w, b):
        self.w = w
        self.b = b


SLOTS = SlotParams(np.array([0.5, -1.0, 2.0]), 0.25)


def slots_module_object(x):
    return np.sum(np.tanh(SLOTS.w * x) + SLOTS.b)


class Spring:
    __slots__ = ("k", "rest")

    def __init__(self, k, rest):
        self.k = k
        self.rest = rest

    def energy(self, x):
        return 0.5 * self.k * (x - self.rest) ** 2


def slots_built_in_function(x):
    s = Spring(2.0, 0.5)
    return np.sum(s.energy(x))


def slots_argument(p, x):
    return np.sum((p.w * x - p.b) ** 2)


class AttrDict(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


OPTS = AttrDict(scale=1.5, shift=-0.25)


def getattr_module_object(x):
    return np.sum(np.sin(OPTS.scale * x + OPTS.shift))


class Namespace:
    def __init__(self, **values):
        self._values = values

    def __getattr__(self, name):
        return self._values[name]


NS = Namespace(alpha=0.3, beta=2.0)


def getattr_namespace(x):
    return np.sum(NS.alpha * x ** 2 + NS.beta * x)


def float_keyed_dict(p, temps=(300.0, 320.0, 340.0)):
    obs = {300.0: 0.2, 320.0: 0.35, 340.0: 0.5}
    loss = 0.0
    for temp in temps:
        k = p[0] * math.exp(-p[1] / (8.314e-3 * temp))
        loss += (k - obs[temp]) ** 2
    return loss


OBS = {1.0: 0.5, 2.0: 0.25, 4.0: 0.125}


def float_keyed_module_dict(x):
    total = 0.0
    for t, y in OBS.items():
        total = total + (np.exp(-x[0] * t) * x[1] - y) ** 2
    return total


class Term(enum.Enum):
    FIT = "fit"
    REG = "reg"


WEIGHTS = {Term.FIT: 1.0, Term.REG: 0.1}


def enum_keyed_module_dict(x):
    return WEIGHTS[Term.FIT] * np.sum((x - 1.0) ** 2) + WEIGHTS[Term.REG] * np.sum(x ** 2)


def enum_keyed_module_loop(x):
    total = 0.0
    for term in (Term.FIT, Term.REG):
        total = total + WEIGHTS[term] * np.sum(np.sin(x) ** 2)
    return total


def enum_keyed_local_dict(x):
    parts = {Term.FIT: np.sum((x - 1.0) ** 2), Term.REG: np.sum(x ** 2)}
    return parts[Term.FIT] + 0.1 * parts[Term.REG]


# ---- written after the fixes, the way other users would (held out: not tuned on) ----


def _moments(v):
    return dict(m=np.mean(v), s=np.sum(v ** 2))


def helper_dict_call(x):
    r = _moments(x)
    return r["m"] * r["s"]


def _by_size(v):
    if v.shape[0] > 2:
        return {"a": np.sum(v), "b": np.prod(v)}
    return {"a": np.sum(v ** 2), "b": np.sum(v)}


def helper_dict_two_returns(x):
    r = _by_size(x)
    return r["a"] + r["b"]


def helper_dict_key_loop(x):
    stats = _moments(x)
    total = 0.0
    for k in stats:
        total = total + stats[k]
    return total


def helper_dict_written(x):
    s = _moments(x)
    s["extra"] = np.sum(np.exp(x))
    return s["extra"] + s["m"]


def enum_module_get(x):
    return WEIGHTS.get(Term.FIT, 0.0) * np.sum(x ** 2) + WEIGHTS.get(Term.REG) * np.sum(x)


class SlotsLayer:
    __slots__ = ("w", "gain")

    def __init__(self, w, gain):
        self.w, self.gain = w, gain

    def __call__(self, x):
        return self.gain * np.tanh(self.w * x)


LAYER = SlotsLayer(np.array([0.5, -1.0, 2.0]), 1.5)


def slots_callable(x):
    return np.sum(LAYER(x) ** 2)


# (refused at the line, saying what to do)

def enum_module_items(x):
    total = 0.0
    for _, v in WEIGHTS.items():
        total = total + v * np.sum(x ** 2)
    return total


class Lazy:
    def __init__(self, **values):
        self._kw = values

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._kw:
            raise AttributeError(name)
        return self._kw[name]


def getattr_argument(x, g):
    return np.sum(x * g.alpha)


def dict_of_functions_comprehension(x):
    def parts(v):
        return {name: np.sum(f(v)) for name, f in (("s", np.sin), ("c", np.cos))}

    p = parts(x)
    return p["s"] * p["c"]


def _two_level(r):
    return {"enc": {"W": r.normal(size=(3, 2)), "b": r.normal(size=2)},
            "dec": {"W": r.normal(size=(2, 3)), "b": r.normal(size=3)}}


def _three_level(r):
    return {"net": {"enc": {"scale": r.normal(size=3), "shift": 0.2}, "head": {"w": r.normal(size=3)}},
            "bias": 0.5}


def _layer_list(r):
    return [{"lin": {"W": r.normal(size=(3, 3)) * 0.5, "b": r.normal(size=3)}, "gain": {"g": 1.2}},
            {"lin": {"W": r.normal(size=(3, 2)) * 0.5, "b": r.normal(size=2)}, "gain": {"g": 0.8}}]


def _cfg(r):
    return {"layer": {"scale": 0.7, "shift": 0.1}, "loss": {"weight": 2.0}}


V = lambda r: (r.normal(size=4),)  # noqa: E731
X = np.random.default_rng(34).normal(size=(4, 3))

PROGRAMS = [
    ("module_helper_dict", module_helper_dict, V, 0),
    ("nested_helper_dict", nested_helper_dict, V, 0),
    ("nested_helper_dict_built", nested_helper_dict_built, V, 0),
    ("module_helper_dict_built", module_helper_dict_built, V, 0),
    ("helper_dict_comprehension", helper_dict_comprehension, V, 0),
    ("helper_dict_of_arrays_loop", helper_dict_of_arrays_loop, V, 0),
    ("helper_dict_items_loop", helper_dict_items_loop, V, 0),
    ("helper_dict_and_float", helper_dict_and_float, V, 0),
    ("helper_dict_kwargs", helper_dict_kwargs, V, 0),
    ("helper_returned_dict_kwargs", helper_returned_dict_kwargs, V, 0),
    ("helper_dict_get_default", helper_dict_get_default, V, 0),
    ("method_returning_dict", method_returning_dict, V, 0),
    ("module_cfg_nested", module_cfg_nested, V, 0),
    ("module_cfg_nested_get", module_cfg_nested_get, V, 0),
    ("module_cfg_sub_dict", module_cfg_sub_dict, V, 0),
    ("module_cfg_to_helper", module_cfg_to_helper, V, 0),
    ("cfg_argument_nested", cfg_argument_nested, lambda r: (r.normal(size=4), _cfg(r)), 0),
    ("cfg_argument_nested_cfg", cfg_argument_nested, lambda r: (r.normal(size=4), _cfg(r)), 1),
    ("params_two_levels", params_two_levels, lambda r: (_two_level(r), X), 0),
    ("params_three_levels", params_three_levels, lambda r: (_three_level(r), r.normal(size=3)), 0),
    ("params_nested_sub_name", params_nested_sub_name, lambda r: (_two_level(r), X), 0),
    ("list_of_dicts_of_dicts", list_of_dicts_of_dicts, lambda r: (_layer_list(r), X), 0),
    ("params_loop_over_keys", params_loop_over_keys, lambda r: (_two_level(r), X), 0),
    ("params_nested_items", params_nested_items, lambda r: (_two_level(r),), 0),
    ("slots_module_object", slots_module_object, lambda r: (r.normal(size=3),), 0),
    ("slots_built_in_function", slots_built_in_function, V, 0),
    ("slots_argument_x", slots_argument, lambda r: (SlotParams(r.normal(size=3), 0.3), r.normal(size=3)), 1),
    ("getattr_module_object", getattr_module_object, V, 0),
    ("getattr_namespace", getattr_namespace, V, 0),
    ("float_keyed_dict", float_keyed_dict, lambda r: (np.array([2.0, 1.5]),), 0),
    ("float_keyed_module_dict", float_keyed_module_dict, lambda r: (np.array([0.6, 0.9]),), 0),
    ("enum_keyed_module_dict", enum_keyed_module_dict, V, 0),
    ("enum_keyed_module_loop", enum_keyed_module_loop, V, 0),
    ("enum_keyed_local_dict", enum_keyed_local_dict, V, 0),
]

#: written after the fixes (held out); the last three are refused at the user's line
HELD_OUT = [
    ("helper_dict_call", helper_dict_call, V, 0),
    ("helper_dict_two_returns", helper_dict_two_returns, V, 0),
    ("helper_dict_key_loop", helper_dict_key_loop, V, 0),
    ("helper_dict_written", helper_dict_written, V, 0),
    ("enum_module_get", enum_module_get, V, 0),
    ("slots_callable", slots_callable, lambda r: (r.normal(size=3),), 0),
    ("enum_module_items", enum_module_items, V, 0),
    ("getattr_argument", getattr_argument, lambda r: (r.normal(size=3), Lazy(alpha=2.0)), 0),
    ("dict_of_functions_comprehension", dict_of_functions_comprehension, V, 0),
]
