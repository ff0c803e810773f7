"""The red team's wave 31a: how users pass and shape parameters: string-keyed nested dicts,
dataclass and namedtuple trees, helpers with default and keyword arguments, ``*args`` and
``**kwargs``, early returns (on a shape, inside a loop on data), float32 data beside float64
parameters, lists of dicts of layers, ``params[f"w{i}"]``, penalties summed over ``.items()``
filtered by key, activations chosen from a dict by name, ``dict.get`` with a default."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np

RNG = np.random.default_rng(11)
XS = RNG.normal(size=(8, 3))
YS = np.tanh(XS @ np.array([0.5, -0.3, 0.8]))
XS32 = XS.astype(np.float32)
YS32 = YS.astype(np.float32)
ACT = {"tanh": np.tanh, "softplus": lambda z: np.logaddexp(0.0, z), "linear": lambda z: z}


def nested_dict_net(params, x=XS, y=YS):
    h = np.tanh(x @ params["encoder"]["w"] + params["encoder"]["b"])
    out = h @ params["head"]["w"] + params["head"]["b"]
    return np.mean((out - y) ** 2)


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray


@dataclasses.dataclass
class Model:
    hidden: Layer
    out: Layer
    log_noise: float


def dataclass_model(model, x=XS, y=YS):
    h = np.tanh(x @ model.hidden.w + model.hidden.b)
    pred = h @ model.out.w + model.out.b
    s2 = np.exp(2 * model.log_noise)
    return 0.5 * np.sum((pred - y) ** 2) / s2 + len(y) * model.log_noise


class Kinetics(typing.NamedTuple):
    k_on: float
    k_off: float
    scale: np.ndarray


def namedtuple_kinetics(p, t=np.linspace(0.1, 2.0, 6), obs=np.array([0.2, 0.5, 0.7, 0.8, 0.85, 0.9])):  # noqa: B008
    kobs = p.k_on + p.k_off
    frac = p.k_on / kobs * (1 - np.exp(-kobs * t))
    return np.sum((p.scale[0] * frac + p.scale[1] - obs) ** 2)


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))


def default_and_keyword(w, x=XS, y=YS * 3):
    r = x @ w - y
    return np.sum(huber(r, delta=0.5)) + np.sum(huber(w))


def _total(*terms):
    return sum(terms)


def _weighted(*terms, weights=None):
    if weights is None:
        weights = [1.0] * len(terms)
    return sum(wt * t for wt, t in zip(weights, terms))


def star_args(w, x=XS, y=YS):
    fit = np.mean((x @ w - y) ** 2)
    l2 = np.sum(w ** 2)
    l1s = np.sum(np.sqrt(w ** 2 + 1e-3))
    return _total(fit, 0.1 * l2, 0.01 * l1s)


def star_args_weights(w, x=XS, y=YS):
    return _weighted(np.mean((x @ w - y) ** 2), np.sum(w ** 2), weights=(1.0, 0.05))


def _loss_kwargs(pred, y, **opts):
    scale = opts.get("scale", 1.0)
    power = opts.get("power", 2)
    return scale * np.mean(np.abs(pred - y) ** power)


def kwargs_helper(w, x=XS, y=YS):
    return _loss_kwargs(x @ w, y, scale=2.0) + _loss_kwargs(w, 0.0, power=4)


def early_return_shape(w, x=XS, y=YS):
    if w.ndim == 1:
        return np.sum((x @ w - y) ** 2)
    return np.sum((x @ w - y[:, None]) ** 2)


def early_return_in_loop(w, x=XS, budget=3.0):
    total = 0.0
    for i in range(x.shape[0]):
        total += (x[i] @ w) ** 2
        if np.sum(np.abs(x[:i + 1])) > budget * 4:
            return total / (i + 1)
    return total / x.shape[0]


def float32_data(w, x=XS32, y=YS32):
    pred = np.tanh(x @ w)
    return np.mean((pred - y) ** 2)


def float32_both(w):
    x = XS32
    pred = x @ w
    return np.float32(0.5) * np.sum((pred - YS32) ** 2)


def list_of_layer_dicts(layers, x=XS, y=YS):
    h = x
    for i, layer in enumerate(layers):
        h = h @ layer["w"] + layer["b"]
        if i < len(layers) - 1:
            h = np.tanh(h)
    return np.mean((h[:, 0] - y) ** 2)


def fstring_keys(params, x=XS, y=YS, n_layers=2):
    h = x
    for i in range(n_layers):
        h = np.tanh(h @ params[f"w{i}"] + params[f"b{i}"])
    return np.mean((h[:, 0] - y) ** 2)


def penalty_over_items(params, x=XS, y=YS):
    pred = x @ params["w_in"] + params["bias"]
    fit = np.mean((pred - y) ** 2)
    penalty = sum(np.sum(v ** 2) for k, v in params.items() if k.startswith("w"))
    return fit + 0.1 * penalty


def activation_by_name(w, x=XS, y=YS, act="softplus"):
    f = ACT[act]
    return np.mean((f(x @ w) - y - 0.5) ** 2)


def dict_get_default(params, x=XS, y=YS):
    w = params["w"]
    b = params.get("b", 0.0)
    temperature = params.get("temperature", 1.0)
    return np.mean((np.tanh((x @ w + b) / temperature) - y) ** 2)


def nested_helper_closure(w, x=XS, y=YS, lam=0.1):
    def penalty(v):
        return lam * np.sum(v ** 2)

    def fit(v, *, reduce="mean"):
        r = (x @ v - y) ** 2
        return np.mean(r) if reduce == "mean" else np.sum(r)

    return fit(w) + fit(w, reduce="sum") * 0.01 + penalty(w)


def _tree_dict(rng):
    return ({"encoder": {"w": 0.4 * rng.normal(size=(3, 4)), "b": 0.1 * rng.normal(size=4)},
             "head": {"w": 0.4 * rng.normal(size=4), "b": 0.05}},)


def _model(rng):
    return (Model(Layer(0.4 * rng.normal(size=(3, 4)), 0.1 * rng.normal(size=4)),
                  Layer(0.4 * rng.normal(size=4), np.array(0.05)), -0.5),)


def _w(rng):
    return (0.4 * rng.normal(size=3),)


IDIOMS = [
    ("tree_nested_dict_net", nested_dict_net, _tree_dict, 0),
    ("tree_dataclass_model", dataclass_model, _model, 0),
    ("tree_namedtuple_kinetics", namedtuple_kinetics,
     lambda rng: (Kinetics(1.2, 0.4, np.array([1.1, 0.05])),), 0),
    ("arg_default_and_keyword", default_and_keyword, _w, 0),
    ("arg_star_args", star_args, _w, 0),
    ("arg_star_args_weights", star_args_weights, _w, 0),
    ("arg_kwargs_helper", kwargs_helper, _w, 0),
    ("ret_early_shape", early_return_shape, _w, 0),
    ("ret_early_in_loop", early_return_in_loop, _w, 0),
    ("f32_data", float32_data, _w, 0),
    ("f32_both", float32_both, lambda rng: ((0.4 * rng.normal(size=3)).astype(np.float32),), 0),
    ("tree_list_of_layer_dicts", list_of_layer_dicts,
     lambda rng: ([{"w": 0.4 * rng.normal(size=(3, 4)), "b": np.zeros(4)},
                   {"w": 0.4 * rng.normal(size=(4, 1)), "b": np.zeros(1)}],), 0),
    ("tree_fstring_keys", fstring_keys,
     lambda rng: ({"w0": 0.4 * rng.normal(size=(3, 3)), "b0": np.zeros(3), "w1": 0.4 * rng.normal(size=(3, 2)),
                   "b1": np.zeros(2)},), 0),
    ("tree_penalty_over_items", penalty_over_items,
     lambda rng: ({"w_in": 0.4 * rng.normal(size=3), "bias": 0.1},), 0),
    ("fn_activation_by_name", activation_by_name, _w, 0),
    ("tree_dict_get_default", dict_get_default, lambda rng: ({"w": 0.4 * rng.normal(size=3), "b": 0.1},), 0),
    ("fn_nested_helper_closure", nested_helper_closure, _w, 0),
]
