"""Arrays made from a shape the code computes (``np.zeros((n, n))``, ``np.ones([n, 1])``,
``np.full((n, m), c)``, ``np.zeros(len(x))``) and then filled, read back and passed on: the number
of axes srcdiff infers for them decides the rules of what they reach (``np.linalg.solve``'s
tangent, an element read back as a number).  A tuple shape once read as one axis (its items reach
the rule as a flat list) made jvp and hessian refuse a stiffness matrix.
test_made_shapes.py runs every transformation on them."""

import numpy as np


def _stiffness(n, k):
    K = np.zeros((n, n))
    for i in range(n):
        K[i, i] = 2 * k + 1.0
        if i > 0:
            K[i, i - 1] = -k
            K[i - 1, i] = -k
    return K


def stiffness_solve(loads):
    K = _stiffness(loads.shape[0], 2.0)
    u = np.linalg.solve(K, loads)
    return 0.5 * u @ K @ u + np.sum(u ** 3)


def stiffness_plus_outer(a):
    K = _stiffness(len(a), 1.0) + np.outer(a, a)
    return np.sum(np.linalg.solve(K, np.sin(a)) ** 2)


def column_of_zeros(x):
    n = x.shape[0]
    c = np.zeros([n, 1]) + x[:, None]
    return np.sum(c @ np.ones((1, 2)) * x[:, None])


def filled_matrix_solve(x):
    n = len(x)
    A = np.full((n, n), 0.1) + np.diag(2.0 + x * x)
    return np.sum(np.linalg.solve(A, x))


def ones_rows_matmul(W):
    n, m = W.shape
    B = np.ones((n, m)) * 0.5
    return np.sum((B * W) @ W.T)


def empty_then_every_row(x):
    n = x.shape[0]
    out = np.empty((n, 2))
    for i in range(n):
        out[i, 0] = np.sin(x[i])
        out[i, 1] = x[i] * out[i, 0]
    return np.sum(out @ np.array([1.0, -0.5]))


def filter_read_back(x, a=0.6):  # y[t - 1] read back from the array the loop writes into
    y = np.zeros(len(x))
    y[0] = x[0]
    for t in range(1, len(x)):
        y[t] = a * y[t - 1] + (1 - a) * x[t]
    return np.sum(y ** 2)


def mixed_literal_shape(x):
    n = x.shape[0]
    T = np.zeros((2, n))
    T[0] = x
    T[1] = np.cos(x)
    return np.sum(np.linalg.inv(T @ T.T + np.eye(2)))


def _M(r, n, m):
    return r.normal(size=(n, m))


PROGRAMS = [
    ("stiffness_solve", stiffness_solve, lambda r: (r.normal(size=4),), 0),
    ("stiffness_plus_outer", stiffness_plus_outer, lambda r: (r.normal(size=3),), 0),
    ("column_of_zeros", column_of_zeros, lambda r: (r.normal(size=3),), 0),
    ("filled_matrix_solve", filled_matrix_solve, lambda r: (r.normal(size=3),), 0),
    ("ones_rows_matmul", ones_rows_matmul, lambda r: (_M(r, 3, 2),), 0),
    ("empty_then_every_row", empty_then_every_row, lambda r: (r.normal(size=3),), 0),
    ("filter_read_back", filter_read_back, lambda r: (r.normal(size=5),), 0),
    ("mixed_literal_shape", mixed_literal_shape, lambda r: (r.normal(size=3),), 0),
]


def list_shapes_with_dtypes(x):
    n = len(x)
    a = np.ones([n, 1], dtype=np.float64) * x[:, None]
    b = np.full([1, n], 0.5, np.float64) * x
    c = np.empty([n])
    c[:] = 0.25
    c = c + np.zeros([n], float)
    return np.sum(a @ b) + np.sum(c * x)


PROGRAMS.append(("list_shapes_with_dtypes", list_shapes_with_dtypes, lambda r: (r.normal(size=3),), 0))
