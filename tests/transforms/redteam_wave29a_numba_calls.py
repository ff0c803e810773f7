"""The red team's wave 29a's numba findings, with their variants: a helper's default that is not a
literal (``def planar_fk(q, lengths=LINKS)`` called as ``planar_fk(q)``), and a table of numbers
held as a list of tuples (``DH = [(d, a, alpha), ...]``) read row by row in a loop
(test_redteam_wave29a.py checks them against float64 central differences)."""

from __future__ import annotations

import math

import numpy as np

WEIGHTS = np.array([1.0, 0.8, 0.5])
PAIR = (np.array([0.5, -0.2, 0.1]), np.array([1.5, 0.3, -0.7]))
SCALE = np.float64(1.5)


def _chain(q, lengths=WEIGHTS):
    x, y, phi = 0.0, 0.0, 0.0
    for i in range(len(q)):
        phi = phi + q[i]
        x = x + lengths[i] * math.cos(phi)
        y = y + lengths[i] * math.sin(phi)
    return x, y


def default_array(q):
    x, y = _chain(q)
    return (x - 1.2) ** 2 + (y - 0.9) ** 2


def _weighted(x, w=WEIGHTS, power=2.0):
    return np.sum(w * np.abs(x) ** power)


def default_array_then_literal(x):
    return _weighted(x) + _weighted(np.sin(x), WEIGHTS[::-1])


def _scaled(x, s=SCALE):
    return s * x


def default_numpy_scalar(x):
    return np.sum(_scaled(x) ** 2) + np.sum(_scaled(x, 2.0))


def _paired(x, ab=PAIR):
    return np.dot(ab[0], x) * np.dot(ab[1], np.tanh(x))


def default_tuple_of_arrays(x):
    return _paired(x) ** 2


def _inner(x, w=WEIGHTS):
    return np.sum(w * x**2)


def _outer(x, offset=PAIR[1]):
    return _inner(x - offset) + _inner(x, 2.0 * WEIGHTS)


def default_in_nested_helpers(x):
    return _outer(x) * np.sum(x)


def _step(state, dt, k=np.array([0.3, 0.7])):  # noqa: B008
    a, b = state
    return a - dt * k[0] * a, b + dt * (k[0] * a - k[1] * b)


def default_in_a_loop(x):
    state = (x[0], x[1])
    for _ in range(5):
        state = _step(state, 0.1)
    return state[0] ** 2 + 3.0 * state[1] * x[2]


DEFAULTS = [default_array, default_array_then_literal, default_numpy_scalar, default_tuple_of_arrays,
            default_in_nested_helpers, default_in_a_loop]

DH = [(0.3, 0.0, math.pi / 2), (0.0, 0.7, 0.0), (0.0, 0.5, 0.0)]
DH_TUPLE = ((0.3, 0.0, math.pi / 2), (0.0, 0.7, 0.0), (0.0, 0.5, 0.0))
LINKS = [(1, 0.8), (2, 0.5), (3, 0.4)]


def _dh(theta, d, a, alpha):
    ct, st = math.cos(theta), math.sin(theta)
    ca, sa = math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def table_by_zip(q):
    T = np.eye(4)
    for qi, (d, a, alpha) in zip(q, DH):
        T = T @ _dh(qi, d, a, alpha)
    return np.sum((T[:3, 3] - np.array([0.4, 0.3, 0.8])) ** 2)


def table_by_index(q):
    T = np.eye(4)
    for i in range(3):
        row = DH_TUPLE[i]
        T = T @ _dh(q[i], row[0], row[1], row[2])
    return np.sum(T[:3, 3] ** 2) + T[0, 0]


def table_of_ints_and_floats(q):
    pts = np.zeros(2)
    for i in range(3):
        k, length = LINKS[i]
        m = np.array([[math.cos(k * q[i]), 0.0], [length, math.sin(q[i])]])
        pts = m @ (pts + 1.0)
    return np.sum(pts**2)


def table_in_a_closure():
    table = [(0.5, 1.0), (0.25, 2.0), (0.125, 3.0)]

    def f(x):
        acc = np.zeros(2)
        for j in range(3):
            c, s = table[j]
            acc = np.array([acc[0] + c * x[j], s * math.sin(x[j])]) * 0.9
        return acc @ acc
    return f


TABLES = [table_by_zip, table_by_index, table_of_ints_and_floats, table_in_a_closure()]


def over_a_tuple_of_numbers(centre):
    d = np.array([0.0, 0.0, 1.0])
    total = 0.0
    for ox in (-0.2, 0.0, 0.2):
        oc = np.array([ox, 0.1, 0.0]) - centre
        b = np.dot(oc, d)
        total += -b - np.sqrt(b * b - np.dot(oc, oc) + 1.0)
    return total


def items_of_a_vector_by_counter(x):
    acc = np.zeros(2)
    for j in range(x.shape[0]):
        acc = np.array([acc[0] + WEIGHTS[j] * x[j], math.cos(x[j]) + 0.5 * acc[1]])
    return acc @ acc


def pairs_over_a_tuple(x):
    out = 0.0
    for scale in (0.5, 1.0, 2.0):
        v = np.array([scale * x[0], x[1], scale])
        out = out + np.sum(np.tanh(v) * x)
    return out


def reference_by_arange(x):
    ref = np.sin(np.arange(x.shape[0]) * 0.4)
    state = np.zeros(2)
    err = 0.0
    for t in range(x.shape[0]):
        state = 0.9 * state + 0.1 * (np.array([ref[t], 0.0]) - x[t] * np.array([1.0, 0.5]))
        err = err + state @ state
    return err


def grid_by_linspace(x):
    ts = np.linspace(0.0, 1.0, 5)
    acc = np.zeros(2)
    for i in range(5):
        acc = np.array([acc[1] + ts[i] * x[0], np.cos(ts[i] * x[1]) + acc[0] * x[2]])
    return np.sum(acc**2)


COUNTERS = [over_a_tuple_of_numbers, items_of_a_vector_by_counter, pairs_over_a_tuple, reference_by_arange,
            grid_by_linspace]
