"""Programs jit="numba" refused at the user's line where grad differentiates them (test_numba30.py).

Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np

# ---- np.squeeze without an axis: the axes decided when the signature is known ----------------------


def squeeze_of_a_product(x, w):
    out = x[None, :, None] * w[:, None, None]
    return np.sum(np.sin(np.squeeze(out)) * x)


def squeeze_method(x):
    y = np.reshape(x, (1, 3, 1))
    return np.sum(y.squeeze() ** 2 * x)


def squeeze_an_argument(X, w):
    return np.sum(np.squeeze(X) * w) ** 2


def squeeze_keeping_every_axis(x):
    return np.sum(np.squeeze(np.outer(x, x)) ** 2)


def squeeze_to_a_number(x):
    s = np.reshape(np.sum(x), (1, 1)) * np.ones((1, 1))
    return np.squeeze(s) ** 2 + np.sum(x ** 3)


def squeeze_in_a_loop(M):
    total = 0.0
    for k in range(M.shape[0]):
        row = np.squeeze(M[k][:, None])
        total = total + np.sum(np.tanh(row) * row)
    return total


def squeeze_of_a_slice_of_one_row(M):
    total = 0.0
    for k in range(M.shape[0]):
        row = np.squeeze(M[k:k + 1, :])  # (k:k + 1: a length the signature does not say)
        total = total + np.sum(np.tanh(row) * row)
    return total


def _component(out, axis=None):
    return np.squeeze(out) if axis is None else np.squeeze(out, axis=axis)


def squeeze_in_a_helper(x):
    out = np.exp(x)[:, None] / np.sum(np.exp(x))
    return np.sum(_component(out) * np.log1p(x ** 2))


def squeeze_of_a_column_mean(X):
    m = np.mean(X, axis=1, keepdims=True)
    return np.sum((np.squeeze(m) - 0.1) ** 2)


def _v(r, n=3):
    return np.array([0.3, -0.5, 0.8, 0.2, -0.1][:n]) + 0.05 * r.standard_normal(n)


#: refused by jit="numba" at the user's line: name -> (row, why)
REFUSED = {
    "squeeze_of_a_slice_of_one_row": (
        ("squeeze_of_a_slice_of_one_row", squeeze_of_a_slice_of_one_row, lambda r: (np.reshape(_v(r, 4), (2, 2)),), 0),
        "M[k:k + 1, :] has a length the argument's signature does not say: which axes np.squeeze removes is not "
        "known when the code is compiled"),
}

SQUEEZES = [
    ("squeeze_of_a_product", squeeze_of_a_product, lambda r: (_v(r), np.array([0.7])), 0),
    ("squeeze_of_a_product_w", squeeze_of_a_product, lambda r: (_v(r), np.array([0.7])), 1),
    ("squeeze_method", squeeze_method, lambda r: (_v(r),), 0),
    ("squeeze_an_argument", squeeze_an_argument, lambda r: (_v(r)[None, :, None], _v(r)), 0),
    ("squeeze_keeping_every_axis", squeeze_keeping_every_axis, lambda r: (_v(r),), 0),
    ("squeeze_to_a_number", squeeze_to_a_number, lambda r: (_v(r),), 0),
    ("squeeze_in_a_loop", squeeze_in_a_loop, lambda r: (np.reshape(_v(r, 4), (2, 2)),), 0),
    ("squeeze_in_a_helper", squeeze_in_a_helper, lambda r: (_v(r),), 0),
    ("squeeze_of_a_column_mean", squeeze_of_a_column_mean, lambda r: (np.reshape(_v(r, 4), (2, 2)),), 0),
]

PROGRAMS = SQUEEZES
