"""Wave 33g: models driven by configuration, the way applications write them: a network built from
a module list of layer dicts with activations named by strings, a loss chosen by a string argument,
regularisers from a dict iterated by .items(), weighted multi-task losses from a list of (name,
weight) pairs, a frozen dataclass of hyperparameters, a namedtuple of parameters, ``**opts`` passed
on to a helper, an early return from a while loop at a tolerance, enumerate(zip(...)) over layers,
a schedule read from a dict of lists, float32 data."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

ARCH = [{"size": 4, "act": "tanh"}, {"size": 3, "act": "relu"}, {"size": 1, "act": "linear"}]
REG = {"l2": 0.01, "l1_smooth": 0.001}
TASKS = [("mse", 1.0), ("huber", 0.5), ("logcosh", 0.25)]
X_IN = np.random.default_rng(31).normal(size=(5, 2))
Y_OUT = np.sin(X_IN[:, 0]) - X_IN[:, 1]
SCHEDULE = {"weights": [1.0, 0.5, 0.25], "targets": [0.0, 1.0, 2.0]}
X32 = np.random.default_rng(32).normal(size=(6, 3)).astype(np.float32)
Y32 = (X32 @ np.array([0.5, -1.0, 0.25], dtype=np.float32)).astype(np.float32)

Params = namedtuple("Params", ["w", "b", "log_noise"])


@dataclass(frozen=True)
class Hyper:
    lr: float = 0.1
    steps: int = 5
    l2: float = 0.01
    loss: str = "mse"


HYPER = Hyper()


def _act(name, z):
    if name == "tanh":
        return np.tanh(z)
    if name == "relu":
        return np.maximum(z, 0.0)
    if name == "softplus":
        return np.logaddexp(0.0, z)
    return z


def arch_network(weights):
    h = X_IN
    for spec, (w, b) in zip(ARCH, weights):
        h = _act(spec["act"], h @ w + b)
    return np.mean((h[:, 0] - Y_OUT) ** 2)


def _loss(kind, r, delta=1.0):
    if kind == "mse":
        return np.mean(r ** 2)
    elif kind == "huber":
        a = np.abs(r)
        return np.mean(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))
    elif kind == "logcosh":
        return np.mean(np.logaddexp(r, -r) - np.log(2.0))
    raise ValueError(kind)


def loss_by_name(w, kind="huber"):
    return _loss(kind, X_IN @ w - Y_OUT)


def regularised(w):
    loss = _loss("mse", X_IN @ w - Y_OUT)
    for name, coef in REG.items():
        if name == "l2":
            loss = loss + coef * np.sum(w ** 2)
        elif name == "l1_smooth":
            loss = loss + coef * np.sum(np.sqrt(w ** 2 + 1e-6))
    return loss


def multi_task(w):
    r = X_IN @ w - Y_OUT
    total = 0.0
    for name, weight in TASKS:
        total += weight * _loss(name, r)
    return total


def with_hyper(w, hp=HYPER):
    """A few steps of gradient descent on a quadratic, then the loss named by the config."""
    z = w
    for _ in range(hp.steps):
        z = z - hp.lr * (z - 1.0)
    return _loss(hp.loss, X_IN @ z - Y_OUT) + hp.l2 * np.sum(z ** 2)


def namedtuple_params(p):
    pred = X_IN @ p.w + p.b
    s2 = np.exp(2 * p.log_noise)
    return 0.5 * np.sum((pred - Y_OUT) ** 2) / s2 + len(Y_OUT) * p.log_noise


def _penalised(w, **opts):
    scale = opts.get("scale", 1.0)
    power = opts.get("power", 2)
    return scale * np.sum(np.abs(w) ** power)


def kwargs_helper(w):
    return np.mean((X_IN @ w - Y_OUT) ** 2) + _penalised(w, scale=0.1, power=2) + _penalised(w, power=4)


def fixed_point_early_return(a, tol=1e-10, max_iter=200):
    x = 1.0
    it = 0
    while it < max_iter:
        nxt = np.cos(a * x)
        if abs(nxt - x) < tol:
            return nxt ** 2
        x = nxt
        it += 1
    return x ** 2


def enumerate_layers(ws):
    h = X_IN
    reg = 0.0
    for i, (w, act) in enumerate(zip(ws, ("tanh", "softplus", "linear"))):
        h = _act(act, h @ w)
        reg = reg + (i + 1) * 0.01 * np.sum(w * w)
    return np.mean((h[:, 0] - Y_OUT) ** 2) + reg


def scheduled(theta):
    loss = 0.0
    for wt, tgt in zip(SCHEDULE["weights"], SCHEDULE["targets"]):
        loss = loss + wt * np.sum((theta - tgt) ** 2)
    return loss


def float32_lasso(w, lam=0.05):
    r = X32 @ w - Y32
    return 0.5 * np.mean(r * r) + lam * np.sum(np.sqrt(w * w + np.float32(1e-4)))


def early_return_branch(x, mode="auto"):
    if mode == "zero":
        return 0.0 * np.sum(x)
    n = np.sum(x * x)
    if n > 10.0:
        return np.sqrt(n)
    return 0.5 * n + 0.1 * np.sum(x)


def _arch_weights(r):
    sizes = [2] + [spec["size"] for spec in ARCH]
    return [(0.5 * r.normal(size=(a, b)), 0.1 * r.normal(size=b)) for a, b in zip(sizes[:-1], sizes[1:])]


CONFIG = [
    ("cfg_arch_network", arch_network, lambda r: (_arch_weights(r),), 0),
    ("cfg_loss_huber", loss_by_name, lambda r: (r.normal(size=2),), 0),
    ("cfg_loss_logcosh", loss_by_name, lambda r: (r.normal(size=2), "logcosh"), 0),
    ("cfg_regularised", regularised, lambda r: (r.normal(size=2),), 0),
    ("cfg_multi_task", multi_task, lambda r: (r.normal(size=2),), 0),
    ("cfg_hyper_dataclass", with_hyper, lambda r: (r.normal(size=2),), 0),
    ("cfg_hyper_huber", with_hyper, lambda r: (r.normal(size=2), Hyper(lr=0.2, steps=3, loss="huber")), 0),
    ("cfg_namedtuple", namedtuple_params, lambda r: (Params(r.normal(size=2), 0.1, -0.3),), 0),
    ("cfg_kwargs_helper", kwargs_helper, lambda r: (r.normal(size=2),), 0),
    ("cfg_fixed_point", fixed_point_early_return, lambda r: (0.8,), 0),
    ("cfg_enumerate_layers", enumerate_layers,
     lambda r: ([0.5 * r.normal(size=(2, 3)), 0.5 * r.normal(size=(3, 3)), 0.5 * r.normal(size=(3, 1))],), 0),
    ("cfg_schedule", scheduled, lambda r: (r.normal(size=3),), 0),
    ("cfg_float32_lasso", float32_lasso, lambda r: (r.normal(size=3).astype(np.float32),), 0),
    ("cfg_early_return", early_return_branch, lambda r: (r.normal(size=3),), 0),
]
