"""Functions taking parameter trees, methods and objects, with example arguments, for export.

Each entry of `TREE_SET` is ``(name, function, args, wrt, bound)``: `bound` holds what the
exported function takes before `args` (a bound method's object), None when it takes `args`.
"""

import collections
import dataclasses

import numpy as np

rng = np.random.default_rng(11)


def tree_mlp(params, x):
    h = np.tanh(x @ params["W1"] + params["b1"])
    return np.sum((h @ params["layers"][0]["W"]) ** 2)


class Scaled:
    scale = 2.0  # a class attribute: a constant of the code

    def __init__(self, w):
        self.w = w

    @property
    def w2(self):
        return self.w * self.w

    def predict(self, x):
        return np.sin(self.w2 * x)

    def loss(self, x):
        return np.sum(self.predict(x)) * self.scale


Pair = collections.namedtuple("Pair", "a b")


@dataclasses.dataclass
class Weights:
    a: np.ndarray
    b: float


def records(p, d, x):
    return np.sum(p.a * x) * p.b + np.sum(d.a ** 2) * d.b


_scaled = Scaled(rng.normal(size=3))

TREE_SET = [
    ("tree_mlp", tree_mlp, ({"W1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4),
                             "layers": [{"W": rng.normal(size=(4, 2))}]}, rng.normal(size=(5, 3))), 0, None),
    ("bound_method", _scaled.loss, (rng.normal(size=3),), 0, (_scaled,)),
    ("bound_self", _scaled.loss, (rng.normal(size=3),), "self.w", (_scaled,)),
    ("unbound_method", Scaled.loss, (_scaled, rng.normal(size=3)), (0, 1), ()),
    ("records", records, (Pair(rng.normal(size=3), 1.5), Weights(rng.normal(size=3), 0.5), rng.normal(size=3)),
     (0, 1, 2), ()),
]
