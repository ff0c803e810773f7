"""Functions that draw from a random generator they seed themselves (``rng = np.random.default_rng(0)``):
each draw is a constant of the function, the same numbers at every call.  Table rows: (name, function,
make_args(rng), wrt)."""

import numpy as np


def standard_normal(x):
    rng = np.random.default_rng(0)
    z = rng.standard_normal(3)
    return np.sum(np.sin(x * z))


def normal_of_the_shape(x):
    rng = np.random.default_rng(1)
    z = rng.normal(0.0, 2.0, size=x.shape)
    return np.sum(np.tanh(x + z) ** 2)


def made_in_the_expression(x):
    noise = np.random.default_rng(2).standard_normal(3)
    return np.sum((x - noise) ** 2 * np.exp(-x))


def two_draws_in_order(x):
    rng = np.random.default_rng(3)
    a = rng.uniform(-1.0, 1.0, size=3)
    b = rng.random(3)
    return np.sum(a * x**3 + b * np.cos(x))


def drawn_index(x):
    rng = np.random.default_rng(4)
    i = rng.integers(0, 3)
    return x[i] ** 2 + np.sum(x * rng.random(3))


def draws_in_a_loop(x):
    rng = np.random.default_rng(5)
    total = 0.0
    for i in range(3):
        total = total + np.sin(x[i] * rng.normal())
    return total


def legacy_random_state(x):
    rs = np.random.RandomState(6)
    return np.sum(np.exp(x * rs.randn(3)))


def seeded_by_an_argument(x, seed=7):
    rng = np.random.default_rng(seed)
    return np.sum(x**2 * rng.standard_normal(x.shape))


def _noisy(x):
    rng = np.random.default_rng(8)
    return x * rng.standard_normal(x.shape)


def drawn_in_a_helper(x):
    return np.sum(np.sin(_noisy(x)) + _noisy(x) ** 2)


V = lambda r: (r.normal(size=3) * 0.7,)  # noqa: E731

PROGRAMS = [
    ("standard_normal", standard_normal, V, 0),
    ("normal_of_the_shape", normal_of_the_shape, V, 0),
    ("made_in_the_expression", made_in_the_expression, V, 0),
    ("two_draws_in_order", two_draws_in_order, V, 0),
    ("drawn_index", drawn_index, V, 0),
    ("draws_in_a_loop", draws_in_a_loop, V, 0),
    ("legacy_random_state", legacy_random_state, V, 0),
    ("seeded_by_an_argument", seeded_by_an_argument, V, 0),
    ("drawn_in_a_helper", drawn_in_a_helper, V, 0),
]
