"""Wave 29b's ML programs: losses and layers the way practitioners write them (classes with
methods and attributes, dict and dataclass parameter trees, functools.partial, keyword-only
arguments, comprehensions over layers), each a row of ``(name, func, make_args(rng), wrt)``."""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import NamedTuple

import numpy as np

EPS = 1e-7
ACTIVATIONS = {"tanh": np.tanh, "softplus": lambda z: np.log1p(np.exp(z))}


def softmax_xent(logits, onehot):
    z = logits - np.max(logits)
    logp = z - np.log(np.sum(np.exp(z)))
    return -np.sum(onehot * logp)


def log_softmax_rows(W, X, Y):
    Z = X @ W
    Z = Z - np.max(Z, axis=1, keepdims=True)
    logp = Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * logp, axis=1))


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)))


def huber_fit(w, X, y):
    return huber(X @ w - y, delta=0.8)


def focal_loss(w, X, y, gamma=2.0):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    pt = np.where(y > 0.5, p, 1.0 - p)
    return -np.mean((1.0 - pt) ** gamma * np.log(pt + EPS))


def layer_norm(x, g, b):
    mu = np.mean(x)
    var = np.mean((x - mu) ** 2)
    return g * (x - mu) / np.sqrt(var + 1e-5) + b


def layernorm_loss(g, x, b):
    return np.sum(layer_norm(x, g, b) ** 2 * np.arange(1.0, x.size + 1))


def mlp_dict(params, X, y):
    h = np.tanh(X @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    return np.mean((out - y) ** 2)


class Linear:
    def __init__(self, scale):
        self.scale = scale
        self.bias = 0.1

    def __call__(self, w, x):
        return self.scale * np.dot(w, x) + self.bias

    def loss(self, w, X, y):
        total = 0.0
        for xi, yi in zip(X, y):
            total = total + (self(w, xi) - yi) ** 2
        return total / len(y)


LIN = Linear(1.5)


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


def dataclass_logistic(p, X, y):
    z = X @ p.w + p.b
    return np.mean(np.log1p(np.exp(-y * z)))


class Layer(NamedTuple):
    W: np.ndarray
    b: np.ndarray


def namedtuple_layers(layers, x):
    h = x
    for layer in layers:
        h = np.tanh(layer.W @ h + layer.b)
    return np.sum(h ** 2)


def _activation_sum(x, *, kind="tanh", scale=1.0):
    return np.sum(ACTIVATIONS[kind](scale * x))


softplus_sum = functools.partial(_activation_sum, kind="softplus", scale=0.7)


def partial_of_global(x):
    return softplus_sum(x) + _activation_sum(x, scale=2.0)


def attention(q, K, V):
    scores = K @ q / math.sqrt(q.size)
    a = np.exp(scores - np.max(scores))
    a = a / np.sum(a)
    return np.sum((a @ V) ** 2)


def conv1d_valid(k, x):
    n = x.size - k.size + 1
    out = np.array([np.sum(k * x[i:i + k.size]) for i in range(n)])
    return np.sum(np.tanh(out) ** 2)


def gru_like(h0, xs, W):
    h = h0
    for x in xs:
        z = 1.0 / (1.0 + np.exp(-(W @ h + x)))
        h = (1.0 - z) * h + z * np.tanh(x - h)
    return np.sum(h)


def weight_decay_loss(w, X, y, *, lam=0.01, l1=0.0):
    r = X @ w - y
    return 0.5 * np.mean(r ** 2) + lam * np.sum(w ** 2) + l1 * np.sum(np.abs(w))


def calls_weight_decay(w, X, y):
    return weight_decay_loss(w, X, y, lam=0.1) + weight_decay_loss(w, X[:2], y[:2])


def temperature_scaled(t, logits, onehot):
    return softmax_xent(logits / t, onehot)


def smooth_l1_scalar(a):
    total = 0.0
    for r in (a - 0.3, 2.0 * a, a * a - 1.0):
        total += 0.5 * r * r if abs(r) < 1.0 else abs(r) - 0.5
    return total


def gelu_tanh(x):
    c = math.sqrt(2.0 / math.pi)
    return np.sum(0.5 * x * (1.0 + np.tanh(c * (x + 0.044715 * x ** 3))))


def swish_scalar(beta):
    xs = [0.5, -1.0, 2.0]
    return sum(x / (1.0 + math.exp(-beta * x)) for x in xs)


def contrastive(z1, z2, tau=0.5):
    a = z1 / np.linalg.norm(z1)
    b = z2 / np.linalg.norm(z2)
    return -np.log(np.exp(np.dot(a, b) / tau) / (np.exp(np.dot(a, b) / tau) + np.exp(-np.dot(a, a) / tau)))


def kl_gaussians(mu, logvar):
    return -0.5 * np.sum(1.0 + logvar - mu ** 2 - np.exp(logvar))


def vae_elbo(mu, logvar, eps, x):
    z = mu + np.exp(0.5 * logvar) * eps
    recon = np.sum((x - np.tanh(z)) ** 2)
    return recon + kl_gaussians(mu, logvar)


def residual_stack(w, x):
    h = x
    for i, wi in enumerate(w):
        h = h + wi * np.sin(h) / (i + 1)
    return np.sum(h ** 2)


def dropout_fixed_mask(w, x, mask):
    h = np.maximum(x * w, 0.0) * mask / 0.5
    return np.sum(h ** 2) + np.sum(w ** 2)


def sgd_unrolled(lr, w0, X, y):
    w = w0
    for _ in range(3):
        g = 2.0 * X.T @ (X @ w - y) / len(y)
        w = w - lr * g
    return np.sum((X @ w - y) ** 2)


def cosine_similarity_loss(a, b):
    return 1.0 - np.dot(a, b) / (np.sqrt(np.sum(a * a)) * np.sqrt(np.sum(b * b)))


def batchnorm_train(gamma, X):
    mu = X.mean(axis=0)
    var = X.var(axis=0)
    Xn = (X - mu) / np.sqrt(var + 1e-5)
    return np.sum((gamma * Xn) ** 3)


def mixup_loss(lam, x1, x2, w):
    x = lam * x1 + (1.0 - lam) * x2
    return np.sum(np.tanh(w @ x) ** 2)


# sums along an axis, batched (vmap(grad(f), jit="numba"): sum_last, full_rows)


def rows_normalised(W, X):
    Z = np.exp(X @ W)
    return np.sum(np.log(Z / np.sum(Z, axis=-1, keepdims=True)) * X[:, :2])


def row_sums(W, X):
    return np.sum(np.tanh(np.sum(X @ W, axis=1)) ** 2)


def last_axis_keep(w, X):
    S = np.sum(X * w, axis=1, keepdims=True)
    return np.sum(np.sin(S) * X)


def _mlp_params(r):
    return {"W1": r.normal(size=(3, 4)) * 0.5, "b1": r.normal(size=4) * 0.1, "W2": r.normal(size=(4, 1)) * 0.5,
            "b2": r.normal(size=1) * 0.1}


ML = [
    ("softmax_xent", softmax_xent, lambda r: (r.normal(size=4), np.eye(4)[1]), 0),
    ("log_softmax_rows", log_softmax_rows,
     lambda r: (r.normal(size=(3, 2)), r.normal(size=(4, 3)), np.eye(2)[[0, 1, 1, 0]]), 0),
    ("huber_fit", huber_fit, lambda r: (r.normal(size=3), r.normal(size=(5, 3)), r.normal(size=5)), 0),
    ("focal_loss", focal_loss, lambda r: (r.normal(size=3), r.normal(size=(5, 3)), np.array([1.0, 0, 1, 1, 0])), 0),
    ("layernorm_loss", layernorm_loss, lambda r: (1.0 + 0.1 * r.normal(size=4), r.normal(size=4), r.normal(size=4)), 0),
    ("layernorm_loss_x", layernorm_loss,
     lambda r: (1.0 + 0.1 * r.normal(size=4), r.normal(size=4), r.normal(size=4)), 1),
    ("mlp_dict", mlp_dict, lambda r: (_mlp_params(r), r.normal(size=(5, 3)), r.normal(size=(5, 1))), 0),
    ("linear_method_loss", LIN.loss, lambda r: (r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=4)), 0),
    ("dataclass_logistic", dataclass_logistic,
     lambda r: (Params(r.normal(size=3), 0.2), r.normal(size=(5, 3)), np.array([1.0, -1, 1, -1, 1])), 0),
    ("namedtuple_layers", namedtuple_layers,
     lambda r: ([Layer(0.5 * r.normal(size=(3, 3)), 0.1 * r.normal(size=3)) for _ in range(2)], r.normal(size=3)), 0),
    ("partial_of_global", partial_of_global, lambda r: (r.normal(size=4),), 0),
    ("attention_q", attention, lambda r: (r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=(4, 2))), 0),
    ("attention_K", attention, lambda r: (r.normal(size=3), r.normal(size=(2, 3)), r.normal(size=(2, 2))), 1),
    ("conv1d_valid", conv1d_valid, lambda r: (r.normal(size=3), r.normal(size=7)), 0),
    ("gru_like", gru_like, lambda r: (r.normal(size=3), r.normal(size=(3, 3)), 0.5 * r.normal(size=(3, 3))), 0),
    ("calls_weight_decay", calls_weight_decay,
     lambda r: (r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=4)), 0),
    ("temperature_scaled", temperature_scaled, lambda r: (1.3, r.normal(size=4), np.eye(4)[2]), 0),
    ("smooth_l1_scalar", smooth_l1_scalar, lambda r: (0.45,), 0),
    ("gelu_tanh", gelu_tanh, lambda r: (r.normal(size=5),), 0),
    ("swish_scalar", swish_scalar, lambda r: (1.2,), 0),
    ("contrastive", contrastive, lambda r: (r.normal(size=3), r.normal(size=3)), 0),
    ("vae_elbo_mu", vae_elbo,
     lambda r: (r.normal(size=3), 0.3 * r.normal(size=3), r.normal(size=3), r.normal(size=3)), 0),
    ("vae_elbo_logvar", vae_elbo,
     lambda r: (r.normal(size=3), 0.3 * r.normal(size=3), r.normal(size=3), r.normal(size=3)), 1),
    ("residual_stack", residual_stack, lambda r: (r.normal(size=3), r.normal(size=4)), 0),
    ("dropout_fixed_mask", dropout_fixed_mask,
     lambda r: (r.uniform(0.5, 1.5, size=4), r.uniform(0.2, 1.0, size=4), np.array([1.0, 0.0, 1.0, 1.0])), 0),
    ("sgd_unrolled_lr", sgd_unrolled, lambda r: (0.1, r.normal(size=2), r.normal(size=(4, 2)), r.normal(size=4)), 0),
    ("sgd_unrolled_w0", sgd_unrolled, lambda r: (0.1, r.normal(size=2), r.normal(size=(4, 2)), r.normal(size=4)), 1),
    ("cosine_similarity_loss", cosine_similarity_loss, lambda r: (r.normal(size=4), r.normal(size=4)), 0),
    ("batchnorm_train", batchnorm_train, lambda r: (r.normal(size=2), r.normal(size=(5, 2))), 0),
    ("mixup_loss", mixup_loss, lambda r: (0.3, r.normal(size=3), r.normal(size=3), r.normal(size=(2, 3))), 0),
]
