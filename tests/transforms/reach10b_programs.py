"""Spellings grad refused in the red team's tenth wave, each written several ways as everyday code
writes it: ``np.linalg.multi_dot``, ``np.sum``/``np.mean`` with ``where=``, ``map`` read as a list,
``any``/``all`` of a generator deciding a branch, constant list literals written by index.
test_reach10b_spellings.py runs every transformation on them."""

import dataclasses
from dataclasses import replace

import numpy as np
from numpy.linalg import multi_dot

# ---- np.linalg.multi_dot: a chain of matmuls ----------------------------------------------------


def multi_dot_quadratic(A, B, C, v):
    return float(np.linalg.multi_dot([A, B, C]) @ v @ v)


def multi_dot_vectors(W, v):
    return np.linalg.multi_dot([v, np.tanh(W), W.T, v]) + np.sum(W ** 2)


def multi_dot_imported_tuple(A, x):
    M = multi_dot((A, A.T, A))
    return np.sum(np.sin(M)) + x @ M @ x


def multi_dot_two(A, x):
    return np.sum(np.linalg.multi_dot([A, x]) ** 2)


# ---- where= in np.sum / np.mean ------------------------------------------------------------------


def mean_and_sum_where(x, mask):
    return np.mean(x ** 2, where=mask) + np.sum(np.exp(x), where=mask)


def mean_where_rows(X, mask):
    return np.sum(np.mean(np.sin(X) * X, axis=1, where=mask) ** 2)


def mean_where_broadcast_keepdims(X, keep):
    m = np.mean(X, axis=0, keepdims=True, where=keep[:, None])
    return np.sum((X - m) ** 2)


def sum_where_threshold(x):
    return np.sum(x ** 3, where=x > 0.0) + np.mean(np.cos(x), where=np.abs(x) < 1.0)


# ---- map(...) read as a list ---------------------------------------------------------------------


def softplus_row(row, w):
    return np.log1p(np.exp(row @ w))


def map_lambda_sum(w, X):
    return sum(map(lambda row: np.log1p(np.exp(row @ w)), X))


def map_function_list(x):
    return np.sum(np.stack(list(map(np.tanh, [x, 2.0 * x, x ** 2]))))


def map_two_sequences(w, X, y):
    losses = list(map(lambda row, t: (row @ w - t) ** 2, X, y))
    return sum(losses) / len(losses)


def map_in_a_loop(w, X):
    total = 0.0
    for s in map(lambda row: softplus_row(row, w), X):
        total = total + s * s
    return total


# ---- any(...) / all(...) of a generator in an if test --------------------------------------------


def any_condition(x):
    if any(v < -10.0 for v in x):
        return np.sum(x)
    return np.sum(np.cos(x) * x)


def all_positive_else(x):
    v = 2.0
    if all(v > 0.0 for v in x):
        out = np.sum(np.log(x))
    elif not any(abs(v) > 5.0 for v in x if v < 0.0):
        out = np.sum(np.sin(x) * v)
    else:
        out = np.sum(x)
    return out


def any_rows_in_a_loop(X):
    total = 0.0
    for row in X:
        if any(a * b > 0.5 for a, b in zip(row, row[::-1])):
            total = total + np.sum(row ** 2)
        else:
            total = total + np.sum(np.exp(row))
    return total


# ---- constant list literals written by index -----------------------------------------------------


def literal_list_slots(a):
    vals = [0.0, 0.0]
    vals[0] = a * a
    vals[1] = np.sin(a) + vals[0]
    return vals[0] * vals[1]


def literal_list_partly_written(x):
    coeffs = [1.0, 0.5, -0.25]
    coeffs[1] = np.sum(x ** 2)
    return coeffs[0] + coeffs[1] * coeffs[2] + coeffs[1] ** 2


def literal_list_in_a_loop(x):
    acc = [0.0, 0.0, 0.0]
    for k in range(3):
        acc[k] = np.sum(np.cos(x * (k + 1)))
    return acc[0] * acc[1] + acc[2]


PROGRAMS = [
    ("multi_dot_quadratic", multi_dot_quadratic,
     lambda r: (r.normal(size=(3, 2)), r.normal(size=(2, 4)), r.normal(size=(4, 3)), r.normal(size=3)), 1),
    ("multi_dot_quadratic_v", multi_dot_quadratic,
     lambda r: (r.normal(size=(3, 2)), r.normal(size=(2, 4)), r.normal(size=(4, 3)), r.normal(size=3)), 3),
    ("multi_dot_vectors", multi_dot_vectors, lambda r: (r.normal(size=(3, 3)), r.normal(size=3)), 0),
    ("multi_dot_imported_tuple", multi_dot_imported_tuple,
     lambda r: (r.normal(size=(3, 3)) * 0.5, r.normal(size=3)), 0),
    ("multi_dot_two", multi_dot_two, lambda r: (r.normal(size=(2, 3)), r.normal(size=3)), 1),
    ("mean_and_sum_where", mean_and_sum_where,
     lambda r: (r.normal(size=5), np.array([True, False, True, True, False])), 0),
    ("mean_where_rows", mean_where_rows,
     lambda r: (r.normal(size=(3, 4)), np.array([[1, 0, 1, 1], [1, 1, 0, 0], [0, 1, 1, 1]], dtype=bool)), 0),
    ("mean_where_broadcast_keepdims", mean_where_broadcast_keepdims,
     lambda r: (r.normal(size=(4, 2)), np.array([True, True, False, True])), 0),
    ("sum_where_threshold", sum_where_threshold, lambda r: (np.array([0.4, -0.3, 1.7, -1.2, 0.8]),), 0),
    ("map_lambda_sum", map_lambda_sum, lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
    ("map_function_list", map_function_list, lambda r: (r.normal(size=3),), 0),
    ("map_two_sequences", map_two_sequences, lambda r: (r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=4)), 0),
    ("map_in_a_loop", map_in_a_loop, lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
    ("any_condition", any_condition, lambda r: (r.normal(size=4),), 0),
    ("any_condition_taken", any_condition, lambda r: (np.array([0.5, -11.0, 2.0]),), 0),
    ("all_positive", all_positive_else, lambda r: (np.array([0.5, 1.5, 2.0]),), 0),
    ("all_positive_elif", all_positive_else, lambda r: (np.array([0.5, -1.5, 2.0]),), 0),
    ("all_positive_else", all_positive_else, lambda r: (np.array([0.5, -6.5, 2.0]),), 0),
    ("any_rows_in_a_loop", any_rows_in_a_loop, lambda r: (r.normal(size=(4, 3)),), 0),
    ("literal_list_slots", literal_list_slots, lambda r: (0.7,), 0),
    ("literal_list_partly_written", literal_list_partly_written, lambda r: (r.normal(size=3),), 0),
    ("literal_list_in_a_loop", literal_list_in_a_loop, lambda r: (r.normal(size=3),), 0),
]


# ---- np.bincount(idx, weights=w): sums by bin, idx constant whole numbers -------------------------


def bincount_segment_means(x, seg):
    sums = np.bincount(seg, weights=x)
    counts = np.bincount(seg)
    return np.sum((sums / counts) ** 2)


def bincount_minlength(x, idx, c):
    return np.bincount(idx, weights=np.exp(x), minlength=5) @ c


def bincount_of_squares(W, idx):
    norms = np.bincount(idx, np.sum(W ** 2, axis=1))
    return np.sum(np.log1p(norms)) + np.sum(np.sin(W))


PROGRAMS += [
    ("bincount_segment_means", bincount_segment_means,
     lambda r: (r.normal(size=7), np.array([0, 1, 1, 2, 0, 2, 2])), 0),
    ("bincount_minlength", bincount_minlength,
     lambda r: (r.normal(size=4), np.array([3, 0, 3, 1]), r.normal(size=5)), 0),
    ("bincount_of_squares", bincount_of_squares, lambda r: (r.normal(size=(5, 2)), np.array([1, 0, 1, 2, 2])), 0),
]


# ---- np.linspace(start, stop, n): differentiated endpoints, n known at run time only ---------------


def brachistochrone_time(y_inner, x_end=1.0, g=9.81):
    y = np.concatenate([[0.0], y_inner, [-1.0]])
    x = np.linspace(0.0, x_end, y.size)
    ds = np.sqrt(np.diff(x) ** 2 + np.diff(y) ** 2)
    v_mid = np.sqrt(-2 * g * 0.5 * (y[1:] + y[:-1]))
    return np.sum(ds / v_mid)


def linspace_of_a_length(x, stop):
    grid = np.linspace(-stop, stop, len(x), endpoint=False)
    return np.sum(np.exp(-grid ** 2) * x)


def linspace_from_a_parameter(x):
    t = np.linspace(x[0], x[-1] * 2.0, x.shape[0])
    return np.sum(np.sin(t) * x)


PROGRAMS += [
    ("brachistochrone_time", brachistochrone_time, lambda r: (np.array([-0.5, -0.8, -0.95]),), 0),
    ("linspace_of_a_length", linspace_of_a_length, lambda r: (r.normal(size=5), 1.3), 1),
    ("linspace_of_a_length_x", linspace_of_a_length, lambda r: (r.normal(size=5), 1.3), 0),
    ("linspace_from_a_parameter", linspace_from_a_parameter, lambda r: (r.normal(size=4),), 0),
]


# ---- dataclasses.replace of an object built in the function --------------------------------------


@dataclasses.dataclass(frozen=True)
class Layer:
    W: np.ndarray
    gain: float = 1.0


@dataclasses.dataclass
class State:
    x: np.ndarray
    v: np.ndarray
    t: float = 0.0


def replace_gain(W, X):
    layer = Layer(W)
    wide = dataclasses.replace(layer, gain=2.0)
    return np.sum(np.tanh(wide.gain * X @ wide.W) ** 2) + np.sum(layer.W ** 2)


def replace_array_field(W, X):
    layer = Layer(W, gain=0.5)
    shrunk = replace(layer, W=layer.W * 0.9)
    return np.sum(np.sin(X @ shrunk.W) * shrunk.gain) + np.sum(np.cos(X @ layer.W))


def replace_chained_state(x0, v0):
    s0 = State(x0, v0)
    s1 = dataclasses.replace(s0, v=s0.v - 0.1 * np.sin(s0.x), t=0.1)
    s2 = dataclasses.replace(s1, x=s1.x + 0.1 * s1.v)
    return np.sum(s2.x ** 2) + s2.t * np.sum(s1.v * s0.v)


PROGRAMS += [
    ("replace_gain", replace_gain, lambda r: (r.normal(size=(3, 2)), r.normal(size=(4, 3))), 0),
    ("replace_array_field", replace_array_field, lambda r: (r.normal(size=(3, 2)), r.normal(size=(4, 3))), 0),
    ("replace_chained_state", replace_chained_state, lambda r: (r.normal(size=3), r.normal(size=3)), 0),
    ("replace_chained_state_v", replace_chained_state, lambda r: (r.normal(size=3), r.normal(size=3)), 1),
]
