"""The red team's wave 28b special points (test_special_points28.py): powers at and near 0, ``abs`` at
0, ``sqrt(x * x + eps)``, ``np.where`` whose untaken branch is inf or NaN (log of a negative, 1/x at
0, sqrt of a negative), ties of ``np.maximum`` / ``np.minimum`` / builtin ``max``, ``np.clip`` at
its bounds.

Each row is ``(name, f, x, gradient, hessian)``: `gradient` and `hessian` are written by hand (the
exact derivative where it exists, else the convention of docs/guarantees.md: ``abs'(0) = 0``, a
tie shared half and half, a bound of ``clip`` sharing with `x`); a NaN in `hessian` is the
documented NaN of a second derivative at a kink or tie (no second derivative exists there), and
None leaves the Hessian unchecked.  `SMOOTH` holds formulas of the derivatives of the functions
that are smooth at their special point, for points drawn near it.
"""

from __future__ import annotations

import math

import numpy as np

EPS = 1e-6
N = np.nan


def pow0(x):
    return np.sum(x ** 0 + 2.0 * x)


def pow0_int(x):
    return np.sum(x ** 0) * 3.0 + np.sum(x)


def pow1(x):
    return np.sum(x ** 1 * 3.0)


def pow1_float(x):
    return np.sum(x ** 1.0)


def pow2(x):
    return np.sum(x ** 2)


def pow2_float(x):
    return np.sum(x ** 2.0)


def pow3(x):
    return np.sum(x ** 3)


def power_of_two_args(x):
    return np.sum(np.power(x, 2))


def pow_half_near_zero(x):
    return np.sum(x ** 0.5)


def pow_1_5(x):
    return np.sum(x ** 1.5)


def abs_at_zero(x):
    return np.sum(np.abs(x) + 0.5 * x)


def abs_builtin(x):
    return sum(abs(v) for v in x)


def sqrt_eps(x):
    return np.sum(np.sqrt(x * x + EPS))


def sqrt_eps_sum_norm(x):
    return np.sqrt(np.sum(x ** 2) + EPS)


def math_sqrt_eps(x):
    return math.sqrt(x[0] * x[0] + EPS) + math.sqrt(x[1] ** 2 + EPS)


def where_log_negative(x):
    return np.sum(np.where(x > 0, np.log(x), 0.0))


def where_log_double(x):
    safe = np.where(x > 0, x, 1.0)
    return np.sum(np.where(x > 0, np.log(safe), x))


def where_reciprocal_zero(x):
    return np.sum(np.where(x != 0, 1.0 / x, 0.0))


def where_reciprocal_small(x):
    return np.sum(np.where(np.abs(x) < 0.5, 0.0, 1.0 / x))


def where_reciprocal_abs(x):
    return np.sum(np.where(np.abs(x) > 1e-12, np.sin(x) / x, 1.0))


def where_sqrt_negative(x):
    return np.sum(np.where(x >= 1.0, np.sqrt(x - 1.0), 0.5 * x))


def where_log1p_below(x):
    return np.sum(np.where(x > -1.0, np.log1p(x), -x))


def where_power_negative_base(x):
    return np.sum(np.where(x > 0, x ** 1.5, 0.0))


def maximum_tie_constant(x):
    return np.sum(np.maximum(x, 0.5))


def maximum_tie_variables(x):
    return np.sum(np.maximum(x[:2], x[2:]))


def minimum_tie_variables(x):
    return np.sum(np.minimum(x[:2] * 2.0, x[2:] + 1.0))


def builtin_max_tie(x):
    return max(x[0], x[1]) + min(x[2], 0.0)


def clip_at_bounds(x):
    return np.sum(np.clip(x, -1.0, 1.0))


def clip_squared_at_bounds(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 2)


def relu_squared_at_zero(x):
    return np.sum(np.maximum(x, 0.0) ** 2)


Z3 = np.array([0.0, 1.0, -2.0])
ZP = np.array([0.0, 2.0, 0.25])

ROWS = [
    # powers
    ("pow0", pow0, Z3, np.full(3, 2.0), np.zeros((3, 3))),
    ("pow0_int", pow0_int, Z3, np.ones(3), np.zeros((3, 3))),
    ("pow1", pow1, Z3, np.full(3, 3.0), np.zeros((3, 3))),
    ("pow1_float", pow1_float, Z3, np.ones(3), np.zeros((3, 3))),
    ("pow2", pow2, Z3, 2 * Z3, 2 * np.eye(3)),
    ("pow2_float", pow2_float, Z3, 2 * Z3, 2 * np.eye(3)),
    ("pow3", pow3, Z3, 3 * Z3 ** 2, np.diag(6 * Z3)),
    ("power_of_two_args", power_of_two_args, Z3, 2 * Z3, 2 * np.eye(3)),
    ("pow_half_near_zero", pow_half_near_zero, np.array([1e-12, 1e-4, 4.0]),
     0.5 / np.sqrt(np.array([1e-12, 1e-4, 4.0])), np.diag(-0.25 * np.array([1e-12, 1e-4, 4.0]) ** -1.5)),
    ("pow_1_5_at_zero", pow_1_5, ZP, 1.5 * np.sqrt(ZP), None),
    # abs and smoothed abs
    ("abs_at_zero", abs_at_zero, Z3, np.array([0.5, 1.5, -0.5]), np.diag([N, 0.0, 0.0])),
    ("abs_builtin", abs_builtin, Z3, np.array([0.0, 1.0, -1.0]), np.diag([N, 0.0, 0.0])),
    ("sqrt_eps", sqrt_eps, Z3, Z3 / np.sqrt(Z3 ** 2 + EPS), np.diag(EPS / (Z3 ** 2 + EPS) ** 1.5)),
    ("sqrt_eps_sum_norm", sqrt_eps_sum_norm, np.zeros(3), np.zeros(3), np.eye(3) / math.sqrt(EPS)),
    ("math_sqrt_eps", math_sqrt_eps, np.zeros(2), np.zeros(2), np.eye(2) / math.sqrt(EPS)),
    # np.where with an untaken branch that is inf or NaN
    ("where_log_negative", where_log_negative, np.array([-1.0, 0.0, 2.0]), np.array([0.0, 0.0, 0.5]),
     np.diag([0.0, 0.0, -0.25])),
    ("where_log_double", where_log_double, np.array([-1.0, 0.0, 2.0]), np.array([1.0, 1.0, 0.5]),
     np.diag([0.0, 0.0, -0.25])),
    # (an equality guard: the documented NaN at the guarded point, docs/guarantees.md)
    ("where_reciprocal_zero", where_reciprocal_zero, np.array([0.0, 2.0, -0.5]), np.array([N, -0.25, -4.0]),
     np.diag([N, 0.25, -16.0])),
    ("where_reciprocal_small", where_reciprocal_small, np.array([0.0, 2.0, -0.8]), np.array([0.0, -0.25, -1.5625]),
     np.diag([0.0, 0.25, -3.90625])),
    ("where_reciprocal_abs", where_reciprocal_abs, np.array([0.0, 1.0]), np.array([0.0, math.cos(1.0) - math.sin(1.0)]),
     None),
    ("where_sqrt_negative", where_sqrt_negative, np.array([-1.0, 0.0, 5.0]), np.array([0.5, 0.5, 0.25]),
     np.diag([0.0, 0.0, -1.0 / 32.0])),
    ("where_log1p_below", where_log1p_below, np.array([-3.0, -1.0, 1.0]), np.array([-1.0, -1.0, 0.5]),
     np.diag([0.0, 0.0, -0.25])),
    ("where_power_negative_base", where_power_negative_base, np.array([-4.0, 0.0, 4.0]), np.array([0.0, 0.0, 3.0]),
     None),
    # ties and bounds
    ("maximum_tie_constant", maximum_tie_constant, np.array([0.5, 1.0, 0.0]), np.array([0.5, 1.0, 0.0]),
     np.diag([N, 0.0, 0.0])),
    ("maximum_tie_variables", maximum_tie_variables, np.array([0.3, 1.0, 0.3, 0.0]), np.array([0.5, 1.0, 0.5, 0.0]),
     None),
    ("minimum_tie_variables", minimum_tie_variables, np.array([1.0, 0.0, 1.0, 2.0]), np.array([1.0, 2.0, 0.5, 0.0]),
     None),
    ("builtin_max_tie", builtin_max_tie, np.array([0.7, 0.7, 0.0]), np.array([0.5, 0.5, 0.5]), None),
    ("clip_at_bounds", clip_at_bounds, np.array([-1.0, 1.0, 0.5, 2.0]), np.array([0.5, 0.5, 1.0, 0.0]),
     np.diag([N, N, 0.0, 0.0])),
    ("clip_squared_at_bounds", clip_squared_at_bounds, np.array([-1.0, 1.0, 0.5, 2.0]), np.array([-1.0, 1.0, 1.0, 0.0]),
     np.diag([N, N, 2.0, 0.0])),
    ("relu_squared_at_zero", relu_squared_at_zero, np.array([0.0, 1.5, -1.0]), np.array([0.0, 3.0, 0.0]),
     np.diag([N, 2.0, 0.0])),
]

#: functions smooth at their special point, with their derivative and second derivative per element
SMOOTH = [
    ("pow0", pow0, lambda x: 2.0 + 0 * x, lambda x: 0 * x),
    ("pow1", pow1, lambda x: 3.0 + 0 * x, lambda x: 0 * x),
    ("pow2", pow2, lambda x: 2 * x, lambda x: 2.0 + 0 * x),
    ("pow3", pow3, lambda x: 3 * x ** 2, lambda x: 6 * x),
    ("sqrt_eps", sqrt_eps, lambda x: x / np.sqrt(x * x + EPS), lambda x: EPS / (x * x + EPS) ** 1.5),
    ("where_reciprocal_small", where_reciprocal_small,
     lambda x: np.where(np.abs(x) < 0.5, 0.0, -1.0 / np.where(np.abs(x) < 0.5, 1, x) ** 2),
     lambda x: np.where(np.abs(x) < 0.5, 0.0, 2.0 / np.where(np.abs(x) < 0.5, 1, x) ** 3)),
    ("where_log_negative", where_log_negative, lambda x: np.where(x > 0, 1.0 / np.where(x > 0, x, 1), 0.0),
     lambda x: np.where(x > 0, -1.0 / np.where(x > 0, x, 1) ** 2, 0.0)),
]
