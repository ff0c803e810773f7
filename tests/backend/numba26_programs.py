"""User-style programs for jit="numba" in every transformation (test_numba26.py): loops with helpers,
lists built in loops, fancy indexing (literal lists, index arrays passed in), float32, tuples, dicts of
parameters, while loops.  Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import math

import numpy as np

# ---- helpers called in loops -----------------------------------------------------------------------


def _cell(h, x, W, U):
    return np.tanh(W @ h + U * x)


def rnn_helper_loop(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = _cell(h, xs[t], W, U)
    return np.sum(h**2)


def _rhs(y, k):
    return -k * y + 0.1 * y**2


def euler_helper(y0, k):
    y = y0
    dt = 0.05
    for _ in range(20):
        y = y + dt * _rhs(y, k)
    return np.sum(y)


def _smooth_abs(v):
    return np.sqrt(v * v + 1e-3)


def helper_in_while(x):
    total = 0.0
    i = 0
    while i < x.shape[0]:
        total = total + _smooth_abs(x[i]) * (i + 1)
        i += 1
    return total


def while_until_small(x):
    s = np.sum(x**2) + 1.0
    n = 0
    while s > 0.1 and n < 30:
        s = s * 0.7 + 0.01 * np.sum(np.sin(x))
        n += 1
    return s


# ---- lists built in loops ----------------------------------------------------------------------------


def list_of_arrays_stacked(x):
    rows = []
    for k in range(3):
        rows.append(np.sin(x * (k + 1)))
    return np.sum(np.stack(rows) ** 2)


def list_of_numbers_summed(x):
    vals = []
    for i in range(x.shape[0] - 1):
        vals.append(x[i] * x[i + 1])
    return sum(vals) + np.sum(np.array(vals) ** 2)


def list_comprehension_norms(X):
    norms = [np.sqrt(np.sum(row**2) + 1.0) for row in X]
    return np.sum(np.array(norms))


def list_of_mixed_in_loop(x):
    parts = []
    for i in range(3):
        parts.append(x[i] * 2.0)
        parts.append(np.sum(x) * i)
    return sum(parts)


def list_carried_with_an_untold_item(x):
    s = [x, np.dot(x, x)]
    for _ in range(3):
        s = [s[0] * 0.9 + np.sin(s[0]), s[1] * 0.5 + np.dot(s[0], s[0])]
    return np.sum(s[0]) + s[1]


def list_of_arrays_and_floats_in_loop(x):
    out = []
    for i in range(3):
        if i == 1:
            out.append(np.sum(x))
        else:
            out.append(x * i)
    return np.sum(out[0]) + out[1] + np.sum(out[2] ** 2)


# ---- fancy indexing ----------------------------------------------------------------------------------


def fancy_literal_list(x):
    return np.sum(x[[3, 0]] ** 2) + x[[1, 1, 2]] @ x[:3]


def fancy_np_array_literal(x):
    idx = np.array([2, 0, 2])
    return np.sum(np.sin(x[idx]) * x[:3])


def fancy_index_argument(x, idx):
    return np.sum(x[idx] ** 3)


def fancy_rows_of_matrix(X):
    Y = X[[2, 0]]
    return np.sum(Y @ Y.T)


def fancy_rows_index_argument(X, idx):
    return np.sum(np.tanh(X[idx]) * X[idx])


def fancy_in_loop(x, idx):
    total = 0.0
    for k in range(2):
        total = total + np.sum(x[idx] * (k + 1.0))
    return total


def _picked_energy(x):
    return np.sum(x[[2, 0]] ** 2) + x[np.array([1, 1])] @ x[:2]


def fancy_in_helper(x):
    return _picked_energy(x) + 0.5 * _picked_energy(np.sin(x))


def fancy_column_pick(X):
    return np.sum(X[:, [0, 2]] ** 2)


def fancy_two_arrays(X, rows, cols):
    return np.sum(X[rows, cols] ** 2)


# ---- float32 -----------------------------------------------------------------------------------------


def float32_loop_matmul(a, b):
    s = a
    for _ in range(3):
        s = s + 0.1 * (s @ b)
    return np.sum(s**2)


def float32_scaled_product(a, b):
    z = a
    for _ in range(2):
        z = np.tanh(0.5 * (z @ b) + 0.25)
    return np.sum(z)


def gradient_descent_inner(w, X, y):
    lr = 0.01
    for _ in range(5):
        r = X @ w - y
        w = w - lr * (X.T @ r)
    return np.sum((X @ w - y) ** 2)


# ---- tuples ------------------------------------------------------------------------------------------


def _split(x):
    return np.sum(x), x * 2.0


def tuple_helper(x):
    s, v = _split(x)
    return s * np.sum(v**2)


def tuple_state_loop(x):
    pos, vel = x[:2], x[2:]
    for _ in range(4):
        pos, vel = pos + 0.1 * vel, vel - 0.1 * pos
    return np.sum(pos**2) + np.sum(vel)


def tuple_of_number_and_array_loop(x):
    state = (1.0, x)
    for _ in range(3):
        c, v = state
        state = (c * 0.5 + np.sum(v), np.sin(v))
    return state[0] + np.sum(state[1])


# ---- dicts of parameters -----------------------------------------------------------------------------


def mlp_dict(params, X):
    h = np.tanh(X @ params["W1"] + params["b1"])
    out = h @ params["w2"]
    return np.mean(out**2)


def dict_in_loop(params, x):
    y = x
    for _ in range(3):
        y = np.tanh(params["a"] * y + params["b"])
    return np.sum(y**2)


# ---- arrays by array-or-number paths -----------------------------------------------------------------


def array_or_number(x, flag):
    if flag > 0:
        out = x * 2.0
    else:
        out = np.sum(x)
    return np.sum(out)


def returns_on_two_paths(x):
    if x[0] > 0:
        return x**2
    return np.sum(x)


def return_array_or_number(x):
    return np.sum(returns_on_two_paths(x)) + np.sum(returns_on_two_paths(-x))


# ---- misc user code ----------------------------------------------------------------------------------


def softmax_cross_entropy(W, X, labels):
    z = X @ W
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(X.shape[0]), labels])


def pairwise_energy(pos):
    e = 0.0
    n = pos.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            e = e + 1.0 / (np.sum(d * d) + 0.5)
    return e


def polynomial_horner(c, x):
    y = 0.0
    for k in range(c.shape[0]):
        y = y * x + c[k]
    return y


def math_scalar_loop(x):
    s = 0.0
    for k in range(1, 5):
        s += math.sin(k * x) / k + math.exp(-k * x * x)
    return s


def cumulative_product_loop(x):
    p = 1.0
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        p = p * (1.0 + 0.1 * x[i])
        out[i] = p
    return np.sum(out)


def where_and_clip(x):
    y = np.where(x > 0, x**2, 0.1 * x)
    return np.sum(np.clip(y, -1.0, 2.0) * x)


def spring_chain(x, k):
    n = x.shape[0]
    e = 0.0
    for i in range(n - 1):
        stretch = x[i + 1] - x[i] - 1.0
        e = e + 0.5 * k[i] * stretch**2
    return e


def mean_of_list_of_losses(w, X, y):
    losses = []
    for i in range(X.shape[0]):
        losses.append((X[i] @ w - y[i]) ** 2)
    return np.mean(np.array(losses))


def kwargs_scale(x, scale=2.0):
    return np.sum(np.exp(-scale * x**2))


def argsort_gather(x):
    order = np.argsort(x)
    return np.sum(x[order] * np.arange(x.shape[0]))


def running_max_loop(x):
    m = x[0]
    total = 0.0
    for i in range(1, x.shape[0]):
        m = max(m, x[i])
        total = total + m * x[i]
    return total


def _v(r, *shape):
    return r.normal(size=shape)


PROGRAMS = [
    ("rnn_helper_loop", rnn_helper_loop, lambda r: (0.5 * _v(r, 3, 3), _v(r, 3), _v(r, 4)), 0),
    ("euler_helper", euler_helper, lambda r: (_v(r, 3), 0.7), 0),
    ("euler_helper_k", euler_helper, lambda r: (_v(r, 3), 0.7), 1),
    ("helper_in_while", helper_in_while, lambda r: (_v(r, 5),), 0),
    ("while_until_small", while_until_small, lambda r: (_v(r, 3),), 0),
    ("list_of_arrays_stacked", list_of_arrays_stacked, lambda r: (_v(r, 4),), 0),
    ("list_of_numbers_summed", list_of_numbers_summed, lambda r: (_v(r, 5),), 0),
    ("list_comprehension_norms", list_comprehension_norms, lambda r: (_v(r, 3, 2),), 0),
    ("list_of_mixed_in_loop", list_of_mixed_in_loop, lambda r: (_v(r, 4),), 0),
    ("list_carried_with_an_untold_item", list_carried_with_an_untold_item, lambda r: (0.3 * _v(r, 3),), 0),
    ("list_of_arrays_and_floats_in_loop", list_of_arrays_and_floats_in_loop, lambda r: (_v(r, 3),), 0),
    ("fancy_literal_list", fancy_literal_list, lambda r: (_v(r, 5),), 0),
    ("fancy_np_array_literal", fancy_np_array_literal, lambda r: (_v(r, 4),), 0),
    ("fancy_index_argument", fancy_index_argument, lambda r: (_v(r, 5), np.array([4, 0, 4, 2])), 0),
    ("fancy_rows_of_matrix", fancy_rows_of_matrix, lambda r: (_v(r, 3, 2),), 0),
    ("fancy_rows_index_argument", fancy_rows_index_argument, lambda r: (_v(r, 4, 2), np.array([1, 3, 1])), 0),
    ("fancy_in_loop", fancy_in_loop, lambda r: (_v(r, 5), np.array([0, 3])), 0),
    ("fancy_in_helper", fancy_in_helper, lambda r: (_v(r, 4),), 0),
    ("fancy_column_pick", fancy_column_pick, lambda r: (_v(r, 2, 3),), 0),
    ("fancy_two_arrays", fancy_two_arrays, lambda r: (_v(r, 3, 3), np.array([0, 2, 1]), np.array([1, 1, 0])), 0),
    ("float32_loop_matmul", float32_loop_matmul, lambda r: (_v(r, 2, 3), 0.3 * _v(r, 3, 3)), 0),
    ("float32_scaled_product", float32_scaled_product, lambda r: (_v(r, 2, 3), 0.3 * _v(r, 3, 3)), 0),
    ("gradient_descent_inner", gradient_descent_inner, lambda r: (_v(r, 3), _v(r, 6, 3), _v(r, 6)), 0),
    ("tuple_helper", tuple_helper, lambda r: (_v(r, 3),), 0),
    ("tuple_state_loop", tuple_state_loop, lambda r: (_v(r, 4),), 0),
    ("tuple_of_number_and_array_loop", tuple_of_number_and_array_loop, lambda r: (_v(r, 3),), 0),
    ("mlp_dict", mlp_dict, lambda r: ({"W1": _v(r, 3, 4), "b1": _v(r, 4), "w2": _v(r, 4)}, _v(r, 5, 3)), 0),
    ("dict_in_loop", dict_in_loop, lambda r: ({"a": 0.8, "b": _v(r, 3)}, _v(r, 3)), 0),
    ("array_or_number", array_or_number, lambda r: (_v(r, 3), 1.0), 0),
    ("return_array_or_number", return_array_or_number, lambda r: (np.abs(_v(r, 3)) + 0.1,), 0),
    (
        "softmax_cross_entropy",
        softmax_cross_entropy,
        lambda r: (_v(r, 3, 4), _v(r, 5, 3), np.array([0, 3, 1, 1, 2])),
        0,
    ),
    ("pairwise_energy", pairwise_energy, lambda r: (_v(r, 4, 2),), 0),
    ("polynomial_horner", polynomial_horner, lambda r: (_v(r, 4), 0.7), 0),
    ("polynomial_horner_x", polynomial_horner, lambda r: (_v(r, 4), 0.7), 1),
    ("math_scalar_loop", math_scalar_loop, lambda r: (0.4,), 0),
    ("cumulative_product_loop", cumulative_product_loop, lambda r: (_v(r, 4),), 0),
    ("where_and_clip", where_and_clip, lambda r: (np.array([0.3, -0.6, 1.7, 0.9]),), 0),
    ("spring_chain", spring_chain, lambda r: (np.arange(4.0) * 1.2 + 0.1 * _v(r, 4), np.abs(_v(r, 3)) + 0.5), 0),
    ("mean_of_list_of_losses", mean_of_list_of_losses, lambda r: (_v(r, 3), _v(r, 4, 3), _v(r, 4)), 0),
    ("kwargs_scale", kwargs_scale, lambda r: (_v(r, 3),), 0),
    ("argsort_gather", argsort_gather, lambda r: (_v(r, 4),), 0),
    ("running_max_loop", running_max_loop, lambda r: (np.array([0.3, 1.2, -0.5, 2.0, 0.7]),), 0),
]
