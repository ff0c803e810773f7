"""Programs whose second derivatives srcdiff used to refuse where `grad` was right, one table
per class (test_second_order_trees.py): each a function of a differentiated first parameter,
written the way users write them, with a maker of its arguments."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np


# ---- class 1: a configuration or data tree the second derivative is not taken with respect to ----


@dataclasses.dataclass(frozen=True)
class Penalty:
    weight: float
    power: float


def dataclass_setting(w, X, pen):
    return np.sum(np.log1p(np.exp(X @ w))) + pen.weight * np.sum(np.abs(w) ** pen.power)


def string_in_settings(w, X, cfg):
    z = X @ w * cfg["scale"]
    act = np.tanh(z) if cfg["act"] == "tanh" else np.sin(z)
    return np.sum(act ** 2) + cfg["l2"] * np.dot(w, w)


class Batch(NamedTuple):
    X: np.ndarray
    y: np.ndarray


def namedtuple_of_data(w, batch):
    r = np.tanh(batch.X @ w) - batch.y
    return 0.5 * np.mean(r ** 2)


def dict_of_data(w, data):
    logits = data["X"] @ w
    return np.sum(np.logaddexp(0.0, logits) - data["y"] * logits)


def scalar_with_settings(t, cfg):
    return np.sin(t * cfg["a"]) * t ** 3 + cfg["b"] * np.exp(-t * t)


def _w(rng, n=3):
    return rng.normal(size=n) * 0.5


TREE_SETTINGS = [
    ("dataclass_setting", dataclass_setting, lambda r: (_w(r) + 1.5, r.normal(size=(4, 3)), Penalty(0.1, 3.0))),
    ("string_in_settings", string_in_settings,
     lambda r: (_w(r), r.normal(size=(5, 3)), {"act": "tanh", "scale": 0.7, "l2": 0.05})),
    ("string_in_settings_sin", string_in_settings,
     lambda r: (_w(r), r.normal(size=(5, 3)), {"act": "sin", "scale": 1.3, "l2": 0.0})),
    ("namedtuple_of_data", namedtuple_of_data, lambda r: (_w(r), Batch(r.normal(size=(6, 3)), r.normal(size=6)))),
    ("dict_of_data", dict_of_data,
     lambda r: (_w(r), {"X": r.normal(size=(6, 3)), "y": (r.random(6) > 0.5).astype(float)})),
    ("scalar_with_settings", scalar_with_settings, lambda r: (0.7, {"a": 1.3, "b": 0.4})),
]
