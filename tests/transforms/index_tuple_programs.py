"""Indices that are tuples at run time: ``np.ix_`` meshes made inside a loop (a finite-element
assembly over an array of bars), a tuple of index arrays held in a name (``idx = (rows, cols);
x[idx]``, read, written and given to ``np.add.at``), NumPy's ``triu_indices`` / ``diag_indices``
/ ``nonzero``.  NumPy indexes one axis per item of a tuple, where a list index is one array;
test_index_tuples.py runs every transformation on them."""

import numpy as np

# ---- np.ix_ made in a loop ---------------------------------------------------------------------


def assembly_over_bars(a, bars):  # the red team's truss: dofs of each bar, from an int array
    K = np.zeros((6, 6))
    for e, (i, j) in enumerate(bars):
        dofs = [2 * i, 2 * i + 1, 2 * j, 2 * j + 1]
        K[np.ix_(dofs, dofs)] += a[e] * np.ones((4, 4))
    return np.sum(K ** 2) + np.sum(np.linalg.solve(K[np.ix_([1, 2, 3], [1, 2, 3])] + np.eye(3), np.ones(3)))


def assembly_by_position(a, bars):  # an array of dofs made in the loop body
    K = np.eye(6)
    for e in range(len(bars)):
        i, j = bars[e]
        dofs = np.array([2 * i, 2 * i + 1, 2 * j, 2 * j + 1])
        K[np.ix_(dofs, dofs)] += a[e] * np.array([[1.0, 0, -1, 0], [0, 0, 0, 0], [-1, 0, 1, 0], [0, 0, 0, 0]])
    return np.sum(np.log(np.diag(K) + 1.0)) + np.sum(K * K)


def block_written_back(a, bars):  # a block read and written through one mesh, outside a loop
    K = np.zeros((3, 3))
    dofs = bars[0]
    K[np.ix_(dofs, dofs)] = K[np.ix_(dofs, dofs)] + a[0] * np.ones((2, 2)) + a[1] ** 2
    return np.sum(K ** 2)


# ---- a tuple of index arrays held in a name ----------------------------------------------------


def pairs_read(A):
    idx = (np.array([0, 1]), np.array([2, 0]))
    return np.sum(A[idx] ** 3)


def pairs_written(A):
    rows, cols = np.array([0, 1, 2]), np.array([2, 0, 1])
    idx = rows, cols
    B = np.zeros((3, 3))
    B[idx] = np.sin(A[idx])
    return np.sum(B * A)


def pairs_added_at(A, v):
    idx = (np.array([0, 1, 1]), np.array([2, 0, 0]))  # a repeated position: np.add.at adds twice
    B = A.copy()
    np.add.at(B, idx, v)
    return np.sum(B ** 2)


def row_and_columns(A):
    idx = (0, np.array([2, 0]))
    return np.sum(A[idx] ** 3) + np.sum(A[(1, slice(0, 2))] ** 2)


def triangle_products(A):
    B = A * A
    return np.sum(np.sin(B[np.triu_indices(3, 1)]) * B[np.tril_indices(3, -1)])


def diagonal_exp(A):
    d = np.diag_indices(3)
    return np.sum(np.exp(A[d]) * A[0, 1])


def _int_pair(r):
    return np.array([[0, 1], [1, 2]])


PROGRAMS = [
    ("assembly_over_bars", assembly_over_bars, lambda r: (r.uniform(0.5, 1.5, size=2), _int_pair(r)), 0),
    ("assembly_by_position", assembly_by_position, lambda r: (r.uniform(0.5, 1.5, size=2), _int_pair(r)), 0),
    ("block_written_back", block_written_back, lambda r: (r.normal(size=2), _int_pair(r)), 0),
    ("pairs_read", pairs_read, lambda r: (r.normal(size=(3, 3)),), 0),
    ("pairs_written", pairs_written, lambda r: (r.normal(size=(3, 3)),), 0),
    ("pairs_added_at", pairs_added_at, lambda r: (r.normal(size=(3, 3)), r.normal(size=3)), 0),
    ("row_and_columns", row_and_columns, lambda r: (r.normal(size=(3, 3)),), 0),
    ("triangle_products", triangle_products, lambda r: (r.normal(size=(3, 3)),), 0),
    ("diagonal_exp", diagonal_exp, lambda r: (r.normal(size=(3, 3)),), 0),
]
