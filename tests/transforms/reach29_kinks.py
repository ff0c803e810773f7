"""Kinks at 0 an element leaves unused (test_reach29_kinks.py): the gradient's share there is 0 on
both sides of the kink, so the Hessian exists there (0 from it); and kinks whose share moves or is
used, which have no second derivative (NaN).

Each row of `UNUSED` / `UNUSED_ABS` is ``(name, f, x)``: x has an element on the kink that f leaves
unused (a slice, a mask, a zero weight); the reference is central differences of the gradient
(srcdiff's first order, checked against central differences of f itself), which is smooth near x.
"""

from __future__ import annotations

import math

import numpy as np

MASK = np.array([0.0, 1.0, 1.0])
W = np.array([0.0, 2.0, 1.0])


def abs_sliced(x):
    return np.sum(np.abs(x)[1:] * x[1:])


def abs_masked(x):
    return np.sum(np.abs(x) * MASK * x)


def abs_zero_weight(x):
    return np.sum(W * np.abs(x)) + np.sum(x ** 2)


def abs_method_sliced(x):
    return np.sum(abs(x)[1:] ** 3) + x[0] ** 2


def fabs_sliced(x):
    return np.sum(np.fabs(x[1:]) * np.fabs(x)[1:]) + np.sum(np.fabs(x)[1:])


def builtin_abs_items(x):
    return sum(W[k] * abs(x[k]) for k in range(3)) + x[0] * x[1]


def math_fabs_loop(x):
    t = 0.0
    for k in range(1, 3):
        t = t + math.fabs(x[k]) * x[k]
    return t + 0.5 * x[0] ** 2


def copysign_zero_weight(x):
    return np.sum(W * np.copysign(x, 1.0)) + np.sum(x * x)


def l1_penalty_masked(x):
    # an L1 penalty on every weight but the bias (the first), with the bias at 0
    return np.sum(MASK * np.abs(x)) * 0.1 + np.sum((x - 0.3) ** 2)


def relu_sliced(x):
    return np.sum(np.maximum(x, 0.0)[1:] * x[1:])


def minimum_zero_weight(x):
    return np.sum(W * np.minimum(x, 0.0)) + np.sum(x ** 2)


def clip_sliced(x):
    return np.sum(np.clip(x, 0.0, 1.0)[1:] ** 2)


X0 = np.array([0.0, 0.5, 1.5])
XN = np.array([0.0, -0.5, 1.5])

#: an unused element on a tie or kink whose gradient srcdiff differentiates exactly (0 from it)
UNUSED = [
    ("math_fabs_loop", math_fabs_loop, X0),
    ("relu_sliced", relu_sliced, X0),
    ("minimum_zero_weight", minimum_zero_weight, XN),
    ("clip_sliced", clip_sliced, X0),
]

#: |x| at 0 on an unused element (open in reach 29: NaN in its entries of the Hessian): exact since reach 30
UNUSED_ABS = [
    ("abs_sliced", abs_sliced, X0),
    ("abs_masked", abs_masked, XN),
    ("abs_zero_weight", abs_zero_weight, X0),
    ("abs_method_sliced", abs_method_sliced, XN),
    ("fabs_sliced", fabs_sliced, X0),
    ("builtin_abs_items", builtin_abs_items, XN),
    ("copysign_zero_weight", copysign_zero_weight, XN),
    ("l1_penalty_masked", l1_penalty_masked, X0),
]

def x_times_abs(x):
    return np.sum(x * np.abs(x))


def abs_used(x):
    return np.sum(np.abs(x) + 0.5 * x ** 2)


def weighted_abs_moving(x):
    # the weight of x[0]'s |.| is x[1] - 0.5, 0 at the point but moving with x[1]
    return (x[1] - 0.5) * abs(x[0]) + x[2] ** 2


#: (name, f, x, (direction, component)): kinks whose share moves or is not 0 (no second derivative):
#: the gradient's component is NaN along the direction (``hessian(f)(x)[direction, component]``)
MOVING = [
    ("x_times_abs", x_times_abs, X0, (0, 0)),
    ("abs_used", abs_used, X0, (0, 0)),
    ("weighted_abs_moving", weighted_abs_moving, X0, (1, 0)),
]
