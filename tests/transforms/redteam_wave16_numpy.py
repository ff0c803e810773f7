"""The red team's sixteenth wave, continued: NumPy spellings (einsum with an ellipsis, a trace, optimize=True;
np.tensordot with axes tuples and axes=0; np.take_along_axis of an argsort; np.put_along_axis into an
array of the function's; np.cumsum / np.cumprod along an axis, reversed; np.diff with n=2 and an axis;
np.roll with shifts and axes; np.pad constant / edge / reflect; np.tile / np.repeat with an axis;
np.linalg.norm with ord 1, inf, 'fro', 'nuc', 2 of a matrix and an axis; boolean mask writes; fancy
index writes with repeated indices, ``=`` and ``+=``; np.sort and argsort gathers; np.triu / np.tril with
k; np.outer, np.kron, np.add.outer; np.trace with an offset, np.diagonal; np.moveaxis; np.flip; np.select;
np.average with weights; np.cov; np.linalg.slogdet, matrix_power, multi_dot; np.block; np.ix_; np.cross
with an axis; np.apply_along_axis; np.logaddexp.reduce; np.ediff1d; sliding_window_view).
See redteam_wave16.py.
"""

from __future__ import annotations

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def einsum_ellipsis(A, x):
    y = np.einsum("...ij,...j->...i", A, x)
    return np.sum(np.tanh(y))


def einsum_trace_optimize(A, B):
    return np.einsum("ij,jk,ki->", A, B, A, optimize=True) + np.einsum("ii", A @ B)


def tensordot_axes_tuple(T, W):
    out = np.tensordot(T, W, axes=([1, 2], [0, 1]))
    return np.sum(out ** 2)


def tensordot_axes_zero(a, b):
    return np.sum(np.sin(np.tensordot(a, b, axes=0)))


def take_along_argsort(X):
    idx = np.argsort(X, axis=1)
    S = np.take_along_axis(X, idx, axis=1)
    return np.sum(S * np.arange(1.0, X.shape[1] + 1))


def put_along_axis_write(x):
    Y = np.zeros((3, 4))
    idx = np.array([[0], [2], [3]])
    np.put_along_axis(Y, idx, x[:, None], axis=1)
    return np.sum(np.cumsum(Y, axis=1) ** 2)


def cumsum_axis_reversed(X):
    c = np.cumsum(X[:, ::-1], axis=1)[:, ::-1]
    return np.sum(c ** 2) + np.sum(np.cumsum(X, axis=0) * X)


def cumprod_axis(X):
    return np.sum(np.cumprod(X, axis=1)) + np.sum(np.cumprod(X, axis=0)[-1])


def diff_second_order(x):
    return np.sum(np.diff(x, n=2) ** 2) + 0.1 * np.sum(np.diff(x) ** 2)


def diff_axis(X):
    return np.sum(np.diff(X, n=2, axis=0) ** 2) + np.sum(np.diff(X, axis=-1) ** 2)


def roll_shifts(X):
    return np.sum(X * np.roll(X, 1, axis=0)) + np.sum(X * np.roll(X, (1, -1), axis=(0, 1))) + np.sum(np.roll(X, 2) * X)


def pad_modes(x):
    a = np.pad(x, 2, mode="constant", constant_values=1.0)
    b = np.pad(x, (2, 2), mode="edge")
    c = np.pad(x, 2, mode="reflect")
    return np.sum(a * b * c)


def pad_2d(X):
    P = np.pad(X, ((1, 1), (0, 2)))
    return np.sum(np.diff(P, axis=0) ** 2 + np.diff(P, axis=1)[:-1, :-1].sum())


def tile_repeat(x):
    t = np.tile(x, 3)
    r = np.repeat(x, 2)
    return np.sum(t[: len(r)] * r)


def tile_repeat_axis(X):
    T = np.tile(X, (2, 1))
    R = np.repeat(X, [1, 2, 3], axis=0)
    return np.sum(T[:3] * X) + np.sum(R ** 2) + np.sum(np.repeat(X, 2, axis=1) ** 3)


def norm_orders(x):
    return np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x, 3) + np.linalg.norm(x, -np.inf)


def norm_axis_ord(X):
    return np.sum(np.linalg.norm(X, ord=1, axis=1)) + np.sum(np.linalg.norm(X, axis=0) ** 3)


def norm_matrix_orders(A):
    return (np.linalg.norm(A, "fro") + np.linalg.norm(A, "nuc") + np.linalg.norm(A, 2) + np.linalg.norm(A, 1)
            + np.linalg.norm(A, np.inf))


def boolean_mask_write(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[x > 1] = x[x > 1] ** 2
    return np.sum(y * np.arange(1.0, len(x) + 1))


def boolean_mask_rows(X):
    Z = X.copy()
    bad = np.abs(Z).max(axis=1) > 1.5
    Z[bad] = Z[bad] / 2.0
    return np.sum(Z ** 2)


def fancy_write_repeats(x):
    y = np.zeros(4)
    y[[0, 0, 2]] = x[:3]
    return np.sum(y * np.arange(1.0, 5.0)) + np.sum(y ** 2)


def fancy_iadd_repeats(x):
    y = np.zeros(4)
    y[[1, 1, 3]] += x[:3] ** 2
    return np.sum(y * np.arange(1.0, 5.0))


def fancy_write_2d_repeats(X, v):
    Y = X.copy()
    Y[[0, 1, 0], [1, 1, 1]] = v
    return np.sum(Y ** 2)


def sort_gather(x, w):
    s = np.sort(x)
    return np.sum(w * s) + np.sum(x[np.argsort(-x)][:2])


def sort_axis0(X):
    return np.sum(np.sort(X, axis=0)[-1]) + np.sum(np.sort(X)[:, 0] ** 2)


def triu_tril(A):
    U = np.triu(A, 1)
    L = np.tril(A, -1)
    return np.sum(U @ L) + np.sum(np.tril(A) ** 2) + np.trace(np.triu(A, k=-1))


def outer_kron(a, b):
    K = np.kron(np.outer(a, b), np.eye(2))
    return np.sum(K ** 2) + np.sum(np.kron(a, b) * np.arange(len(a) * len(b)))


def add_outer(a, b):
    D = np.add.outer(a, b) ** 2 + np.subtract.outer(a, b)
    return np.sum(np.exp(-D))


def trace_offset_diagonal(A):
    return np.trace(A, offset=1) + np.sum(np.diagonal(A, offset=-1) ** 2) + np.sum(np.diag(A, k=1) * 3)


def moveaxis_flip(T):
    U = np.moveaxis(T, 0, -1)
    return np.sum(U[..., 0] * np.flip(U, axis=1)[..., 1]) + np.sum(np.flip(T) * T)


def select_pieces(x):
    return np.sum(np.select([x < -1, x < 1], [-(x ** 2), x ** 3], default=np.sin(x)))


def average_weights(w, x):
    return np.average(x, weights=np.exp(w)) ** 2


def cov_logdet(X):
    C = np.cov(X, rowvar=False) + 0.1 * np.eye(X.shape[1])
    sign, logdet = np.linalg.slogdet(C)
    return logdet


def matrix_power_multidot(A, B):
    return np.sum(np.linalg.matrix_power(A, 3)) + np.sum(np.linalg.multi_dot([A, B, A.T]))


def block_matrix(A, b):
    K = np.block([[A, b[:, None]], [b[None, :], np.zeros((1, 1))]])
    rhs = np.concatenate([np.ones(len(b)), [0.5]])
    return np.sum(np.linalg.solve(K, rhs) ** 2)


def ix_gather(A):
    rows, cols = [0, 2], [1, 2]
    return np.sum(A[np.ix_(rows, cols)] ** 2)


def cross_axis(P, Q):
    return np.sum(np.cross(P, Q, axis=0) ** 2)


def apply_along_axis_softmax(X):
    def smax(v):
        e = np.exp(v - v.max())
        return e / e.sum()
    return np.sum(np.apply_along_axis(smax, 1, X) * np.arange(X.shape[1]))


def logaddexp_reduce(x):
    return np.logaddexp.reduce(x) + np.sum(np.logaddexp.accumulate(x))


def ediff1d_ends(x):
    return np.sum(np.ediff1d(x, to_begin=0.0, to_end=x[0]) ** 2)


def sliding_windows(x):
    W = np.lib.stride_tricks.sliding_window_view(x, 3)
    return np.sum(np.max(W, axis=1) + W.mean(axis=1) ** 2)


def swapaxes_matmul(T):
    return np.sum(np.swapaxes(T, 1, 2) @ T)


def reshape_order_f(x):
    A = x.reshape((2, 3), order="F")
    return np.sum(A[0] * A[1] ** 2)


def split_sections(x):
    a, b, c = np.split(x, [2, 5])
    return np.sum(a ** 2) + np.sum(b ** 3) + np.prod(c)


NUMPY16 = [
    ("w16_einsum_ellipsis", einsum_ellipsis, lambda r: (M(r, 2, 3, 3), M(r, 2, 3)), 0),
    ("w16_einsum_ellipsis_x", einsum_ellipsis, lambda r: (M(r, 2, 3, 3), M(r, 2, 3)), 1),
    ("w16_einsum_trace_optimize", einsum_trace_optimize, lambda r: (M(r, 3, 3), M(r, 3, 3)), 0),
    ("w16_tensordot_axes_tuple", tensordot_axes_tuple, lambda r: (M(r, 2, 3, 4), M(r, 3, 4, 2)), 0),
    ("w16_tensordot_axes_tuple_W", tensordot_axes_tuple, lambda r: (M(r, 2, 3, 4), M(r, 3, 4, 2)), 1),
    ("w16_tensordot_axes_zero", tensordot_axes_zero, lambda r: (M(r, 3), M(r, 2)), 0),
    ("w16_take_along_argsort", take_along_argsort, lambda r: (M(r, 3, 4),), 0),
    ("w16_put_along_axis", put_along_axis_write, lambda r: (M(r, 3),), 0),
    ("w16_cumsum_axis_reversed", cumsum_axis_reversed, lambda r: (M(r, 3, 4),), 0),
    ("w16_cumprod_axis", cumprod_axis, lambda r: (M(r, 3, 4),), 0),
    ("w16_diff_second_order", diff_second_order, lambda r: (M(r, 6),), 0),
    ("w16_diff_axis", diff_axis, lambda r: (M(r, 4, 3),), 0),
    ("w16_roll_shifts", roll_shifts, lambda r: (M(r, 3, 4),), 0),
    ("w16_pad_modes", pad_modes, lambda r: (M(r, 5),), 0),
    ("w16_pad_2d", pad_2d, lambda r: (M(r, 3, 3),), 0),
    ("w16_tile_repeat", tile_repeat, lambda r: (M(r, 3),), 0),
    ("w16_tile_repeat_axis", tile_repeat_axis, lambda r: (M(r, 3, 2),), 0),
    ("w16_norm_orders", norm_orders, lambda r: (np.array([0.5, -2.0, 1.2, 0.3]),), 0),
    ("w16_norm_axis_ord", norm_axis_ord, lambda r: (M(r, 3, 4),), 0),
    ("w16_norm_matrix_orders", norm_matrix_orders, lambda r: (M(r, 3, 3),), 0),
    ("w16_boolean_mask_write", boolean_mask_write, lambda r: (np.array([0.5, -1.0, 2.0, 1.5, -0.2]),), 0),
    ("w16_boolean_mask_rows", boolean_mask_rows, lambda r: (M(r, 4, 3),), 0),
    ("w16_fancy_write_repeats", fancy_write_repeats, lambda r: (M(r, 4),), 0),
    ("w16_fancy_iadd_repeats", fancy_iadd_repeats, lambda r: (M(r, 4),), 0),
    ("w16_fancy_write_2d_repeats", fancy_write_2d_repeats, lambda r: (M(r, 2, 3), M(r, 3)), 0),
    ("w16_fancy_write_2d_repeats_v", fancy_write_2d_repeats, lambda r: (M(r, 2, 3), M(r, 3)), 1),
    ("w16_sort_gather", sort_gather, lambda r: (M(r, 5), M(r, 5)), 0),
    ("w16_sort_axis0", sort_axis0, lambda r: (M(r, 3, 4),), 0),
    ("w16_triu_tril", triu_tril, lambda r: (M(r, 4, 4),), 0),
    ("w16_outer_kron", outer_kron, lambda r: (M(r, 2), M(r, 3)), 0),
    ("w16_add_outer", add_outer, lambda r: (M(r, 3), M(r, 2)), 0),
    ("w16_trace_offset_diagonal", trace_offset_diagonal, lambda r: (M(r, 4, 4),), 0),
    ("w16_moveaxis_flip", moveaxis_flip, lambda r: (M(r, 2, 3, 2),), 0),
    ("w16_select_pieces", select_pieces, lambda r: (np.array([-2.0, 0.5, 1.5, -0.3]),), 0),
    ("w16_average_weights", average_weights, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w16_cov_logdet", cov_logdet, lambda r: (M(r, 6, 3),), 0),
    ("w16_matrix_power_multidot", matrix_power_multidot, lambda r: (0.5 * M(r, 3, 3), M(r, 3, 3)), 0),
    ("w16_block_matrix", block_matrix, lambda r: (np.eye(3) + 0.2 * M(r, 3, 3), 1.0 + M(r, 3) ** 2), 0),
    ("w16_ix_gather", ix_gather, lambda r: (M(r, 3, 3),), 0),
    ("w16_cross_axis", cross_axis, lambda r: (M(r, 3, 4), M(r, 3, 4)), 0),
    ("w16_apply_along_axis", apply_along_axis_softmax, lambda r: (M(r, 3, 4),), 0),
    ("w16_logaddexp_reduce", logaddexp_reduce, lambda r: (M(r, 5),), 0),
    ("w16_ediff1d_ends", ediff1d_ends, lambda r: (M(r, 5),), 0),
    ("w16_sliding_windows", sliding_windows, lambda r: (M(r, 6),), 0),
    ("w16_swapaxes_matmul", swapaxes_matmul, lambda r: (M(r, 2, 3, 3),), 0),
    ("w16_reshape_order_f", reshape_order_f, lambda r: (M(r, 6),), 0),
    ("w16_split_sections", split_sections, lambda r: (M(r, 7),), 0),
]
