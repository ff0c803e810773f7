"""Wave 31v's per-example programs for srcdiff.vmap (test_wave31v.py), written as users write them: loops
carrying a Python number into float32 values (a Kalman filter's negative log-likelihood, a running sum, an
int counter, a product), gradients that are lists, tuples and dicts of numbers (of a list argument, of zipped
pairs, of stencil weights) on the path that runs one example at a time, lists of a helper's pairs whose
number item no contribution reaches (the adjoint list's zero item), np.interp of each example's points and
np.tensordot of each example's arrays.  `FLOAT32`, `LISTS`, `ZERO_ITEMS`, `INTERP` and `TENSORDOT` pair each
with its arguments' maker (``make(rng, size)`` -> arguments, in_axes) and the arguments differentiated."""

from __future__ import annotations

import numpy as np

N = 4


def f32(r, *shape):
    return r.normal(size=shape).astype(np.float32)


# ---- 1. a loop carrying a Python number into float32 values ----

def kalman_nll(q, ys):
    m, P = 0.0, 1.0  # Python numbers: one example's values are float32 after the first step
    nll = 0.0
    for y in ys:
        P = P + q
        S = P + 0.5
        nll = nll + np.log(S) + (y - m) ** 2 / S
        m = m + P / S * (y - m)
        P = P * 0.5 / S
    return nll


def running_sum(w, x):
    total = 0.0
    for k in range(x.shape[0]):
        total = total + np.tanh(w[k] * x[k])
    return total


def int_counter_start(w, x):
    acc = 0  # an int: NumPy makes it float32 with the first float32 value
    for k in range(3):
        acc = acc + np.sum(x * w) * (k + 1)
    return acc


def running_product(w, x):
    prod = 1.0
    for k in range(x.shape[0]):
        prod = prod * (1.0 + 0.1 * np.sin(w[k] * x[k]))
    return prod


def vector_carry(w, x):
    h = 0.0  # a number becoming a row of float32 values
    for _ in range(3):
        h = np.tanh(h * 0.5 + x * w)
    return np.sum(h * h)


def vectors_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N))), (None, 0)


def float32_vectors(r, b):
    return (f32(r, N), f32(r, b, N)), (None, 0)


def float32_series(r, b):
    return (np.float32(0.3), f32(r, b, 6)), (None, 0)


# ---- 2. gradients that are lists, tuples, dicts of numbers ----

def list_weights(x, ws):
    return np.sum(x * ws[0]) + np.sum(x * x * ws[1])


def zipped_pairs(xs, theta):
    t = 0.0
    for a, (b, c) in zip(xs, theta):
        t = t + a * b * np.sin(c)
    return t


def tuple_weights(x, ws):
    a, b = ws
    return np.sum(np.tanh(a * x) + b * x)


def dict_weights(x, ws):
    return np.sum(ws["scale"] * np.exp(-x * x) + ws["shift"] * x)


def stencil_list(u0, w):
    u = u0
    for _ in range(2):
        u = np.concatenate([u[:1], w[0] * u[:-2] + w[1] * u[1:-1] + w[2] * u[2:], u[-1:]])
    return np.sum(u ** 2)


def list_args(r, b):
    return (r.normal(size=(b, 3)), [0.5, 1.5]), (0, None)


def pairs_args(r, b):
    return (r.normal(size=(b, 3)), [(0.5, 0.7), (1.1, 0.2), (0.3, 0.4)]), (0, None)


def tuple_args(r, b):
    return (r.normal(size=(b, 3)), (0.5, 1.5)), (0, None)


def dict_args(r, b):
    return (r.normal(size=(b, 3)), {"scale": 0.5, "shift": 1.5}), (0, None)


def stencil_args(r, b):
    return (r.normal(size=(b, 7)), [0.2, 0.6, 0.2]), (0, None)


# ---- 3. a list of a helper's pairs whose number item no contribution reaches ----

def _step(x, a):
    return a * x, np.sin(x) * a


def list_of_calls(a, x0):
    out = [_step(x0, a), _step(2.0 * x0, a), (x0, a * a)]
    first, _ = out[0]
    return np.sum(out[1][0] * first + out[2][0] * out[2][1])


def list_of_pairs_read_second(a, x0):
    out = [_step(x0, a), (x0, a + 1.0)]
    return np.sum(out[0][1] * out[1][1] + out[1][0])


def tuple_of_calls(a, x0):
    out = (_step(x0, a), (x0 * x0, a * 3.0))
    second, _ = out[1]
    return np.sum(out[0][0] * second) + out[1][1]


def number_then_vectors(a, x0):
    out = [(a * a, x0), _step(x0, a)]
    return np.sum(out[1][1] * out[0][1]) * out[0][0]


def number_args(r, b):
    return (0.6, r.normal(size=(b, 3))), (None, 0)


# ---- 4. np.interp of each example's points in a table the same for every example ----

XP = np.array([-2.0, -0.5, 0.0, 1.0, 2.5])


def interp_curve(w, x):
    return np.sum(w * np.interp(x * w, XP, np.array([0.3, -0.2, 0.5, 1.5, 0.1])))


def interp_table(fp, x):
    return np.sum(np.interp(x, XP, fp) ** 2 + np.interp(2.0 * x, XP, fp))


def table_args(r, b):
    return (r.normal(size=5), r.normal(size=(b, N))), (None, 0)


def own_tables(r, b):
    return (r.normal(size=(b, 5)), r.normal(size=(b, N))), (0, 0)


# ---- 5. np.tensordot of each example's array, a shared one, or both ----

def contract_vector(W, x):
    return np.sum(np.tanh(np.tensordot(W, x, axes=1)))


def contract_pairs(T, x):
    return np.sum(np.tensordot(T, x, axes=([1, 2], [0, 1])) ** 2)


def contract_first(x, W):
    return np.sum(np.sin(np.tensordot(x, W, axes=([0], [1]))))


def contract_both(A, B):
    return np.sum(np.tensordot(A, B) * np.tensordot(A, B))


def shared_matrix(r, b):
    return (r.normal(size=(3, N)), r.normal(size=(b, N))), (None, 0)


def own_matrices(r, b):
    return (r.normal(size=(b, 3, N)), r.normal(size=(b, N))), (0, 0)


def shared_tensor(r, b):
    return (r.normal(size=(2, 3, N)), r.normal(size=(b, 3, N))), (None, 0)


def rows_first(r, b):
    return (r.normal(size=(b, N, 2)), r.normal(size=(3, N))), (0, None)


def both_rows(r, b):
    return (r.normal(size=(b, 3, N)), r.normal(size=(b, 3, N))), (0, 0)


FLOAT32 = [(kalman_nll, float32_series, (0, 1)), (running_sum, float32_vectors, (0, 1)),
           (int_counter_start, float32_vectors, (0, 1)), (running_product, float32_vectors, (0, 1)),
           (vector_carry, float32_vectors, (0, 1))]
LISTS = [(list_weights, list_args, (1,)), (zipped_pairs, pairs_args, (1,)), (tuple_weights, tuple_args, (1,)),
         (dict_weights, dict_args, (1,)), (stencil_list, stencil_args, (1,))]
ZERO_ITEMS = [(list_of_calls, number_args, (1,)), (list_of_pairs_read_second, number_args, (1,)),
              (tuple_of_calls, number_args, (1,)), (number_then_vectors, number_args, (1,))]
INTERP = [(interp_curve, vectors_args, (0, 1)), (interp_table, table_args, (0, 1)), (interp_table, own_tables, (1,))]
TENSORDOT = [(contract_vector, shared_matrix, (0, 1)), (contract_vector, own_matrices, (0, 1)),
             (contract_pairs, shared_tensor, (0, 1)), (contract_first, rows_first, (0, 1)),
             (contract_both, both_rows, (0, 1))]
PROGRAMS = FLOAT32 + LISTS + ZERO_ITEMS + INTERP + TENSORDOT
