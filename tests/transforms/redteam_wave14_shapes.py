"""The red team's fourteenth wave, continued: broadcasting of values whose axes the code cannot know
before it runs (a slice ``x[:, :1]``, ``x[1:]``, ``x[:k]`` with a computed k, ``x.reshape(-1, 1)``,
``np.expand_dims``, ``x[..., None]``, keepdims reductions, a column picked by a fancy index), met by
an operand of another shape, as centring, pairwise differences, standardisation and kernel code
write them; each is differentiated twice (hessian, hvp) where the gradient's own code holds the
same broadcasts.  See redteam_wave14.py; test_redteam_wave14_findings.py holds the class found.
"""

from __future__ import annotations

import numpy as np


def first_column_centring(X):
    return np.sum((X - X[:, :1]) ** 2 * np.arange(1.0, X.shape[1] + 1.0))


def tail_minus_head(x):
    d = x[1:] - x[:1]
    return np.sum(np.tanh(d) ** 2)


def computed_prefix(x, k=3):
    head = x[:k]
    return np.sum(np.exp(0.3 * (head[:, None] - x[None, :])))


def reshape_minus_one_column(x, y):
    return np.sum((x.reshape(-1, 1) - y.reshape(1, -1)) ** 2 * 0.5)


def expand_dims_pairwise(x):
    d = np.expand_dims(x, 1) - np.expand_dims(x, 0)
    return np.sum(np.sin(d) ** 2)


def ellipsis_new_axis(X, w):
    return np.sum(np.log1p((X[..., None] * w) ** 2))


def keepdims_standardise(X):
    mu = X.mean(axis=1, keepdims=True)
    sd = np.sqrt(((X - mu) ** 2).mean(axis=1, keepdims=True) + 0.1)
    return np.sum(((X - mu) / sd) ** 3)


def fancy_column_difference(X, idx=(0,)):
    cols = X[:, list(idx)]
    return np.sum((X - cols) ** 2 + X * cols)


def sliced_row_kernel(X):
    ref = X[:1, :]
    d2 = np.sum((X[:, None, :] - ref[None, :, :]) ** 2, axis=-1)
    return np.sum(np.exp(-d2))


def strided_against_block(x):
    evens = x[::2]
    odds = x[1::2]
    return np.sum((evens[:, None] - odds[None, :]) ** 2) + np.sum(evens ** 3)


def middle_slice_scaled(x, y):
    return np.sum((2.0 * x[:, 1:2] - y + 1.0) ** 2)


def last_column_square_sum(X, y):
    r = y[None, :] - X[:, -1:]
    return 0.5 * np.sum(r * r)


def slice_squared_mean(X, y):
    return np.mean((X[:2, :1] - y) ** 2)


def row_slice_cube(x, y):
    return np.sum((x[:1] - y[:, None]) ** 3)


def slice_of_length_one(x, y):  # x has two items: x[1:] has one, and broadcasts against y
    return np.sum((x[1:] - y) ** 2) + np.sum((np.diff(x) * y) ** 2)


def rows_after_the_first(X, y):
    return np.sum((X[1:, :] - y[:, None]) ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


SHAPES14 = [
    ("w14_first_column_centring", first_column_centring, lambda r: (M(r, 3, 4),), 0),
    ("w14_tail_minus_head", tail_minus_head, lambda r: (M(r, 5),), 0),
    ("w14_computed_prefix", computed_prefix, lambda r: (M(r, 5),), 0),
    ("w14_reshape_minus_one_column", reshape_minus_one_column, lambda r: (M(r, 3), M(r, 4)), 0),
    ("w14_expand_dims_pairwise", expand_dims_pairwise, lambda r: (M(r, 4),), 0),
    ("w14_ellipsis_new_axis", ellipsis_new_axis, lambda r: (M(r, 2, 3), M(r, 4)), 0),
    ("w14_ellipsis_new_axis_w", ellipsis_new_axis, lambda r: (M(r, 2, 3), M(r, 4)), 1),
    ("w14_keepdims_standardise", keepdims_standardise, lambda r: (M(r, 3, 4),), 0),
    ("w14_fancy_column_difference", fancy_column_difference, lambda r: (M(r, 3, 3),), 0),
    ("w14_sliced_row_kernel", sliced_row_kernel, lambda r: (M(r, 4, 2),), 0),
    ("w14_strided_against_block", strided_against_block, lambda r: (M(r, 6),), 0),
    ("w14_middle_slice_scaled", middle_slice_scaled, lambda r: (M(r, 3, 3), M(r, 4)), 0),
    ("w14_last_column_square_sum", last_column_square_sum, lambda r: (M(r, 3, 2), M(r, 5)), 0),
    ("w14_slice_squared_mean", slice_squared_mean, lambda r: (M(r, 3, 3), M(r, 4)), 0),
    ("w14_row_slice_cube", row_slice_cube, lambda r: (M(r, 3, 2), M(r, 4)), 0),
    ("w14_slice_of_length_one", slice_of_length_one, lambda r: (M(r, 2), M(r, 3)), 0),
    ("w14_rows_after_the_first", rows_after_the_first, lambda r: (M(r, 2, 2), M(r, 2)), 0),
]
