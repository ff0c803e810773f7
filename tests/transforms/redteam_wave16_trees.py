"""The red team's sixteenth wave, continued: parameter trees (a dict of params with nested dicts, a list of
layer dicts, frozen and plain dataclasses, NamedTuples, a dataclass holding a list, a dict of tuples, a
tuple of dicts, a dataclass with a method, a tree updated by a comprehension then read, optional leaves
that are None, integer leaves next to float ones).  See redteam_wave16.py.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
import scipy.special


def M(rng, *shape):
    return rng.normal(size=shape)


def nested_dict_mlp(params, X, y):
    h = np.tanh(X @ params["enc"]["W"] + params["enc"]["b"])
    out = h @ params["head"]["w"] + params["head"]["b"]
    return np.mean((out - y) ** 2) + params["reg"]["scale"] * np.sum(params["enc"]["W"] ** 2)


def layer_dict_list(layers, x):
    h = x
    for layer in layers[:-1]:
        h = np.tanh(h @ layer["W"] + layer["b"])
    last = layers[-1]
    return np.sum((h @ last["W"] + last["b"]) ** 2)


def layer_dict_list_enumerate(layers, x):
    h = x
    total = 0.0
    for i, layer in enumerate(layers):
        h = np.sin(layer["W"] @ h) * (i + 1)
        total = total + 0.01 * np.sum(layer["W"] ** 2)
    return np.sum(h) + total


@dataclasses.dataclass(frozen=True)
class Gaussian:
    mu: np.ndarray
    log_sigma: np.ndarray


def frozen_dataclass_nll(g, x):
    s = np.exp(g.log_sigma)
    return np.sum(0.5 * ((x - g.mu) / s) ** 2 + g.log_sigma)


@dataclasses.dataclass
class Linear:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return x @ self.W + self.b


def dataclass_method(layer, X, y):
    return np.mean((layer(X) - y) ** 2)


@dataclasses.dataclass
class MLP:
    layers: list
    act: str = "tanh"


def dataclass_of_list(model, X):
    h = X
    for lin in model.layers:
        h = lin(h)
        h = np.tanh(h) if model.act == "tanh" else np.maximum(h, 0.0)
    return np.sum(h ** 2)


class Params(NamedTuple):
    w: np.ndarray
    b: float
    log_noise: float


def namedtuple_regression(p, X, y):
    pred = X @ p.w + p.b
    var = np.exp(2 * p.log_noise)
    return 0.5 * np.sum((pred - y) ** 2) / var + len(y) * p.log_noise


def namedtuple_unpacked(p, X, y):
    w, b, log_noise = p
    return np.sum((X @ w + b - y) ** 2) * np.exp(-log_noise)


class Pose(NamedTuple):
    angle: float
    shift: np.ndarray


def namedtuple_pose(pose, pts, target):
    c, s = np.cos(pose.angle), np.sin(pose.angle)
    R = np.array([[c, -s], [s, c]])
    return np.sum((pts @ R.T + pose.shift - target) ** 2)


def dict_of_tuples(params, x):
    (a, b), (c, d) = params["first"], params["second"]
    return np.sum(a * x ** 2 + b) + c * d


def tuple_of_dicts(params, x):
    enc, dec = params
    z = np.tanh(enc["W"] @ x)
    return np.sum((dec["W"] @ z - x) ** 2)


def dict_comprehension_update(params, grads_fake, lr=0.1):
    new = {k: v - lr * grads_fake[k] for k, v in params.items()}
    return sum(np.sum(v ** 2) for v in new.values())


def optional_none_leaf(params, x):
    out = params["w"] @ x
    if params.get("bias") is not None:
        out = out + params["bias"]
    return np.sum(out ** 2)


def int_leaf_next_to_floats(params, X):
    k = params["k"]
    return np.sum(np.tanh(X @ params["w"]) ** k)


@dataclasses.dataclass
class Mixture:
    logits: np.ndarray
    means: np.ndarray
    log_scales: np.ndarray


def mixture_nll(m, x):
    logw = m.logits - scipy.special.logsumexp(m.logits)
    s = np.exp(m.log_scales)
    comp = -0.5 * ((x[:, None] - m.means[None, :]) / s) ** 2 - m.log_scales - 0.5 * np.log(2 * np.pi)
    return -np.sum(scipy.special.logsumexp(comp + logw, axis=1))


@dataclasses.dataclass(frozen=True)
class Config:
    l2: float = 0.01
    steps: int = 3


def frozen_config_unrolled(w, X, y, cfg):
    for _ in range(cfg.steps):
        w = w - 0.1 * X.T @ (X @ w - y) / len(y)
    return np.sum((X @ w - y) ** 2) + cfg.l2 * np.sum(w ** 2)


def dataclass_replace(g, x):
    g2 = dataclasses.replace(g, mu=g.mu * 2.0)
    return frozen_dataclass_nll(g2, x)


def nested_list_of_lists(blocks, x):
    total = 0.0
    for row in blocks:
        for A in row:
            total = total + np.sum(np.tanh(A @ x))
    return total


def dict_items_weighted(terms, weights):
    return sum(weights[name] * np.sum(v ** 2) for name, v in terms.items())


def _lin(r, i, o):
    return Linear(0.5 * M(r, i, o), 0.1 * M(r, o))


TREES16 = [
    ("w16_nested_dict_mlp", nested_dict_mlp,
     lambda r: ({"enc": {"W": M(r, 3, 4), "b": M(r, 4)}, "head": {"w": M(r, 4), "b": 0.2},
                 "reg": {"scale": 0.01}}, M(r, 5, 3), M(r, 5)), 0),
    ("w16_layer_dict_list", layer_dict_list,
     lambda r: ([{"W": 0.5 * M(r, 3, 4), "b": M(r, 4)}, {"W": 0.5 * M(r, 4, 2), "b": M(r, 2)}], M(r, 5, 3)), 0),
    ("w16_layer_dict_list_enumerate", layer_dict_list_enumerate,
     lambda r: ([{"W": 0.5 * M(r, 3, 3)}, {"W": 0.5 * M(r, 3, 3)}, {"W": 0.5 * M(r, 2, 3)}], M(r, 3)), 0),
    ("w16_frozen_dataclass", frozen_dataclass_nll, lambda r: (Gaussian(M(r, 3), 0.1 * M(r, 3)), M(r, 6, 3)), 0),
    ("w16_dataclass_method", dataclass_method, lambda r: (_lin(r, 3, 2), M(r, 5, 3), M(r, 5, 2)), 0),
    ("w16_dataclass_of_list", dataclass_of_list, lambda r: (MLP([_lin(r, 3, 4), _lin(r, 4, 2)]), M(r, 5, 3)), 0),
    ("w16_namedtuple_regression", namedtuple_regression,
     lambda r: (Params(M(r, 3), 0.3, -0.2), M(r, 6, 3), M(r, 6)), 0),
    ("w16_namedtuple_unpacked", namedtuple_unpacked, lambda r: (Params(M(r, 3), 0.3, -0.2), M(r, 6, 3), M(r, 6)), 0),
    ("w16_namedtuple_pose", namedtuple_pose, lambda r: (Pose(0.4, M(r, 2)), M(r, 5, 2), M(r, 5, 2)), 0),
    ("w16_dict_of_tuples", dict_of_tuples,
     lambda r: ({"first": (M(r, 3), 0.5), "second": (1.5, -0.7)}, M(r, 3)), 0),
    ("w16_tuple_of_dicts", tuple_of_dicts,
     lambda r: (({"W": 0.5 * M(r, 2, 3)}, {"W": 0.5 * M(r, 3, 2)}), M(r, 3)), 0),
    ("w16_dict_comprehension_update", dict_comprehension_update,
     lambda r: ({"a": M(r, 3), "b": M(r, 2, 2)}, {"a": M(r, 3), "b": M(r, 2, 2)}), 0),
    ("w16_optional_none_leaf", optional_none_leaf, lambda r: ({"w": M(r, 2, 3), "bias": None}, M(r, 3)), 0),
    ("w16_optional_bias_present", optional_none_leaf, lambda r: ({"w": M(r, 2, 3), "bias": M(r, 2)}, M(r, 3)), 0),
    ("w16_int_leaf", int_leaf_next_to_floats, lambda r: ({"w": M(r, 3), "k": 3}, M(r, 4, 3)), 0),
    ("w16_mixture_dataclass", mixture_nll, lambda r: (Mixture(M(r, 3), M(r, 3), 0.2 * M(r, 3)), M(r, 8)), 0),
    ("w16_frozen_config", frozen_config_unrolled, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6), Config()), 0),
    ("w16_dataclass_replace", dataclass_replace, lambda r: (Gaussian(M(r, 3), 0.1 * M(r, 3)), M(r, 6, 3)), 0),
    ("w16_nested_list_of_lists", nested_list_of_lists,
     lambda r: ([[M(r, 2, 3), M(r, 2, 3)], [M(r, 3, 3)]], M(r, 3)), 0),
    ("w16_dict_items_weighted", dict_items_weighted,
     lambda r: ({"a": M(r, 3), "b": M(r, 2)}, {"a": 0.5, "b": 2.0}), 0),
]
