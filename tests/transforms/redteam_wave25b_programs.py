"""The red team's wave 25b: the API surface as a demanding user drives it (argnums, keywords,
defaults, trees, vmap's in_axes, jit="numba", float32, calls of one function with arguments of
several kinds).  test_redteam_wave25b.py runs them against float64 central differences.

Finding 1 (ZERO_D): a 0-d array parameter (a temperature, a bias, ``np.array(0.7)``) under
``jit="numba"``: the optimiser spelled ``np.sum(t * s)`` as ``(t * s).sum()``, and numba's
arithmetic on 0-d arrays gives a number, which has no ``.sum()``, so value_and_grad, vjp and
hessian were refused where grad and NumPy run.
"""

import numpy as np

# ---- finding 1: 0-d array parameters, numba ------------------------------------------------------


def zero_d_square(t):
    return np.sum(t * t)


def zero_d_poly(t):
    return np.sum(t**3 - 2.0 * t**2 + np.cos(t))


def zero_d_product(t, s):
    return np.sum(t * s) * np.sum(t)


def zero_d_bias(b, X, y):
    r = X @ np.ones(3) + b - y
    return np.sum(r * r)


def zero_d_temperature(t, z):
    a = z / t
    a = a - np.max(a)
    return np.log(np.sum(np.exp(a)))


def zero_d_tree(p):
    return np.sum(p["a"] * p["a"]) + np.sum(p["b"] * np.exp(p["a"]))


def _zero_d(rng):
    return (np.array(rng.uniform(0.5, 1.5)),)


ZERO_D = [
    ("zero_d_square", zero_d_square, _zero_d, 0),
    ("zero_d_poly", zero_d_poly, _zero_d, 0),
    ("zero_d_product", zero_d_product, lambda rng: (np.array(0.9), np.array(-1.2)), 0),
    ("zero_d_bias", zero_d_bias, lambda rng: (np.array(0.2), rng.normal(size=(4, 3)), rng.normal(size=4)), 0),
    ("zero_d_temperature", zero_d_temperature, lambda rng: (np.array(1.3), rng.normal(size=5)), 0),
    ("zero_d_tree", zero_d_tree, lambda rng: ({"a": np.array(0.5), "b": np.array(1.5)},), 0),
]
