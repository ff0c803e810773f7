"""The red team's thirteenth wave, continued: where silent wrong answers hide.  Aliasing and views
(an overlapping in-place add y[1:] += y[:-1], a strided view written through, a reshape view
scaled in place, a transpose view, np.add with out= on a copy, a list holding one array three
times, dict entries updated by an inner gradient-descent loop, a helper writing into its
caller's array), integer-valued floats (exponents from a loop counter, floor and int used for
table lookups), values at special points where the function is smooth (x * |x| at 0, a cube at
0 through np.power, expm1(x) / x guarded by np.where at 0, a hypot of zeros kept out by where,
ties inside a sort whose sum is smooth), and float32 inputs (geometry, finance, signal and
data-cleaning code in single precision).  See redteam_wave13.py.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special

# ---- aliasing, views, in-place updates --------------------------------------------------------------


def overlapping_inplace_add(x):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y ** 2)


def strided_view_write(x):
    z = x.copy()
    evens = z[::2]
    evens[:] = np.sin(evens)
    return np.sum(z * x)


def reshape_view_scale(x):
    z = x.copy()
    v = z.reshape(2, 3)
    v *= np.array([1.0, 2.0, 3.0])
    return np.sum(z ** 2) + z[4]


def transpose_view_write(A):
    B = A.copy()
    Bt = B.T
    Bt[0] = 0.5 * Bt[0] + 1.0
    return np.sum(B ** 2 * A)


def add_out_on_copy(x):
    y = np.array(x)
    np.add(y, 1.0, out=y)
    np.multiply(y, x, out=y)
    return np.sum(y)


def list_of_same_array(x):
    rows = [x] * 3
    rows[0] = rows[0] * 2.0
    return sum(np.sum(r ** 2) for r in rows)


def dict_inner_descent(params, X, y, lr=0.1, steps=3):
    p = dict(params)
    for _ in range(steps):
        r = X @ p["w"] + p["b"] - y
        p["w"] = p["w"] - lr * X.T @ r / len(y)
        p["b"] = p["b"] - lr * np.mean(r)
    return np.mean((X @ p["w"] + p["b"] - y) ** 2)


def _normalise_rows_inplace(A):
    A /= np.linalg.norm(A, axis=1, keepdims=True)


def helper_writes_callers_array(W, X):
    U = W.copy()
    _normalise_rows_inplace(U)
    return np.sum((X @ U.T) ** 2) + np.sum(W)


def swap_rows_fancy(A):
    B = A.copy()
    B[[0, 1]] = B[[1, 0]]
    return np.sum(B * np.arange(B.size).reshape(B.shape))


def cumsum_out_alias(x):
    y = x.copy()
    np.cumsum(y, out=y)
    return np.sum(y * x)


# ---- integer-valued floats and lookups ----------------------------------------------------------------


def loop_counter_exponents(x):
    total = 0.0
    for k in range(4):
        total = total + x ** float(k) / math.factorial(k)
    return total


def floor_table_lookup(t, table):
    i = int(math.floor(t))
    frac = t - i
    return (1 - frac) * table[i] + frac * table[i + 1]


def np_floor_index_interp(t, table):
    i = np.floor(t).astype(int)
    frac = t - i
    return np.sum((1 - frac) * table[i] + frac * table[i + 1])


def integer_valued_power(x):
    return np.sum(x ** 2.0 + np.power(x, 3.0) + x ** np.float64(1.0))


# ---- special points where f is smooth ----------------------------------------------------------------


def x_abs_x_vector(x):
    return np.sum(x * np.abs(x) + np.power(x, 3.0))


def expm1_over_x_guarded(x):
    safe = np.where(x == 0.0, 1.0, x)
    return np.sum(np.where(x == 0.0, 1.0 + 0.5 * x, np.expm1(safe) / safe))


def hypot_guarded_zero(p):
    n = np.hypot(p[:, 0], p[:, 1])
    safe = np.where(n > 0, n, 1.0)
    return np.sum(np.where(n > 0, n ** 3 / safe, 0.0))


def sorted_sum_with_ties(x):
    s = np.sort(x)
    return np.sum(s ** 2) + np.sum(np.exp(s))


def max_of_ties_smooth(x):
    m = np.max(x)
    return np.sum(np.exp(x - m)) * np.exp(m)


def clip_inside_at_integer(x):
    return np.sum(np.clip(x, -3.0, 3.0) ** 2)


def logsumexp_with_neg_inf(x, mask):
    z = np.where(mask, x, -np.inf)
    return scipy.special.logsumexp(z)


def sqrt_guarded_where(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x)) * x, x ** 2))


def softplus_extremes(x):
    return np.sum(np.logaddexp(0.0, x) + np.log1p(np.exp(-np.abs(x))))


# ---- float32 ------------------------------------------------------------------------------------------


def f32_shoelace(P):
    x, y = P[:, 0], P[:, 1]
    return np.float32(0.5) * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)


def f32_ewma_loop(x, alpha=0.2):
    s = x[0]
    total = np.float32(0.0)
    for v in x[1:]:
        s = alpha * v + (1 - alpha) * s
        total = total + (v - s) ** 2
    return total


K100, HALF = np.float32(100.0), np.float32(0.5)


def f32_black_scholes_put(sigma, S, K=K100, T=HALF):
    d1 = (np.log(S / K) + 0.5 * sigma ** 2 * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return np.sum(K * scipy.special.ndtr(-d2) - S * scipy.special.ndtr(-d1))


def f32_hann_conv(x):
    w = np.hanning(5).astype(np.float32)
    return np.sum(np.convolve(x, w, mode="same") ** 2)


def f32_percentile_clip(x):
    lo, hi = np.percentile(x, [10, 90])
    return np.mean(np.clip(x, lo, hi) ** 2)


def f32_quaternion_norm(q, v):
    q = q / np.sqrt(np.sum(q * q))
    w, u = q[0], q[1:]
    t = 2.0 * np.cross(u, v)
    rotated = v + w * t + np.cross(u, t)
    return np.sum(rotated * np.array([1.0, 0.0, 0.0], dtype=np.float32))


def f32_dict_tree_mlp(params, X):
    h = np.tanh(X @ params["layer"]["W"] + params["layer"]["b"])
    return np.mean(h ** 2) + params["reg"] * np.sum(params["layer"]["W"] ** 2)


def f32_cumsum_normalise(x):
    c = np.cumsum(np.exp(x))
    return np.sum(np.log(c / c[-1] + np.float32(1e-3)))


def M(rng, *shape):
    return rng.normal(size=shape)


def F(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


PENTAGON = np.array([[0.0, 0.0], [2.0, 0.1], [2.2, 1.8], [0.1, 2.0], [-0.5, 1.0]])


def _f32_tree(r):
    return {"layer": {"W": 0.5 * F(r, 3, 2), "b": F(r, 2)}, "reg": np.float32(0.01)}


POINTS13 = [
    ("w13_overlapping_inplace_add", overlapping_inplace_add, lambda r: (M(r, 5),), 0),
    ("w13_strided_view_write", strided_view_write, lambda r: (M(r, 6),), 0),
    ("w13_reshape_view_scale", reshape_view_scale, lambda r: (M(r, 6),), 0),
    ("w13_transpose_view_write", transpose_view_write, lambda r: (M(r, 3, 2),), 0),
    ("w13_add_out_on_copy", add_out_on_copy, lambda r: (M(r, 4),), 0),
    ("w13_list_of_same_array", list_of_same_array, lambda r: (M(r, 3),), 0),
    ("w13_dict_inner_descent", dict_inner_descent,
     lambda r: ({"w": M(r, 3), "b": 0.1}, M(r, 6, 3), M(r, 6)), 0),
    ("w13_helper_writes_callers_array", helper_writes_callers_array, lambda r: (M(r, 3, 4), M(r, 5, 4)), 0),
    ("w13_swap_rows_fancy", swap_rows_fancy, lambda r: (M(r, 3, 2),), 0),
    ("w13_cumsum_out_alias", cumsum_out_alias, lambda r: (M(r, 5),), 0),
    ("w13_loop_counter_exponents", loop_counter_exponents, lambda r: (0.0,), 0),
    ("w13_floor_table_lookup", floor_table_lookup, lambda r: (1.3, M(r, 4)), 0),
    ("w13_floor_table_lookup_table", floor_table_lookup, lambda r: (1.3, M(r, 4)), 1),
    ("w13_np_floor_index_interp", np_floor_index_interp, lambda r: (np.array([0.2, 1.7, 2.4]), M(r, 4)), 0),
    ("w13_integer_valued_power", integer_valued_power, lambda r: (np.array([0.0, 2.0, -1.0, 3.0]),), 0),
    ("w13_x_abs_x_vector", x_abs_x_vector, lambda r: (np.array([0.0, -1.0, 0.0, 2.0]),), 0),
    ("w13_expm1_over_x_guarded", expm1_over_x_guarded, lambda r: (np.array([0.0, 0.5, -1.0]),), 0),
    ("w13_hypot_guarded_zero", hypot_guarded_zero, lambda r: (np.array([[0.0, 0.0], [1.0, 2.0], [-0.5, 0.3]]),), 0),
    ("w13_sorted_sum_with_ties", sorted_sum_with_ties, lambda r: (np.array([1.0, 0.5, 1.0, -0.2, 0.5]),), 0),
    ("w13_max_of_ties_smooth", max_of_ties_smooth, lambda r: (np.array([0.3, 1.2, 1.2, -0.4]),), 0),
    ("w13_clip_inside_at_integer", clip_inside_at_integer, lambda r: (np.array([-2.0, 0.0, 1.0, 2.0]),), 0),
    ("w13_logsumexp_with_neg_inf", logsumexp_with_neg_inf,
     lambda r: (M(r, 5), np.array([True, False, True, True, False])), 0),
    ("w13_sqrt_guarded_where", sqrt_guarded_where, lambda r: (np.array([0.5, -0.7, 1.3, -0.1]),), 0),
    ("w13_softplus_extremes", softplus_extremes, lambda r: (np.array([-800.0, -3.0, 0.0, 4.0, 800.0]),), 0),
    ("w13_f32_shoelace", f32_shoelace, lambda r: ((PENTAGON + 0.05 * M(r, 5, 2)).astype(np.float32),), 0),
    ("w13_f32_ewma_loop", f32_ewma_loop, lambda r: (F(r, 6),), 0),
    ("w13_f32_black_scholes_put", f32_black_scholes_put,
     lambda r: (np.float32(0.3), (100.0 + 5 * F(r, 3)).astype(np.float32)), 0),
    ("w13_f32_hann_conv", f32_hann_conv, lambda r: (F(r, 8),), 0),
    ("w13_f32_percentile_clip", f32_percentile_clip, lambda r: (F(r, 12),), 0),
    ("w13_f32_quaternion_norm", f32_quaternion_norm, lambda r: (F(r, 4), F(r, 3)), 0),
    ("w13_f32_dict_tree_mlp", f32_dict_tree_mlp, lambda r: (_f32_tree(r), F(r, 4, 3)), 0),
    ("w13_f32_cumsum_normalise", f32_cumsum_normalise, lambda r: (F(r, 5),), 0),
]
