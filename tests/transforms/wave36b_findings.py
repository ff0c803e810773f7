"""Wave 36b's findings, each a class with its variants (test_wave36b.py).

REBOUND: a name holding a list (a literal one, or an array entering the loop) rebound in a loop to a
list the function builds (``q = [best(qi, c) for qi, c in zip(q, costs)]``, Jacobi best responses,
fixed-point sweeps): the list's adjoint came as an array (of ``sum(q)``, ``np.array(q)``) and the
comprehension's adjoint popped items off it: an AttributeError inside the gradient.

UNROLLED_UNPACK: a loop over a module dict's items unrolled (its body reads a dict the function
builds at the loop's key: ``fractions[name]``, ``rates[name]``) with the value unpacked in the
target, ``for name, (a, b, c) in ANTOINE.items()``: refused ("this unpacking needs a tuple or list
whose length srcdiff knows") where the same loop not unrolled was taken.

CARRIED_TUPLE: vmap(grad) of a loop carrying a tuple of literal numbers rebound to a tuple
(``state = (0.99, 0.01, 0.0)``, ``state = step(state, beta, gamma)`` of a helper returning a tuple, or
a tuple display): the batched code broadcast the literal into an array of rows and then carried a
tuple of batched items; the count guard of the unpacking raised "expected 3 values to unpack".

KEYED_COPY: ``sorted(list(x), key=lambda v: -v)``, ``max(list(x), key=...)``, ``min(tuple(x), key=...)``: the
sequence a copy made by ``list``/``tuple`` was taken for an iterator read once and left as written:
"Lambda expressions are not supported".
"""

from __future__ import annotations

import math

import numpy as np


def rebound_literal_sum(costs, iters=4):
    q = [1.0, 1.0, 1.0]
    for _ in range(iters):
        total = sum(q)
        q = [(10.0 - c - 0.5 * (total - qi)) / 2.0 for qi, c in zip(q, costs)]
    return sum(q) ** 2


def rebound_literal_array(w, iters=3):
    h = [0.5, -0.5, 0.25]
    for _ in range(iters):
        h = [np.tanh(wi * hi + 0.1) for wi, hi in zip(w, h)]
    return np.sum(np.array(h) ** 2)


def rebound_param_array(x, iters=3):
    q = x
    for _ in range(iters):
        q = [0.5 * qi + np.sin(xi) for qi, xi in zip(q, x)]
    return sum(q)


def rebound_display(p, steps=5):
    s = [0.2, 0.8]
    for _ in range(steps):
        s = [s[0] * p[0] + s[1] * p[1], s[0] * (1 - p[0]) + s[1] * (1 - p[1])]
    return np.sum(np.log(np.array(s)))


def rebound_enumerate_mean(x, sweeps=3):
    v = [0.0, 0.0, 0.0, 0.0]
    for _ in range(sweeps):
        v = [0.9 * vi + x[i] ** 2 for i, vi in enumerate(v)]
    return np.mean(v) + max(v)


def rebound_after_loop_index(theta, rounds=3):
    p = [1.0 / 3, 1.0 / 3, 1.0 / 3]
    for _ in range(rounds):
        z = [pi * np.exp(t) for pi, t in zip(p, theta)]
        p = [zi / sum(z) for zi in z]
    return p[0] - p[2] + sum(pi ** 2 for pi in p)


ANTOINE = {"benzene": (6.905, 1211.0, 220.8), "toluene": (6.954, 1344.8, 219.5)}
EDGES = {"ab": (0, 1), "bc": (1, 2), "ca": (2, 0)}
LAYERS = {"inner": (0.5, [1.0, 2.0]), "outer": (1.5, [0.5, 0.25])}


def unrolled_fractions(x, t=90.0):
    fractions = {"benzene": x[0], "toluene": 1.0 - x[0]}
    total = 0.0
    for name, (a, b, c) in ANTOINE.items():
        total += fractions[name] * 10.0 ** (a - b / (t + c))
    return total / 760.0


def unrolled_in_newton(x, pressure=760.0):
    fractions = {"benzene": x[0], "toluene": 1.0 - x[0]}
    t = 90.0
    for _ in range(8):
        total, slope = 0.0, 0.0
        for name, (a, b, c) in ANTOINE.items():
            p_sat = 10.0 ** (a - b / (t + c))
            total += fractions[name] * p_sat
            slope += fractions[name] * p_sat * math.log(10.0) * b / (t + c) ** 2
        t = t - (total - pressure) / slope
    return t


def unrolled_index_pairs(k):
    rates = {name: math.exp(k[j]) for j, name in enumerate(EDGES)}
    conc = np.array([1.0, 0.5, 0.2])
    for _ in range(3):
        change = np.zeros(3)
        for name, (src, dst) in EDGES.items():
            flux = rates[name] * conc[src]
            change[src] -= flux
            change[dst] += flux
        conc = conc + 0.1 * change
    return np.sum(conc ** 2 * np.array([1.0, 2.0, 3.0]))


def unrolled_nested_value(w):
    scale = {"inner": w[0], "outer": w[1]}
    total = 0.0
    for name, (gain, (c0, c1)) in LAYERS.items():
        total += gain * scale[name] ** 2 * c0 + c1 * np.sin(scale[name])
    return total


def unrolled_miscounted(x):
    fractions = {"benzene": x[0], "toluene": 1.0 - x[0]}
    total = 0.0
    for name, (a, b) in ANTOINE.items():
        total += fractions[name] * a * b
    return total


def _sir_step(state, beta, gamma):
    s, i, r = state
    inf = beta * s * i
    return (s - inf, i + inf - gamma * i, r + gamma * i)


def carried_helper_tuple(params):
    state = (0.99, 0.01, 0.0)
    for _ in range(6):
        state = _sir_step(state, params[0], params[1])
    return state[2] + 0.5 * state[1]


def carried_display_tuple(p):
    pos = (0.0, 1.0)
    for _ in range(5):
        pos = (pos[0] + 0.1 * pos[1], pos[1] - 0.1 * p[0] * np.sin(pos[0]) - 0.05 * p[1] * pos[1])
    return pos[0] ** 2 + pos[1]


def carried_tuple_unpacked_after(p):
    xy = (1.0, 0.0)
    for _ in range(4):
        x, y = xy
        xy = (x * np.cos(p[0]) - y * np.sin(p[0]), x * np.sin(p[0]) + y * np.cos(p[0]) * p[1])
    x, y = xy
    return x * y + y ** 2


def keyed_sorted_list(x):
    ranked = sorted(list(x), key=lambda v: -v)
    return np.sum(np.array(ranked[:2]) ** 2) + np.mean(np.array(ranked[2:]))


def keyed_max_list(x):
    closest = max(list(x), key=lambda v: -abs(v - 0.3))
    return closest ** 3 + np.sum(x)


def keyed_min_tuple_rows(m):
    row = min(tuple(m), key=lambda r: float(np.sum(r ** 2)))
    return np.sum(np.sin(row)) + np.sum(m ** 2) * 0.1


def keyed_sorted_reverse_abs(x):
    top = sorted(list(x * 2.0), key=abs, reverse=True)
    return top[0] * top[1] + top[-1] ** 2


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


REBOUND = [
    ("rebound_literal_sum", rebound_literal_sum, lambda rng: ([1.0, 1.5, 2.0],), 0),
    ("rebound_literal_sum_array", rebound_literal_sum, _vec(1.0, 1.5, 2.0), 0),
    ("rebound_literal_array", rebound_literal_array, _vec(0.5, 1.2, -0.7), 0),
    ("rebound_param_array", rebound_param_array, _vec(0.3, -0.4, 0.9), 0),
    ("rebound_display", rebound_display, _vec(0.7, 0.4), 0),
    ("rebound_enumerate_mean", rebound_enumerate_mean, _vec(0.3, -0.8, 0.5, 1.1), 0),
    ("rebound_after_loop_index", rebound_after_loop_index, _vec(0.2, -0.3, 0.5), 0),
]

UNROLLED_UNPACK = [
    ("unrolled_fractions", unrolled_fractions, _vec(0.4), 0),
    ("unrolled_in_newton", unrolled_in_newton, _vec(0.35), 0),
    ("unrolled_index_pairs", unrolled_index_pairs, _vec(0.2, -0.5, 0.1), 0),
    ("unrolled_nested_value", unrolled_nested_value, _vec(0.7, -0.3), 0),
]

CARRIED_TUPLE = [
    ("carried_helper_tuple", carried_helper_tuple, _vec(0.5, 0.2), 0),
    ("carried_display_tuple", carried_display_tuple, _vec(0.8, 0.3), 0),
    ("carried_tuple_unpacked_after", carried_tuple_unpacked_after, _vec(0.3, 0.9), 0),
]

KEYED_COPY = [
    ("keyed_sorted_list", keyed_sorted_list, _vec(0.4, 1.3, -0.2, 0.9, 0.1), 0),
    ("keyed_max_list", keyed_max_list, _vec(0.9, 0.25, -0.6), 0),
    ("keyed_min_tuple_rows", keyed_min_tuple_rows, lambda rng: (np.array([[0.5, 1.0], [0.2, -0.3], [1.5, 0.1]]),), 0),
    ("keyed_sorted_reverse_abs", keyed_sorted_reverse_abs, _vec(0.4, -1.3, 0.7, 0.05), 0),
]
