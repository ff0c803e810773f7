"""User objects built inside the differentiated function from its own values (a layer, a
model, a kernel), written as library code writes them; test_built_objects.py runs them
through every transformation."""

from dataclasses import dataclass

import numpy as np


class Affine:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return x @ self.W + self.b


class Activated:
    """A layer holding another layer and a function."""

    def __init__(self, inner, act=np.tanh):
        self.inner, self.act = inner, act

    def __call__(self, x):
        return self.act(self.inner(x))


def stacked_layers(W, b, X):
    layer = Activated(Affine(W, b))
    hidden = layer(X)
    return np.sum(Activated(Affine(W.T, 0.5 * b), np.sin)(hidden) ** 2)


@dataclass
class Ridge:
    w: np.ndarray
    l2: float = 0.1
    scale: float = 1.0

    def residual(self, X, y):
        return self.scale * (X @ self.w) - y

    def loss(self, X, y):
        return np.mean(self.residual(X, y) ** 2) + self.l2 * np.sum(self.w ** 2)


def ridge_with_keywords(w, X, y):
    model = Ridge(w=w, scale=2.0)
    return model.loss(X, y) + Ridge(0.5 * w, 0.01).loss(X, y)


class RBFKernel:
    def __init__(self, log_length, variance):
        self.length = np.exp(log_length)  # stored as computed from the parameters
        self.variance = variance * variance

    def __call__(self, A, B):
        d2 = np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1)
        return self.variance * np.exp(-0.5 * d2 / self.length ** 2)


def kernel_energy(log_length, X):
    K = RBFKernel(log_length, 1.3)(X, X)
    return np.sum(K) + np.trace(K)


class Cell:
    def __init__(self, W):
        self.W = W

    def step(self, h):
        return np.tanh(h @ self.W)


def cells_in_a_loop(W, h0):
    h = h0
    for k in range(3):
        cell = Cell(W * (k + 1) / 3)
        h = cell.step(h)
    return np.sum(h ** 2)


class Spring:
    def __init__(self, k, rest=0.0):
        self.k = k
        self.rest = rest

    def energy(self, x):
        return 0.5 * self.k * np.sum((x - self.rest) ** 2) + np.sum(np.cos(x))


def spring_from_its_own_values(x):
    k = np.sum(x ** 2)  # the object's attribute depends on x too
    return Spring(k).energy(x) + Spring(1.0, rest=k).energy(x)


M = lambda r, *shape: r.normal(size=shape) * 0.5  # noqa: E731

PROGRAMS = [
    ("stacked_layers", stacked_layers, lambda r: (M(r, 3, 3), M(r, 3), M(r, 4, 3)), 0),
    ("stacked_layers_b", stacked_layers, lambda r: (M(r, 3, 3), M(r, 3), M(r, 4, 3)), 1),
    ("ridge_with_keywords", ridge_with_keywords, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("kernel_energy", kernel_energy, lambda r: (0.3, M(r, 4, 2)), 0),
    ("kernel_energy_X", kernel_energy, lambda r: (0.3, M(r, 4, 2)), 1),
    ("cells_in_a_loop", cells_in_a_loop, lambda r: (M(r, 3, 3), M(r, 2, 3)), 0),
    ("spring_from_its_own_values", spring_from_its_own_values, lambda r: (M(r, 3),), 0),
]


# ---- refused, at the line that builds the object ----


class Checked:
    def __init__(self, w):
        if np.any(w < -10):
            raise ValueError("too small")
        self.w = w


def builds_a_checked_object(w):
    return np.sum(Checked(w).w ** 2)


def builds_in_a_branch_header(w):  # (the test runs once, before the branch: the object is made just before it)
    if np.sum(Affine(w, 0.0)(w)) > 0:
        return np.sum(w ** 2)
    return np.sum(w)


def builds_in_a_loop_header(w):
    total = 0.0
    while np.sum(Affine(w, total)(w)) > 0 and total < 2.0:  # (a `while` test runs again at every pass)
        total = total + 1.0
    return total * np.sum(w)
