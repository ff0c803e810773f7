"""The red team's twelfth wave, continued: NumPy conveniences and parameter trees.  np.vectorize /
np.piecewise / np.apply_along_axis of a Python function, a table lookup through int(t // h), np.interp
in its values and its points, an SGD step by a dict comprehension, dataclasses with default_factory,
NamedTuple._asdict.  See redteam_wave12.py."""

from __future__ import annotations

import dataclasses
import math
import typing

import numpy as np

# ---- NumPy conveniences -------------------------------------------------------------------------


def _soft(v):
    return v / (1.0 + abs(v))


def np_vectorize(x):
    return np.sum(np.vectorize(_soft)(x) ** 2)


def np_piecewise(x):
    y = np.piecewise(x, [x < 0, x >= 0], [lambda v: np.expm1(v), lambda v: v + 0.5 * v ** 2])
    return np.sum(y * x)


def apply_along_axis(A):
    return np.sum(np.apply_along_axis(lambda row: np.sum(row ** 2) / (1 + row[0] ** 2), 1, A))


def table_lookup(t, table, h=0.5):
    i = int(t // h)
    frac = t / h - i
    return table[i] * (1 - frac) + table[i + 1] * frac


def np_interp_values(fp, x, xp):
    return np.sum(np.interp(x, xp, fp) ** 2)


def dict_sgd_step(params, X, y, lr=0.1):
    def grads(p):
        r = X @ p["w"] + p["b"] - y
        return {"w": X.T @ r / len(y), "b": np.mean(r)}

    for _ in range(2):
        g = grads(params)
        params = {k: v - lr * g[k] for k, v in params.items()}
    r = X @ params["w"] + params["b"] - y
    return np.mean(r ** 2)


@dataclasses.dataclass
class Head:
    w: np.ndarray
    bias: float = 0.0


@dataclasses.dataclass
class Net:
    embed: np.ndarray
    heads: list = dataclasses.field(default_factory=list)


def dataclass_default_factory(net, x):
    h = np.tanh(x @ net.embed)
    return sum(np.sum((h @ head.w + head.bias) ** 2) for head in net.heads)


class Params(typing.NamedTuple):
    loc: float
    log_scale: float
    skew: float


def namedtuple_asdict(p, x):
    d = p._asdict()
    z = (x - d["loc"]) * math.exp(-d["log_scale"])
    return float(np.sum(z ** 2 + d["skew"] * z ** 3)) + x.size * d["log_scale"]


def M(rng, *shape):
    return rng.normal(size=shape)


NUMPY12 = [
    ("w12_np_vectorize", np_vectorize, lambda r: (M(r, 5),), 0),
    ("w12_np_piecewise", np_piecewise, lambda r: (M(r, 6),), 0),
    ("w12_apply_along_axis", apply_along_axis, lambda r: (M(r, 3, 4),), 0),
    ("w12_table_lookup_t", table_lookup, lambda r: (1.3, M(r, 6)), 0),
    ("w12_table_lookup_table", table_lookup, lambda r: (1.3, M(r, 6)), 1),
    ("w12_np_interp_values", np_interp_values,
     lambda r: (M(r, 5), np.array([0.1, 0.7, 1.5, 2.9]), np.array([0.0, 0.5, 1.0, 2.0, 3.0])), 0),
    ("w12_np_interp_x", np_interp_values,
     lambda r: (M(r, 5), np.array([0.1, 0.7, 1.5, 2.9]), np.array([0.0, 0.5, 1.0, 2.0, 3.0])), 1),
    ("w12_dict_sgd_step", dict_sgd_step, lambda r: ({"w": M(r, 3), "b": 0.1}, M(r, 6, 3), M(r, 6)), 0),
    ("w12_dataclass_default_factory", dataclass_default_factory,
     lambda r: (Net(0.5 * M(r, 3, 4), [Head(M(r, 4), 0.1), Head(M(r, 4))]), M(r, 2, 3)), 0),
    ("w12_namedtuple_asdict", namedtuple_asdict, lambda r: (Params(0.1, -0.2, 0.05), M(r, 5)), 0),
]
