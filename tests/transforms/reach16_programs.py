"""Spellings the red team's sixteenth wave found refused, each written several ways: (1)
``np.einsum(..., optimize=...)``, (2) a ufunc's ``.outer``, (3) ``np.add.accumulate`` /
``np.multiply.accumulate``, (4) ``np.vdot``, (5) ``np.where(c)`` of one argument, (6) a reshape in
Fortran order, (7) ``np.ediff1d`` with ends computed from the input, (8) builtin ``max`` / ``min`` of
three or more values, (9) ``itertools.accumulate`` read by a comprehension, (10) ``np.fromiter`` of a
generator, (11) a nested function with defaults written as constants, (12) items of a list swapped in
one statement, (13) ``xs, ys = zip(*zip(a, b))``, (14) a slice of a list the function builds, (15) a
nested procedure (no ``return``) changing the caller's values, (16) ``sliding_window_view`` of a
vector.  test_reach16.py runs every transformation on them."""

import itertools
import operator

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .redteam_wave16_gotchas import nested_append
from .redteam_wave16_idioms import (
    accumulate_running,
    fromiter_generator,
    inner_vdot,
    sorted_builtin,
    where_one_argument,
    zip_star,
)
from .redteam_wave16_novice import bubble_like_pairs, nested_helper_closure_counter
from .redteam_wave16_numpy import add_outer, ediff1d_ends, einsum_trace_optimize, reshape_order_f, sliding_windows


def M(rng, *shape):
    return rng.normal(size=shape)


# ---- 1. einsum with optimize --------------------------------------------------------------------


def einsum_greedy(A, x):
    return np.sum(np.tanh(np.einsum("ij,j->i", A, x, optimize="greedy")))


def einsum_optimize_false(A, B):
    return np.einsum("ij,ij->", A, np.sin(B), optimize=False) ** 2


# ---- 2. a ufunc's outer ---------------------------------------------------------------------------


def multiply_outer_matrix(A, b):
    T = np.multiply.outer(A, b)  # shape (2, 2, 3): every axis of A before b's
    return np.sum(T[:, 1, :] ** 2) + np.sum(np.sin(T) * np.arange(3.0))


def subtract_outer_kernel(x):
    D = np.subtract.outer(x, x)
    return np.sum(np.exp(-D ** 2))


# ---- 3. accumulate ---------------------------------------------------------------------------------


def add_accumulate_rows(X):
    return np.sum(np.add.accumulate(X, axis=1) ** 2) + np.sum(np.add.accumulate(X) * X)


def multiply_accumulate(x):
    return np.sum(np.multiply.accumulate(x)) + np.sum(np.multiply.accumulate(x, 0) ** 2)


# ---- 4. vdot ---------------------------------------------------------------------------------------


def vdot_matrices(A, B):
    return np.vdot(A, B) ** 2 + np.vdot(A, A)


# ---- 5. where of one argument --------------------------------------------------------------------


def where_rows_cols(X):
    r, c = np.where(X > 0)
    return np.sum(X[r, c] ** 3) + np.sum(X[np.where(X < 0)] ** 2)


# ---- 6. reshape in Fortran order --------------------------------------------------------------------


def reshape_f_function(X):
    Y = np.reshape(X, (3, 2), order="F")
    return np.sum(Y[:, 0] * np.tanh(Y[:, 1]))


def reshape_f_arguments(x):
    A = x.reshape(2, 3, order="F")
    return np.sum(A @ A.T) + np.sum(A.reshape(-1, order="F") * np.arange(6.0))


def reshape_order_c(X):
    return np.sum(X.reshape((3, 2), order="C")[0] ** 3)


# ---- 7. ediff1d with computed ends ----------------------------------------------------------------------


def ediff1d_end_sum(x):
    d = np.ediff1d(x, to_end=np.sum(x))
    return np.sum(d * np.arange(1.0, len(d) + 1) ** 2)


# ---- 8. max / min of three or more values --------------------------------------------------------------


def max_of_three(x):
    a, b = x[0], x[1]
    return max(a * b, a + b, 0.5) ** 2


def min_of_four(x):
    return min(x[0], x[1] ** 2, x[2], x[3] * 2.0) * x[1]


# ---- 9. itertools.accumulate read by a comprehension -----------------------------------------------------


def accumulate_product_list(x):
    running = [c * x[0] for c in itertools.accumulate(x, operator.mul)]
    return running[-1] + running[1] ** 2


def accumulate_max_of_squares(x):
    return max(np.sin(c) for c in itertools.accumulate(x ** 2, initial=0.5))


# ---- 10. np.fromiter of a generator ------------------------------------------------------------------------


def fromiter_pairs(x, y):
    z = np.fromiter((a * b for a, b in zip(x, y)), float)
    return np.sum(np.exp(z)) + z[0] * z[-1]


def fromiter_filtered(x):
    return np.sum(np.fromiter((v ** 3 for v in x if v > 0), dtype=np.float64))


# ---- 11. a nested function with defaults ---------------------------------------------------------------------


def nested_default_by_name(x, w):
    def layer(v, scale=1.0, shift=-0.5):
        return np.tanh(scale * v + shift)

    return np.sum(layer(x) * w) + np.sum(layer(x, shift=0.25) ** 2) + np.sum(layer(w, 2.0, 0.0) * x)


def nested_default_in_loop(x):
    def term(v, k=2):
        return v ** k

    total = 0.0
    for v in x:
        total = total + term(v) + 0.1 * term(v, k=3)
    return total


# ---- 12. items of a list swapped in one statement --------------------------------------------------------------


def swap_ends_of_sorted(x):
    y = list(np.sort(x))
    y[0], y[-1] = y[-1], y[0]
    return sum((k + 1.0) * v ** 2 for k, v in enumerate(y)) + y[0] * y[1]


def rotate_three(x):
    y = [np.sin(v) for v in x]
    y[0], y[1], y[2] = y[1], y[2], y[0]
    return y[0] * 3.0 + y[1] ** 2 + y[2] * y[3]


# ---- 13. zip(*zip(a, b)) ----------------------------------------------------------------------------------------


def unzip_three(x, y):
    a, b, c = zip(*zip(x, np.sin(y), x * y))
    return sum(u * v + w ** 2 for u, v, w in zip(a, b, c))


def unzip_shorter(x, y):
    xs, ys = zip(*zip(x, y[:2]))  # as long as the shorter
    return sum(v ** 2 for v in xs) + xs[-1] * ys[0]


# ---- 14. a slice of a list ---------------------------------------------------------------------------------------


def head_and_tail(x):
    ys = [np.sin(v) for v in x]
    head, tail = ys[:2], ys[-2:]
    return sum(head) * sum(t ** 2 for t in tail) + sum(ys[1:-10])  # (the last slice is empty)


def slice_of_rows(x):
    rows = [x * (k + 1.0) for k in range(4)]
    return np.sum(np.stack(rows[1:3]) ** 2) + np.sum(rows[-1] * rows[0])


# ---- 15. a nested procedure -------------------------------------------------------------------------------------


def procedure_into_an_array(x):
    out = np.zeros(3)

    def put(i, v):
        out[i] = np.tanh(v) * (i + 1.0)

    for i in range(3):
        put(i, x[i] * x[-1])
    return np.sum(out ** 2)


def procedure_two_lists(x):
    evens, odds = [], []

    def record(k, v):
        if k % 2 == 0:
            evens.append(v ** 2)
        else:
            odds.append(np.sin(v))

    for k, v in enumerate(x):
        record(k, v)
    return sum(evens) * sum(odds)


# ---- 16. sliding windows of a vector -----------------------------------------------------------------------------


def moving_average(x, w):
    windows = np.lib.stride_tricks.sliding_window_view(x, 2)
    return np.sum((windows @ np.array([0.25, 0.75]) - w[:-1]) ** 2)


def window_products(x):
    t = np.tanh(x)
    W = sliding_window_view(t, 3)
    return np.sum(np.prod(W, axis=1))


PROGRAMS = [
    ("einsum_trace_optimize", einsum_trace_optimize, lambda r: (M(r, 3, 3), M(r, 3, 3)), 0),
    ("einsum_greedy", einsum_greedy, lambda r: (M(r, 2, 3), M(r, 3)), 1),
    ("einsum_optimize_false", einsum_optimize_false, lambda r: (M(r, 2, 3), M(r, 2, 3)), 1),
    ("add_outer", add_outer, lambda r: (M(r, 3), M(r, 2)), 1),
    ("multiply_outer_matrix", multiply_outer_matrix, lambda r: (M(r, 2, 2), M(r, 3)), 0),
    ("subtract_outer_kernel", subtract_outer_kernel, lambda r: (M(r, 4),), 0),
    ("add_accumulate_rows", add_accumulate_rows, lambda r: (M(r, 3, 4),), 0),
    ("multiply_accumulate", multiply_accumulate, lambda r: (M(r, 4),), 0),
    ("inner_vdot", inner_vdot, lambda r: (M(r, 3), M(r, 3)), 0),
    ("vdot_matrices", vdot_matrices, lambda r: (M(r, 2, 3), M(r, 2, 3)), 0),
    ("where_one_argument", where_one_argument, lambda r: (np.array([0.5, -1.0, 2.0, -0.3]),), 0),
    ("where_rows_cols", where_rows_cols, lambda r: (M(r, 3, 3),), 0),
    ("reshape_order_f", reshape_order_f, lambda r: (M(r, 6),), 0),
    ("reshape_f_function", reshape_f_function, lambda r: (M(r, 2, 3),), 0),
    ("reshape_f_arguments", reshape_f_arguments, lambda r: (M(r, 6),), 0),
    ("reshape_order_c", reshape_order_c, lambda r: (M(r, 2, 3),), 0),
    ("ediff1d_ends", ediff1d_ends, lambda r: (M(r, 5),), 0),
    ("ediff1d_end_sum", ediff1d_end_sum, lambda r: (M(r, 4),), 0),
    ("max_of_three", max_of_three, lambda r: (np.array([1.5, 2.0]),), 0),
    ("min_of_four", min_of_four, lambda r: (np.array([0.7, -1.2, 1.9, 0.4]),), 0),
    ("accumulate_running", accumulate_running, lambda r: (M(r, 4),), 0),
    ("accumulate_product_list", accumulate_product_list, lambda r: (M(r, 4),), 0),
    ("accumulate_max_of_squares", accumulate_max_of_squares, lambda r: (np.array([0.3, -0.9, 0.6]),), 0),
    ("fromiter_generator", fromiter_generator, lambda r: (M(r, 4),), 0),
    ("fromiter_pairs", fromiter_pairs, lambda r: (M(r, 3), M(r, 3)), 1),
    ("fromiter_filtered", fromiter_filtered, lambda r: (np.array([0.5, -1.0, 2.0, 0.3]),), 0),
    ("nested_helper_defaults", nested_helper_closure_counter, lambda r: (M(r, 4),), 0),
    ("nested_default_by_name", nested_default_by_name, lambda r: (M(r, 3), M(r, 3)), 0),
    ("nested_default_in_loop", nested_default_in_loop, lambda r: (M(r, 4),), 0),
    ("bubble_sort_pairs", bubble_like_pairs, lambda r: (np.array([0.5, -1.0, 2.0, 0.3]),), 0),
    ("swap_ends_of_sorted", swap_ends_of_sorted, lambda r: (np.array([0.5, -1.0, 2.0, 0.3]),), 0),
    ("rotate_three", rotate_three, lambda r: (M(r, 4),), 0),
    ("zip_star", zip_star, lambda r: (M(r, 3), M(r, 3)), 0),
    ("unzip_three", unzip_three, lambda r: (M(r, 3), M(r, 3)), 1),
    ("unzip_shorter", unzip_shorter, lambda r: (M(r, 3), M(r, 3)), 0),
    ("sorted_builtin", sorted_builtin, lambda r: (M(r, 5),), 0),
    ("head_and_tail", head_and_tail, lambda r: (M(r, 5),), 0),
    ("slice_of_rows", slice_of_rows, lambda r: (M(r, 3),), 0),
    ("nested_append", nested_append, lambda r: (M(r, 4),), 0),
    ("procedure_into_an_array", procedure_into_an_array, lambda r: (M(r, 4),), 0),
    ("procedure_two_lists", procedure_two_lists, lambda r: (M(r, 5),), 0),
    ("sliding_windows", sliding_windows, lambda r: (M(r, 6),), 0),
    ("moving_average", moving_average, lambda r: (M(r, 5), M(r, 5)), 0),
    ("window_products", window_products, lambda r: (M(r, 5),), 0),
]
