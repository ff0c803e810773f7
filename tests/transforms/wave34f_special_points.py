"""Wave 34f: second order at a special point of one element, exact in the entries it does not touch
(test_wave34f.py).

DISTANCES: a root of a sum of squares at 0 (no derivative in its elements) beside terms of other
elements that it does not read: by reverse over reverse the gradient's ``1 / (2 * 0)`` is multiplied
into the product with the squares' elements and scattered into the gradient, and a Hessian row whose
seed leaves those elements out must hold it (0, not 0 * inf).

OTHER_DIRECTIONS: a kink or a tie in element 0, every other element smooth: forward over reverse
(``hvp``, ``jvp(grad)``) along e_j, j != 0, must be exact in every entry (element 0 does not move
along the line, so its share is constant there), NaN only along e_0.
"""

from __future__ import annotations

import math

import numpy as np

# ---- roots of sums of squares beside other terms ----


def distance_plus_sine(x):
    """Written as a sum of two squares, a sine of the others."""
    return np.sqrt(x[0] ** 2 + x[1] ** 2) + np.sin(x[2]) * x[3]


def scaled_distance(x):
    """A distance of a slice scaled by a constant, a sum of cubes of the rest."""
    return 2.0 * np.sqrt(np.sum(x[:2] * x[:2])) + np.sum(x[2:] ** 3)


def distance_by_dot(x):
    """The root of a dot product of a slice with itself, a quadratic coupling of the rest."""
    d = x[:2]
    return np.sqrt(d @ d) + x[2] * x[3] + x[3] ** 2


def math_hypot_by_hand(x):
    """math.sqrt of two squares, read from an array's items (a Python float path)."""
    return math.sqrt(x[0] * x[0] + x[1] * x[1]) + x[2] ** 2 * x[3]


def distance_of_a_difference(x):
    """The distance between two points of the parameters (equal at the point), a log of the rest."""
    d = x[:2] - x[2:4]
    return np.sqrt(np.sum(d ** 2)) + np.log(1.0 + x[4] ** 2)


# ---- a zero weight from a module list before a root's infinite slope ----

#: a module-level list: its items' shape is not known when srcdiff generates the code
WEIGHTS = [0.0, 1.5, -0.5]


def sqrt_module_weights(x):
    """np.array of a module list times a root at 0, where its weight is 0."""
    return np.sum(np.array(WEIGHTS) * np.sqrt(x)) + x[1] * x[2]


def cbrt_module_weights(x):
    """np.asarray of the list, a cube root (infinite slope at 0)."""
    return np.sum(np.asarray(WEIGHTS) * np.cbrt(x)) + x[1] * x[2]


def arcsin_module_weights(x):
    """An arcsine at 1 (infinite slope) times the list's 0, the other factor first."""
    w = np.array(WEIGHTS)
    return np.sum(np.arcsin(x) * w) + x[0] * x[2]


def sqrt_module_weights_dot(x):
    """The weights in a dot product with the roots."""
    return np.dot(np.array(WEIGHTS), np.sqrt(x)) + x[1] * x[2]


def sqrt_module_weights_mean(x):
    """The weighted roots beside squares, averaged (np.mean's adjoint reads the sum's shape only)."""
    return np.mean(np.array(WEIGHTS) * np.sqrt(x) + x ** 2)


# ---- a kink in element 0, a direction along another ----

A4 = np.array([[2.0, 0.5, -1.0, 0.2], [0.5, 1.0, 0.3, 0.0], [-1.0, 0.3, 3.0, 0.4], [0.2, 0.0, 0.4, 1.5]])


def l1_quadratic(x, a=A4):
    """An L1 penalty at 0 beside a quadratic coupling every element."""
    return np.sum(np.abs(x)) + x @ a @ x


def relu_coupled(x, a=A4):
    """relu at its tie in element 0, the quadratic beside it."""
    return np.sum(np.maximum(x, 0.0)) + 0.5 * x @ a @ x


def clip_coupled(x, a=A4):
    """np.clip at its upper bound in element 0."""
    return np.sum(np.clip(x, -1.0, 1.0) ** 2) + x @ a @ x


def square_tied(x):
    """np.maximum(x * x, 0) at 0 (stationary and curved in element 0), cubes and a product beside it."""
    return np.sum(np.maximum(x * x, 0.0)) + np.sum(x ** 3) + x[0] * x[1] * x[2]


def hinge_of_abs(x):
    """A hinge of |x| - 0.5 at its corner in element 0, through two elementwise steps."""
    return np.sum(np.maximum(np.abs(x) - 0.5, 0.0) * 3.0) + np.sum(np.sin(x) * x[::-1])


def minimum_sliced(x):
    """np.minimum of a slice at its tie, a smooth term of all."""
    return np.sum(np.minimum(x[:2], 0.25)) + np.sum(np.exp(0.3 * x)) * x[3]


def _a(shape, scale=0.7):
    return lambda rng: (scale * rng.normal(size=shape),)


def _inside(shape):
    """Inside the roots' and the arcsine's domain."""
    return lambda rng: (rng.uniform(0.2, 0.8, size=shape),)


#: (name, f, a point where the root's radicand is 0)
DISTANCES = [
    ("distance_plus_sine", distance_plus_sine, np.array([0.0, 0.0, 0.4, -1.2])),
    ("scaled_distance", scaled_distance, np.array([0.0, 0.0, 0.7, -0.3])),
    ("distance_by_dot", distance_by_dot, np.array([0.0, 0.0, 1.1, 0.5])),
    ("math_hypot_by_hand", math_hypot_by_hand, np.array([0.0, 0.0, 0.6, 1.3])),
]
#: open (test_wave34f.py): the distance of two points of the parameters, x[4]'s row NaN by reverse over reverse
DIFFERENCE = ("distance_of_a_difference", distance_of_a_difference, np.array([0.5, -0.2, 0.5, -0.2, 0.9]))

#: (name, f, a point where element 0, weighted 0, sits at its infinite slope)
ZERO_WEIGHTS = [
    ("sqrt_module_weights", sqrt_module_weights, np.array([0.0, 1.0, 2.0])),
    ("cbrt_module_weights", cbrt_module_weights, np.array([0.0, 1.0, 2.0])),
    ("arcsin_module_weights", arcsin_module_weights, np.array([1.0, 0.5, 0.2])),
    ("sqrt_module_weights_mean", sqrt_module_weights_mean, np.array([0.0, 1.0, 2.0])),
]
#: its gradient is NaN in element 0 at x[0] = 0 (first order, open): its Hessian against the closed form
DOTTED = ("sqrt_module_weights_dot", sqrt_module_weights_dot, np.array([0.0, 1.0, 2.0]))

#: (name, f, a point where element 0 sits at a kink or a tie)
OTHER_DIRECTIONS = [
    ("l1_quadratic", l1_quadratic, np.array([0.0, 0.5, -1.0, 0.3])),
    ("relu_coupled", relu_coupled, np.array([0.0, 0.5, -1.0, 0.3])),
    ("clip_coupled", clip_coupled, np.array([1.0, 0.3, -0.2, 0.6])),
    ("square_tied", square_tied, np.array([0.0, 0.5, -1.0])),
    ("hinge_of_abs", hinge_of_abs, np.array([0.5, 1.0, -2.0, 0.1])),
    ("minimum_sliced", minimum_sliced, np.array([0.25, 0.1, -0.4, 0.8])),
]

#: every program at ordinary points (random arguments), for every transformation
PROGRAMS = [(name, f, _a(x.shape), 0) for name, f, x in DISTANCES + [DIFFERENCE] + OTHER_DIRECTIONS] \
    + [(name, f, _inside(x.shape), 0) for name, f, x in ZERO_WEIGHTS + [DOTTED]]
