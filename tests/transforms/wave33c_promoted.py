"""Wave 33c: numbers that become arrays in a loop (numba/joins.py promotes such a number to an array of ones'
shape where that keeps every value), written to make a promotion wrong if one were made where it changes a
value: a loop skipped on every trip (``continue``) or broken out of on its first, an early return in the
loop, a value reused after its loop's stack is popped, a 2-D promotion meeting a vector (``np.mean(s + v,
axis=0)`` differs between a number and an array of shape (1, 1)), a loop of no trips, a row written, an
index read, a second loop.  test_wave33c.py runs each through jit="numba" (called directly and as a helper
with its own pullback, the tree column) against float64 central differences.
"""

from __future__ import annotations

import numpy as np


def _v(r, n=3):
    return 0.3 + 0.4 * r.random(n)


def _m(r):
    return 0.3 + 0.4 * r.random((3, 3))


def plain_stacked(x):
    s = 0.0
    for i in range(3):
        s = 0.5 * s + np.sin(x * 1.5 + i)
    return np.sum(np.stack([s, x]) @ x) + np.sum(s * x)


def matrix_mean(m):
    s = 0.0
    for i in range(3):
        s = 0.5 * s + np.sin(m * 1.5 + i)
    return np.sum(np.mean(s, axis=0) ** 2) + np.sum(s @ m)


def zero_trip_mean(m, n=0):
    s = 0.0
    for i in range(n):
        s = 0.5 * s + np.sin(m + i)
    return np.sum(np.mean(s + m[0], axis=0)) + np.sum(m ** 2)


def zero_trip_while(m, n=0):
    s = 0.0
    k = 0
    while k < n:
        s = 0.5 * s + np.sin(m + k)
        k += 1
    return np.sum(np.mean(s + m[0], axis=0)) + np.sum(m ** 2)


def zero_trip_elementwise(m, n=0):
    s = 0.0
    for i in range(n):
        s = 0.5 * s + np.sin(m + i)
    return np.sum((s + m[0]) ** 2) + np.sum(m ** 2)


def skipped_every_trip(m):
    s = 0.0
    for i in range(3):
        if m[0, 0] > 0.0:
            continue
        s = 0.5 * s + np.sin(m + i)
    return np.sum(np.mean(s + m[0], axis=0)) + np.sum(m ** 2)


def skipped_every_trip_sum(m):
    s = 0.0
    for i in range(3):
        if m[0, 0] > 0.0:
            continue
        s = 0.5 * s + np.sin(m + i)
    return np.sum((s + m[0]) ** 2) + np.sum(m ** 2)


def broken_first_trip(m):
    s = 0.0
    for i in range(3):
        if m[0, 0] > 0.0:
            break
        s = 0.5 * s + np.tanh(m + i)
    return np.sum((s + m[0]) ** 2 * m[1]) + np.sum(m ** 2)


def returned_early(m):
    s = 0.0
    for i in range(3):
        if m[0, 0] > 0.0:
            return np.sum(np.mean(s + m[0], axis=0))
        s = 0.5 * s + np.tanh(m + i)
    return np.sum(s ** 2)


def reused_after_pop(x):
    s = 0.0
    hist = []
    for i in range(3):
        s = 0.5 * s + np.sin(x + i)
        hist.append(np.sum(s * x))
    first = hist[0]
    return first * np.sum(s) + sum(hist)


def row_written(m):
    s = 0.0
    out = np.zeros((3, 3))
    for i in range(3):
        s = 0.5 * s + np.sin(m[i])
        out[i] = s
    return np.sum(out ** 2) + np.sum(s * m[0])


def promoted_then_indexed(m):
    s = 0.0
    for i in range(3):
        s = 0.5 * s + np.sin(m * (i + 1))
    return np.sum(s[0] * m[1]) + np.sum(s[:, 0] ** 2)


def promoted_two_loops(x):
    s = 0.0
    for i in range(3):
        s = 0.5 * s + np.sin(x + i)
    t = s
    for j in range(2):
        t = t * 0.9 + np.cos(x * j)
    return np.sum(np.outer(s, t) @ x)


def loop_of_branches(m):
    s = 0.0
    for i in range(3):
        if i == 1:
            s = s + 1.0
        else:
            s = 0.5 * s + np.sin(m + i)
    return np.sum(np.mean(s + m[0], axis=0)) + np.sum(s * m)



def zero_trip_masked_vector(m, n=0):
    # a mask of the (1, 1) promotion and a vector is (1, 3): np.mean(..., axis=0) would differ
    s = 0.0
    for i in range(n):
        s = 0.5 * s + np.sin(m + i)
    v = m[0]
    return np.sum(np.mean(np.where(np.less(s, v), v, 2.0 * v), axis=0)) + np.sum(m ** 2)


def zero_trip_masked_matrix(m, n=0):
    # a mask of the promotion and a matrix has the matrix's shape, as the number's has
    s = 0.0
    for i in range(n):
        s = 0.5 * s + np.sin(m + i)
    return np.sum(np.mean(np.where(np.less(s, m), m, 2.0 * m), axis=0)) + np.sum(np.maximum(s, m) ** 2)


def product_masked(x):
    prod = 1.0
    for k in range(1, 4):
        prod = prod * (1.0 + x / k)
    return np.sum(np.where(np.logical_and(np.greater(prod, 1.5), np.less(x, 0.6)), prod, 0.5 * prod))


PROMOTED = [
    ("plain_stacked", plain_stacked, lambda r: (_v(r),), 0),
    ("matrix_mean", matrix_mean, lambda r: (_m(r),), 0),
    ("zero_trip_mean", zero_trip_mean, lambda r: (_m(r),), 0),
    ("zero_trip_while", zero_trip_while, lambda r: (_m(r),), 0),
    ("zero_trip_elementwise", zero_trip_elementwise, lambda r: (_m(r),), 0),
    ("skipped_every_trip", skipped_every_trip, lambda r: (_m(r),), 0),
    ("skipped_every_trip_sum", skipped_every_trip_sum, lambda r: (_m(r),), 0),
    ("broken_first_trip", broken_first_trip, lambda r: (_m(r),), 0),
    ("returned_early", returned_early, lambda r: (_m(r),), 0),
    ("reused_after_pop", reused_after_pop, lambda r: (_v(r),), 0),
    ("row_written", row_written, lambda r: (_m(r),), 0),
    ("promoted_then_indexed", promoted_then_indexed, lambda r: (_m(r),), 0),
    ("promoted_two_loops", promoted_two_loops, lambda r: (_v(r),), 0),
    ("loop_of_branches", loop_of_branches, lambda r: (_m(r),), 0),
    ("zero_trip_masked_vector", zero_trip_masked_vector, lambda r: (_m(r),), 0),
    ("zero_trip_masked_matrix", zero_trip_masked_matrix, lambda r: (_m(r),), 0),
    ("product_masked", product_masked, lambda r: (_v(r),), 0),
]
