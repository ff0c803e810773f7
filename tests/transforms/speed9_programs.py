"""Scalar programs whose Hessian is one forward sweep with unit seeds written into its code
(test_speed9_unit_seeds.py): loops over numbers, helpers returning tuples, lists of states,
and lists of tuples and of arrays beside them."""

import math

import numpy as np


def _decay_rhs(x, v, rate, pull):
    return v, -rate * v - pull * math.sin(x)


def decay_fit(rate, pull, observed, steps):
    """A damped oscillator by explicit Euler, a list of states, a squared misfit."""
    x, v, states = 0.8, 0.0, []
    for _ in range(steps):
        dx, dv = _decay_rhs(x, v, rate, pull)
        x, v = x + 0.1 * dx, v + 0.1 * dv
        states.append(x)
    misfit = 0.0
    for i in range(len(states)):
        misfit = misfit + (states[i] - observed[i]) ** 2
    return misfit


def decay_fit_tree(p, observed, steps):
    """decay_fit of a dict's two numbers."""
    return decay_fit(p["rate"], p["pull"], observed, steps)


def logistic_growth(r, capacity, steps):
    """Logistic growth; the log of each state, summed."""
    n, levels, squares = 0.1, [], []
    for _ in range(steps):
        n = n + r * n * (1.0 - n / capacity)
        levels.append(n)
        squares.append(n * n)
    total = 0.0
    for level, square in zip(levels, squares):
        total = total + math.log(level) + 0.1 * square
    return total


def coupled_products(a, b, big, steps):
    """a * b * big / (i + 1) summed: with big = inf the Hessian is [[0, inf], [inf, 0]]."""
    terms = []
    for i in range(steps):
        terms.append(a * b * big / (i + 1))
    total = 0.0
    for t in terms:
        total = total + t
    return total


def scalar_and_array_items(a, w, steps):
    """A list of arrays (w scaled by powers of a) beside a list of numbers."""
    rows, scales = [], []
    for i in range(steps):
        rows.append(w * a ** (i + 1))
        scales.append(a * (i + 1))
    total = 0.0
    for i in range(steps):
        total = total + np.sum(rows[i] * rows[i]) * scales[i]
    return total


def unused_accumulation(a, b, steps):
    """A loop whose accumulation of b only its gradient would return."""
    s, t = 0.0, 0.0
    for i in range(steps):
        s = s + math.sin(a * (i + 1)) * b
        t = t + b * b
    return s * s + t


# A number divided in a loop of numbers, read by a value the backward loop computes again:
# the division must be computed again too (its gradient read a stale quotient before).

def logistic_map(r, capacity, steps):
    n, total = 0.1, 0.0
    for _ in range(steps):
        n = n + r * n * (1.0 - n / capacity)
        total = total + math.log(n)
    return total


def ratio_decay(a, b, steps):
    n, total = 0.1 + a, 0.0
    for _ in range(steps):
        n = n * (1.0 - n / b)
        total = total + math.log(n)
    return total


def saturating(k, m, steps):
    x, total = 0.2, 0.0
    for _ in range(steps):
        x = x + 0.1 * (1.0 - x / m) * math.exp(-k * x)
        total = total + x * x
    return total


PROGRAMS = [
    ("decay_fit_rate", decay_fit, lambda r: (0.3, 2.0, np.cos(np.arange(12) * 0.2) * 0.8, 12), 0),
    ("decay_fit_pull", decay_fit, lambda r: (0.3, 2.0, np.cos(np.arange(12) * 0.2) * 0.8, 12), 1),
    ("logistic_growth_r", logistic_growth, lambda r: (0.4, 3.0, 8), 0),
    ("logistic_growth_capacity", logistic_growth, lambda r: (0.4, 3.0, 8), 1),
    ("coupled_products", coupled_products, lambda r: (0.7, -1.3, 2.0, 4), 0),
    ("scalar_and_array_items", scalar_and_array_items, lambda r: (0.9, r.normal(size=3), 3), 0),
    ("unused_accumulation", unused_accumulation, lambda r: (0.4, 1.5, 5), 0),
    ("logistic_map_capacity", logistic_map, lambda r: (0.4, 3.0, 8), 1),
    ("ratio_decay_b", ratio_decay, lambda r: (0.4, 3.0, 8), 1),
    ("saturating_m", saturating, lambda r: (0.7, 2.0, 6), 1),
    ("saturating_k", saturating, lambda r: (0.7, 2.0, 6), 0),
]
