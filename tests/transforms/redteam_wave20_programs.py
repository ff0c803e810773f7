"""The red team's twentieth wave: softmax / logsumexp / attention max shifts that do and do not
cancel, np.split with uneven parts, index lists and negative axes, and sizes read with len() or
x.shape[k] used in arithmetic, written the ways users write them.  test_redteam_wave20.py runs
them through every transformation against float64 central differences."""

import numpy as np


def M(r, *shape):
    return r.normal(size=shape)


# ---- max shifts that do NOT cancel ---------------------------------------------------------


def softmax_max_also_used(x, w):
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp(x - m)
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(p * w) + 0.3 * np.sum(m)


def softmax_max_other_axis(x, w):
    m = np.max(x, axis=0, keepdims=True)  # a column's max, a row's sum: the shift stays
    e = np.exp(x - m)
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(p * w)


def softmax_max_no_keepdims_square(x, w):
    m = np.max(x, axis=1)  # (n,) broadcast along the last axis: each column shifted, not each row
    e = np.exp(x - m)
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(p * w)


def scaled_exp_unequal(x, w):
    m = np.max(x, axis=1, keepdims=True)
    num = np.exp(2.0 * (x - m))
    den = np.sum(np.exp(x - m), axis=1, keepdims=True)
    return np.sum(w * num / den)


def logsumexp_max_not_added(x):
    m = np.max(x, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(x - m), axis=1)))


def logsumexp_half_max(x):
    m = np.max(x, axis=-1)
    return np.sum(0.5 * m + np.log(np.sum(np.exp(x - m[:, None]), axis=-1)))


def softmax_plus_one(x, w):
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp(x - m)
    return np.sum(w * e / (1.0 + np.sum(e, axis=1, keepdims=True)))


def softmax_clipped_shift(x, w):
    m = np.max(x, axis=1, keepdims=True)
    z = np.maximum(x - m, -1.0)
    e = np.exp(z)
    return np.sum(w * e / np.sum(e, axis=1, keepdims=True))


def softmax_whole_sum(x, w):
    m = np.max(x, axis=1, keepdims=True)  # rows shifted, normalised over everything
    e = np.exp(x - m)
    return np.sum(w * e / np.sum(e))


def softmax_sum_other_axis_3d(x, w):
    m = np.max(x, axis=2, keepdims=True)
    e = np.exp(x - m)
    return np.sum(w * e / np.sum(e, axis=1, keepdims=True))


def softmax_temperature_param(x, T):
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp((x - m) / T)
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum(p * np.arange(x.shape[1]))


def softmax_times_max(x, w):
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    return np.sum(w * m * e / e.sum(axis=1, keepdims=True))


def log_softmax_shift_times(x, w):
    m = np.max(x, axis=1, keepdims=True)
    z = 1.5 * (x - m)  # the shift scaled, the log-sum not: 1.5 d - d
    return np.sum(w * (z - np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))))


def max_of_first_row_shift(x, w):
    m = np.max(x[0])  # one number for every row: cancels (a shift of everything)
    e = np.exp(x - m)
    return np.sum(w * e / np.sum(e, axis=1, keepdims=True))


def max_of_first_row_in_output(x, w):
    m = np.max(x[0])
    e = np.exp(x - m)
    return np.sum(w * e) / x.shape[1]


def softmax_exp_squared_mixed(x, w):
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp(x - m)
    return np.sum(w * e ** 2 / np.sum(e, axis=1, keepdims=True) ** 1.5)


def max_in_attention_score(q, k):
    s = q @ k.T / np.sqrt(q.shape[1])
    m = np.max(s, axis=-1, keepdims=True)
    a = np.exp(s - m)
    a = a / a.sum(axis=-1, keepdims=True)
    return np.sum(a * s) + np.sum(m ** 2)


def min_shift_softmin(x, w):
    m = np.min(x, axis=1, keepdims=True)
    e = np.exp(-(x - m))
    return np.sum(w * e / np.sum(e, axis=1, keepdims=True)) + np.sum(np.abs(m))


def max_over_columns_t(x, w):
    m = np.max(x.T, axis=1)  # the max of each column, subtracted from each row's columns
    e = np.exp(x - m)
    return np.sum(w * e / np.sum(e, axis=1, keepdims=True))


def amax_slice_rows(x, w):
    m = np.amax(x[:, :2], axis=1, keepdims=True)  # a max of a slice: any shift of a row cancels
    e = np.exp(x - m)
    return np.sum(w * np.log(e / e.sum(axis=1, keepdims=True) + 1.0))


def shift_used_after_log(x, w):
    m = np.max(x, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))
    return np.sum(w * (x - lse))  # m not added back: the shift stays


# ---- max shifts that cancel (held constant) -------------------------------------------------


def softmax_of_max_of_doubled(x, w):
    m = np.max(2.0 * x, axis=1, keepdims=True)
    e = np.exp(x - m)
    return np.sum(w * e / np.sum(e, axis=1, keepdims=True))


def softmax_sq_both(x, w):
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp(x - m) ** 2
    return np.sum(w * e / np.sum(e, axis=1, keepdims=True))


def logsumexp_negative_axis_3d(x):
    m = np.max(x, axis=-1, keepdims=True)
    return np.sum(m[..., 0] + np.log(np.sum(np.exp(x - m), axis=-1)))


def column_softmax_keepdims(x, w):
    m = np.max(x, axis=0, keepdims=True)
    e = np.exp(x - m)
    return np.sum(w * e / np.sum(e, axis=0, keepdims=True))


def attention_scaled_shift(q, k, v):
    s = q @ k.T
    m = np.max(s, axis=1)[:, None]
    a = np.exp(0.5 * (s - m))
    a = a / np.sum(a, axis=1)[:, None]
    return np.sum((a @ v) ** 2)


# ---- np.split, lengths and shapes -----------------------------------------------------------


def split_uneven_indices(x, w):
    a, b, c = np.split(x, [1, 3], axis=1)  # widths 1, 2 and the rest
    return np.sum(np.tanh(a) * b[:, :1] + c @ w[: c.shape[1]])


def split_negative_axis(x):
    a, b = np.split(x, 2, axis=-1)
    return np.sum(np.exp(a) * np.sin(b)) + np.sum(a[:, :1] * b)


def array_split_uneven(x):
    parts = np.array_split(x, 3)
    return sum(np.sum(p ** 2) * (i + 1) for i, p in enumerate(parts))


def split_positional_axis(x):
    a, b = np.split(x, 2, 1)
    return np.sum(a * b) + np.sum(a[:1] ** 2)


def split_width_one_softmax(x):
    parts = np.split(x, x.shape[1], axis=1)  # columns of width one
    s = parts[0] + 2.0 * parts[-1]
    m = np.max(s, axis=1, keepdims=True)
    e = np.exp(s - m)
    return np.sum(np.log(np.sum(e, axis=1)) + m[:, 0])


def split_into_one_row_then_max(x):
    top, rest = np.split(x, [1])  # top has one row
    m = np.max(top, axis=0, keepdims=True)
    e = np.exp(rest - m)
    return np.sum(e / np.sum(e, axis=0, keepdims=True) * rest)


def hsplit_vector(x):
    a, b = np.hsplit(x, [2])
    return np.sum(a ** 2) * np.sum(np.cos(b))


def vsplit_then_broadcast(x):
    a, b = np.vsplit(x, [1])
    return np.sum((b - a) ** 2 * np.arange(1, x.shape[1] + 1))


def len_in_arithmetic(x):
    n = len(x)
    t = np.arange(n) / (n - 1)
    return np.sum(x * t ** 2) / n + np.sum(x[: n // 2] ** 2)


def shape_in_arithmetic(x, w):
    n, d = x.shape
    h = np.zeros((n, d + 1))
    h[:, :d] = x
    h[:, d] = 1.0
    return np.sum((h @ w) ** 2) / (n * d)


def zeros_from_length_minus(x):
    n = x.shape[0]
    y = np.zeros(n - 1)
    y = y + np.diff(x)
    return np.sum(y ** 2 * x[: n - 1])


def slice_to_length_of_other(x, w):
    n = w.shape[0]
    return np.sum(x[:n] * w) + np.sum(x[n:] ** 2)


def full_slice_then_stack(x):
    a = x[:, :]
    b = a[:, None, :] * a[None, :, :]
    return np.sum(np.sin(b)) / x.shape[0]


def length_one_slice_stop(x, w):
    k = w.shape[0]  # one: x[:k] is a single row
    top = x[:k]
    return np.sum((x - top) ** 2 * w[0])


def fill_plus_sum_adjoint(x):
    s = np.sum(x, axis=1, keepdims=True)
    return np.sum(s * x) + np.sum(np.full(x.shape, 2.0) * x ** 2)


PROGRAMS = [
    ("softmax_max_also_used", softmax_max_also_used, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("softmax_max_other_axis", softmax_max_other_axis, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("softmax_max_no_keepdims_square", softmax_max_no_keepdims_square, lambda r: (M(r, 4, 4), M(r, 4, 4)), 0),
    ("scaled_exp_unequal", scaled_exp_unequal, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("logsumexp_max_not_added", logsumexp_max_not_added, lambda r: (M(r, 3, 4),), 0),
    ("logsumexp_half_max", logsumexp_half_max, lambda r: (M(r, 3, 4),), 0),
    ("softmax_plus_one", softmax_plus_one, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("softmax_clipped_shift", softmax_clipped_shift, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("softmax_whole_sum", softmax_whole_sum, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("softmax_sum_other_axis_3d", softmax_sum_other_axis_3d, lambda r: (M(r, 2, 3, 4), M(r, 2, 3, 4)), 0),
    ("softmax_temperature_param", softmax_temperature_param, lambda r: (M(r, 3, 4), 1.7), 1),
    ("softmax_times_max", softmax_times_max, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("log_softmax_shift_times", log_softmax_shift_times, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("max_of_first_row_shift", max_of_first_row_shift, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("max_of_first_row_in_output", max_of_first_row_in_output, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("softmax_exp_squared_mixed", softmax_exp_squared_mixed, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("max_in_attention_score", max_in_attention_score, lambda r: (M(r, 3, 4), M(r, 5, 4)), 0),
    ("min_shift_softmin", min_shift_softmin, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("max_over_columns_t", max_over_columns_t, lambda r: (M(r, 4, 4), M(r, 4, 4)), 0),
    ("amax_slice_rows", amax_slice_rows, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("shift_used_after_log", shift_used_after_log, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("softmax_of_max_of_doubled", softmax_of_max_of_doubled, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("softmax_sq_both", softmax_sq_both, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("logsumexp_negative_axis_3d", logsumexp_negative_axis_3d, lambda r: (M(r, 2, 3, 4),), 0),
    ("column_softmax_keepdims", column_softmax_keepdims, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("attention_scaled_shift", attention_scaled_shift, lambda r: (M(r, 3, 4), M(r, 5, 4), M(r, 5, 2)), 0),
    ("attention_scaled_shift_k", attention_scaled_shift, lambda r: (M(r, 3, 4), M(r, 5, 4), M(r, 5, 2)), 1),
    ("split_uneven_indices", split_uneven_indices, lambda r: (M(r, 3, 6), M(r, 4, 2)), 0),
    ("split_uneven_indices_w", split_uneven_indices, lambda r: (M(r, 3, 6), M(r, 4, 2)), 1),
    ("split_negative_axis", split_negative_axis, lambda r: (M(r, 3, 4),), 0),
    ("array_split_uneven", array_split_uneven, lambda r: (M(r, 7, 2),), 0),
    ("split_positional_axis", split_positional_axis, lambda r: (M(r, 3, 4),), 0),
    ("split_width_one_softmax", split_width_one_softmax, lambda r: (M(r, 3, 4),), 0),
    ("split_into_one_row_then_max", split_into_one_row_then_max, lambda r: (M(r, 4, 3),), 0),
    ("hsplit_vector", hsplit_vector, lambda r: (M(r, 5),), 0),
    ("vsplit_then_broadcast", vsplit_then_broadcast, lambda r: (M(r, 3, 4),), 0),
    ("len_in_arithmetic", len_in_arithmetic, lambda r: (M(r, 6),), 0),
    ("shape_in_arithmetic", shape_in_arithmetic, lambda r: (M(r, 4, 3), M(r, 4, 2)), 0),
    ("shape_in_arithmetic_w", shape_in_arithmetic, lambda r: (M(r, 4, 3), M(r, 4, 2)), 1),
    ("zeros_from_length_minus", zeros_from_length_minus, lambda r: (M(r, 5),), 0),
    ("slice_to_length_of_other", slice_to_length_of_other, lambda r: (M(r, 6), M(r, 4)), 0),
    ("full_slice_then_stack", full_slice_then_stack, lambda r: (M(r, 3, 2),), 0),
    ("length_one_slice_stop", length_one_slice_stop, lambda r: (M(r, 4, 3), M(r, 1)), 0),
    ("fill_plus_sum_adjoint", fill_plus_sum_adjoint, lambda r: (M(r, 3, 4),), 0),
]


# ---- vector maps (jacobian, jvp, vjp of an array result) ------------------------------------


def softmax_rows_kept_max(x):
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=1, keepdims=True) + 0.5 * m


def softmax_columns_of_row_max(x):
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=0, keepdims=True)


def log_softmax_rows(x):
    m = x.max(axis=-1, keepdims=True)
    z = x - m
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def split_parts_joined(x):
    a, b, c = np.split(x, [1, 3], axis=-1)
    return np.concatenate([np.exp(c), a * b[:, :1], b ** 2], axis=-1)


VECTOR = [
    ("softmax_rows_kept_max", softmax_rows_kept_max, lambda r: (M(r, 3, 4),)),
    ("softmax_columns_of_row_max", softmax_columns_of_row_max, lambda r: (M(r, 3, 4),)),
    ("log_softmax_rows", log_softmax_rows, lambda r: (M(r, 3, 4),)),
    ("split_parts_joined", split_parts_joined, lambda r: (M(r, 2, 5),)),
]


# ---- float32 arguments meeting float64 values (differentiated with respect to a Python float) ----
# (the parameter meets a float64 value first: the function is float64 in it, and so is its derivative)

GRID = np.linspace(0.0, 1.0, 6)  # a module-level float64 array


def f32_linspace_stencil(u0, k):
    w = np.linspace(0.5, 1.5, len(u0) - 2)
    u = u0
    for _ in range(3):
        u = np.concatenate([u[:1], u[1:-1] + k * w * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(u ** 2)


def f32_zeros_state(xs, k):
    h = np.zeros(xs.shape[1])  # float64: every state after it is
    for t in range(xs.shape[0]):
        h = np.tanh(k * h + xs[t])
    return np.sum(h ** 2)


def f32_global_grid(u, k):
    return np.mean(np.sin(k * GRID * u) ** 2)


def f32_arange_weights(u, k):
    return np.mean(np.exp(-k * np.arange(len(u)) * u))


def f32_numpy_number(u, k):
    c = np.exp(0.3)  # a NumPy float64 number: float32 arrays it meets become float64
    return np.mean(np.cos(k * c * u))


def f32_astype_up(u, k):
    v = u.astype(np.float64)
    return np.sum(np.log1p((k * v) ** 2))


def f32_literal_array(u, k):
    w = np.array([0.5, -1.0, 2.0, 0.25, 1.5, -0.75])
    return np.mean(np.tanh(k * w * u)) ** 2


def f32_softmax_float64_bias(x, k):
    s = (k * GRID[:4]) * x + GRID[1:5]
    m = np.max(s, axis=1, keepdims=True)
    e = np.exp(s - m)
    return np.mean(np.log(e / np.sum(e, axis=1, keepdims=True) + 0.5))


def f32_mean_of_ints(u, k):
    idx = np.arange(len(u))
    return np.sum(np.mean(idx) * k * u) + np.sum((np.mean(idx) * k * u) ** 3)


def f32_stencil_global_coefficients(u0, k):
    u = u0
    for _ in range(3):  # GRID is float64: u is float64 after the first step
        u = np.concatenate([u[:1], u[1:-1] + k * GRID[1:-1] * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.mean(u ** 2)


def f32_stencil_numpy_number(u0, k):
    c = np.float64(0.5) * k  # a NumPy float64 number
    u = u0
    for _ in range(3):
        u = np.concatenate([u[:1], u[1:-1] + c * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.mean(u ** 2)


def f32_index_writes_arange(u0, k):
    u = u0 * np.arange(1, len(u0) + 1)  # float32 times int64: float64
    for _ in range(3):
        v = u.copy()
        v[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u = v
    return np.mean(u ** 2)


def F32(r, *shape):
    return r.normal(size=shape).astype(np.float32)


MIXED = [
    ("f32_linspace_stencil", f32_linspace_stencil, lambda r: (F32(r, 6), 0.2), 1),
    ("f32_zeros_state", f32_zeros_state, lambda r: (F32(r, 4, 3), 0.7), 1),
    ("f32_global_grid", f32_global_grid, lambda r: (F32(r, 6), 1.3), 1),
    ("f32_arange_weights", f32_arange_weights, lambda r: (F32(r, 6), 0.8), 1),
    ("f32_numpy_number", f32_numpy_number, lambda r: (F32(r, 6), 0.9), 1),
    ("f32_astype_up", f32_astype_up, lambda r: (F32(r, 6), 0.9), 1),
    ("f32_literal_array", f32_literal_array, lambda r: (F32(r, 6), 0.9), 1),
    ("f32_softmax_float64_bias", f32_softmax_float64_bias, lambda r: (F32(r, 3, 4), 0.9), 1),
    ("f32_mean_of_ints", f32_mean_of_ints, lambda r: (F32(r, 6), 0.9), 1),
    ("f32_stencil_global_coefficients", f32_stencil_global_coefficients, lambda r: (F32(r, 6), 0.2), 1),
    ("f32_stencil_numpy_number", f32_stencil_numpy_number, lambda r: (F32(r, 6), 0.3), 1),
    ("f32_index_writes_arange", f32_index_writes_arange, lambda r: (F32(r, 6), 0.1), 1),
]
