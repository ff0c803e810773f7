"""Wave 32a: second-order and masked-use code (test_wave32a.py runs them).

Each row is ``(name, func, make_args(rng), wrt)``.

* ORDERED: several primitives of infinite slope (np.sqrt, math.sqrt, ``** 0.5``, np.log, ``1 / x``,
  powers) of one value read in one body (a loop, nested loops, a helper, straight-line code, a branch),
  next to a constant factor and an element a slice leaves out: their use masks share subexpressions,
  which one adjoint's shared temporaries (``t12_shared``) must not rewrite in a statement emitted before.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special

K = np.array([95.0, 100.0, 105.0])
W = np.array([0.0, 1.0, 0.5])


def _vec(*values, dtype=float):
    return lambda rng: (np.array(values, dtype=dtype),)


# ---- ORDERED: one value under two primitives of infinite slope in one body ----
# (the first read on two paths, under ``df`` and under ``strike * df``; the second on one: their masks
# share ``df != 0``, which the first's adjoint computes once into a temporary)

def two_roots_loop(m, k=K, df=0.97):
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        d1 = (np.log(f / strike) + 0.5 * sigma * sigma * t) / (sigma * np.sqrt(t))
        d2 = d1 - sigma * np.sqrt(t)
        total = total + df * (f * scipy.special.ndtr(d1) - strike * scipy.special.ndtr(d2))
    return total


def three_roots_loop(m, k=K, df=0.9):
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        d1 = (f / strike + sigma * t) / (sigma * np.sqrt(t))
        d2 = d1 - sigma * np.sqrt(t)
        d3 = d2 - 0.5 * sigma * np.sqrt(t)
        total = total + df * (f * np.tanh(d1) - strike * np.tanh(d2) + strike * f * np.tanh(d3))
    return total


def math_roots_loop(m, k=(95.0, 100.0, 105.0), df=0.97):
    f, sigma, t = m
    total = 0.0
    for strike in k:
        d1 = (math.log(f / strike) + 0.5 * sigma * sigma * t) / (sigma * math.sqrt(t))
        d2 = d1 - sigma * math.sqrt(t)
        total = total + df * (f * math.tanh(d1) - strike * math.tanh(d2))
    return total


def half_powers_loop(m, k=K, df=0.97):
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        d1 = (f / strike - 1.0 + sigma * t) / (sigma * t ** 0.5)
        d2 = d1 - sigma * t ** 0.5
        total = total + df * (f * np.tanh(d1) - strike * np.tanh(d2))
    return total


def logs_loop(m, k=K, df=0.97):
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        d1 = (f / strike + sigma) * np.log(t)
        d2 = d1 - sigma * np.log(t)
        total = total + df * (f * np.tanh(d1) - strike * np.tanh(d2))
    return total


def reciprocals_loop(m, k=K, df=0.97):
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        d1 = (f / strike + sigma) * (1.0 / t)
        d2 = d1 - sigma / t
        total = total + df * (f * np.tanh(d1) - strike * np.tanh(d2))
    return total


def cube_roots_loop(m, k=K, df=0.97):
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        d1 = (f / strike + sigma) * np.cbrt(t)
        d2 = d1 - sigma * np.cbrt(t)
        total = total + df * (f * np.tanh(d1) - strike * np.tanh(d2))
    return total


def roots_nested_loops(m, k=K, df=0.95):
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        for j in range(2):
            d1 = (np.log(f / strike) + 0.5 * sigma * sigma * t) / (sigma * np.sqrt(t))
            d2 = d1 - sigma * np.sqrt(t) - 0.1 * j
            total = total + df * (f * scipy.special.ndtr(d1) - strike * scipy.special.ndtr(d2))
    return total


def _call_put(f, strike, sigma, t, df):
    d1 = (np.log(f / strike) + 0.5 * sigma * sigma * t) / (sigma * np.sqrt(t))
    d2 = d1 - sigma * np.sqrt(t)
    return df * (f * scipy.special.ndtr(d1) - strike * scipy.special.ndtr(d2))


def roots_in_a_helper(m, k=K, df=0.97):
    total = 0.0
    for strike in k:
        total = total + _call_put(m[0], strike, m[1], m[2], df)
    return total


def roots_straight_line(m, strike=100.0, df=0.97):
    f, sigma, t = m[0], m[1], m[2]
    d1 = (np.log(f / strike) + 0.5 * sigma * sigma * t) / (sigma * np.sqrt(t))
    d2 = d1 - sigma * np.sqrt(t)
    return df * (f * scipy.special.ndtr(d1) - strike * scipy.special.ndtr(d2))


def roots_in_a_branch(m, k=K, df=0.97):
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        if strike > 99.0:
            d1 = (np.log(f / strike) + 0.5 * sigma * sigma * t) / (sigma * np.sqrt(t))
            d2 = d1 - sigma * np.sqrt(t)
            total = total + df * (f * scipy.special.ndtr(d1) - strike * scipy.special.ndtr(d2))
        else:
            total = total + df * (f - strike)
    return total


def roots_of_an_array(x, k=K, df=0.97):
    """Elementwise: the roots of an array of maturities, summed."""
    d1 = (x[0] / k + x[1]) / np.sqrt(x[2:])
    d2 = d1 - x[1] * np.sqrt(x[2:])
    return np.sum(df * (x[0] * np.tanh(d1) - k * np.tanh(d2)))


def roots_sliced(x, w=W, df=0.9):
    """Roots of one array, one sliced, one weighted by a constant with a zero."""
    total = 0.0
    for j in range(2):
        total = total + df * np.sum(np.sqrt(x)[1:] * x[1:]) + np.sum(w * np.sqrt(x)) * (j + 1.0)
    return total


def roots_float32(m, k=K.astype(np.float32), df=np.float32(0.97)):  # noqa: B008
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        d1 = (np.log(f / strike) + 0.5 * sigma * sigma * t) / (sigma * np.sqrt(t))
        d2 = d1 - sigma * np.sqrt(t)
        total = total + df * (f * scipy.special.ndtr(d1) - strike * scipy.special.ndtr(d2))
    return total


BS = (101.0, 0.22, 0.75)
ORDERED = [
    ("two_roots_loop", two_roots_loop, _vec(*BS), 0),
    ("three_roots_loop", three_roots_loop, _vec(1.3, 0.6, 0.8), 0),
    ("math_roots_loop", math_roots_loop, lambda rng: (list(BS),), 0),
    ("half_powers_loop", half_powers_loop, _vec(1.3, 0.6, 0.8), 0),
    ("logs_loop", logs_loop, _vec(1.3, 0.6, 0.8), 0),
    ("reciprocals_loop", reciprocals_loop, _vec(1.3, 0.6, 0.8), 0),
    ("cube_roots_loop", cube_roots_loop, _vec(1.3, 0.6, 0.8), 0),
    ("roots_nested_loops", roots_nested_loops, _vec(*BS), 0),
    ("roots_in_a_helper", roots_in_a_helper, _vec(*BS), 0),
    ("roots_straight_line", roots_straight_line, _vec(*BS), 0),
    ("roots_in_a_branch", roots_in_a_branch, _vec(*BS), 0),
    ("roots_of_an_array", roots_of_an_array, _vec(101.0, 0.22, 0.75, 0.5, 1.5), 0),
    ("roots_sliced", roots_sliced, _vec(0.4, 0.5, 1.2), 0),
    ("roots_float32", roots_float32, _vec(*BS, dtype=np.float32), 0),
]


# ---- MASKED_DATA: NaN / inf data in the branch np.where does not take (grad(debug=True) must not stop) ----

DNAN = np.array([0.5, np.nan, -0.3, np.inf, 1.1, -np.inf])
OK = np.isfinite(DNAN)


def nested_where_nan(x, d=DNAN):
    ok = np.isfinite(d)
    inner = np.where(x > 0.0, x ** 2, np.sin(x))
    return np.sum(np.where(ok, np.where(d > 0.0, inner * d, x), 0.0))


def where_nan_weights(x, d=DNAN):
    return np.sum(np.where(np.isfinite(d), d * x ** 2, 0.0))


def where_nan_log(x, d=DNAN, ok=OK):
    return np.sum(np.where(ok, np.log(np.abs(d) + x ** 2), x))


def where_nan_in_a_loop(x, d=DNAN, ok=OK):
    total = 0.0
    for j in range(len(d)):
        total = total + np.where(ok[j], d[j] * x[j] ** 2, 0.5 * x[j])
    return total


def nan_data_reaching_the_result(x, d=DNAN):
    """The NaN reaches the value: debug mode stops at its line."""
    return np.sum(d * x ** 2)


MASKED_DATA = [
    ("nested_where_nan", nested_where_nan, lambda rng: (np.linspace(-1.0, 1.5, 6),), 0),
    ("where_nan_weights", where_nan_weights, lambda rng: (np.linspace(-1.0, 1.5, 6),), 0),
    ("where_nan_log", where_nan_log, lambda rng: (np.linspace(-1.0, 1.5, 6),), 0),
    ("where_nan_in_a_loop", where_nan_in_a_loop, lambda rng: (np.linspace(-1.0, 1.5, 6),), 0),
]


# ---- KEPT_SIDE: the side np.minimum / np.maximum / np.clip leaves, of ``x / D`` at D = 0 (x / 0 = inf) ----

D = np.array([0.0, 2.0, 0.5])


def minimum_of_a_ratio(x, d=D):
    return np.sum(np.minimum(x / d, 1.0) * x)


def minimum_of_a_ratio_second(x, d=D):
    return np.sum(np.minimum(1.0, x / d) * x ** 2)


def maximum_of_a_ratio(x, d=D):
    return np.sum(np.maximum(-x / d, -1.0) * x)


def clip_of_a_ratio(x, d=D):
    return np.sum(np.clip(x / d, -1.0, 1.0) * np.sin(x))


def minimum_of_a_log_ratio(x, d=D):
    return np.sum(np.minimum(np.log(x / d), 0.5) * x)


def where_inside_of_a_ratio(x, d=D):
    """A clip by hand: the inside selected by ``&`` of two comparisons."""
    r = x / d
    return np.sum(np.where((r >= -1.0) & (r <= 1.0), r, 1.0) * np.cos(x))


def clip_below_of_a_ratio(x, d=D):
    return np.sum(np.minimum(np.clip(x / d, -1.0, None), 2.0) * x ** 3)


KEPT_SIDE = [
    ("minimum_of_a_ratio", minimum_of_a_ratio, _vec(0.7, 0.5, 1.5), 0),
    ("minimum_of_a_ratio_second", minimum_of_a_ratio_second, _vec(0.7, 0.5, 1.5), 0),
    ("maximum_of_a_ratio", maximum_of_a_ratio, _vec(0.7, 0.5, 1.5), 0),
    ("clip_of_a_ratio", clip_of_a_ratio, _vec(0.7, 0.5, 0.3), 0),
    ("minimum_of_a_log_ratio", minimum_of_a_log_ratio, _vec(0.7, 0.5, 0.2), 0),
    ("where_inside_of_a_ratio", where_inside_of_a_ratio, _vec(0.7, 0.5, 0.3), 0),
    ("clip_below_of_a_ratio", clip_below_of_a_ratio, _vec(0.7, 0.5, 0.3), 0),
]
