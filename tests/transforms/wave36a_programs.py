"""Wave 36a: kinks and ties at their special points, reached through what a gradient reads again
(test_wave36a.py), written as users write them.

CARRIES: a value carried through a loop (for, while, a list appended, a helper called in the loop, a
tuple carried) passes a kink (relu, builtin max / min, np.abs, np.clip, np.where, np.sort) at the first
element's tie: the gradient reads that value again, so its derivative along the kinked element does not
exist, and along the others it does.

KINKED_COMPONENTS: straight-line code whose gradient's component is a kinked value itself (the x[1]
component of ``np.maximum(x[0], 0.0) * x[1]`` is the relu of x[0]).

Each row has a point at the tie and one beside it (the same program, element 0 moved off the kink).
"""

from __future__ import annotations

import numpy as np

W3 = np.array([1.5, -0.5, 2.0])


# ---- a kink of a value carried through a loop ----

def relu_carry(x):
    """A hidden value through relu, times weights (an RNN's cell, its state carried)."""
    h = x[0]
    s = 0.0
    for i in range(1, 3):
        h = np.maximum(h, 0.0) * W3[i] + x[i]
        s = s + h * h
    return s


def builtin_max_carry(x):
    """Builtin max of the carried value and 0, scaled, plus the next element."""
    h = x[0]
    s = 0.0
    for i in range(1, len(x)):
        h = max(h, 0.0) * 0.5 + x[i]
        s = s + h ** 2 * (i + 1.0)
    return s


def min_carry_while(x):
    """A while loop carrying min(h, 0) plus the next element, a cube of it summed."""
    h, s, i = x[0], 0.0, 1
    while i < 3:
        h = min(h, 0.0) * 2.0 + x[i]
        s = s + h * h * h
        i += 1
    return s


def abs_carry(x):
    """|h| carried (a distance accumulated), the running value squared."""
    h = x[0]
    s = 0.0
    for i in range(1, 3):
        h = np.abs(h) - x[i]
        s = s + h * h
    return s


def clip_carry(x):
    """np.clip of the carried value at its lower bound (x[0] = -1 at the tie)."""
    h = x[0]
    s = 0.0
    for i in range(1, 3):
        h = np.clip(h, -1.0, 1.0) * W3[i] + x[i]
        s = s + h * h
    return s


def where_carry(x):
    """A leaky relu written with np.where, carried."""
    h = x[0]
    s = 0.0
    for i in range(1, 3):
        h = np.where(h > 0.0, h, 0.1 * h) * W3[i] + x[i]
        s = s + h * h
    return s


def list_carry(x):
    """The states appended to a list in the loop, summed as squares after it."""
    hs = [x[0]]
    for i in range(1, 3):
        hs.append(np.maximum(hs[-1], 0.0) * W3[i] + x[i])
    return sum(h * h for h in hs)


def _cell(h, v, w):
    return np.maximum(h, 0.0) * w + v


def helper_carry(x):
    """The cell in a helper called in the loop."""
    h = x[0]
    s = 0.0
    for i in range(1, 3):
        h = _cell(h, x[i], W3[i])
        s = s + h * h
    return s


def tuple_carry(x):
    """Two values carried as a tuple, one through relu, swapped each step."""
    a, b = x[0], x[1]
    s = 0.0
    for _ in range(2):
        a, b = b + x[2] * 0.5, np.maximum(a, 0.0) * 1.5
        s = s + a * b
    return s + a * a


def sort_carry(x):
    """A vector state sorted each step (the sorted vector carried), its first entries weighted."""
    v = x[:2] * 1.0
    s = 0.0
    for i in range(2):
        v = np.sort(v) * W3[: 2] + x[2] * (i + 1.0)
        s = s + np.sum(v * v)
    return s


# ---- a gradient component that is a kinked value (straight-line code) ----

def relu_times(x):
    return np.maximum(x[0], 0.0) * x[1] + x[2] ** 2


def abs_times(x):
    return np.abs(x[0]) * x[1] + np.sin(x[2]) * x[1]


def clip_times(x):
    return np.clip(x[0], -1.0, 1.0) * x[1] * x[2]


def min_squared_times(x):
    """min(x0, 0) named, then times x[1]."""
    m = np.minimum(x[0], 0.0)
    return m * x[1] + x[2] * x[1]


def relu_chain(x):
    """relu of relu: a hidden layer of two units, the second reading the first."""
    h1 = np.maximum(x[0] * 2.0 - x[1], 0.0)
    h2 = np.maximum(h1 * 1.5 + x[2], 0.0)
    return h2 * h2 + h1 * x[2]


#: (name, f, a point at the tie of element 0 (through the first iteration), a point beside it)
CARRIES = [
    ("relu_carry", relu_carry, np.array([0.0, 1.0, 2.0]), np.array([0.3, 1.0, 2.0])),
    ("builtin_max_carry", builtin_max_carry, np.array([0.0, 1.0, -0.5]), np.array([-0.2, 1.0, -0.5])),
    ("min_carry_while", min_carry_while, np.array([0.0, -1.0, 0.5]), np.array([0.4, -1.0, 0.5])),
    ("abs_carry", abs_carry, np.array([0.0, -1.0, 0.5]), np.array([-0.3, -1.0, 0.5])),
    ("clip_carry", clip_carry, np.array([-1.0, 0.2, 0.4]), np.array([-0.7, 0.2, 0.4])),
    ("where_carry", where_carry, np.array([0.0, 1.0, 2.0]), np.array([-0.4, 1.0, 2.0])),
    ("list_carry", list_carry, np.array([0.0, 1.0, 2.0]), np.array([0.5, 1.0, 2.0])),
    ("helper_carry", helper_carry, np.array([0.0, 1.0, 2.0]), np.array([-0.6, 1.0, 2.0])),
    ("tuple_carry", tuple_carry, np.array([0.0, 1.0, 0.4]), np.array([0.2, 1.0, 0.4])),
    ("sort_carry", sort_carry, np.array([0.5, 0.5, 0.3]), np.array([0.2, 0.5, 0.3])),
]
KINKED_COMPONENTS = [
    ("relu_times", relu_times, np.array([0.0, 1.5, 0.5]), np.array([0.4, 1.5, 0.5])),
    ("abs_times", abs_times, np.array([0.0, -1.5, 0.5]), np.array([-0.4, -1.5, 0.5])),
    ("clip_times", clip_times, np.array([1.0, 1.5, 0.5]), np.array([0.6, 1.5, 0.5])),
    ("min_squared_times", min_squared_times, np.array([0.0, 1.5, 0.5]), np.array([-0.4, 1.5, 0.5])),
    ("relu_chain", relu_chain, np.array([0.5, 1.0, 0.7]), np.array([0.7, 1.0, 0.7])),
]


def _a(shape):
    return lambda rng: (0.8 * rng.normal(size=shape),)


#: every program at ordinary points (random arguments), for every transformation
PROGRAMS = [(name, f, _a(x.shape), 0) for name, f, x, _ in CARRIES + KINKED_COMPONENTS]
