"""Python spellings grad refused after reach11a, each written several ways as everyday code writes
it: a state object (dataclass, namedtuple, a class whose ``__init__`` stores its arguments) rebuilt
by a helper of the user's (``s = step(s, dt)``, in a loop or once, the helper's fields computed in
statements, two helpers per step, a helper that builds the first state), ``return add(v)`` of
a nested function writing the caller's names with ``nonlocal``, and a sliding window kept in a
``collections.deque(maxlen=k)`` (k a number written in the code, or a parameter), and
``list(zip(*rows))`` of rows written as a display of tuples.  test_reach11c_spellings.py runs
every transformation on them."""

import collections
import dataclasses
from collections import deque
from typing import NamedTuple

import numpy as np

# ---- 1. a state object rebuilt by a helper ---------------------------------------------------------


@dataclasses.dataclass
class Phase:
    q: np.ndarray
    p: np.ndarray


class Orbit(NamedTuple):
    q: np.ndarray
    p: np.ndarray
    t: float


class Particle:
    def __init__(self, x, v):
        self.x = x
        self.v = v


def _euler(s, dt):
    return Phase(s.q + dt * s.p, s.p - dt * s.q)


def euler_steps(q0, dt=0.1):  # the red team's
    s = Phase(q0, 2.0 * q0)
    for _ in range(3):
        s = _euler(s, dt)
    return np.sum(s.q ** 2) + np.sum(s.p * s.q)


def _orbit_step(s, dt):
    force = -np.sin(s.q)
    p = s.p + dt * force
    return Orbit(q=s.q + dt * p, p=p, t=s.t + dt)


def namedtuple_rebuilt_in_a_while(q0):
    s = Orbit(q0, np.cos(q0), 0.0)
    while s.t < 0.35:
        s = _orbit_step(s, 0.1)
    return np.sum(s.q * s.p) + s.t


def _kick(s, dt):
    return Phase(s.q, s.p - dt * s.q ** 3)


def _drift(s, dt):
    return Phase(s.q + dt * s.p, s.p)


def leapfrog_two_helpers(q0):
    s = Phase(q0, np.zeros_like(q0))
    for _ in range(4):
        s = _kick(s, 0.05)
        s = _drift(s, 0.1)
        s = _kick(s, 0.05)
    return np.sum(s.q ** 2 + s.p ** 2)


def _start(x):
    return Particle(np.tanh(x), 0.5 * x)


def _move(s, h):
    return Particle(s.x + h * s.v, s.v * (1.0 - h) - h * s.x)


def plain_class_from_a_helper(x):
    s = _start(x)
    s = _move(s, 0.2)
    s = _move(s, 0.3)
    return np.sum(s.x * s.v)


def _scalar_step(s, k):
    return Phase(s.q * np.cos(k) + s.p * np.sin(k), s.p * np.cos(k) - s.q * np.sin(k))


def scalar_state_rotated(theta, x):
    s = Phase(x, 2.0 * x)
    for k in range(3):
        s = _scalar_step(s, theta * (k + 1))
    return s.q * s.p


def _damped(s, gamma):
    if gamma > 0.5:
        return Phase(s.q + 0.1 * s.p, s.p * (1.0 - gamma))
    return Phase(s.q + 0.1 * s.p, s.p - gamma * s.q)


def helper_with_two_returns(q0, gamma=0.3):
    s = Phase(q0, q0 ** 2)
    for _ in range(2):
        s = _damped(s, gamma)
    before = s
    s = _damped(s, 0.9)
    return np.sum(s.q * before.p) + np.sum(s.p)


def _orbit_kick(s, dt):
    return Orbit(s.q + dt * s.p, s.p - dt * np.tanh(s.q), s.t + dt)


def namedtuple_argument_stepped(s0, steps=3):  # (the matrix takes no namedtuple argument: its own test)
    s = s0
    for _ in range(steps):
        s = _orbit_kick(s, 0.1)
    return np.sum(s.q ** 2 * s.p) + s.t * np.sum(s0.p)


def _shift(s):
    return Phase(s.q + s.p, s.p * 0.5)


def rebuilt_beside_its_last_value(q0):
    s = Phase(q0, 2.0 * q0)
    prev = s
    for _ in range(3):  # a literal count: the loop is written out, each `prev = s` names one object
        prev = s
        s = _shift(s)
    return np.sum(s.q ** 2) + np.sum(prev.q ** 3)


# ---- 2. return add(v) of a nested function writing the caller's names ------------------------------


def nonlocal_returned(w):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
        return total * v

    for v in w[:-1]:
        add(np.sin(v))
    return add(w[-1] ** 2)


def nonlocal_returned_in_a_branch(w):
    acc = np.zeros_like(w)

    def push(v):
        nonlocal acc
        acc = acc + v
        return np.sum(acc ** 2)

    push(np.tanh(w))
    if np.sum(w) > 0.0:
        return push(w * 2.0)
    return push(w ** 3)


def nonlocal_returned_counts(w):
    n = 0
    s = 0.0

    def mean_with(v):
        nonlocal n, s
        n = n + 1
        s = s + v
        return s / n

    for v in w:
        mean_with(v ** 2)
    return mean_with(np.exp(w[0]))


# ---- 3. a sliding window in collections.deque(maxlen=k) -------------------------------------------


def deque_window(x):  # the red team's, its width written as a number
    window = collections.deque(maxlen=2)
    total = 0.0
    for v in x:
        window.append(v)
        total = total + sum(window) ** 2
    return total


def deque_moving_mean(x):
    window = deque(maxlen=3)
    total = 0.0
    for v in x:
        window.append(np.sin(v) * v)
        total = total + np.mean(window) * len(window)
    return total


def deque_of_rows(W):
    window = deque(maxlen=2)
    total = 0.0
    for row in W:
        window.append(np.tanh(row))
        total = total + np.sum(sum(window) ** 2) + np.mean(window)
    return total


def deque_popleft(x):
    window = deque(maxlen=3)
    total = 0.0
    for k, v in enumerate(x):
        window.append(v ** 2)
        if k % 2 == 1:
            window.popleft()
        total = total + np.sum(window)
    return total


def _smoothed(x, w):
    window = deque(maxlen=4)
    out = 0.0
    for v in x:
        window.append(w * v)
        out = out + np.tanh(sum(window) / len(window))
    return out


def deque_in_a_helper(x, w):
    return _smoothed(x, w) + _smoothed(x[::-1], w * 0.5)


def deque_of_a_given_width(x, leak=0.8, width=3):  # the red team's integrator
    window = collections.deque(maxlen=width)
    state, total = 0.0, 0.0
    for v in x:
        state = leak * state + v
        window.append(state)
        total += sum(window) ** 2 / len(window)
    return total


def deque_of_a_given_width_popped(x, width=2):
    window = deque(maxlen=width)
    total = 0.0
    for k, v in enumerate(x):
        window.append(np.sin(v) * x[0])
        if k % 2 == 1:
            window.popleft()
        total = total + np.mean(window) * len(window) + np.sum(window)
    return total


# ---- 4. list(zip(*rows)) of a display of tuples -------------------------------------------------


def columns_of_pairs(w):
    rows = [(w[0], w[1]), (w[2], w[0] * w[1]), (np.sin(w[2]), 1.0)]
    cols = list(zip(*rows))
    return sum(c[0] * c[1] + c[2] for c in cols) + sum(cols[0]) * len(cols)


def columns_unpacked_as_a_tuple(w):
    points = ((np.tanh(w[0]), w[1] ** 2), (w[2], 0.5), (w[1], w[0] * w[2]))
    xs, ys = tuple(zip(*points))
    return sum(x * y for x, y in zip(xs, ys)) + xs[2] ** 2


def _moments(a, b, c):
    table = [(a, a * b, np.exp(c)), (b, c, a * c)]
    cols = list(zip(*table))
    return sum(col[0] * col[1] for col in cols) + cols[2][1] * sum(cols[1])


def columns_in_a_helper(w):
    return _moments(w[0], w[1], w[2]) + _moments(w[2], w[0], 0.5)


def _M(r, *shape):
    return r.normal(size=shape)


PROGRAMS = [
    ("euler_steps", euler_steps, lambda r: (0.5 * r.normal(size=3),), 0),
    ("euler_steps_dt", euler_steps, lambda r: (0.5 * r.normal(size=3), 0.2), 1),
    ("namedtuple_rebuilt_in_a_while", namedtuple_rebuilt_in_a_while, lambda r: (r.normal(size=3),), 0),
    ("leapfrog_two_helpers", leapfrog_two_helpers, lambda r: (0.5 * r.normal(size=4),), 0),
    ("plain_class_from_a_helper", plain_class_from_a_helper, lambda r: (_M(r, 2, 3),), 0),
    ("scalar_state_rotated", scalar_state_rotated, lambda r: (0.4, 0.7), 0),
    ("scalar_state_rotated_x", scalar_state_rotated, lambda r: (0.4, 0.7), 1),
    ("helper_with_two_returns", helper_with_two_returns, lambda r: (r.normal(size=3),), 0),
    ("rebuilt_beside_its_last_value", rebuilt_beside_its_last_value, lambda r: (r.normal(size=3),), 0),
    ("deque_window", deque_window, lambda r: (r.normal(size=5),), 0),
    ("deque_moving_mean", deque_moving_mean, lambda r: (r.normal(size=5),), 0),
    ("deque_of_rows", deque_of_rows, lambda r: (_M(r, 4, 2),), 0),
    ("deque_popleft", deque_popleft, lambda r: (r.normal(size=5),), 0),
    ("deque_in_a_helper", deque_in_a_helper, lambda r: (r.normal(size=6), 0.7), 0),
    ("deque_of_a_given_width", deque_of_a_given_width, lambda r: (r.normal(size=5),), 0),
    ("deque_of_a_given_width_leak", deque_of_a_given_width, lambda r: (r.normal(size=5), 0.6, 2), 1),
    ("deque_of_a_given_width_popped", deque_of_a_given_width_popped, lambda r: (r.normal(size=5),), 0),
    ("columns_of_pairs", columns_of_pairs, lambda r: (r.normal(size=3),), 0),
    ("columns_unpacked_as_a_tuple", columns_unpacked_as_a_tuple, lambda r: (r.normal(size=3),), 0),
    ("columns_in_a_helper", columns_in_a_helper, lambda r: (0.5 * r.normal(size=3),), 0),
    ("nonlocal_returned", nonlocal_returned, lambda r: (r.normal(size=4),), 0),
    ("nonlocal_returned_in_a_branch", nonlocal_returned_in_a_branch, lambda r: (np.array([0.3, -0.1, 0.6]),), 0),
    ("nonlocal_returned_counts", nonlocal_returned_counts, lambda r: (r.normal(size=3),), 0),
]
