"""Programs of the classes jit="numba" refused while grad differentiated them (red team waves 12
to 14), several spellings each: ``np.trapezoid``, ``np.quantile`` / ``np.percentile`` and
``np.cross`` along given axes, ``np.heaviside``, ``np.linalg.lstsq`` (its solution, residuals
and singular values, in either operand), Python's ``any`` / ``all`` of an array or a list,
helpers under ``functools.lru_cache`` / ``functools.cache`` called with constants, and float32
loops whose adjoints hold ``np.where(not t, 0.0, g * t)`` (test_numba15.py runs them in float32),
helpers called for their value alone (a line search's ``while`` test).
Table rows: (name, function, make_args(rng), wrt).

REFUSED: programs numba still refuses at the user's line (test_numba15.py checks the line)."""

from __future__ import annotations

import functools
import math

import numpy as np

# ---- np.trapezoid along an axis ---------------------------------------------------------------------


def trapezoid_columns(Y, t):
    return np.sum(np.trapezoid(Y ** 2, t, axis=0))


def trapezoid_rows_spaced(Y):
    return np.sum(np.trapezoid(np.sin(Y), dx=0.5, axis=1) ** 2)


def trapezoid_last_axis_3d(T):
    return np.sum(np.exp(np.trapezoid(T * T, axis=-1)))


# ---- np.quantile / np.percentile along an axis ------------------------------------------------------


def quantile_pair_columns(X):
    return np.sum(np.quantile(X, [0.25, 0.75], axis=0) ** 2)


def median_quantile_rows(X):
    m = np.quantile(X, 0.5, axis=1)
    return np.sum(m * np.arange(1.0, m.size + 1.0))


def percentile_median_columns(X):
    return np.sum(np.percentile(X, 50, axis=0) * np.arange(1.0, X.shape[1] + 1.0))


def percentile_band_rows(X):
    lo, hi = np.percentile(X, [10.0, 90.0], axis=1)
    return np.sum((hi - lo) ** 2)


# ---- np.cross with axis arguments -------------------------------------------------------------------


def cross_axis_args(A, B):
    return np.sum(np.cross(A, B, axisa=0, axisb=1) ** 2)


def cross_columns(A, B):
    return np.sum(np.sin(np.cross(A, B, axis=0)))


def cross_result_first(A, B):
    C = np.cross(A, B, axisc=0)
    return np.sum(C[0] * C[1]) + np.sum(C[2] ** 2)


# ---- np.heaviside -----------------------------------------------------------------------------------


def heaviside_gate(x, w):
    return np.sum(np.heaviside(x, 0.5) * w ** 2 + x * w)


def heaviside_at_zero_values(x, h):
    return np.sum(np.heaviside(x, h) * np.arange(1.0, x.size + 1.0))


def heaviside_numbers_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.heaviside(x[i] - 0.1, 1.0) * x[i] ** 2
    return s


# ---- np.linalg.lstsq --------------------------------------------------------------------------------


def ones_column_lstsq(x, y):
    n = x.shape[0]
    X = np.concatenate([np.ones((n, 1)), x[:, None]], axis=1)
    coef = np.linalg.lstsq(X, y, rcond=None)[0]
    return coef[1] ** 2 + coef[0]


def lstsq_solution_rhs(A, b):
    sol = np.linalg.lstsq(A, b, rcond=None)[0]
    return np.sum(sol ** 2)


def lstsq_residuals(A, b):
    sol, res, rank, s = np.linalg.lstsq(A, b, rcond=None)
    return np.sum(np.tanh(sol)) + 0.5 * res[0]


def lstsq_singular_values(A, b):
    out = np.linalg.lstsq(A, b, rcond=None)
    return np.sum(out[3]) + np.sum(out[0])


def lstsq_matrix_rhs(A, B):
    sol = np.linalg.lstsq(A, B, rcond=None)[0]
    return np.sum(sol * sol)


# ---- builtin any / all ------------------------------------------------------------------------------


def any_all_checks(x):
    if all(v > -10.0 for v in x) and not any(np.isnan(x)):
        return np.sum(np.tanh(x))
    return 0.0


def any_large_clipped(x):
    if any(np.abs(x) > 10.0):
        return np.sum(np.clip(x, -10.0, 10.0) ** 2)
    return np.sum(x ** 2 * np.arange(1.0, x.size + 1.0))


def all_positive_log(x):
    if all(x * x + 1.0 > 0.5):
        return np.sum(np.log(x * x + 1.0))
    return np.sum(x)


# ---- functools.lru_cache / cache helpers with constant arguments ------------------------------------


@functools.lru_cache(maxsize=None)
def _binomial_row(n):
    return tuple(math.comb(n, k) for k in range(n + 1))


def bernstein_cached_row(x, n=4):
    coeffs = np.array(_binomial_row(n), dtype=float) * np.arange(1.0, n + 2.0)  # (unweighted, the sum is 1)
    powers = np.stack([x ** k * (1 - x) ** (n - k) for k in range(n + 1)])
    return np.sum(coeffs @ powers)


@functools.cache
def _stencil(order):
    return (1.0, -2.0, 1.0) if order == 2 else (-1.0, 1.0)


def cached_stencil_energy(u):
    w = np.array(_stencil(2), dtype=float)
    return np.sum(np.convolve(u, w, mode="valid") ** 2)


@functools.lru_cache(maxsize=8)
def _gauss_weights(count):
    return tuple(math.exp(-0.5 * (k - count // 2) ** 2) for k in range(count))


def cached_weights_literal(x):
    w = np.array(_gauss_weights(5), dtype=float)
    return np.sum(w * np.sin(x[:5]) ** 2)


@functools.lru_cache(maxsize=None)
def _difference_matrix(n):
    return np.eye(n) - np.eye(n, k=1)


def cached_matrix_value(x):
    D = _difference_matrix(x.shape[0])
    return np.sum((D @ x) ** 2)


# ---- helpers called for their value only (a line search's test, a branch's) ------------------------


def _energy(x):
    return 0.5 * np.sum(x ** 2) + np.sum(np.sin(x))


def backtracking_step(x):
    g = x + np.cos(x)
    t = 1.0
    while _energy(x - t * g) > _energy(x) - 1e-4 * t * np.dot(g, g):
        t = 0.5 * t
    return _energy(x - t * g)


def _spread(v):
    return np.max(np.abs(v)) - np.min(np.abs(v))


def branch_on_helper(x):
    if _spread(x) > 0.5:
        return np.sum(np.tanh(x) * x)
    return np.sum(x ** 2)


# ---- float32 loops: constants written np.float32(c), held by names ----------------------------------


def f32_adam_steps(p):
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    for _ in range(3):
        g = p - np.float32(0.5)
        m = np.float32(0.9) * m + np.float32(0.1) * g
        v = np.float32(0.99) * v + np.float32(0.01) * g * g
        p = p - np.float32(0.1) * m / (np.sqrt(v) + np.float32(1e-4))
    return np.sum(p ** 2)


def f32_rmsprop(p):
    rho = np.float32(0.9)
    s = np.zeros_like(p)
    for _ in range(3):
        g = np.sin(p)
        s = rho * s + (np.float32(1.0) - rho) * g * g
        p = p - np.float32(0.1) * g / np.sqrt(s + np.float32(1e-3))
    return np.sum(p ** 2)


# ---- still refused ----------------------------------------------------------------------------------


def _horner(coeffs, x):
    if len(coeffs) == 1:
        return coeffs[0]
    return coeffs[0] + x * _horner(coeffs[1:], x)


def recursive_horner(c, x):
    return np.sum(_horner(c, x) ** 2)


def cached_row_of_length(x):
    coeffs = np.array(_binomial_row(len(x) - 1), dtype=float)
    return np.sum(coeffs * x ** 2)


SCALE = np.array([1.0, 2.0, 3.0])


def _scaled_norm(v):
    return np.sqrt(np.sum((SCALE * v) ** 2))


def branch_on_global_helper(x):
    if _scaled_norm(x) > 1.0:
        return np.sum(np.tanh(x))
    return np.sum(x ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


PROGRAMS = [
    ("trapezoid_columns", trapezoid_columns, lambda r: (M(r, 5, 2), np.cumsum(r.uniform(0.1, 1.0, size=5))), 0),
    ("trapezoid_rows_spaced", trapezoid_rows_spaced, lambda r: (M(r, 3, 6),), 0),
    ("trapezoid_last_axis_3d", trapezoid_last_axis_3d, lambda r: (0.5 * M(r, 2, 3, 4),), 0),
    ("quantile_pair_columns", quantile_pair_columns, lambda r: (M(r, 7, 3),), 0),
    ("median_quantile_rows", median_quantile_rows, lambda r: (M(r, 4, 5),), 0),
    ("percentile_band_rows", percentile_band_rows, lambda r: (M(r, 3, 12),), 0),
    ("percentile_median_columns", percentile_median_columns, lambda r: (M(r, 5, 3),), 0),
    ("cross_axis_args", cross_axis_args, lambda r: (M(r, 3, 4), M(r, 4, 3)), 0),
    ("cross_axis_args_b", cross_axis_args, lambda r: (M(r, 3, 4), M(r, 4, 3)), 1),
    ("cross_columns", cross_columns, lambda r: (M(r, 3, 5), M(r, 3, 5)), 0),
    ("cross_result_first", cross_result_first, lambda r: (M(r, 4, 3), M(r, 4, 3)), 1),
    ("heaviside_gate", heaviside_gate, lambda r: (np.array([-1.0, 0.0, 2.0]), M(r, 3)), 1),
    ("heaviside_at_zero_values", heaviside_at_zero_values,
     lambda r: (np.array([-1.0, 0.0, 2.0, 0.0]), M(r, 4)), 1),
    ("heaviside_numbers_loop", heaviside_numbers_loop, lambda r: (M(r, 6),), 0),
    ("ones_column_lstsq", ones_column_lstsq, lambda r: (M(r, 8), M(r, 8)), 0),
    ("lstsq_solution_rhs", lstsq_solution_rhs, lambda r: (M(r, 6, 3), M(r, 6)), 1),
    ("lstsq_solution_matrix", lstsq_solution_rhs, lambda r: (M(r, 6, 3), M(r, 6)), 0),
    ("lstsq_residuals", lstsq_residuals, lambda r: (M(r, 7, 3), M(r, 7)), 0),
    ("lstsq_residuals_rhs", lstsq_residuals, lambda r: (M(r, 7, 3), M(r, 7)), 1),
    ("lstsq_singular_values", lstsq_singular_values, lambda r: (M(r, 6, 3), M(r, 6)), 0),
    ("lstsq_matrix_rhs", lstsq_matrix_rhs, lambda r: (M(r, 6, 3), M(r, 6, 2)), 0),
    ("any_all_checks", any_all_checks, lambda r: (M(r, 5),), 0),
    ("any_large_clipped", any_large_clipped, lambda r: (M(r, 5),), 0),
    ("all_positive_log", all_positive_log, lambda r: (M(r, 5),), 0),
    ("bernstein_cached_row", bernstein_cached_row, lambda r: (r.uniform(0.1, 0.9, size=3),), 0),
    ("cached_stencil_energy", cached_stencil_energy, lambda r: (M(r, 7),), 0),
    ("cached_weights_literal", cached_weights_literal, lambda r: (M(r, 6),), 0),
    ("cached_matrix_value", cached_matrix_value, lambda r: (M(r, 4),), 0),
    ("f32_adam_steps", f32_adam_steps, lambda r: (M(r, 4),), 0),
    ("f32_rmsprop", f32_rmsprop, lambda r: (M(r, 4),), 0),
    ("backtracking_step", backtracking_step, lambda r: (M(r, 3),), 0),
    ("branch_on_helper", branch_on_helper, lambda r: (M(r, 4),), 0),
]

#: refused by jit="numba" at the user's line: name -> (program row, the line's text, why)
REFUSED = {
    "recursive_horner": (("recursive_horner", recursive_horner, lambda r: (M(r, 4), M(r, 3)), 0),
                         "return coeffs[0] + x * _horner(coeffs[1:], x)",
                         "a recursive helper returning a number (its last level) or an array"),
    "cached_row_of_length": (("cached_row_of_length", cached_row_of_length, lambda r: (M(r, 5),), 0),
                             "coeffs = np.array(_binomial_row(len(x) - 1), dtype=float)",
                             "a cached function called with a value computed when the code runs"),
    "branch_on_global_helper": (("branch_on_global_helper", branch_on_global_helper, lambda r: (M(r, 3),), 0),
                                "if _scaled_norm(x) > 1.0:",
                                "a helper called for its value that reads a global array of the user's"),
}
