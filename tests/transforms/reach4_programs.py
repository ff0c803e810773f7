"""The red team's programs of task reach4 (test_reach4.py runs them through every
transformation): ``cfg = cfg or {}``, a dict of numbers read whole, a top-level ``**opts``,
user objects read by a free name or built from constants, ``np.insert`` / ``np.delete``,
``+=`` on an alias nobody reads again.  Written the way users write them."""

from __future__ import annotations

import dataclasses

import numpy as np

# ---- and / or as values ----


def cfg_or_empty(x, cfg=None):
    cfg = cfg or {}
    scale = cfg.get("scale", 1.5)
    return scale * np.sum(np.log1p(x ** 2))


def cfg_or_literal(x, opts=None):
    opts = opts or {"p": 3, "scale": 0.5}
    return opts["scale"] * np.sum(np.sin(x) ** opts["p"])


def eps_or_default(x, eps=None, w=None):
    e = eps or 1e-3
    w = w and 2.0
    return np.sum(np.sqrt(x ** 2 + e)) * (w or 1.5)


def flag_and_value(x, use=True, k=None):
    k = (use and k) or 0.25
    return np.sum(np.exp(k * x))


def scaled_sines(x, cfg=None):
    cfg = cfg or {}
    return cfg.get("a", 2.0) * np.sum(np.sin(x))


def helper_configs(x):
    return scaled_sines(x) + scaled_sines(x ** 2, {"a": 3.0}) + (None or {"b": 0.5})["b"] * np.sum(x)


def inline_default(x, opts=None):
    return (opts or {}).get("scale", 1.0) * np.sum(x ** 3)


def keys_tested(x, cfg=None):
    cfg = cfg or {}
    scale = cfg["scale"] if "scale" in cfg else 0.5
    return scale * np.sum(np.exp(x)) + len(cfg) * np.sum(x)


# ---- a dict of numbers read whole ----


def config_dict(x, cfg):
    cfg = cfg or {}
    return cfg.get("l2", 0.1) * np.sum(x ** 2) + cfg["eps"] * np.sum(np.cosh(x))


def nested_config(x, cfg):
    inner = cfg.get("inner") or {"a": 1.0}
    return inner["a"] * np.sum(np.tanh(x) ** 2) + cfg.get("b", 0.5) * np.sum(x)


# ---- **opts and *args at the top level ----


def weighted(x, **opts):
    return np.sum(x ** 2) * opts.get("weight", 1.0) + opts.get("shift", 0.0)


def summed(x, *rest, **opts):
    total = np.sum(np.sin(x)) * opts.get("scale", 1.0)
    for r in rest:
        total = total + np.sum(r * x ** 2)
    return total


# ---- user objects: a module-level one, one built from constants, a staticmethod ----


class Spring:
    def __init__(self, k, rest=0.0):
        self.k = k
        self.rest = rest

    def energy(self, x):
        return 0.5 * self.k * np.sum((x - self.rest) ** 2) + np.sum(np.cos(x))

    def __call__(self, x):
        return np.sum(np.tanh(x) * self.k)


class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


@dataclasses.dataclass
class Settings:
    l2: float = 0.3
    power: float = 3.0


class Gravity:
    G = 9.81

    @staticmethod
    def potential(h, m):
        return m * Gravity.G * h

    @staticmethod
    def scaled(h):
        return Gravity.potential(h, 2.0) * Gravity.G


SPRING = Spring(1.7, 0.2)
LAYERS = [Layer(np.array([0.5, -1.2, 0.8])), Layer(np.array([1.1, 0.3, -0.6]))]
SETTINGS = Settings()


def weigh(obj, x):
    return obj.k * np.sum(x ** 2)


def global_method(x):
    return SPRING.energy(x)


def global_call(x):
    return SPRING(x) + 0.5 * np.sum(x ** 2)


def built_method(x):
    return Spring(2.0).energy(x) + Spring(0.5, rest=1.0)(x)


ENERGY = SPRING.energy  # a bound method held by a name


def bound_method_global(x):
    return ENERGY(x) * 2.0 + Spring(3.0).energy(x[:2])


def global_to_helper(x):
    return weigh(SPRING, x) + np.sum(x)


def global_list_of_layers(x):
    h = x
    for layer in LAYERS:
        h = layer(h)
    return np.sum(h ** 2)


def global_dataclass(x):
    return np.sum(np.abs(x) ** SETTINGS.power) + SETTINGS.l2 * np.sum(x ** 2)


def static_through_class(h):
    return np.sum(Gravity.potential(h, 0.7) ** 2) + np.sum(Gravity.scaled(h))


# ---- np.insert and np.delete ----


def moving_average(x, w=3):
    c = np.cumsum(np.insert(x, 0, 0.0))
    ma = (c[w:] - c[:-w]) / w
    return np.sum(ma ** 3)


def insert_values(x):
    return np.sum(np.sin(np.insert(x, [3, 1], x[:2] ** 2)) * np.arange(1.0, 8.0))


def insert_columns(x):
    return np.sum(np.insert(x, 1, x[:, 0] * 2.0, axis=1) ** 2 * np.arange(12.0).reshape(3, 4))


def delete_items(x):
    return np.sum(np.delete(x, [0, 2]) ** 3) + np.sum(np.cos(np.delete(x, -1)))


def delete_column(x):
    return np.sum(np.sin(np.delete(x, 1, axis=1)) * np.arange(6.0).reshape(3, 2))


# ---- += on an alias nobody reads again ----


def alias_then_update(x):
    y = x * 2.0
    z = y
    z += np.sin(x)
    return np.sum(z ** 2)


def view_then_update(x):
    buf = np.zeros(6)
    head = buf[:3]
    head += x
    return np.sum(head ** 2)


def list_item_then_update(x):
    rows = [x * 1.0, x * 2.0]
    acc = rows[0]
    acc += rows[1] ** 2
    return np.sum(acc * x)


def M(rng, *shape):
    return rng.normal(size=shape)


#: (function, arguments, the parameter differentiated is the first)
PROGRAMS = [
    (cfg_or_empty, lambda r: (M(r, 4),)),
    (cfg_or_empty, lambda r: (M(r, 4), {"scale": 3.0})),
    (cfg_or_empty, lambda r: (M(r, 4), {})),
    (cfg_or_literal, lambda r: (M(r, 3),)),
    (cfg_or_literal, lambda r: (M(r, 3), {"p": 2, "scale": 1.5})),
    (eps_or_default, lambda r: (M(r, 3),)),
    (eps_or_default, lambda r: (M(r, 3), 0.5, True)),
    (eps_or_default, lambda r: (M(r, 3), 0.0, False)),
    (flag_and_value, lambda r: (M(r, 3),)),
    (flag_and_value, lambda r: (M(r, 3), True, 0.7)),
    (flag_and_value, lambda r: (M(r, 3), False, 0.7)),
    (keys_tested, lambda r: (M(r, 3),)),
    (keys_tested, lambda r: (M(r, 3), {"scale": 2.0, "other": 1.0})),
    (helper_configs, lambda r: (M(r, 3),)),
    (inline_default, lambda r: (M(r, 3),)),
    (inline_default, lambda r: (M(r, 3), {"scale": -2.0})),
    (config_dict, lambda r: (M(r, 4), {"l2": 0.4, "eps": 0.2})),
    (config_dict, lambda r: (M(r, 4), {"eps": 0.3})),
    (nested_config, lambda r: (M(r, 3), {"inner": {"a": 2.5}, "b": 1.5})),
    (nested_config, lambda r: (M(r, 3), {"inner": None})),
    (weighted, lambda r: (M(r, 3),)),
    (summed, lambda r: (M(r, 3), M(r, 3), M(r, 3))),
    (global_method, lambda r: (M(r, 4),)),
    (global_call, lambda r: (M(r, 4),)),
    (built_method, lambda r: (M(r, 3),)),
    (global_to_helper, lambda r: (M(r, 3),)),
    (bound_method_global, lambda r: (M(r, 3),)),
    (global_list_of_layers, lambda r: (M(r, 3),)),
    (global_dataclass, lambda r: (r.uniform(0.5, 1.5, size=3),)),
    (static_through_class, lambda r: (r.uniform(0.2, 0.9, size=4),)),
    (moving_average, lambda r: (M(r, 9),)),
    (insert_values, lambda r: (M(r, 5),)),
    (insert_columns, lambda r: (M(r, 3, 3),)),
    (delete_items, lambda r: (M(r, 5),)),
    (delete_column, lambda r: (M(r, 3, 3),)),
    (alias_then_update, lambda r: (M(r, 3),)),
    (view_then_update, lambda r: (M(r, 3),)),
    (list_item_then_update, lambda r: (M(r, 3),)),
]
