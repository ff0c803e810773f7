"""Special points (test_special30.py): an element at a point where a primitive's slope is infinite
or undefined (``np.sqrt`` / ``x ** p`` / ``np.log`` / ``1 / x`` at 0, ``np.arcsin`` at 1, a norm
of zeros, a denominator 0 in an untaken branch) that the output does not use, or uses through a
zero weight: the true derivative there is 0 (or, for a norm of zeros, the subgradient 0).

`PROGRAMS` rows ``(name, func, make_args(rng), wrt)`` are defined on both sides of the point, so
the matrix's central differences are their reference.  `EDGE` rows ``(name, func, x, gradient,
hessian)`` sit on the edge of a domain (f is NaN on one side), so their reference is the
derivative worked out by hand below each function.
"""

from __future__ import annotations

import math

import numpy as np

MASK = np.array([0.0, 1.0, 1.0])
W = np.array([0.0, 2.0, 1.0])
D = np.array([0.0, 2.0, -4.0])
X0 = np.array([0.0, 0.5, 1.5])
X1 = np.array([1.0, 0.5, -0.2])


# ---- defined on both sides: the singular element sliced away, or an untaken np.where branch ----


def sqrt_sliced(x):
    return np.sum(np.sqrt(x)[1:])


def sqrt_where_untaken(x):
    return np.sum(np.where(x > 0.0, np.sqrt(x), x))


def power_half_sliced(x):
    return np.sum((x ** 0.5)[1:] * x[1:])


def log_sliced(x):
    return np.sum(np.log(x)[1:]) + np.sum(x ** 2)


def log_where_untaken(x):
    return np.sum(np.where(x > 0.0, np.log(x), x))


def reciprocal_sliced(x):
    return np.sum((1.0 / x)[1:]) + x[0] ** 2


def arcsin_sliced(x):
    return np.sum(np.arcsin(x)[1:]) + x[0] ** 2


def safe_divide_constant(x):
    # the classic guarded division: D's zero makes x / D inf in the branch np.where leaves
    return np.sum(np.where(D != 0.0, x / D, 0.0) * x)


def minimum_of_a_ratio(x):
    # x / D is inf at D == 0, where np.minimum takes the constant
    return np.sum(np.minimum(x / D, 1.0) * x)


def maximum_of_a_log(x):
    # log(x) of a clamped x: np.maximum takes the constant below it
    return np.sum(np.maximum(np.log(np.maximum(x, 1e-300)), -5.0))


def norm_row_unused(x):
    rows = np.reshape(x, (2, 3)) * np.array([[0.0], [1.0]])
    return np.sum(np.linalg.norm(rows, axis=1) * np.array([0.0, 1.0]))


def norm_of_zeros(x):
    return np.linalg.norm(x[:2]) + np.sum(x ** 2)


def hand_norm_of_zeros(x):
    return np.sqrt(np.sum(x[:2] ** 2)) + np.sum(x ** 2)


def math_sqrt_items(x):
    return sum(math.sqrt(x[k]) for k in range(1, 3)) + x[0] ** 2


def power_zero(x):
    return np.sum(x ** 0) + np.sum(x ** 0.0 * x)


def power_one_and_two(x):
    return np.sum(x ** 1 + x ** 2 + x ** 3)


def power_of_a_variable_exponent(p):
    # 0 ** p = 0 near p > 0: d/dp is 0 there (0 * log 0 in the rule)
    return np.sum(np.array([0.0, 0.5, 2.0]) ** p)


def _at(x):
    return lambda rng: (np.array(x, dtype=float),)


PROGRAMS = [
    ("sqrt_sliced", sqrt_sliced, _at(X0), 0),
    ("sqrt_where_untaken", sqrt_where_untaken, _at([-1.0, 0.5, 1.5]), 0),
    ("power_half_sliced", power_half_sliced, _at(X0), 0),
    ("log_sliced", log_sliced, _at(X0), 0),
    ("log_where_untaken", log_where_untaken, _at([-1.0, 0.5, 1.5]), 0),
    ("reciprocal_sliced", reciprocal_sliced, _at(X0), 0),
    ("arcsin_sliced", arcsin_sliced, _at([1.0, 0.5, -0.2]), 0),
    ("safe_divide_constant", safe_divide_constant, _at([0.7, 0.5, 1.5]), 0),
    ("minimum_of_a_ratio", minimum_of_a_ratio, _at([0.7, 0.5, 1.5]), 0),
    ("maximum_of_a_log", maximum_of_a_log, _at([0.01, 0.5, 1.5]), 0),
    ("norm_row_unused", norm_row_unused, _at([0.0, 0.0, 0.0, 0.3, -0.4, 1.2]), 0),
    ("math_sqrt_items", math_sqrt_items, _at(X0), 0),
    ("power_zero", power_zero, _at(X0), 0),
    ("power_one_and_two", power_one_and_two, _at(X0), 0),
    ("power_of_a_variable_exponent", power_of_a_variable_exponent, _at([0.7, 1.3, 2.0]), 0),
]


# ---- programs whose truth is infinite, or that have no derivative: NaN or inf, never a number ----


def two_roots(x):
    return np.sum(np.sqrt(x) * np.sqrt(x))  # x: the slope 1 at 0, from one side


def root_squared(x):
    return np.sum(np.sqrt(x) ** 2)


def cos_of_root(x):
    return np.sum(np.cos(np.sqrt(x)))  # 1 - x / 2 + ...: the slope -1/2 at 0


def root_of_a_sum_squared(x):
    return np.sum(np.sqrt(x)) ** 2


def square_times_root(x):
    # x[1] ** 2 * sqrt(x[0]): at 0 the gradient is 0, but d/dx[1] of d/dx[0] is x[1] / sqrt(x[0]),
    # inf along x[1]; its adjoint x[1] ** 2 has the tangent 0 there yet moves
    return x[1] ** 2 * np.sqrt(x[0])


def weight_times_root(x):
    return x[1] * np.sqrt(x[0])  # d2 / dx0 dx1 = 1 / (2 sqrt(x0)): inf at 0


#: (name, f, x, entries): the gradient's derivatives ``(direction, component)`` with no finite value
NO_SECOND = [
    ("square_times_root", square_times_root, np.zeros(2), ((1, 0),)),
    ("weight_times_root", weight_times_root, np.zeros(2), ((1, 0), (0, 1))),
]

#: (name, f, x): the gradient's first element has no finite value (the truth is one-sided or infinite)
NO_FIRST = [
    ("two_roots", two_roots, np.zeros(2)),
    ("root_squared", root_squared, np.zeros(2)),
    ("cos_of_root", cos_of_root, np.zeros(2)),
    ("root_of_a_sum_squared", root_of_a_sum_squared, np.zeros(2)),
]


# ---- on the edge of the domain: f is NaN on one side, the derivative is worked out by hand ----


def sqrt_zero_weight(x):
    return np.sum(W * np.sqrt(x))


def sqrt_masked(x):
    return np.sum(np.sqrt(x) * MASK)


def power_third_zero_weight(x):
    return np.sum(W * x ** 0.3)


def sqrt_scalar_times_zero(x):
    return 0.0 * np.sqrt(x[0]) + np.sum(x[1:] ** 2)


def math_sqrt_zero_weight(x):
    return sum(W[k] * math.sqrt(x[k]) for k in range(3))


def arcsin_zero_weight(x):
    return np.sum(W * np.arcsin(x))


def arccos_zero_weight(x):
    return np.sum(W * np.arccos(-x))


def cbrt_zero_weight(x):
    return np.sum(W * np.cbrt(x))


def _diag(*d):
    return np.diag(np.array(d, dtype=float))


EDGE = [
    # d/dx W sqrt(x) = W / (2 sqrt x); second W * -1/4 x^-3/2
    ("sqrt_zero_weight", sqrt_zero_weight, X0,
     np.array([0.0, 1 / math.sqrt(0.5), 0.5 / math.sqrt(1.5)]),
     _diag(0.0, -0.5 * 0.5 ** -1.5, -0.25 * 1.5 ** -1.5)),
    ("sqrt_masked", sqrt_masked, X0,
     np.array([0.0, 0.5 / math.sqrt(0.5), 0.5 / math.sqrt(1.5)]),
     _diag(0.0, -0.25 * 0.5 ** -1.5, -0.25 * 1.5 ** -1.5)),
    # W 0.3 x^-0.7; W 0.3 (-0.7) x^-1.7
    ("power_third_zero_weight", power_third_zero_weight, X0,
     np.array([0.0, 0.6 * 0.5 ** -0.7, 0.3 * 1.5 ** -0.7]),
     _diag(0.0, -0.42 * 0.5 ** -1.7, -0.21 * 1.5 ** -1.7)),
    ("sqrt_scalar_times_zero", sqrt_scalar_times_zero, X0,
     np.array([0.0, 1.0, 3.0]), _diag(0.0, 2.0, 2.0)),
    ("math_sqrt_zero_weight", math_sqrt_zero_weight, X0,
     np.array([0.0, 1 / math.sqrt(0.5), 0.5 / math.sqrt(1.5)]),
     _diag(0.0, -0.5 * 0.5 ** -1.5, -0.25 * 1.5 ** -1.5)),
    # W / sqrt(1 - x^2); W x (1 - x^2)^-3/2
    ("arcsin_zero_weight", arcsin_zero_weight, X1,
     np.array([0.0, 2 / math.sqrt(0.75), -0.0 + 1 / math.sqrt(0.96)]),
     _diag(0.0, 2 * 0.5 * 0.75 ** -1.5, -0.2 * 0.96 ** -1.5)),
    # arccos(-x)' = 1 / sqrt(1 - x^2): the same as arcsin's
    ("arccos_zero_weight", arccos_zero_weight, X1,
     np.array([0.0, 2 / math.sqrt(0.75), 1 / math.sqrt(0.96)]),
     _diag(0.0, 2 * 0.5 * 0.75 ** -1.5, -0.2 * 0.96 ** -1.5)),
    # the norm of zeros: the subgradient 0 (as np.linalg.norm's, and JAX's choice for norm); no
    # second derivative in its block (NaN there), the rest exact
    ("norm_of_zeros", norm_of_zeros, np.array([0.0, 0.0, 0.7]), np.array([0.0, 0.0, 1.4]),
     np.array([[np.nan, np.nan, 0.0], [np.nan, np.nan, 0.0], [0.0, 0.0, 2.0]])),
    # W / (3 x^2/3); W * -2/9 x^-5/3
    ("cbrt_zero_weight", cbrt_zero_weight, np.array([0.0, 0.5, -1.5]),
     np.array([0.0, 2 / (3 * 0.5 ** (2 / 3)), 1 / (3 * 1.5 ** (2 / 3))]),
     _diag(0.0, -4 / 9 * 0.5 ** (-5 / 3), 2 / 9 * 1.5 ** (-5 / 3))),
]
