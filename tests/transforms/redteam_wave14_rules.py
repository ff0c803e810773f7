"""The red team's fourteenth wave, continued: library calls with their less common arguments, as code
that tidies data along an axis writes them: np.average with 1-D weights along an axis, np.trapezoid of
a 2-D y along axis 0, np.cross with axis arguments, norms with keepdims, np.diff with prepend and
append, np.var with keepdims and ddof, means over a tuple of axes, np.max with initial, np.ptp,
np.quantile along an axis, np.sort along axis 0, np.clip with array bounds, batched np.matmul whose
batch axes broadcast, np.tensordot over two axes, np.einsum with an ellipsis, np.cumsum along an axis
reversed.  See redteam_wave14.py.
"""

from __future__ import annotations

import numpy as np


def average_weights_axis(X, w):
    return np.sum(np.average(X, axis=0, weights=w) ** 2) + np.sum(np.average(X ** 2, axis=1, weights=w[:3]))


def trapezoid_columns(Y, t):
    return np.sum(np.trapezoid(Y ** 2, t, axis=0))


def cross_axis_args(A, B):
    return np.sum(np.cross(A, B, axisa=0, axisb=1) ** 2)


def norm_keepdims(X):
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return np.sum(X / n * np.arange(1.0, X.shape[1] + 1.0))


def diff_prepend_append(x):
    d = np.diff(x, prepend=0.0, append=x[-1] ** 2)
    return np.sum(d ** 2 * np.arange(1.0, len(d) + 1.0))


def var_keepdims_ddof(X):
    v = np.var(X, axis=0, keepdims=True, ddof=1)
    return np.sum((X - X.mean(axis=0)) ** 2 / v)


def mean_tuple_axes(T):
    return np.sum(np.mean(T ** 2, axis=(0, 2)) ** 2)


def max_initial_ptp(X):
    return np.sum(np.max(X, axis=1, initial=-0.5)) + np.sum(np.ptp(X, axis=0) ** 2)


def quantile_axis(X):
    return np.sum(np.quantile(X, [0.25, 0.75], axis=0) ** 2)


def sort_axis0(X):
    S = np.sort(X, axis=0)
    return np.sum(S * np.arange(1.0, X.shape[0] + 1.0)[:, None] * np.arange(1.0, X.shape[1] + 1.0))


def clip_array_bounds(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) ** 2 * np.arange(1.0, len(x) + 1.0))


def batched_matmul_broadcast(A, B):
    return np.sum(np.tanh(A[None, :, :] @ B) ** 2)


def tensordot_two_axes(A, B):
    return np.sum(np.tensordot(A, B, axes=([1, 2], [0, 1])) ** 2)


def einsum_ellipsis(A, x):
    return np.sum(np.einsum("...ij,...j->...i", A, x) ** 2)


def reverse_cumsum_axis(X):
    R = np.cumsum(X[::-1], axis=0)[::-1]
    return np.sum(np.exp(-0.1 * R) * X)


def M(rng, *shape):
    return rng.normal(size=shape)


RULES14 = [
    ("w14_average_weights_axis", average_weights_axis, lambda r: (M(r, 4, 3), r.uniform(0.5, 1.5, size=4)), 0),
    ("w14_average_weights_axis_w", average_weights_axis, lambda r: (M(r, 4, 3), r.uniform(0.5, 1.5, size=4)), 1),
    ("w14_trapezoid_columns", trapezoid_columns, lambda r: (M(r, 5, 2), np.cumsum(r.uniform(0.1, 1.0, size=5))), 0),
    ("w14_trapezoid_columns_t", trapezoid_columns, lambda r: (M(r, 5, 2), np.cumsum(r.uniform(0.1, 1.0, size=5))), 1),
    ("w14_cross_axis_args", cross_axis_args, lambda r: (M(r, 3, 4), M(r, 4, 3)), 0),
    ("w14_cross_axis_args_b", cross_axis_args, lambda r: (M(r, 3, 4), M(r, 4, 3)), 1),
    ("w14_norm_keepdims", norm_keepdims, lambda r: (M(r, 3, 4),), 0),
    ("w14_diff_prepend_append", diff_prepend_append, lambda r: (M(r, 5),), 0),
    ("w14_var_keepdims_ddof", var_keepdims_ddof, lambda r: (M(r, 5, 3),), 0),
    ("w14_mean_tuple_axes", mean_tuple_axes, lambda r: (M(r, 2, 3, 4),), 0),
    ("w14_max_initial_ptp", max_initial_ptp, lambda r: (M(r, 3, 4),), 0),
    ("w14_quantile_axis", quantile_axis, lambda r: (M(r, 7, 3),), 0),
    ("w14_sort_axis0", sort_axis0, lambda r: (M(r, 4, 3),), 0),
    ("w14_clip_array_bounds", clip_array_bounds, lambda r: (M(r, 6), -0.5 + 0.1 * M(r, 6), 0.5 + 0.1 * M(r, 6)), 0),
    ("w14_clip_array_bounds_lo", clip_array_bounds,
     lambda r: (2.0 * M(r, 6), -0.5 + 0.1 * M(r, 6), 0.5 + 0.1 * M(r, 6)), 1),
    ("w14_batched_matmul_broadcast", batched_matmul_broadcast, lambda r: (M(r, 3, 4), M(r, 2, 4, 2)), 0),
    ("w14_batched_matmul_broadcast_b", batched_matmul_broadcast, lambda r: (M(r, 3, 4), M(r, 2, 4, 2)), 1),
    ("w14_tensordot_two_axes", tensordot_two_axes, lambda r: (M(r, 2, 3, 4), M(r, 3, 4, 2)), 0),
    ("w14_einsum_ellipsis", einsum_ellipsis, lambda r: (M(r, 2, 3, 3), M(r, 2, 3)), 0),
    ("w14_einsum_ellipsis_x", einsum_ellipsis, lambda r: (M(r, 2, 3, 3), M(r, 2, 3)), 1),
    ("w14_reverse_cumsum_axis", reverse_cumsum_axis, lambda r: (M(r, 4, 3),), 0),
]
