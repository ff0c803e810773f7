"""Wave 36m's variants of the refusals wave 36b left (test_wave36m.py), each class written the ways
users write it.

CLASSMETHOD: a classmethod called on its class (``Filter.smooth(x)``, ``Model.from_params(p)`` with a
loop before ``return cls(...)``, chained ``.predict(X)``, ``cls.helper(x)`` from another classmethod,
``cls.TAPS`` of an array the class holds, a subclass overriding a class attribute): "cannot tell which
function Filter.smooth is".

LOGADDEXP_SCAN: ``np.logaddexp.accumulate`` (Cox partial likelihoods by a running log-sum of the risk set,
running log-normalisers), of a vector reversed, of a matrix along an axis: "cannot tell which function
np.logaddexp.accumulate is".  (jit="numba" refuses it at the line: numba has no ufunc's accumulate.)

INDEX_BY_VALUE: a position found by value in a copy of a sequence (``list(temps).index(temp)``,
``grid.tolist().index(g)``, ``tuple(labels).count(lab)``, ``Sites.names.index(site)``): an integer with no
gradient, taken only of a name before ("the method .index() of list(temps) has no adjoint rule").
"""

from __future__ import annotations

import numpy as np


class Filter:
    taps = np.array([0.25, 0.5, 0.25])
    gain = 1.5

    @classmethod
    def smooth(cls, x):
        return np.convolve(x, cls.taps, mode="same") * cls.gain

    @classmethod
    def twice(cls, x, passes=2):
        for _ in range(passes):
            x = cls.smooth(x)
        return x


class SharpFilter(Filter):
    taps = np.array([-0.5, 2.0, -0.5])


def cm_smooth(x):
    return np.sum((Filter.smooth(x) - np.sin(np.arange(len(x)))) ** 2)


def cm_nested_cls(x):
    return np.sum(np.tanh(Filter.twice(x, passes=3)))


def cm_subclass(x):
    return np.sum(SharpFilter.smooth(x) ** 2) + np.sum(Filter.smooth(x) * x)


def cm_on_instance(x):
    f = FILTER
    return np.sum(f.smooth(x) ** 2)


FILTER = Filter()


class Logistic:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    @classmethod
    def from_params(cls, p):
        w = p[:-1] * 1.0
        for i in range(len(w)):
            w[i] = w[i] * (1.0 + 0.1 * i)
        return cls(w, p[-1])

    def predict(self, X):
        return 1.0 / (1.0 + np.exp(-(X @ self.w + self.b)))


X = np.array([[0.5, -1.0, 0.3], [1.2, 0.4, -0.7], [-0.3, 0.8, 1.1], [0.9, -0.2, 0.4]])
Y = np.array([1.0, 0.0, 1.0, 1.0])


def cm_chained(p):
    return np.mean((Logistic.from_params(p).predict(X) - Y) ** 2)


def cm_from_params(p):
    model = Logistic.from_params(p)
    q = model.predict(X)
    return -np.mean(Y * np.log(q) + (1 - Y) * np.log(1 - q))


class Quadratic:
    scale = 2.0

    @staticmethod
    def square(v):
        return v * v

    @classmethod
    def energy(cls, x, k=0.5):
        return cls.scale * k * np.sum(cls.square(x)) + np.sum(np.cos(x))


def cm_static_inside(x):
    return Quadratic.energy(x) + Quadratic.energy(x[:2], k=1.5)


TIMES = np.array([5.0, 3.0, 8.0, 1.0, 6.0, 2.0])
EVENTS = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
Z = np.array([[0.5, -1.0], [1.2, 0.3], [-0.4, 0.8], [0.9, -0.6], [0.1, 0.2], [-1.1, 0.7]])


def lae_cox(beta):
    order = np.argsort(-TIMES)
    eta = Z[order] @ beta
    log_risk = np.logaddexp.accumulate(eta)
    return -np.sum(EVENTS[order] * (eta - log_risk))


def lae_reversed(x):
    tail = np.logaddexp.accumulate(x[::-1])[::-1]
    return np.sum(np.sin(tail)) + tail[0] ** 2


def lae_matrix_axis(w):
    scores = np.outer(w, w) - 2.0 * w[:, None]
    return np.sum(np.logaddexp.accumulate(scores, axis=1) ** 2) + np.sum(np.logaddexp.accumulate(scores, axis=-2))


def lae_large(x):
    running = np.logaddexp.accumulate(300.0 * x)  # exp would overflow: the weights never do
    return np.sum(running / 300.0 - x)


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


CLASSMETHOD = [
    ("cm_smooth", cm_smooth, _vec(0.3, -0.2, 0.5, 0.8, -1.1, 0.4), 0),
    ("cm_nested_cls", cm_nested_cls, _vec(0.3, -0.2, 0.5, 0.8), 0),
    ("cm_subclass", cm_subclass, _vec(0.6, -0.4, 1.2, 0.1), 0),
    ("cm_on_instance", cm_on_instance, _vec(0.2, 0.9, -0.5), 0),
    ("cm_from_params", cm_from_params, _vec(0.4, -0.3, 0.2, 0.1), 0),
    ("cm_chained", cm_chained, _vec(0.4, -0.3, 0.2, 0.1), 0),
    ("cm_static_inside", cm_static_inside, _vec(0.7, -0.6, 0.25), 0),
]

LOGADDEXP_SCAN = [
    ("lae_cox", lae_cox, _vec(0.4, -0.3), 0),
    ("lae_reversed", lae_reversed, _vec(0.3, -1.2, 0.8, 0.05), 0),
    ("lae_matrix_axis", lae_matrix_axis, _vec(0.6, -0.4, 1.1), 0),
    ("lae_large", lae_large, _vec(1.0, 2.5, -3.0, 2.4), 0),
]


TEMPS = (300.0, 320.0, 350.0)
TARGET = np.array([0.2, 0.35, 0.6])


def index_list_copy(theta, temps=TEMPS):
    loss = 0.0
    for temp in temps:
        k = np.exp(theta[0] - theta[1] * 300.0 / temp)
        loss += (1.0 - np.exp(-k) - TARGET[list(temps).index(temp)]) ** 2
    return loss


def index_tolist(x):
    grid = np.array([0.5, 1.5, 2.5])
    total = 0.0
    for g in grid:
        total = total + x[grid.tolist().index(g)] * g + np.sin(x[0] * g)
    return total


def index_tuple_count(w, labels=("a", "b", "a", "c")):
    out = 0.0
    for i, lab in enumerate(labels):
        out = out + w[tuple(labels).index(lab)] ** 2 * tuple(labels).count(lab) + w[i]
    return out


class Sites:
    names = ["n", "s", "e"]


def index_attribute(v, site="s"):
    return np.sum(v ** 2) * v[Sites.names.index(site)] + v[list(Sites.names).index("e")]


INDEX_BY_VALUE = [
    ("index_list_copy", index_list_copy, _vec(0.3, 1.1), 0),
    ("index_tolist", index_tolist, _vec(0.4, -0.2, 0.9), 0),
    ("index_tuple_count", index_tuple_count, _vec(0.4, -0.2, 0.9, 1.3), 0),
    ("index_attribute", index_attribute, _vec(0.7, -0.5, 0.25), 0),
]
