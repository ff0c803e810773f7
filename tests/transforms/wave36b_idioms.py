"""Wave 36b: how users shape the same models (a class with __call__ holding its data, staticmethods
and classmethods as helpers, nested helpers with default arguments, functools.reduce of a lambda and
of operator.mul, enumerate / zip / reversed over lists, dict comprehensions over parameter trees,
early returns inside loops, einsum strings with ellipses, keepdims reductions, np.newaxis, boolean
masks assigned through, integer index arrays gathered and scattered with np.add.at, float32 inputs,
dataclass and namedtuple parameters) (test_wave36b.py runs them through every transformation)."""

from __future__ import annotations

import functools
import operator
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

DATA = np.array([[0.5, -1.0, 0.3], [1.2, 0.4, -0.7], [-0.3, 0.8, 1.1], [0.9, -0.2, 0.4], [0.1, 0.6, -1.3]])
LABELS = np.array([1.0, 0.0, 1.0, 1.0, 0.0])


class SEIRModel:
    """A model object called like a function; its constants set in __init__, its step a staticmethod."""

    def __init__(self, days=15, dt=1.0):
        self.days = days
        self.dt = dt

    @staticmethod
    def step(state, beta, sigma, gamma, dt):
        s, e, i, r = state
        inf = beta * s * i
        return (s - dt * inf, e + dt * (inf - sigma * e), i + dt * (sigma * e - gamma * i), r + dt * gamma * i)

    def __call__(self, params):
        state = (0.99, 0.0, 0.01, 0.0)
        for _ in range(self.days):
            state = self.step(state, params[0], params[1], params[2], self.dt)
        return state[3] + 0.5 * state[2]


SEIR_MODEL = SEIRModel()


def call_model_object(params):
    return SEIR_MODEL(params)


class Filter:
    taps = np.array([0.25, 0.5, 0.25])

    @classmethod
    def smooth(cls, x):
        return np.convolve(x, cls.taps, mode="same")


def classmethod_helper(x):
    return np.sum((Filter.smooth(x) - np.sin(np.arange(len(x)))) ** 2)


def nested_default_helpers(w, x=DATA, y=LABELS):
    """Nested helpers with default arguments computed from the enclosing function's values."""
    scale = np.std(x)

    def link(z, temperature=1.0, offset=0.0):
        return 1.0 / (1.0 + np.exp(-(z - offset) / temperature))

    def penalty(v, power=2, weight=0.01 * scale):
        return weight * np.sum(np.abs(v) ** power)
    p = link(x @ w, temperature=1.5)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)) + penalty(w) + penalty(w, power=4)


def reduce_compose(theta):
    """A product of rotation matrices by functools.reduce over a generator of matrices."""
    def rot(a):
        return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    total = functools.reduce(np.matmul, [rot(a) for a in theta])
    return np.sum((total @ np.array([1.0, 0.0]) - np.array([0.0, 1.0])) ** 2)


def reduce_operator_mul(x):
    """A likelihood as a product by functools.reduce(operator.mul, ...), then its log."""
    probs = [1 / (1 + np.exp(-v)) for v in x]
    return -np.log(functools.reduce(operator.mul, probs, 1.0))


def enumerate_zip_reversed(w, layers=(3, 2, 1)):
    """Backward smoothing over a list of stages by reversed(list(enumerate(zip(...))))."""
    stages = list(zip(w, layers))
    value = 0.0
    for k, (wk, n) in reversed(list(enumerate(stages))):
        value = 0.9 * value + n * np.tanh(wk + 0.1 * k)
    return value ** 2


def dict_comprehension_params(params):
    """A parameter dict; constrained copies by a dict comprehension over its items."""
    positive = {k: np.exp(v) for k, v in params.items() if k.startswith("log_")}
    free = {k: v for k, v in params.items() if not k.startswith("log_")}
    return np.sum(positive["log_scale"] * free["loc"] ** 2) + np.sum(positive["log_rate"]) - np.sum(free["loc"])


def early_return_loop(x):
    """Search for the first crossing, returning inside the loop (a finite path everywhere)."""
    acc = 0.0
    for i, v in enumerate(x):
        acc = acc + v * v
        if acc > 2.0:
            return acc * (i + 1) + np.sum(x[:i + 1])
    return acc


def early_return_while(c):
    """Fixed-point iteration left by a return once converged."""
    z = 0.5
    for _ in range(100):
        nxt = np.cos(c[0] * z) * c[1]
        if abs(nxt - z) < 1e-12:
            return nxt
        z = nxt
    return z


def einsum_ellipsis(w, x=DATA.reshape(5, 3, 1) * np.ones((1, 1, 2))):  # noqa: B008
    """Batched bilinear forms by einsum with an ellipsis, then a keepdims normalisation."""
    h = np.einsum("...ij,jk->...ik", np.swapaxes(x, -1, -2), w.reshape(3, 2))
    h = h / np.sqrt(np.sum(h ** 2, axis=-1, keepdims=True) + 1.0)
    return np.sum(np.einsum("bij,bij->b", h, h))


def keepdims_softmax_attention(q, k=DATA, v=DATA[:, ::-1]):
    """Attention of one query: scores, max subtracted with keepdims, a weighted sum of values."""
    scores = (k @ q)[np.newaxis, :] / np.sqrt(3.0)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(scores) / np.sum(np.exp(scores), axis=-1, keepdims=True)
    out = weights @ v
    return np.sum((out - 0.2) ** 2)


def boolean_mask_assign(x, threshold=0.5):
    """Values above a threshold replaced by a soft version, through a boolean mask."""
    y = x.copy()
    big = y > threshold
    y[big] = threshold + np.log1p(y[big] - threshold)
    y[~big] = y[~big] ** 2
    return np.sum(y * np.arange(1, len(x) + 1))


def index_array_gather_scatter(x, idx=np.array([0, 2, 2, 4, 1, 0])):  # noqa: B008
    """Gather by an integer index array (repeated indices), scatter back by np.add.at."""
    g = x[idx] * np.linspace(1.0, 2.0, len(idx))
    out = np.zeros_like(x)
    np.add.at(out, idx, g ** 2)
    return np.sum(out * x) + np.sum(x[[1, 3]] ** 3)


def float32_logistic(w, x=DATA.astype(np.float32), y=LABELS.astype(np.float32)):  # noqa: B008
    z = x @ w
    return np.mean(np.logaddexp(np.float32(0.0), z) - y * z) + np.float32(0.01) * np.sum(w * w)


def float32_newaxis_rbf(centres, x=DATA[:, :2].astype(np.float32)):  # noqa: B008
    d2 = np.sum((x[:, np.newaxis, :] - centres[np.newaxis, :, :]) ** 2, axis=-1)
    phi = np.exp(-d2)
    return np.sum((phi.sum(axis=1) - 1.0) ** 2)


@dataclass
class Prior:
    loc: np.ndarray
    log_scale: float


def dataclass_prior(prior, data=np.array([0.3, -0.2, 0.5, 0.1])):  # noqa: B008
    scale = np.exp(prior.log_scale)
    z = (data[:, np.newaxis] - prior.loc[np.newaxis, :]) / scale
    return np.sum(0.5 * z ** 2) + z.size * prior.log_scale


Layer = namedtuple("Layer", ["weight", "bias"])


def namedtuple_layers(layers, x=DATA):
    """A list of namedtuple layers, zipped with their activations."""
    h = x
    for layer, act in zip(layers, (np.tanh, np.sin)):
        h = act(h @ layer.weight + layer.bias)
    return np.sum(h ** 2)


def sorted_key_lambda(x):
    """The two largest items by sorted(..., key=lambda), a trimmed mean of the rest."""
    ranked = sorted(list(x), key=lambda v: -v)
    return np.sum(np.array(ranked[:2]) ** 2) + np.mean(np.array(ranked[2:]))


def vec_(*values, dtype=float):
    return lambda rng: (np.array(values, dtype=dtype),)


IDIOMS = [
    ("id_call_model_object", call_model_object, vec_(0.6, 0.3, 0.2), 0),
    ("id_classmethod_helper", classmethod_helper, lambda rng: (rng.normal(size=8),), 0),
    ("id_nested_default_helpers", nested_default_helpers, vec_(0.4, -0.3, 0.8), 0),
    ("id_reduce_compose", reduce_compose, vec_(0.3, 0.5, 0.4), 0),
    ("id_reduce_operator_mul", reduce_operator_mul, vec_(0.3, -0.5, 1.2, 0.1), 0),
    ("id_enumerate_zip_reversed", enumerate_zip_reversed, vec_(0.3, -0.2, 0.5), 0),
    ("id_dict_comprehension", dict_comprehension_params,
     lambda rng: ({"log_scale": np.array([0.1, -0.2]), "loc": np.array([0.5, 1.5]), "log_rate": 0.3},), 0),
    ("id_early_return_loop", early_return_loop, vec_(0.6, 0.9, 0.8, 0.7, 0.5), 0),
    ("id_early_return_converged", early_return_while, vec_(0.8, 0.9), 0),
    ("id_einsum_ellipsis", einsum_ellipsis, lambda rng: (rng.normal(size=6),), 0),
    ("id_keepdims_attention", keepdims_softmax_attention, vec_(0.5, -0.3, 0.8), 0),
    ("id_boolean_mask_assign", boolean_mask_assign, vec_(0.2, 0.9, -0.4, 1.3, 0.45), 0),
    ("id_index_gather_scatter", index_array_gather_scatter, vec_(0.5, -0.3, 0.8, 1.1, 0.2), 0),
    ("id_float32_logistic", float32_logistic, vec_(0.3, -0.4, 0.2, dtype=np.float32), 0),
    ("id_float32_newaxis_rbf", float32_newaxis_rbf,
     lambda rng: (np.array([[0.2, 0.1], [-0.5, 0.6]], dtype=np.float32),), 0),
    ("id_dataclass_prior", dataclass_prior, lambda rng: (Prior(np.array([0.1, -0.1]), 0.2),), 0),
    ("id_namedtuple_layers", namedtuple_layers,
     lambda rng: ([Layer(0.5 * rng.normal(size=(3, 2)), np.zeros(2)), Layer(0.5 * rng.normal(size=(2, 2)),
                                                                             np.array([0.1, -0.1]))],), 0),
    ("id_sorted_key_lambda", sorted_key_lambda, vec_(0.4, 1.3, -0.2, 0.9, 0.1), 0),
]
