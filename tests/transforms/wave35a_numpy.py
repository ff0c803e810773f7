"""Wave 35a: variants of NumPy calls on list-ish arguments (test_wave35a.py): np.partition with a kth the
shapes give (a tuple of two, axis=0 of a matrix, in a loop), np.put at a negative index, with values NumPy
repeats, at a loop's counter, np.poly1d named then called, of a reversed slice, with numpy spelled out; and
NumPy's writers in a loop (np.put, np.putmask, np.fill_diagonal, np.put_along_axis, an array's .sort()); and
the uses left as written, refused at the user's line (np.put into a matrix, a poly1d's attribute).
"""

from __future__ import annotations

import numpy
import numpy as np


def partition_two_kth(x):
    n = len(x)
    q = np.partition(x * x, (n // 4, 3 * n // 4))
    return q[3 * n // 4] - q[n // 4]


def partition_columns(a):
    k = a.shape[0] // 2
    return np.sum(np.partition(np.sin(a), k, axis=0)[k])


def partition_in_loop(x):
    total = 0.0
    for k in range(1, len(x) - 1):
        total = total + np.partition(x, k)[k] * k
    return total


def put_negative(x):
    y = np.zeros(len(x))
    np.put(y, -1, x[0] * x[1])
    np.put(y, [0, -2], x[2])
    return np.sum(y ** 2 + y * x)


def put_repeated_values(x):
    y = x.copy()
    np.put(y, [0, 1, 2], [x[3] ** 2])
    return np.sum(np.exp(y))


def put_at_counter(x):
    y = np.ones(len(x))
    for i in range(len(x)):
        np.put(y, i, y[i - 1] * np.tanh(x[i]))
    return np.sum(y)


def poly1d_named(theta):
    p = np.poly1d(theta[::-1])
    return p(0.3) * p(-0.5) + np.sum(p(theta))


def poly1d_spelled_out(theta):
    c = [theta[0], 2.0 * theta[1], 1.0]
    return numpy.poly1d(c)(theta[2]) ** 2


# ---- NumPy's writers in a loop (their writes were dropped: a silently wrong value and gradient) ----

def putmask_loop(x):
    y = np.ones(len(x))
    for _ in range(3):
        np.putmask(y, x > 0.0, y * x)
    return np.sum(y)


def fill_diagonal_loop(x):
    a = np.eye(2)
    for i in range(2):
        np.fill_diagonal(a, a[0, 1] + x[i])
        a[0, 1] = a[0, 0] * x[2]
    return np.sum(a * a)


def fill_diagonal_only_loop(x):
    a = np.eye(2)
    for i in range(2):
        np.fill_diagonal(a, a[0, 0] * x[i] + 1.0)
    return np.sum(a * a)


def put_along_axis_loop(x):
    a = np.zeros((2, 3))
    idx = np.array([[1], [2]])
    for k in range(2):
        np.put_along_axis(a, idx, a[:, :1] + x[k] * np.array([[1.0], [2.0]]), axis=1)
        a[:, 0] = a[:, 1] + a[:, 2]
    return np.sum(a ** 2)


def sort_in_loop(x):
    z = x * 1.0
    out = 0.0
    for i in range(2):
        z.sort()
        out = out + z[0] * (i + 1)
        z[0] = z[0] + x[1] ** 2
    return out


def put_into_matrix(x):
    a = np.zeros((2, 2))
    np.put(a, [0, 3], x[:2])
    return np.sum(a * x[2])


def poly1d_attribute(theta):
    p = np.poly1d(theta)
    return np.sum(p.coeffs ** 2) + p(0.5)


NUMPY = [
    ("partition_two_kth", partition_two_kth, lambda r: (r.normal(size=8),), 0),
    ("partition_columns", partition_columns, lambda r: (r.normal(size=(5, 3)),), 0),
    ("partition_in_loop", partition_in_loop, lambda r: (r.normal(size=5),), 0),
    ("put_negative", put_negative, lambda r: (r.normal(size=4),), 0),
    ("put_repeated_values", put_repeated_values, lambda r: (0.5 * r.normal(size=4),), 0),
    ("poly1d_named", poly1d_named, lambda r: (r.normal(size=3),), 0),
    ("poly1d_spelled_out", poly1d_spelled_out, lambda r: (r.normal(size=3),), 0),
]
LOOPS = [
    ("put_at_counter", put_at_counter, lambda r: (r.normal(size=4),), 0),
    ("putmask_loop", putmask_loop, lambda r: (r.normal(size=4),), 0),
    ("fill_diagonal_loop", fill_diagonal_loop, lambda r: (r.normal(size=3),), 0),
    ("fill_diagonal_only_loop", fill_diagonal_only_loop, lambda r: (r.normal(size=3),), 0),
    ("put_along_axis_loop", put_along_axis_loop, lambda r: (r.normal(size=2),), 0),
    ("sort_in_loop", sort_in_loop, lambda r: (r.normal(size=3),), 0),
]
REFUSED = [
    ("put_into_matrix", put_into_matrix, lambda r: (r.normal(size=3),), 0),
    ("poly1d_attribute", poly1d_attribute, lambda r: (r.normal(size=3),), 0),
]
