"""Wave 35f: first and second order exact at special points where a zero weight, a slice or a tie meets
an infinite or undefined local slope (test_wave35f.py), written as users write them.

WEIGHTED_LOOPS: a root (``math.sqrt``, ``np.sqrt``, a fractional power, ``math.asin`` at 1) of one
element times its weight read in a loop from a module list, the weight 0 where the element sits at
the root's infinite slope: f does not read that element, so its derivative is 0, at every order.

DOTS: a module list of weights in a dot product with roots, a weight (or a column) 0 where the root's
operand is 0.

BOUNDS: a clip or an extremum whose bound is an element of x itself (equal only algebraically), tied
in that element: the other elements' rows and columns of the Hessian are exact.

LOOP_KINKS: a kink or a tie of one element reached through a loop's carry, the other entries exact.
"""

from __future__ import annotations

import math

import numpy as np

#: module-level lists: their items' shape is not known when srcdiff generates the code
WEIGHTS = [0.0, 1.5, -0.5]
PAIRS = [[0.0, 2.0, 1.0], [0.0, -1.0, 0.5]]
W3 = np.array([1.5, -0.5, 2.0])


# ---- a zero weight in a loop before a root's infinite slope ----

def loop_math_sqrt(x):
    """The weighted roots summed in a loop over the list's positions, beside a product."""
    s = 0.0
    for i in range(3):
        s += WEIGHTS[i] * math.sqrt(x[i])
    return s + x[1] * x[2]


def loop_zip_weights(x):
    """The weights and the elements zipped, the root first."""
    s = 0.0
    for w, v in zip(WEIGHTS, x):
        s = s + math.sqrt(v) * w
    return s + x[1] ** 2


def loop_enumerate_power(x):
    """enumerate over the list, a fractional power of the element (infinite slope at 0)."""
    total = 0.0
    for i, w in enumerate(WEIGHTS):
        total = total + w * x[i] ** 0.5 + 0.1 * x[i] ** 2
    return total


def loop_asin(x):
    """math.asin at 1 (infinite slope) times a zero weight, in a while loop."""
    s, i = 0.0, 0
    while i < 3:
        s = s + WEIGHTS[i] * math.asin(x[i])
        i += 1
    return s + x[0] * x[2]


def _term(w, v):
    return w * math.sqrt(v)


def loop_helper(x):
    """The weighted root in a helper called in the loop."""
    s = 0.0
    for i in range(3):
        s = s + _term(WEIGHTS[i], x[i])
    return s + np.sin(x[1]) * x[2]


def loop_np_sqrt(x):
    """np.sqrt of one element in the loop, the weight read from a module array."""
    s = 0.0
    for i in range(3):
        s = s + (W3[i] - 1.5) * np.sqrt(x[i])
    return s + x[1] * x[2]


# ---- a zero weight from a module list in a dot product ----

def dot_list_sqrt(x):
    """np.dot of the list's array with the roots."""
    return np.dot(np.array(WEIGHTS), np.sqrt(x)) + x[1] * x[2]


def matmul_list_sqrt(x):
    """The list's array @ the roots, the roots first in a second term."""
    return np.array(WEIGHTS) @ np.sqrt(x) + np.sqrt(x) @ np.asarray(WEIGHTS) * 0.5 + x[1] ** 2


def dot_list_cbrt(x):
    """np.dot of the cube roots with the list (the list second)."""
    return np.dot(np.cbrt(x), np.asarray(WEIGHTS)) + np.sum(x[1:] ** 2)


def matrix_list_sqrt(x):
    """A matrix from a list of lists, its column 0 all 0, times the roots: a vector, squared."""
    v = np.array(PAIRS) @ np.sqrt(x)
    return np.sum(v ** 2) + x[1] * x[2]


# ---- a bound that is an element of x ----

def clip_bound_element(x):
    """np.clip with its lower bound x[0] times 1.0 (tied with x[0], equal only algebraically), cubed."""
    lo = x[0] * 1.0
    return np.sum(np.clip(x, lo, 10.0) ** 3)


def clip_upper_element(x):
    """The upper bound the last element plus 0.0, a square and a sine."""
    hi = x[-1] + 0.0
    return np.sum(np.clip(x, -5.0, hi) ** 2) + np.sum(np.sin(x))


def maximum_floor_element(x):
    """np.maximum of x and its first element, times a weight, plus cubes."""
    return np.sum(np.maximum(x, x[0] * 1.0) * W3) + np.sum(x ** 3)


def minimum_mean_element(x):
    """np.minimum of x and its last element, averaged, times a quadratic."""
    return np.mean(np.minimum(x, 1.0 * x[-1]) ** 2) + x[0] * x[1]


# ---- a kink or a tie through a loop's carry ----

def loop_max(x):
    """Builtin max at its tie in a Python loop over the elements."""
    s = 0.0
    for i in range(len(x)):
        s = s + W3[i] * max(x[i], 0.0) + x[i] ** 2 * (i + 1.0)
    return s + x[0] * x[1]


def loop_abs(x):
    """|x[i]| carried in a loop, the others smooth."""
    s = 0.0
    for i in range(3):
        s = s + abs(x[i]) * (i + 1.0) + x[i] ** 3
    return s + x[1] * x[2]


def loop_np_maximum(x):
    """np.maximum of one element in a loop over range(len(x))."""
    s = 0.0
    for i in range(len(x)):
        s = s + np.maximum(x[i], 0.0) ** 2 * 0.0 + np.maximum(x[i] - 0.5, 0.0) + x[i] * x[i]
    return s


def loop_relu_carry(x):
    """A carried hidden value through relu, times weights (h = max(h, 0) * w)."""
    h = x[0]
    s = 0.0
    for i in range(1, 3):
        h = np.maximum(h, 0.0) * W3[i] + x[i]
        s = s + h * h
    return s


def _a(shape, scale=0.7):
    return lambda rng: (scale * rng.normal(size=shape),)


def _inside(shape):
    """Inside the roots' and the arcsine's domain."""
    return lambda rng: (rng.uniform(0.2, 0.8, size=shape),)


X0 = np.array([0.0, 1.0, 2.0])

#: (name, f, a point where element 0, weighted 0, sits at its infinite slope)
WEIGHTED_LOOPS = [
    ("loop_math_sqrt", loop_math_sqrt, X0),
    ("loop_zip_weights", loop_zip_weights, X0),
    ("loop_enumerate_power", loop_enumerate_power, X0),
    ("loop_asin", loop_asin, np.array([1.0, 0.5, 0.2])),
    ("loop_helper", loop_helper, X0),
    ("loop_np_sqrt", loop_np_sqrt, X0),
]
DOTS = [
    ("dot_list_sqrt", dot_list_sqrt, X0),
    ("matmul_list_sqrt", matmul_list_sqrt, X0),
    ("dot_list_cbrt", dot_list_cbrt, X0),
    ("matrix_list_sqrt", matrix_list_sqrt, X0),
]
#: (name, f, a point where one element ties with a bound made from it)
BOUNDS = [
    ("clip_bound_element", clip_bound_element, np.array([0.4, 0.5, 1.2, 2.0])),
    ("clip_upper_element", clip_upper_element, np.array([0.4, -0.5, 1.2, 1.5])),
    ("maximum_floor_element", maximum_floor_element, np.array([0.4, 0.5, 1.2])),
    ("minimum_mean_element", minimum_mean_element, np.array([0.4, 1.5, -1.2, 0.9])),
]
#: (name, f, a point where one element sits at a kink or a tie reached through a loop's carry)
LOOP_KINKS = [
    ("loop_max", loop_max, np.array([0.0, 1.0, 2.0])),
    ("loop_abs", loop_abs, np.array([0.0, 1.0, -2.0])),
    ("loop_np_maximum", loop_np_maximum, np.array([0.5, 1.0, -2.0])),
    ("loop_relu_carry", loop_relu_carry, np.array([0.0, 1.0, 2.0])),
]

#: every program at ordinary points (random arguments), for every transformation
PROGRAMS = [(name, f, _inside(x.shape), 0) for name, f, x in WEIGHTED_LOOPS + DOTS] \
    + [(name, f, _a(x.shape), 0) for name, f, x in BOUNDS + LOOP_KINKS]


# ---- |a - b| where a and b are one function near the point (a zero that persists) ----

def huber_clip_excess(r, d=0.8):
    """Huber's loss as half the clipped square plus d |r - clip(r)|: inside the band r - clip(r) is 0 nearby."""
    c = np.clip(r, -d, d)
    return np.mean(0.5 * c ** 2 + d * np.abs(r - c))


def excess_over_cap(x):
    """|np.minimum(x, 1) - x| (0 below the cap) beside a product."""
    return np.sum(np.abs(np.minimum(x, 1.0) - x)) + x[0] * x[1] ** 2


def relu_residual(x):
    """|x - np.maximum(x, 0)| squared out as the negative part, beside cubes."""
    return np.sum(np.abs(x - np.maximum(x, 0.0)) * 2.0) + np.sum(x ** 3)


def clipped_gap_fabs(x):
    """np.fabs of a difference of one clip with the value, times a weight."""
    return np.sum(np.fabs(np.clip(x, -2.0, 2.0) - x) * W3[: x.size]) + np.sin(x[0]) * x[2]


#: (name, f, a point where each |a - b| is 0 near the point: every element strictly inside its band, or
#: one element on the band's edge, where the Hessian's own entry may be NaN)
PERSISTENT_ZEROS = [
    ("huber_clip_excess", huber_clip_excess, np.array([0.3, -0.5, 0.1, 1.5])),
    ("excess_over_cap", excess_over_cap, np.array([0.2, -0.7, 0.9])),
    ("relu_residual", relu_residual, np.array([0.4, 1.2, -0.3])),
    ("clipped_gap_fabs", clipped_gap_fabs, np.array([0.5, -1.0, 2.5])),
    ("huber_clip_excess_edge", huber_clip_excess, np.array([0.8, -0.5, 0.1, 1.5])),
]
PROGRAMS += [(name, f, _a(x.shape, 1.2), 0) for name, f, x in PERSISTENT_ZEROS[:-1]]
