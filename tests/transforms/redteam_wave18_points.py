"""The red team's eighteenth wave, continued: smooth functions evaluated where their spelling has a kink, a pole or
a NaN in a branch that is not taken.  ``x ** 0`` and ``x ** 1.0`` at 0 (the power rule's ``p * x ** (p - 1)``
meets 0 ** -1), ``0 ** p`` differentiated in p, ``x ** 3.0`` and ``x ** p`` at a negative x (the exponent's
``log x``), ``np.linalg.norm(x) ** 2``, ``np.hypot(x, y) ** 2`` and ``np.cbrt(x) ** 3`` at 0, sinc and
``expm1(x) / x`` at 0, the ``np.where`` trap (a sqrt / log / sin(x) / x / exp(-1 / x ** 2) that is NaN or
infinite in the branch not taken), the stable softplus and binary cross entropy ``max(z, 0) + log1p(exp(-|z|))``
at z = 0 (whose kinks cancel), ``relu(x) ** 2 + relu(-x) ** 2``, ``max + min`` at a tie, np.max of a value with
itself, np.sort with ties under equal weights, np.heaviside times a square, ``np.clip(x, 0, 1) ** 2`` at its
bound, np.logaddexp at 800, a logsumexp with -inf entries, ``np.divide(..., where=)``, and ``|x| ** 2.5``.
See redteam_wave18.py.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

ZEROS = np.array([0.0, 0.7, -1.2])


def power_zero(x):
    return np.sum(3.0 * x ** 0) + np.sum(x ** 2)


def np_power_zero(x):
    return np.sum(np.power(x, 0.0) * x) + x[0] ** 2


def power_one_float(x):
    return np.sum(x ** 1.0) + np.sum(x ** 2.0)


def zero_base_power(p, base=np.array([0.0, 1.5, 2.0])):  # noqa: B008
    return np.sum(base ** p)


def both_power(x, p):
    return np.sum(x ** p)


def cube_negative(x):
    return np.sum(x ** 3.0) + np.sum(np.power(x, 2.0))


def power_of_argument(x, p):
    return np.sum(x ** p)


def float64_exponent(x):
    p = np.float64(2.0)
    return np.sum(x ** p) + np.sum(x ** (p + 1))


def norm_squared(x):
    return np.linalg.norm(x) ** 2 + np.sum(x)


def hypot_squared(v):
    return np.hypot(v[0], v[1]) ** 2 + v[0]


def cbrt_cubed(x):
    return np.sum(np.cbrt(x) ** 3)


def sinc_zero(x):
    return np.sum(np.sinc(x))


def expm1_over_x(x):
    safe = np.where(x == 0, 1.0, x)
    return np.sum(np.where(x == 0, 1.0, np.expm1(x) / safe))


def where_sqrt_trap(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0)) + np.sum(x ** 2)


def where_log_trap(x):
    return np.sum(np.where(x > 0, x * np.log(x), 0.0)) + np.sum(x ** 2)


def where_sinc_trap(x):
    return np.sum(np.where(x == 0, 1.0, np.sin(x) / x))


def where_flat_bump(x):
    return np.sum(np.where(x == 0, 0.0, np.exp(-1.0 / x ** 2)))


def stable_softplus(z):
    return np.sum(np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z))))


def stable_bce(z, y):
    return np.mean(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z))))


def softplus_where(z):
    return np.sum(np.where(z > 0, z, 0.0) + np.log1p(np.exp(-np.abs(z))))


def relu_square_pair(x):
    return np.sum(np.maximum(x, 0) ** 2 + np.maximum(-x, 0) ** 2)


def max_plus_min(v):
    return np.maximum(v[0], v[1]) + np.minimum(v[0], v[1]) + max(v[0], v[1]) + min(v[0], v[1])


def max_of_itself(x):
    return np.max(np.array([x, x])) + np.max(np.stack([x * 1.0, x + 0.0]), axis=0).sum()


def sort_ties_equal_weights(x):
    return np.sum(np.sort(x) * np.array([1.0, 1.0, 2.0]))


def heaviside_square(x):
    return np.sum(np.heaviside(x, 0.5) * x ** 2)


def clip_square_at_bound(x):
    return np.sum(np.clip(x, 0.0, 1.0) ** 2)


def logaddexp_large(x):
    return np.sum(np.logaddexp(0.0, x))


def masked_logsumexp(x, mask=np.array([0.0, -np.inf, 0.0, -np.inf])):  # noqa: B008
    return logsumexp(x + mask)


def divide_where(x, y):
    out = np.zeros_like(x)
    np.divide(x, y, out=out, where=y != 0)
    return np.sum(out ** 2)


def abs_power(x):
    return np.sum(np.abs(x) ** 2.5)


def min_of_constant_tie(x):
    return np.sum(np.minimum(x, 1.0) + np.maximum(x, 1.0))


def sqrt_of_square_plus(x):
    return np.sum(np.sqrt(x ** 2 + 1.0) - np.sqrt(x ** 4 + 1.0))


def arctan2_axis(v):
    return np.arctan2(v[1], v[0]) + np.arctan2(v[0], v[1] + 2.0)


def x_abs_x_hessian(x):
    return np.sum(x * np.abs(x) * x)


POINTS18 = [
    ("w18_power_zero_at_zero", power_zero, lambda r: (ZEROS.copy(),), 0),
    ("w18_np_power_zero_at_zero", np_power_zero, lambda r: (ZEROS.copy(),), 0),
    ("w18_power_one_float_at_zero", power_one_float, lambda r: (ZEROS.copy(),), 0),
    ("w18_zero_base_power", zero_base_power, lambda r: (2.0,), 0),
    ("w18_both_power_exponent", both_power, lambda r: (np.array([0.0, 1.5]), 2.5), 1),
    ("w18_both_power_base", both_power, lambda r: (np.array([0.0, 1.5]), 2.5), 0),
    ("w18_cube_negative", cube_negative, lambda r: (np.array([-1.5, -0.3, 0.8]),), 0),
    ("w18_power_of_argument_negative", power_of_argument, lambda r: (np.array([-1.5, -0.3, 0.8]), 3.0), 0),
    ("w18_float64_exponent_negative", float64_exponent, lambda r: (np.array([-1.5, -0.3, 0.8]),), 0),
    ("w18_norm_squared_at_zero", norm_squared, lambda r: (np.zeros(3),), 0),
    ("w18_hypot_squared_at_zero", hypot_squared, lambda r: (np.zeros(2),), 0),
    ("w18_cbrt_cubed_at_zero", cbrt_cubed, lambda r: (ZEROS.copy(),), 0),
    ("w18_sinc_at_zero", sinc_zero, lambda r: (ZEROS.copy(),), 0),
    ("w18_expm1_over_x_at_zero", expm1_over_x, lambda r: (ZEROS.copy(),), 0),
    ("w18_where_sqrt_trap", where_sqrt_trap, lambda r: (np.array([-1.0, 0.5, -0.2, 2.0]),), 0),
    ("w18_where_log_trap", where_log_trap, lambda r: (np.array([-1.0, 0.5, -0.2, 2.0]),), 0),
    ("w18_where_sinc_trap", where_sinc_trap, lambda r: (ZEROS.copy(),), 0),
    ("w18_where_flat_bump", where_flat_bump, lambda r: (ZEROS.copy(),), 0),
    ("w18_stable_softplus_at_zero", stable_softplus, lambda r: (ZEROS.copy(),), 0),
    ("w18_stable_bce_at_zero", stable_bce, lambda r: (ZEROS.copy(), np.array([1.0, 0.0, 1.0])), 0),
    ("w18_softplus_where_at_zero", softplus_where, lambda r: (ZEROS.copy(),), 0),
    ("w18_relu_square_pair_at_zero", relu_square_pair, lambda r: (ZEROS.copy(),), 0),
    ("w18_max_plus_min_tie", max_plus_min, lambda r: (np.array([0.4, 0.4]),), 0),
    ("w18_max_of_itself", max_of_itself, lambda r: (np.array([0.4, -0.2]),), 0),
    ("w18_sort_ties_equal_weights", sort_ties_equal_weights, lambda r: (np.array([0.3, 0.3, 1.0]),), 0),
    ("w18_heaviside_square_at_zero", heaviside_square, lambda r: (ZEROS.copy(),), 0),
    ("w18_clip_square_at_bound", clip_square_at_bound, lambda r: (np.array([0.0, 0.5, -0.3]),), 0),
    ("w18_logaddexp_large", logaddexp_large, lambda r: (np.array([800.0, -800.0, 0.0]),), 0),
    ("w18_masked_logsumexp", masked_logsumexp, lambda r: (np.array([0.3, 0.1, -0.4, 2.0]),), 0),
    ("w18_divide_where", divide_where, lambda r: (np.array([0.3, 0.1, -0.4]), np.array([2.0, 0.0, -1.0])), 0),
    ("w18_divide_where_denominator", divide_where,
     lambda r: (np.array([0.3, 0.1, -0.4]), np.array([2.0, 0.5, -1.0])), 1),
    ("w18_abs_power_at_zero", abs_power, lambda r: (ZEROS.copy(),), 0),
    ("w18_min_of_constant_tie", min_of_constant_tie, lambda r: (np.array([1.0, 0.5, 2.0]),), 0),
    ("w18_sqrt_of_square_plus_at_zero", sqrt_of_square_plus, lambda r: (ZEROS.copy(),), 0),
    ("w18_arctan2_axis", arctan2_axis, lambda r: (np.array([1.0, 0.0]),), 0),
    ("w18_x_abs_x_times_x_at_zero", x_abs_x_hessian, lambda r: (ZEROS.copy(),), 0),
]
