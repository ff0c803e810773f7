"""The red team's fourteenth wave, continued: arrays joined from pieces whose axes the code cannot
know before it runs (a reshape to a computed shape, a slice, np.ones((n, 1)) of a computed n),
as design matrices, state vectors and block systems are built: np.column_stack, np.vstack,
np.hstack, np.concatenate along each axis, np.block, np.append and np.insert, np.r_ and np.c_,
np.pad, np.stack of slices; then solved or squared and differentiated twice.  See
redteam_wave14.py.
"""

from __future__ import annotations

import numpy as np


def column_stack_design(x, y):
    n = len(x)
    X = np.column_stack([np.ones(n), x, x[: n] ** 2])
    beta = np.linalg.solve(X.T @ X + 0.1 * np.eye(3), X.T @ y)
    return np.sum((X @ beta - y) ** 2)


def vstack_reshaped_rows(x):
    n = x.size // 2
    top = x[:n].reshape(1, n)
    bottom = np.sin(x[n:]).reshape(1, -1)
    A = np.vstack([top, bottom, np.ones((1, n))])
    return np.sum((A @ A.T) ** 2)


def concatenate_axis0_slices(x):
    k = len(x) // 2
    z = np.concatenate([x[k:], x[:k] * 2.0, np.ones(1)])
    return np.sum(z ** 3 * np.arange(1.0, len(z) + 1.0))


def concatenate_axis1_blocks(A):
    n = A.shape[0]
    B = np.concatenate([A, A[:, :1] ** 2, np.zeros((n, 1))], axis=1)
    return np.sum(np.tanh(B @ B.T))


def block_matrix_np_block(K):
    n = K.shape[0]
    A = np.block([[K, np.eye(n)], [np.eye(n), -K @ K]])
    return np.linalg.slogdet(A)[1]


def append_insert_state(x):
    s = np.append(x, x[0] * x[-1])
    s = np.insert(s, 1, np.exp(x[1]))
    return np.sum(s ** 2)


def r_and_c_indexing(x):
    v = np.r_[x[:2], 0.5, x[2:] ** 2]
    M = np.c_[x, x ** 2]
    return np.sum(v ** 2) + np.sum(M ** 3)


def pad_reflect_conv(x):
    p = np.pad(x, 2, mode="reflect")
    k = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    return np.sum(np.convolve(p, k, mode="valid") ** 2)


def stack_slices_axis1(x):
    n = len(x) - 2
    S = np.stack([x[:n], x[1:n + 1], x[2:]], axis=1)
    return np.sum(np.exp(0.3 * S @ np.array([1.0, -2.0, 1.0])))


def hstack_ones_column_solve(x, y):
    n = x.shape[0]
    X = np.hstack([np.ones((n, 1)), x.reshape(n, -1)])
    w = np.linalg.solve(X.T @ X, X.T @ y)
    return w @ w


def M(rng, *shape):
    return rng.normal(size=shape)


JOINS14 = [
    ("w14_column_stack_design", column_stack_design, lambda r: (M(r, 6), M(r, 6)), 0),
    ("w14_vstack_reshaped_rows", vstack_reshaped_rows, lambda r: (M(r, 6),), 0),
    ("w14_concatenate_axis0_slices", concatenate_axis0_slices, lambda r: (M(r, 5),), 0),
    ("w14_concatenate_axis1_blocks", concatenate_axis1_blocks, lambda r: (M(r, 3, 2),), 0),
    ("w14_block_matrix_np_block", block_matrix_np_block, lambda r: (M(r, 2, 2) + 2 * np.eye(2),), 0),
    ("w14_append_insert_state", append_insert_state, lambda r: (M(r, 4),), 0),
    ("w14_r_and_c_indexing", r_and_c_indexing, lambda r: (M(r, 4),), 0),
    ("w14_pad_reflect_conv", pad_reflect_conv, lambda r: (M(r, 7),), 0),
    ("w14_stack_slices_axis1", stack_slices_axis1, lambda r: (M(r, 6),), 0),
    ("w14_hstack_ones_column_solve", hstack_ones_column_solve, lambda r: (M(r, 6), M(r, 6)), 0),
]
